//! The TypeLookup service's messages (DDS-XTypes 1.3 §7.6.3.3.4, RPC over DDS): a
//! `TypeLookup_Request` (RequestHeader, `TypeLookup_Call`: getTypes or getTypeDependencies)
//! decoded, a `TypeLookup_Reply` (ReplyHeader, `TypeLookup_Return`) encoded. The layout is
//! the one Cyclone DDS 11 puts on the wire (its `ddsi_xt_typelookup.idl`: final request and
//! reply structs in PLAIN_CDR2, appendable unions, mutable `_In`/`_Out` structs with hashed
//! member ids), checked against a captured Cyclone exchange in the tests.
//!
//! Must not: know about RTPS entities, decode more than [`MAX_REQUEST_TYPE_IDS`] identifiers,
//! or build a reply beyond [`MAX_REPLY_SIZE`] bytes.

use super::{
    MAX_DEPTH, TypeIdentifier, TypeIdentifierWithSize, begin_dheader, dheader, end_dheader,
    xcdr2_writer,
};
use crate::cdr::{CdrError, CdrReader, CdrWriter, Endianness, XcdrVersion};
use crate::types::codec::{LengthCode, read_mutable, write_mutable};

/// `TypeLookup_getTypes_HashId` (`@hashid("getTypes")`).
pub const GET_TYPES_HASH_ID: u32 = 0x0182_52d3;
/// `TypeLookup_getDependencies_HashId` (`@hashid("getDependencies")`).
pub const GET_DEPENDENCIES_HASH_ID: u32 = 0x05aa_fb31;
/// `@hashid` member id of `type_ids` (`TypeLookup_getTypes_In`, `_getTypeDependencies_In`).
pub const MEMBER_TYPE_IDS: u32 = 0x0c53_6065;
/// `@hashid` member id of `types` (`TypeLookup_getTypes_Out`).
pub const MEMBER_TYPES: u32 = 0x0280_4ad1;
/// `@hashid` member id of `complete_to_minimal` (`TypeLookup_getTypes_Out`).
pub const MEMBER_COMPLETE_TO_MINIMAL: u32 = 0x0b8e_6577;
/// `@hashid` member id of `dependent_typeids` (`TypeLookup_getTypeDependencies_Out`).
pub const MEMBER_DEPENDENT_TYPEIDS: u32 = 0x0ba4_dfc9;
/// `@hashid` member id of `continuation_point`.
pub const MEMBER_CONTINUATION_POINT: u32 = 0x0508_e3d2;

/// The most type identifiers taken from one request; the rest are ignored.
pub const MAX_REQUEST_TYPE_IDS: usize = 64;
/// The largest reply built: TypeObjects that would exceed it are left out (the requester
/// asks again for what it still misses).
pub const MAX_REPLY_SIZE: usize = 256 * 1024;
/// `InstanceName` is `string<255>`.
const MAX_INSTANCE_NAME: usize = 256;

/// `SampleIdentity` of the RPC headers: the requester's writer GUID and sequence number.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RequestId {
    /// `writer_guid` (prefix and entity id, 16 octets).
    pub writer_guid: [u8; 16],
    /// `sequence_number.high`.
    pub high: i32,
    /// `sequence_number.low`.
    pub low: u32,
}

/// The operation a request calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeLookupCall {
    /// `getTypes(type_ids)`.
    GetTypes(Vec<TypeIdentifier>),
    /// `getTypeDependencies(type_ids, continuation_point)`.
    GetTypeDependencies(Vec<TypeIdentifier>, Vec<u8>),
}

/// A decoded `TypeLookup_Request`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeLookupRequest {
    /// `header.requestId`, echoed in the reply.
    pub request_id: RequestId,
    /// The call.
    pub call: TypeLookupCall,
}

/// What a reply returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeLookupReturn<'a> {
    /// `getTypes`: (identifier, serialized TypeObject) pairs.
    Types(Vec<(TypeIdentifier, &'a [u8])>),
    /// `getTypeDependencies`: the dependencies and a continuation point (empty: complete).
    Dependencies(Vec<TypeIdentifierWithSize>, Vec<u8>),
}

impl TypeLookupRequest {
    /// Decodes a request payload (encapsulation header included: CDR2 or D_CDR2, either byte
    /// order).
    pub fn from_payload(payload: &[u8]) -> Result<Self, CdrError> {
        const WHAT: &str = "TypeLookup_Request";
        let mut r = CdrReader::new(payload, Endianness::Big);
        let id = r.u16(WHAT)?;
        let _options = r.u16(WHAT)?;
        let endian = match id {
            0x0006 | 0x0008 => Endianness::Big,
            0x0007 | 0x0009 => Endianness::Little,
            _ => return Err(CdrError::Invalid("TypeLookup_Request encapsulation")),
        };
        let mut r = CdrReader::new(r.rest(), endian);
        r.set_xcdr(XcdrVersion::Xcdr2);
        let request_id = RequestId {
            writer_guid: r.take_array(WHAT)?,
            high: r.i32(WHAT)?,
            low: r.u32(WHAT)?,
        };
        r.string(MAX_INSTANCE_NAME, "instanceName")?;
        let mut call = dheader(&mut r, "TypeLookup_Call")?;
        let call = match call.u32(WHAT)? {
            GET_TYPES_HASH_ID => {
                let mut ids = Vec::new();
                read_mutable(&mut call, |m, v| {
                    if m != MEMBER_TYPE_IDS {
                        return Ok(false);
                    }
                    ids = type_ids(v)?;
                    Ok(true)
                })?;
                TypeLookupCall::GetTypes(ids)
            }
            GET_DEPENDENCIES_HASH_ID => {
                let (mut ids, mut cp) = (Vec::new(), Vec::new());
                read_mutable(&mut call, |m, v| {
                    match m {
                        MEMBER_TYPE_IDS => ids = type_ids(v)?,
                        MEMBER_CONTINUATION_POINT => {
                            let n = super::bounded_len(v, 1, 32, "continuation_point")?;
                            cp = v.take(n, "continuation_point")?.to_vec();
                        }
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                TypeLookupCall::GetTypeDependencies(ids, cp)
            }
            _ => return Err(CdrError::Invalid("TypeLookup_Call operation")),
        };
        Ok(TypeLookupRequest { request_id, call })
    }
}

/// `sequence<TypeIdentifier>` (a DHEADER, non-primitive elements): at most
/// [`MAX_REQUEST_TYPE_IDS`] kept.
fn type_ids(r: &mut CdrReader<'_>) -> Result<Vec<TypeIdentifier>, CdrError> {
    let mut seq = dheader(r, "type_ids")?;
    let n = seq.seq_len(1, "type_ids")?;
    let mut ids = Vec::with_capacity(n.min(MAX_REQUEST_TYPE_IDS));
    for _ in 0..n.min(MAX_REQUEST_TYPE_IDS) {
        ids.push(TypeIdentifier::parse(
            &mut seq,
            MAX_DEPTH.saturating_sub(4),
        )?);
    }
    Ok(ids)
}

/// The reply payload (CDR2 little-endian encapsulation) to `request_id`.
pub fn reply_payload(request_id: &RequestId, ret: &TypeLookupReturn<'_>) -> Vec<u8> {
    let mut buf = vec![0x00, 0x07, 0x00, 0x00];
    let mut w = xcdr2_writer(&mut buf);
    let mut w = w.nested();
    w.bytes(&request_id.writer_guid);
    w.i32(request_id.high);
    w.u32(request_id.low);
    w.u32(0); // remoteEx: REMOTE_EX_OK
    let ret_at = begin_dheader(&mut w);
    let (op, pairs, deps) = match ret {
        TypeLookupReturn::Types(p) => (GET_TYPES_HASH_ID, Some(p), None),
        TypeLookupReturn::Dependencies(d, cp) => (GET_DEPENDENCIES_HASH_ID, None, Some((d, cp))),
    };
    w.u32(op);
    let result_at = begin_dheader(&mut w);
    w.u32(0); // DDS_RETCODE_OK
    let written = write_mutable(&mut w, |m| {
        if let Some(pairs) = pairs {
            m.member(MEMBER_TYPES, false, LengthCode::DualUse1, |w| {
                emit_pairs(w, pairs);
                Ok(())
            })?;
            m.member(
                MEMBER_COMPLETE_TO_MINIMAL,
                false,
                LengthCode::DualUse1,
                |w| {
                    let at = begin_dheader(w);
                    w.u32(0);
                    end_dheader(w, at);
                    Ok(())
                },
            )?;
        }
        if let Some((deps, cp)) = deps {
            m.member(MEMBER_DEPENDENT_TYPEIDS, false, LengthCode::DualUse1, |w| {
                let at = begin_dheader(w);
                w.u32(u32::try_from(deps.len()).unwrap_or(u32::MAX));
                for d in deps.iter() {
                    let e = begin_dheader(w);
                    d.type_id.emit(w);
                    w.align(4);
                    w.u32(d.typeobject_serialized_size);
                    end_dheader(w, e);
                }
                end_dheader(w, at);
                Ok(())
            })?;
            m.member(
                MEMBER_CONTINUATION_POINT,
                false,
                LengthCode::DualUse1,
                |w| {
                    w.u32(u32::try_from(cp.len()).unwrap_or(u32::MAX));
                    w.bytes(cp);
                    Ok(())
                },
            )?;
        }
        Ok(())
    });
    debug_assert!(written.is_ok(), "TypeLookup reply encoding cannot fail");
    end_dheader(&mut w, result_at);
    end_dheader(&mut w, ret_at);
    buf
}

/// `sequence<TypeIdentifierTypeObjectPair>`: pairs of a final struct, the TypeObject bytes
/// copied as serialized (they start 4-aligned and align to at most 4 inside); pairs that
/// would take the reply past [`MAX_REPLY_SIZE`] are left out.
fn emit_pairs(w: &mut CdrWriter<'_>, pairs: &[(TypeIdentifier, &[u8])]) {
    let at = begin_dheader(w);
    let count_at = w.offset();
    w.u32(0);
    let mut count = 0u32;
    let start = w.position();
    for (id, bytes) in pairs {
        if w.position()
            .saturating_sub(start)
            .saturating_add(bytes.len())
            > MAX_REPLY_SIZE
        {
            break;
        }
        id.emit(w);
        w.align(4);
        w.bytes(bytes);
        count = count.saturating_add(1);
    }
    w.patch_u32(count_at, count);
    end_dheader(w, at);
}
