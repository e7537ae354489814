//! CDR: the byte order, alignment and size rules shared by RTPS submessages, discovery
//! parameter lists (PL_CDR) and user payloads (XCDR1 now; XCDR2 beside it later).
//!
//! Must not: allocate from a length read off the wire before checking that the bytes are
//! there, panic on any input, or know anything about RTPS. It is a leaf: it imports nothing
//! from the rest of the crate.
//!
//! OMG CDR (CORBA 3.4 Part 2 §9.3), DDS-XTypes 1.3 §7.4.3 (XCDR1/XCDR2), RTPS 2.5 §10
//! (encapsulation header).
mod cursor;
mod encapsulation;
mod xcdr;

pub use cursor::{CdrReader, CdrWriter, XcdrVersion};
pub use encapsulation::{EncapsulationHeader, EncapsulationKind};
pub use xcdr::{CdrDecode, CdrEncode, deserialize_payload, serialize_payload};

/// Byte order of a CDR stream or an RTPS submessage.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Endianness {
    /// Most significant byte first.
    Big,
    /// Least significant byte first.
    Little,
}

impl Endianness {
    /// The byte order of the machine we run on.
    pub const NATIVE: Endianness = if cfg!(target_endian = "little") {
        Endianness::Little
    } else {
        Endianness::Big
    };

    /// RTPS 2.5 §9.4.5.1.1: the E flag of a submessage; set means little-endian.
    pub fn from_e_flag(flags: u8) -> Self {
        if flags & 0x01 != 0 {
            Endianness::Little
        } else {
            Endianness::Big
        }
    }

    /// The E flag bit for this byte order.
    pub fn e_flag(self) -> u8 {
        match self {
            Endianness::Big => 0,
            Endianness::Little => 1,
        }
    }
}

/// Upper bound on any CDR string we accept (bytes including the NUL). Discovery strings are
/// far shorter; user strings longer than this need an explicit bound in the type.
pub const MAX_STRING: usize = 64 * 1024;

/// What went wrong while reading CDR. Context strings name the field being read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CdrError {
    /// The input ended before `context` was complete.
    Truncated(&'static str),
    /// A value is out of the range the format allows (bad length, missing NUL, bad bool...).
    Invalid(&'static str),
    /// A length exceeds one of our named limits.
    TooLarge(&'static str),
}

impl core::fmt::Display for CdrError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CdrError::Truncated(what) => write!(f, "truncated while reading {what}"),
            CdrError::Invalid(what) => write!(f, "invalid {what}"),
            CdrError::TooLarge(what) => write!(f, "{what} exceeds its limit"),
        }
    }
}

impl std::error::Error for CdrError {}
