//! Walking a parameter list without interpreting values.
//!
//! Must not: interpret parameter values (that is the PID table's job) or allocate.
//!
//! RTPS 2.5 §9.4.2.11.

use super::{MAX_PARAMS, PID_PAD, PID_SENTINEL};
use crate::cdr::{CdrReader, Endianness};
use crate::wire::WireError;

/// One parameter as found on the wire: its id and its value bytes (length from the header).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RawParameter<'a> {
    /// parameterId, including the must-understand and vendor bits.
    pub pid: u16,
    /// The value bytes (the parameter's `length` octets).
    pub value: &'a [u8],
}

/// A validated parameter list: every parameter header is in bounds, the count is within
/// [`MAX_PARAMS`] and the list ends with PID_SENTINEL. Borrowed; the only constructor is
/// [`ParameterListView::new_checked`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ParameterListView<'a> {
    /// The parameters, from the first header up to (not including) the sentinel.
    bytes: &'a [u8],
    endian: Endianness,
}

impl<'a> ParameterListView<'a> {
    /// The view of `bytes` (parameters, no sentinel) that [`Self::new_checked`] returned
    /// before for the same bytes: a sender that re-uses one list it encoded on many
    /// submessages checks it once. Accessors stay bounded whatever the bytes.
    pub(crate) fn prevalidated(bytes: &'a [u8], endian: Endianness) -> Self {
        ParameterListView { bytes, endian }
    }

    /// Validates the list at the cursor and consumes it, sentinel included.
    ///
    /// Errors: a parameter running past the end, a missing sentinel, or too many parameters.
    pub fn new_checked(r: &mut CdrReader<'a>) -> Result<Self, WireError> {
        let start = r.rest();
        let endian = r.endian();
        // Walked on the slice (once per received DATA with inline QoS); the cursor is moved
        // past the list at the end.
        let mut rest = start;
        let mut count = 0usize;
        loop {
            let (pid, len, after) = header(rest, endian)?;
            if pid == PID_SENTINEL {
                // The sentinel's length is ignored (RTPS 2.5 §9.4.2.11); its 4 header bytes end
                // the list.
                let body_len = start.len().saturating_sub(rest.len());
                let bytes = start
                    .get(..body_len)
                    .ok_or(WireError::Truncated("parameter list"))?;
                r.skip(body_len.saturating_add(HEADER_LEN), "parameter list")?;
                return Ok(ParameterListView { bytes, endian });
            }
            // RTPS 2.5 §9.4.2.11: the length keeps the next parameter 4-aligned, so it is a
            // multiple of 4 (Cyclone and Wireshark reject other lengths too). Found by fuzzing:
            // accepting it made a list that cannot be re-emitted faithfully.
            if len % 4 != 0 {
                return Err(WireError::Invalid("parameter length (not a multiple of 4)"));
            }
            rest = after
                .get(len..)
                .ok_or(WireError::Truncated("parameter value"))?;
            count = count.saturating_add(1);
            if count > MAX_PARAMS {
                return Err(WireError::TooLarge("parameter count"));
            }
        }
    }

    /// The byte order of the values.
    pub fn endian(&self) -> Endianness {
        self.endian
    }

    /// The raw bytes of the parameters (without the sentinel).
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Iterates the parameters in order, skipping PID_PAD.
    pub fn iter(&self) -> RawParameters<'a> {
        RawParameters {
            rest: self.bytes,
            endian: self.endian,
        }
    }

    /// The first parameter with this id (ignoring the vendor and must-understand bits only if
    /// they are part of `pid`).
    pub fn find(&self, pid: u16) -> Option<RawParameter<'a>> {
        self.iter().find(|p| p.pid == pid)
    }
}

/// Octets of a parameter header (parameterId, length).
const HEADER_LEN: usize = 4;

/// The parameter header at the start of `b`: (parameterId, length, the bytes after the
/// header), both fields in the list's byte order. RTPS 2.5 §9.4.2.11.
fn header(b: &[u8], endian: Endianness) -> Result<(u16, usize, &[u8]), WireError> {
    let ([p0, p1], after) = b
        .split_first_chunk::<2>()
        .map(|(h, a)| (*h, a))
        .ok_or(WireError::Truncated("parameterId"))?;
    let ([l0, l1], after) = after
        .split_first_chunk::<2>()
        .map(|(h, a)| (*h, a))
        .ok_or(WireError::Truncated("parameter length"))?;
    let (pid, len) = match endian {
        Endianness::Big => (u16::from_be_bytes([p0, p1]), u16::from_be_bytes([l0, l1])),
        Endianness::Little => (u16::from_le_bytes([p0, p1]), u16::from_le_bytes([l0, l1])),
    };
    Ok((pid, usize::from(len), after))
}

/// Iterator over a validated list. Validation guarantees every header and value is in bounds.
#[derive(Clone, Debug)]
pub struct RawParameters<'a> {
    rest: &'a [u8],
    endian: Endianness,
}

impl<'a> Iterator for RawParameters<'a> {
    type Item = RawParameter<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (pid, len, after) = header(self.rest, self.endian).ok()?;
            let value = after.get(..len)?;
            self.rest = after.get(len..)?;
            if pid != PID_PAD {
                return Some(RawParameter { pid, value });
            }
        }
    }
}

#[cfg(test)]
mod tests;
