//! The TypeLookup service's messages (DDS-XTypes 1.3 §7.6.3.3.4, RPC over DDS): a
//! `TypeLookup_Request` (RequestHeader, `TypeLookup_Call`: getTypes or getTypeDependencies)
//! decoded, a `TypeLookup_Reply` (ReplyHeader, `TypeLookup_Return`) encoded. The layout is
//! the one Cyclone DDS 11 puts on the wire (its `ddsi_xt_typelookup.idl`: final request and
//! reply structs in PLAIN_CDR2, appendable unions, mutable `_In`/`_Out` structs with hashed
//! member ids), checked against a captured Cyclone exchange in the tests.
//!
//! The client side is the mirror image: [`request_payload`] encodes a request,
//! [`TypeLookupReply::from_payload`] decodes a reply (untrusted, bounded).
//!
//! Must not: know about RTPS entities, decode more than [`MAX_REQUEST_TYPE_IDS`] identifiers
//! (or TypeObjects from one reply), or build or accept a reply beyond [`MAX_REPLY_SIZE`]
//! bytes.

use super::{
    MAX_DEPENDENT_TYPEIDS, MAX_DEPTH, TypeIdentifier, TypeIdentifierWithSize, TypeObject,
    begin_dheader, dheader, end_dheader, xcdr2_writer,
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
                        MEMBER_CONTINUATION_POINT => cp = continuation_point(v)?,
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

/// `ContinuationPoint`, `sequence<octet, 32>` (XTypes 1.3 §7.6.3.3.4), in a request or a
/// reply.
fn continuation_point(r: &mut CdrReader<'_>) -> Result<Vec<u8>, CdrError> {
    let n = super::bounded_len(r, 1, 32, "continuation_point")?;
    Ok(r.take(n, "continuation_point")?.to_vec())
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

/// The request payload (CDR2 little-endian encapsulation) calling `call` as `request_id`:
/// the client side of [`TypeLookupRequest::from_payload`]. At most [`MAX_REQUEST_TYPE_IDS`]
/// identifiers are written. DDS-XTypes 1.3 §7.6.3.3.4.
pub fn request_payload(request_id: &RequestId, call: &TypeLookupCall) -> Vec<u8> {
    let mut buf = vec![0x00, 0x07, 0x00, 0x00];
    let mut w = xcdr2_writer(&mut buf);
    let mut w = w.nested();
    w.bytes(&request_id.writer_guid);
    w.i32(request_id.high);
    w.u32(request_id.low);
    // instanceName: what Cyclone DDS sends (servers do not look at it).
    w.string(INSTANCE_NAME);
    let call_at = begin_dheader(&mut w);
    let (op, ids, cp) = match call {
        TypeLookupCall::GetTypes(ids) => (GET_TYPES_HASH_ID, ids, None),
        TypeLookupCall::GetTypeDependencies(ids, cp) => (GET_DEPENDENCIES_HASH_ID, ids, Some(cp)),
    };
    w.u32(op);
    let written = write_mutable(&mut w, |m| {
        m.member(MEMBER_TYPE_IDS, false, LengthCode::DualUse1, |w| {
            let at = begin_dheader(w);
            let ids = ids
                .get(..ids.len().min(MAX_REQUEST_TYPE_IDS))
                .unwrap_or(&[]);
            w.u32(u32::try_from(ids.len()).unwrap_or(u32::MAX));
            for id in ids {
                id.emit(w);
            }
            end_dheader(w, at);
            Ok(())
        })?;
        if let Some(cp) = cp {
            m.member(
                MEMBER_CONTINUATION_POINT,
                false,
                LengthCode::DualUse1,
                |w| {
                    let cp = cp.get(..cp.len().min(32)).unwrap_or(&[]);
                    w.u32(u32::try_from(cp.len()).unwrap_or(u32::MAX));
                    w.bytes(cp);
                    Ok(())
                },
            )?;
        }
        Ok(())
    });
    debug_assert!(written.is_ok(), "TypeLookup request encoding cannot fail");
    end_dheader(&mut w, call_at);
    // RTPS 2.5 §10.2: the payload is padded to a multiple of 4, the encapsulation options'
    // two low bits saying by how much.
    let pad = buf.len().wrapping_neg() & 3;
    buf.resize(buf.len().saturating_add(pad), 0);
    if let Some(options) = buf.get_mut(3) {
        *options = u8::try_from(pad).unwrap_or(0);
    }
    buf
}

/// The `instanceName` of our requests, as Cyclone DDS 11 writes it.
const INSTANCE_NAME: &[u8] = b"dds.builtin.TOS.00000000000000000000000000000000";

/// One TypeObject of a getTypes reply: its identifier as the reply names it, the decoded
/// object, and whether the serialized bytes hash to that identifier (§7.3.4.4).
#[derive(Clone, Debug, PartialEq)]
pub struct ReturnedType {
    /// The identifier the reply pairs the object with.
    pub id: TypeIdentifier,
    /// The decoded TypeObject.
    pub object: TypeObject,
    /// The object's serialized bytes hash to `id` (checked on the bytes as received when
    /// little-endian, else on their re-serialization).
    pub verified: bool,
}

/// What a decoded reply returns.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplyReturn {
    /// `getTypes`: the TypeObjects (at most [`MAX_REQUEST_TYPE_IDS`]).
    Types(Vec<ReturnedType>),
    /// `getTypeDependencies`: the dependencies (at most [`MAX_DEPENDENT_TYPEIDS`]) and the
    /// continuation point.
    Dependencies(Vec<TypeIdentifierWithSize>, Vec<u8>),
    /// The server answered with a non-zero return code or remote exception.
    Failed(i32),
}

/// A decoded `TypeLookup_Reply`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeLookupReply {
    /// `header.relatedRequestId`: the request this answers.
    pub request_id: RequestId,
    /// The result.
    pub ret: ReplyReturn,
}

impl TypeLookupReply {
    /// Decodes a reply payload (encapsulation header included) of at most
    /// [`MAX_REPLY_SIZE`] bytes (plus header). Untrusted input: never panics, bounded.
    pub fn from_payload(payload: &[u8]) -> Result<Self, CdrError> {
        const WHAT: &str = "TypeLookup_Reply";
        if payload.len() > MAX_REPLY_SIZE.saturating_add(4) {
            return Err(CdrError::TooLarge(WHAT));
        }
        let mut r = CdrReader::new(payload, Endianness::Big);
        let id = r.u16(WHAT)?;
        let _options = r.u16(WHAT)?;
        let endian = match id {
            0x0006 | 0x0008 => Endianness::Big,
            0x0007 | 0x0009 => Endianness::Little,
            _ => return Err(CdrError::Invalid("TypeLookup_Reply encapsulation")),
        };
        let mut r = CdrReader::new(r.rest(), endian);
        r.set_xcdr(XcdrVersion::Xcdr2);
        let request_id = RequestId {
            writer_guid: r.take_array(WHAT)?,
            high: r.i32(WHAT)?,
            low: r.u32(WHAT)?,
        };
        let remote_ex = r.i32("remoteEx")?;
        if remote_ex != 0 {
            return Ok(TypeLookupReply {
                request_id,
                ret: ReplyReturn::Failed(remote_ex),
            });
        }
        let mut ret = dheader(&mut r, "TypeLookup_Return")?;
        let op = ret.u32(WHAT)?;
        let mut result = dheader(&mut ret, "TypeLookup_Result")?;
        let code = result.i32("return code")?;
        if code != 0 {
            return Ok(TypeLookupReply {
                request_id,
                ret: ReplyReturn::Failed(code),
            });
        }
        let ret = match op {
            GET_TYPES_HASH_ID => {
                let mut types = Vec::new();
                read_mutable(&mut result, |m, v| {
                    if m != MEMBER_TYPES {
                        return Ok(false);
                    }
                    types = returned_types(v, endian)?;
                    Ok(true)
                })?;
                ReplyReturn::Types(types)
            }
            GET_DEPENDENCIES_HASH_ID => {
                let (mut deps, mut cp) = (Vec::new(), Vec::new());
                read_mutable(&mut result, |m, v| {
                    match m {
                        MEMBER_DEPENDENT_TYPEIDS => deps = dependent_typeids(v)?,
                        MEMBER_CONTINUATION_POINT => cp = continuation_point(v)?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                ReplyReturn::Dependencies(deps, cp)
            }
            _ => return Err(CdrError::Invalid("TypeLookup_Return operation")),
        };
        Ok(TypeLookupReply { request_id, ret })
    }
}

/// `sequence<TypeIdentifierTypeObjectPair>` (DHEADER; final pairs).
fn returned_types(
    r: &mut CdrReader<'_>,
    endian: Endianness,
) -> Result<Vec<ReturnedType>, CdrError> {
    let mut seq = dheader(r, "types")?;
    let n = super::bounded_len(&mut seq, 8, MAX_REQUEST_TYPE_IDS, "types")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let id = TypeIdentifier::parse(&mut seq, MAX_DEPTH.saturating_sub(4))?;
        seq.align(4, "TypeObject")?;
        let before = seq.rest();
        let object = TypeObject::parse(&mut seq)?;
        let used = before.len().saturating_sub(seq.rest().len());
        let raw = before.get(..used).unwrap_or(&[]);
        let verified = match (&id, endian) {
            (TypeIdentifier::Minimal(_) | TypeIdentifier::Complete(_), Endianness::Little) => {
                TypeIdentifier::for_serialized(object.equivalence_kind(), raw) == id
                    || object.identifier() == id
            }
            (TypeIdentifier::Minimal(_) | TypeIdentifier::Complete(_), _) => {
                object.identifier() == id
            }
            _ => false,
        };
        out.push(ReturnedType {
            id,
            object,
            verified,
        });
    }
    Ok(out)
}

/// `sequence<TypeIdentifierWithSize>` (DHEADER; appendable elements, each a DHEADER).
fn dependent_typeids(r: &mut CdrReader<'_>) -> Result<Vec<TypeIdentifierWithSize>, CdrError> {
    let mut seq = dheader(r, "dependent_typeids")?;
    let n = super::bounded_len(&mut seq, 8, MAX_DEPENDENT_TYPEIDS, "dependent_typeids")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut e = dheader(&mut seq, "TypeIdentifierWithSize")?;
        let type_id = TypeIdentifier::parse(&mut e, MAX_DEPTH.saturating_sub(4))?;
        e.align(4, "typeobject_serialized_size")?;
        let typeobject_serialized_size = e.u32("typeobject_serialized_size")?;
        out.push(TypeIdentifierWithSize {
            type_id,
            typeobject_serialized_size,
        });
    }
    Ok(out)
}
