//! The 4-byte encapsulation header in front of every serialized payload.
//!
//! Must not: interpret the options field beyond what XTypes defines, or panic.
//!
//! RTPS 2.5 §10.2 and DDS-XTypes 1.3 §7.6.3.1.2. Identifiers as used by every implementation
//! (docs/interop-facts.md §5.5): RTPS 2.5 Table 10.3's 0x0010.. values for CDR2 are an erratum.

use super::{CdrError, CdrReader, CdrWriter, Endianness, XcdrVersion};

/// The representation identifier of a serialized payload.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EncapsulationKind {
    /// CDR_BE / CDR_LE: XCDR1 plain CDR.
    Cdr,
    /// PL_CDR_BE / PL_CDR_LE: XCDR1 parameter list (discovery data, mutable types).
    PlCdr,
    /// CDR2_BE / CDR2_LE: XCDR2 plain (final types).
    Cdr2,
    /// D_CDR2_BE / D_CDR2_LE: XCDR2 delimited (appendable types).
    DCdr2,
    /// PL_CDR2_BE / PL_CDR2_LE: XCDR2 parameter list (mutable types).
    PlCdr2,
    /// CDR_XML.
    Xml,
}

/// A decoded encapsulation header.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EncapsulationHeader {
    /// Which representation follows.
    pub kind: EncapsulationKind,
    /// Byte order of what follows (XML has none; reported as big-endian).
    pub endian: Endianness,
    /// The two option octets (XTypes: low two bits of the last octet = trailing padding).
    pub options: u16,
}

impl EncapsulationHeader {
    /// Size on the wire.
    pub const LEN: usize = 4;

    /// A header with zero options.
    pub fn new(kind: EncapsulationKind, endian: Endianness) -> Self {
        EncapsulationHeader {
            kind,
            endian,
            options: 0,
        }
    }

    /// The 16-bit identifier (docs/interop-facts.md §5.5).
    pub fn id(&self) -> u16 {
        let le = u16::from(self.endian == Endianness::Little);
        match self.kind {
            EncapsulationKind::Cdr => le,
            EncapsulationKind::PlCdr => 0x0002 | le,
            EncapsulationKind::Xml => 0x0004,
            EncapsulationKind::Cdr2 => 0x0006 | le,
            EncapsulationKind::DCdr2 => 0x0008 | le,
            EncapsulationKind::PlCdr2 => 0x000a | le,
        }
    }

    /// Parses the identifier and options (the identifier is always big-endian on the wire).
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        let id = u16::from_be_bytes(r.take_array::<2>("encapsulation id")?);
        let options = u16::from_be_bytes(r.take_array::<2>("encapsulation options")?);
        let endian = if id & 1 == 1 {
            Endianness::Little
        } else {
            Endianness::Big
        };
        let kind = match id & !1 {
            0x0000 => EncapsulationKind::Cdr,
            0x0002 => EncapsulationKind::PlCdr,
            0x0004 if id == 0x0004 => EncapsulationKind::Xml,
            0x0006 => EncapsulationKind::Cdr2,
            0x0008 => EncapsulationKind::DCdr2,
            0x000a => EncapsulationKind::PlCdr2,
            _ => return Err(CdrError::Invalid("encapsulation id")),
        };
        Ok(EncapsulationHeader {
            kind,
            endian,
            options,
        })
    }

    /// Parses the header at the start of a serialized payload and returns a cursor over the
    /// body: without the trailing padding the options count (their low two bits, DDS-XTypes
    /// 1.3 §7.6.3.1.2), in the header's byte order, following XCDR2 alignment for the XCDR2
    /// kinds (CDR2, D_CDR2, PL_CDR2) and XCDR1 otherwise.
    pub fn body(payload: &[u8]) -> Result<(Self, CdrReader<'_>), CdrError> {
        let mut r = CdrReader::new(payload, Endianness::Big);
        let header = Self::parse(&mut r)?;
        let body = r.rest();
        let pad = usize::from(header.options & 3);
        let body = body.get(..body.len().saturating_sub(pad)).unwrap_or(body);
        let mut r = CdrReader::new(body, header.endian);
        r.set_xcdr(match header.kind {
            EncapsulationKind::Cdr2 | EncapsulationKind::DCdr2 | EncapsulationKind::PlCdr2 => {
                XcdrVersion::Xcdr2
            }
            EncapsulationKind::Cdr | EncapsulationKind::PlCdr | EncapsulationKind::Xml => {
                XcdrVersion::Xcdr1
            }
        });
        Ok((header, r))
    }

    /// Writes the header (identifier and options big-endian).
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.bytes(&self.id().to_be_bytes());
        w.bytes(&self.options.to_be_bytes());
    }
}

#[cfg(test)]
mod tests;
