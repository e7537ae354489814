//! The one error type of the wire layer.
//!
//! Must not: carry heap data or I/O errors; a wire error is a value describing what in the
//! bytes was wrong, with a static context naming the field.

use crate::cdr::CdrError;

/// Why a message, submessage or parameter could not be decoded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// The bytes ended before the named field was complete.
    Truncated(&'static str),
    /// A field holds a value the specification forbids.
    Invalid(&'static str),
    /// A count or length exceeds one of our named limits.
    TooLarge(&'static str),
}

impl core::fmt::Display for WireError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            WireError::Truncated(what) => write!(f, "truncated {what}"),
            WireError::Invalid(what) => write!(f, "invalid {what}"),
            WireError::TooLarge(what) => write!(f, "{what} exceeds its limit"),
        }
    }
}

impl std::error::Error for WireError {}

impl From<CdrError> for WireError {
    fn from(e: CdrError) -> Self {
        match e {
            CdrError::Truncated(w) => WireError::Truncated(w),
            CdrError::Invalid(w) => WireError::Invalid(w),
            CdrError::TooLarge(w) => WireError::TooLarge(w),
        }
    }
}
