//! Parameter lists (PL_CDR): the container for inline QoS and for SPDP/SEDP discovery data.
//!
//! Must not: allocate per parameter while walking, accept more than [`MAX_PARAMS`] parameters,
//! or panic on any input.
//!
//! RTPS 2.5 §9.4.2.11: each parameter is {uint16 parameterId, uint16 length, octet[length]};
//! length is a multiple of 4 and counts the bytes after the header; PID_SENTINEL (0x0001)
//! terminates the list and its length is ignored. PID_PAD (0x0000) is skipped.

mod raw;

pub use raw::{ParameterListView, RawParameter, RawParameters};

/// PID_PAD. RTPS 2.5 Table 9.13.
pub const PID_PAD: u16 = 0x0000;
/// PID_SENTINEL. RTPS 2.5 Table 9.13.
pub const PID_SENTINEL: u16 = 0x0001;
/// Bit 14 of a parameter id: the receiver must understand it or reject the list.
/// RTPS 2.5 §9.6.2.2.1.
pub const PID_FLAG_MUST_UNDERSTAND: u16 = 0x4000;
/// Bit 15 of a parameter id: vendor-specific, meaningful only with the sender's VendorId.
pub const PID_FLAG_VENDOR_SPECIFIC: u16 = 0x8000;

/// The most parameters we accept in one list. Real SPDP/SEDP data carries ~30.
pub const MAX_PARAMS: usize = 512;
