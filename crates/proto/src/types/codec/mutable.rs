//! Mutable types (DDS-XTypes 1.3 §7.4.3.5.3): XCDR2 PL_CDR2 — a DHEADER, then per member an
//! EMHEADER (must-understand flag, length code, member id; §7.4.3.4.8) — and XCDR1 PL_CDR
//! (§7.4.1.2) — PID_EXTENDED parameter headers and PID_LIST_END. Readers accept members in
//! any order, every length code and the short parameter form; they skip unknown members
//! unless must-understand.
//!
//! Must not: trust a length before checking the bytes are there, or panic.

use super::{CdrError, CdrReader, CdrWriter, XcdrVersion, delimited, len_u32, read_delimited};

/// PL_CDR `PID_EXTENDED` with the must-understand flag, as Cyclone writes it (§7.4.1.2).
pub(super) const PID_EXTENDED_MU: u16 = 0x3F01 | 0x4000;
/// PL_CDR `PID_LIST_END` with the must-understand flag.
const PID_LIST_END_MU: u16 = 0x3F02 | 0x4000;
const PID_MASK: u16 = 0x3FFF;
const PID_EXTENDED: u16 = 0x3F01;
const PID_LIST_END: u16 = 0x3F02;
const PID_IGNORE: u16 = 0x3F03;
/// Member ids are 28 bits (§7.3.1.2.1.1).
pub(super) const MEMBER_ID_MASK: u32 = 0x0FFF_FFFF;

/// Reads an XCDR1 parameter header: (pid or extended member id, length, must-understand).
pub(crate) fn parameter_header(r: &mut CdrReader<'_>) -> Result<(u32, usize, bool), CdrError> {
    r.align(4, "parameter header")?;
    let pid = r.u16("parameter id")?;
    let short_len = r.u16("parameter length")?;
    let mu = pid & 0x4000 != 0;
    if pid & PID_MASK == PID_EXTENDED {
        let id = r.u32("extended parameter id")?;
        let len = r.u32("extended parameter length")?;
        let len = usize::try_from(len).map_err(|_| CdrError::TooLarge("parameter length"))?;
        return Ok((id & MEMBER_ID_MASK, len, mu || id & 0x4000_0000 != 0));
    }
    Ok((u32::from(pid & PID_MASK), usize::from(short_len), mu))
}

/// The length code of an EMHEADER (DDS-XTypes 1.3 §7.4.3.4.8, Table 37).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LengthCode {
    /// LC 0: one byte follows.
    Size1,
    /// LC 1: two bytes.
    Size2,
    /// LC 2: four bytes.
    Size4,
    /// LC 3: eight bytes.
    Size8,
    /// LC 4: a NEXTINT with the length, then the value.
    NextInt,
    /// LC 5: the value starts with a u32 N (a length or DHEADER); it is 4 + N bytes long.
    DualUse1,
    /// LC 6: as LC 5, 4 + 4·N bytes.
    DualUse4,
    /// LC 7: as LC 5, 4 + 8·N bytes.
    DualUse8,
}

impl LengthCode {
    fn bits(self) -> u32 {
        match self {
            LengthCode::Size1 => 0,
            LengthCode::Size2 => 1,
            LengthCode::Size4 => 2,
            LengthCode::Size8 => 3,
            LengthCode::NextInt => 4,
            LengthCode::DualUse1 => 5,
            LengthCode::DualUse4 => 6,
            LengthCode::DualUse8 => 7,
        }
    }
}

/// Writes the members of a mutable type, one [`MutableWriter::member`] call each.
pub struct MutableWriter<'w, 'b> {
    w: &'w mut CdrWriter<'b>,
}

impl MutableWriter<'_, '_> {
    /// One member: XCDR2 EMHEADER (+ NEXTINT for LC 4) then the value; XCDR1 a PID_EXTENDED
    /// header with the value's length padded to 4, the value aligned from its own start.
    pub fn member(
        &mut self,
        id: u32,
        must_understand: bool,
        lc: LengthCode,
        body: impl FnOnce(&mut CdrWriter<'_>) -> Result<(), CdrError>,
    ) -> Result<(), CdrError> {
        let w = &mut *self.w;
        w.align(4);
        match w.xcdr() {
            XcdrVersion::Xcdr2 => {
                let m = if must_understand { 0x8000_0000 } else { 0 };
                w.u32(m | (lc.bits() << 28) | (id & MEMBER_ID_MASK));
                if lc == LengthCode::NextInt {
                    let at = w.offset();
                    w.u32(0);
                    let start = w.position();
                    body(w)?;
                    let len = len_u32(w.position().saturating_sub(start), "member")?;
                    w.patch_u32(at, len);
                    Ok(())
                } else {
                    body(w)
                }
            }
            XcdrVersion::Xcdr1 => {
                w.u16(PID_EXTENDED_MU);
                w.u16(8);
                let m = if must_understand { 0x4000_0000 } else { 0 };
                w.u32(m | (id & MEMBER_ID_MASK));
                let at = w.offset();
                w.u32(0);
                let len = {
                    let mut inner = w.nested();
                    body(&mut inner)?;
                    inner.align(4);
                    inner.position()
                };
                w.patch_u32(at, len_u32(len, "member")?);
                Ok(())
            }
        }
    }
}

/// The body of a mutable type: XCDR2 PL_CDR2 (DHEADER + EMHEADER members), XCDR1 PL_CDR
/// (parameters + PID_LIST_END).
pub fn write_mutable(
    w: &mut CdrWriter<'_>,
    members: impl FnOnce(&mut MutableWriter<'_, '_>) -> Result<(), CdrError>,
) -> Result<(), CdrError> {
    match w.xcdr() {
        XcdrVersion::Xcdr2 => delimited(w, |w| members(&mut MutableWriter { w })),
        XcdrVersion::Xcdr1 => {
            members(&mut MutableWriter { w: &mut *w })?;
            w.align(4);
            w.u16(PID_LIST_END_MU);
            w.u16(0);
            Ok(())
        }
    }
}

/// Reads the members of a mutable type in any order, calling `member(id, value)` for each;
/// it returns false for ids it does not know, which are skipped unless must-understand.
pub fn read_mutable(
    r: &mut CdrReader<'_>,
    mut member: impl FnMut(u32, &mut CdrReader<'_>) -> Result<bool, CdrError>,
) -> Result<(), CdrError> {
    match r.xcdr() {
        XcdrVersion::Xcdr2 => read_delimited(r, |r| {
            loop {
                // The body ends right after its last member, which may leave it unaligned.
                if r.is_empty() {
                    return Ok(());
                }
                r.align(4, "EMHEADER")?;
                let h = r.u32("EMHEADER")?;
                let id = h & MEMBER_ID_MASK;
                let len = match (h >> 28) & 7 {
                    0 => 1,
                    1 => 2,
                    2 => 4,
                    3 => 8,
                    4 => usize::try_from(r.u32("NEXTINT")?)
                        .map_err(|_| CdrError::TooLarge("NEXTINT"))?,
                    lc => {
                        let n = usize::try_from(r.clone().u32("NEXTINT")?)
                            .map_err(|_| CdrError::TooLarge("NEXTINT"))?;
                        let unit = match lc {
                            5 => 1,
                            6 => 4,
                            _ => 8,
                        };
                        n.checked_mul(unit)
                            .and_then(|b| b.checked_add(4))
                            .ok_or(CdrError::TooLarge("NEXTINT"))?
                    }
                };
                let mut value = r.sub(len, "member value")?;
                if !member(id, &mut value)? && h & 0x8000_0000 != 0 {
                    return Err(CdrError::Invalid("unknown must-understand member"));
                }
            }
        }),
        XcdrVersion::Xcdr1 => loop {
            r.align(4, "parameter header")?;
            let pid = r.clone().u16("parameter id")?;
            if pid & PID_MASK == PID_LIST_END {
                r.skip(4, "PID_LIST_END")?;
                return Ok(());
            }
            let (id, len, mu) = parameter_header(r)?;
            let mut value = r.sub(len, "member value")?;
            if pid & PID_MASK == PID_IGNORE {
                continue;
            }
            if !member(id, &mut value)? && mu {
                return Err(CdrError::Invalid("unknown must-understand member"));
            }
        },
    }
}
