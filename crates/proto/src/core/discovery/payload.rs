//! Shared plumbing of the discovery bodies: PL_CDR payload decode/encode with the error
//! mapping, the bounded locator lists, and the key-only payload and inline QoS used when a
//! discovered participant or endpoint is disposed or unregistered.
//!
//! Must not: interpret QoS or know which body a parameter belongs to; panic; or keep more than
//! [`MAX_LOCATORS`] locators of one kind.
//!
//! RTPS 2.5 §9.6.2.2.1 (unknown and must-understand PIDs), §10.2 (PL_CDR encapsulation),
//! §9.6.4.8 (PID_KEY_HASH), §9.6.4.9 (PID_STATUS_INFO); Fast DDS 2.9 key-payload quirk facts
//! §5.7.

use super::DiscoveryError;
use crate::cdr::{CdrReader, Endianness};
use crate::wire::plist::pid::{
    PID_ADLINK_ENDPOINT_GUID, PID_ENDPOINT_GUID, PID_KEY_HASH, PID_PARTICIPANT_GUID,
    PID_STATUS_INFO,
};
use crate::wire::plist::{
    ListOutcome, Parameter, Value, decode_parameter_list, parse_pl_cdr_payload,
    serialize_pl_cdr_payload,
};
use crate::wire::{Guid, Locator, VendorId};

/// The most locators of one kind (unicast, multicast, ...) kept per entity; extra ones are
/// dropped. Cyclone and Fast DDS announce one per interface.
pub const MAX_LOCATORS: usize = 16;
/// StatusInfo_t flag D: the instance was disposed. RTPS 2.5 §9.6.4.9.
pub const STATUS_INFO_DISPOSED: u32 = 0x01;
/// StatusInfo_t flag U: the instance was unregistered. RTPS 2.5 §9.6.4.9.
pub const STATUS_INFO_UNREGISTERED: u32 = 0x02;

/// Decodes a PL_CDR discovery payload sent by `vendor` into its parameters.
pub(super) fn decode(
    payload: &[u8],
    vendor: VendorId,
) -> Result<Vec<Parameter<'_>>, DiscoveryError> {
    let view = parse_pl_cdr_payload(payload)?;
    match decode_parameter_list(&view, vendor)? {
        ListOutcome::Accept(params) => Ok(params),
        ListOutcome::NotUnderstood(pid) => Err(DiscoveryError::NotUnderstood(pid)),
    }
}

/// Writes the PL_CDR encapsulation, `params` and the sentinel.
pub(super) fn encode(
    params: &[Parameter<'_>],
    endian: Endianness,
) -> Result<Vec<u8>, DiscoveryError> {
    Ok(serialize_pl_cdr_payload(params, endian)?)
}

/// A known parameter.
pub(super) fn known(pid: u16, value: Value<'_>) -> Parameter<'_> {
    Parameter::Known { pid, value }
}

/// Appends `l` unless `list` already holds [`MAX_LOCATORS`] locators.
pub(super) fn push_locator(list: &mut Vec<Locator>, l: Locator) {
    if list.len() < MAX_LOCATORS {
        list.push(l);
    }
}

/// One locator parameter per entry of `list`.
pub(super) fn locator_params<'a>(out: &mut Vec<Parameter<'a>>, pid: u16, list: &[Locator]) {
    out.extend(list.iter().map(|l| known(pid, Value::Locator(*l))));
}

/// The GUID whose 16 octets are `k` (a key hash of a discovered entity is its GUID).
pub(super) fn guid_from_key_hash(k: &[u8; 16]) -> Result<Guid, DiscoveryError> {
    let mut r = CdrReader::new(k, Endianness::Big);
    Guid::parse(&mut r).map_err(|e| DiscoveryError::Wire(e.into()))
}

/// A key-only PL_CDR payload for a DATA with the K flag: one parameter `pid`
/// (PID_PARTICIPANT_GUID for SPDP, PID_ENDPOINT_GUID for SEDP) holding `guid`, and the
/// sentinel. It is 28 bytes, above the 16 under which Fast DDS 2.9 mistakes a key payload for
/// the instance handle (docs/interop-facts.md §5.7).
pub fn key_payload(pid: u16, guid: Guid, endian: Endianness) -> Result<Vec<u8>, DiscoveryError> {
    encode(&[known(pid, Value::Guid(guid))], endian)
}

/// The inline QoS of a DATA that disposes and/or unregisters a discovered entity: PID_KEY_HASH
/// (the entity's GUID octets) and PID_STATUS_INFO with `status` (a combination of
/// [`STATUS_INFO_DISPOSED`] and [`STATUS_INFO_UNREGISTERED`]). Fast DDS 2.9 needs both inline
/// (docs/interop-facts.md §5.7). Emit with [`crate::wire::plist::emit_parameter_list`].
pub fn disposal_inline_qos(key_hash: [u8; 16], status: u32) -> [Parameter<'static>; 2] {
    [
        known(PID_KEY_HASH, Value::KeyHash(key_hash)),
        known(PID_STATUS_INFO, Value::StatusInfo(status)),
    ]
}

/// The GUID named by a key-only (or full) discovery payload: PID_PARTICIPANT_GUID,
/// PID_ENDPOINT_GUID, Cyclone's PID_ADLINK_ENDPOINT_GUID, or else PID_KEY_HASH (as Fast DDS
/// sends in its key payloads). An endpoint GUID wins over a participant GUID.
pub fn key_from_payload(payload: &[u8], vendor: VendorId) -> Result<Guid, DiscoveryError> {
    let params = decode(payload, vendor)?;
    let (mut endpoint, mut participant, mut hash) = (None, None, None);
    for p in &params {
        match (p.pid(), p.value()) {
            (PID_ENDPOINT_GUID | PID_ADLINK_ENDPOINT_GUID, Some(Value::Guid(g))) => {
                endpoint = Some(*g);
            }
            (PID_PARTICIPANT_GUID, Some(Value::Guid(g))) => participant = Some(*g),
            (PID_KEY_HASH, Some(Value::KeyHash(k))) => hash = Some(*k),
            _ => {}
        }
    }
    if let Some(g) = endpoint.or(participant) {
        return Ok(g);
    }
    match hash {
        Some(k) => guid_from_key_hash(&k),
        None => Err(DiscoveryError::Missing("key (GUID or PID_KEY_HASH)")),
    }
}

#[cfg(test)]
mod tests;
