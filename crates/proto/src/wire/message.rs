//! A whole RTPS message: the header followed by submessages.
//!
//! Must not: keep receiver state (INFO_* interpretation belongs to core), panic on any input,
//! or allocate while parsing (submessages are yielded lazily by [`SubmessageIter`]).
//!
//! RTPS 2.5 §8.3.3 (message structure), §8.3.4 (receiver rules), §9.4.4-§9.4.5.

use crate::cdr::CdrReader;
use crate::cdr::Endianness;
use crate::wire::submessage::{Submessage, SubmessageIter};
use crate::wire::{Header, WireError};

/// A message to send (or one collected from a parse): header plus submessages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    /// The message header.
    pub header: Header,
    /// The submessages in order.
    pub submessages: Vec<Submessage<'a>>,
}

impl<'a> Message<'a> {
    /// Parses the header and returns an iterator over the submessages. An error means the
    /// whole datagram is dropped (not RTPS, wrong major version, or shorter than a header).
    pub fn parse(bytes: &'a [u8]) -> Result<(Header, SubmessageIter<'a>), WireError> {
        let mut r = CdrReader::new(bytes, Endianness::Big);
        let header = Header::parse(&mut r)?;
        Ok((header, SubmessageIter::new(r.rest())))
    }

    /// Encoded size.
    pub fn buffer_len(&self) -> usize {
        self.submessages
            .iter()
            .fold(Header::LEN, |n, s| n.saturating_add(s.buffer_len()))
    }

    /// Appends the header and every submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        emit_message(&self.header, &self.submessages, buf);
    }
}

/// Appends `header` and then each of `submessages` to `buf`.
pub fn emit_message(header: &Header, submessages: &[Submessage<'_>], buf: &mut Vec<u8>) {
    let start = buf.len();
    header.emit(buf);
    for s in submessages {
        s.emit(buf);
    }
    debug_assert_eq!(
        buf.len().saturating_sub(start),
        submessages
            .iter()
            .fold(Header::LEN, |n, s| n.saturating_add(s.buffer_len()))
    );
}
