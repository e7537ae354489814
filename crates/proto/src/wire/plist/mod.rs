//! Parameter lists (PL_CDR): the container for inline QoS and for SPDP/SEDP discovery data,
//! the PID table that gives each parameter a name and a typed value, and the content-filter
//! parameters.
//!
//! Must not: allocate per parameter while walking, accept more than [`MAX_PARAMS`] parameters,
//! or panic on any input.
//!
//! RTPS 2.5 §9.4.2.11: each parameter is {uint16 parameterId, uint16 length, octet\[length\]};
//! length is a multiple of 4 and counts the bytes after the header; PID_SENTINEL (0x0001)
//! terminates the list and its length is ignored. PID_PAD (0x0000) is skipped.
//!
//! Layout: `raw` walks a list without interpreting it; `pid` names the ids; `table` is the one
//! row-per-PID table; `value` decodes/encodes each value shape; `param` decodes whole lists
//! and emits them; `content_filter` holds PID_CONTENT_FILTER_PROPERTY/INFO and signatures; `vendor`
//! the values of siftdds's own vendor PIDs.

mod content_filter;
mod param;
pub mod pid;
mod raw;
mod table;
mod value;
mod vendor;

pub use content_filter::{
    ContentFilterInfo, ContentFilterInfoView, ContentFilterProperty, MAX_FILTER_NAME,
    MAX_FILTER_PARAMETERS, SINGLE_FILTER_INFO_LEN, filter_signature, filter_signature_rti61,
};
pub use param::{
    ListOutcome, ParamOutcome, Parameter, decode_parameter_list, emit_parameter_list,
    parameter_list_len, parse_pl_cdr_payload, serialize_pl_cdr_payload,
};
// The ids the list walker itself needs, also reachable as `plist::PID_*` for existing callers.
pub use pid::{PID_FLAG_MUST_UNDERSTAND, PID_FLAG_VENDOR_SPECIFIC, PID_PAD, PID_SENTINEL};
pub use raw::{ParameterListView, RawParameter, RawParameters};
pub use table::{OnInvalid, PID_TABLE, PidInfo, describe, pid_name};
pub use value::{ReliabilityKind, Value, ValueKind};
pub use vendor::{MAX_ROUTER_PATH, router_path_from_octets, router_path_octets};

/// The most parameters we accept in one list. Real SPDP/SEDP data carries ~30.
pub const MAX_PARAMS: usize = 512;
