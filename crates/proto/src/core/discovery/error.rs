//! The one error type of discovery-data decoding and encoding.
//!
//! Must not: carry heap data or I/O errors. Each variant names what was wrong with a static
//! context, like [`crate::wire::WireError`] (docs/conventions.md §4).

use crate::wire::WireError;

/// Why an SPDP/SEDP payload could not be decoded (or a body could not be encoded).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DiscoveryError {
    /// The bytes are malformed: bad encapsulation, parameter list or parameter value.
    Wire(WireError),
    /// The list holds a must-understand PID (bit 0x4000) we do not know: the entity is
    /// ignored. RTPS 2.5 §9.6.2.2.1.
    NotUnderstood(u16),
    /// A parameter the specification (or the peers we interoperate with) requires is absent.
    Missing(&'static str),
    /// A parameter is present and well-formed but its value is not acceptable here.
    Invalid(&'static str),
    /// A list exceeds one of our named limits.
    TooLarge(&'static str),
}

impl core::fmt::Display for DiscoveryError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DiscoveryError::Wire(e) => write!(f, "malformed discovery data: {e}"),
            DiscoveryError::NotUnderstood(pid) => {
                write!(f, "must-understand parameter 0x{pid:04x} not understood")
            }
            DiscoveryError::Missing(what) => write!(f, "missing {what}"),
            DiscoveryError::Invalid(what) => write!(f, "invalid {what}"),
            DiscoveryError::TooLarge(what) => write!(f, "{what} exceeds its limit"),
        }
    }
}

impl std::error::Error for DiscoveryError {}

impl From<WireError> for DiscoveryError {
    fn from(e: WireError) -> Self {
        DiscoveryError::Wire(e)
    }
}
