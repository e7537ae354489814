//! Key-only payloads: the serialized key a writer sends as the payload of a dispose or
//! unregister (DATA with the K flag, RTPS 2.5 §9.6.4.8/§8.7.4), written in the writer's data
//! representation, and the key read back from any key-only payload a peer may send (XCDR1 or
//! XCDR2, with or without a DHEADER, padded or not).
//!
//! Must not: know about RTPS or inline QoS (PID_KEY_HASH is the reader's business); accept a
//! payload whose key does not decode; read past the payload.
//!
//! The forms met on the wire (docs/interop-facts.md §5.7, §5.10):
//! - XCDR1: CDR_BE/CDR_LE, the key holder's members in XCDR1 alignment (every vendor).
//! - XCDR2, Cyclone DDS 0.10 (C): the type's own encapsulation (CDR2/D_CDR2/PL_CDR2; Cyclone
//!   refuses any other) and the key members in XCDR2 alignment *without* a DHEADER, e.g.
//!   `0009 0003 | 05000000 424c5545 00 000000` for ShapeType "BLUE".
//! - XCDR2, pip `cyclonedds` 11: D_CDR2 with a DHEADER before the key members, e.g.
//!   `09000000 05000000 424c5545 00`.

use super::{Extensibility, XcdrCodec, XcdrVersion, encapsulate, encapsulation, key_hash};
use crate::cdr::{CdrError, CdrReader, EncapsulationHeader, EncapsulationKind, Endianness};

/// The XCDR1 serialized key (CDR_BE/CDR_LE header and the key holder in XCDR1 alignment),
/// the payload of a dispose or unregister.
pub fn serialize_key<T: XcdrCodec>(value: &T, endian: Endianness) -> Result<Vec<u8>, CdrError> {
    serialize_key_as(value, Extensibility::Final, XcdrVersion::Xcdr1, endian)
}

/// The serialized key in `version` for a type of extensibility `ext`: XCDR1 as
/// [`serialize_key`]; XCDR2 with the encapsulation the type's samples carry (CDR2, D_CDR2 or
/// PL_CDR2, DDS-XTypes 1.3 §7.6.3.1.2) and the key members in XCDR2 alignment without a
/// DHEADER — what Cyclone DDS writes and parses (it reads the key members from the body's
/// first byte and refuses a key whose encoding format is not the type's; docs/interop-facts.md
/// §5.10). The body is zero-padded to a multiple of 4, the count in the options' low two bits.
pub fn serialize_key_as<T: XcdrCodec>(
    value: &T,
    ext: Extensibility,
    version: XcdrVersion,
    endian: Endianness,
) -> Result<Vec<u8>, CdrError> {
    let kind = match version {
        XcdrVersion::Xcdr1 => EncapsulationKind::Cdr,
        XcdrVersion::Xcdr2 => encapsulation(version, ext),
    };
    // XCDR1 keys stay unpadded: the writer pads them for Fast DDS (docs/interop-facts.md §5.7).
    let pad = version == XcdrVersion::Xcdr2;
    encapsulate(kind, version, endian, pad, |w| value.xcdr_write_key(w))
}

/// Reads the key of a key-only payload (encapsulation header included) with `read_key`,
/// which reads the key members from a cursor set to the payload's byte order and alignment.
/// `None` when the header is not CDR, CDR2 or D_CDR2 or the key does not decode.
///
/// The options' pad count is dropped first. D_CDR2 comes in two forms (module header): with a
/// DHEADER, taken when the DHEADER covers exactly the key members and only zeros follow;
/// otherwise without. Bytes after the key members are ignored (XCDR1 padding; Cyclone ignores
/// them too). PL_CDR and PL_CDR2 are the caller's (a parameter list of the key members).
pub fn read_key_only<'a, K>(
    data: &'a [u8],
    mut read_key: impl FnMut(&mut CdrReader<'a>) -> Result<K, CdrError>,
) -> Option<K> {
    let mut r = CdrReader::new(data, Endianness::Big);
    let header = EncapsulationHeader::parse(&mut r).ok()?;
    let rest = r.rest();
    let pad = usize::from(header.options & 3);
    let rest = rest.get(..rest.len().saturating_sub(pad)).unwrap_or(rest);
    let mut body = CdrReader::new(rest, header.endian);
    match header.kind {
        EncapsulationKind::Cdr => {}
        EncapsulationKind::Cdr2 => body.set_xcdr(XcdrVersion::Xcdr2),
        EncapsulationKind::DCdr2 => {
            body.set_xcdr(XcdrVersion::Xcdr2);
            if let Some(key) = read_delimited_exactly(body.clone(), &mut read_key) {
                return Some(key);
            }
        }
        EncapsulationKind::PlCdr | EncapsulationKind::PlCdr2 | EncapsulationKind::Xml => {
            return None;
        }
    }
    read_key(&mut body).ok()
}

/// The DHEADER form: a DHEADER equal to the key members' size, then only zeros.
fn read_delimited_exactly<'a, K>(
    mut body: CdrReader<'a>,
    read_key: &mut impl FnMut(&mut CdrReader<'a>) -> Result<K, CdrError>,
) -> Option<K> {
    let len = usize::try_from(body.u32("key DHEADER").ok()?).ok()?;
    let mut members = body.sub(len, "key DHEADER body").ok()?;
    let key = read_key(&mut members).ok()?;
    (members.is_empty() && body.rest().iter().all(|b| *b == 0)).then_some(key)
}

/// The key hash of a serialized key (the payload of a dispose or unregister, any form of
/// [`read_key_only`]), or of a parameter list of the key members for PL_CDR/PL_CDR2. `None`
/// if it does not decode.
pub fn key_hash_from_serialized_key<T: XcdrCodec>(
    data: &[u8],
    max_key_size: Option<usize>,
) -> Option<[u8; 16]> {
    let mut r = CdrReader::new(data, Endianness::Big);
    let header = EncapsulationHeader::parse(&mut r).ok()?;
    let value = match header.kind {
        EncapsulationKind::PlCdr | EncapsulationKind::PlCdr2 => {
            let mut body = CdrReader::new(r.rest(), header.endian);
            if header.kind == EncapsulationKind::PlCdr2 {
                body.set_xcdr(XcdrVersion::Xcdr2);
            }
            // Cyclone's PL_CDR2 key is the plain key members; others send the parameter list.
            let plain = body.clone();
            T::xcdr_read(&mut body)
                .ok()
                .or_else(|| T::xcdr_read_key(&mut plain.clone()).ok())?
        }
        _ => read_key_only(data, T::xcdr_read_key)?,
    };
    key_hash(&value, max_key_size).ok()
}
