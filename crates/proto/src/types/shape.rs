//! `ShapeType` from `idl/shape.idl`, the type of the OMG interoperability demo, written by hand
//! until the IDL generator lands. `@appendable`, so it is written as XCDR1 (CDR_BE/LE, the
//! same bytes as the final layout) or as XCDR2 D_CDR2_BE/LE with a DHEADER (DDS-XTypes 1.3
//! §7.4.3.5); [`ShapeType::deserialize`](TopicType::deserialize) reads CDR, CDR2 and D_CDR2.
//!
//! Must not: panic or allocate beyond the payload's size on any payload.

use std::sync::OnceLock;

use super::codec::read_key_only;
use super::descriptor::{Extensibility, Member, TypeDescriptor, TypeKind};
use super::xtypes::{
    EquivalenceKind, IS_APPENDABLE, IS_KEY, IS_MUST_UNDERSTAND, StructMember, StructType, TK_BYTE,
    TK_INT32, TRY_CONSTRUCT1, TypeIdentifier, TypeObject, TypeObjectBody, TypeRepresentation,
    name_hash,
};
use super::{TopicType, XcdrVersion, key_hash_from_key_bytes};
use crate::cdr::{
    CdrDecode, CdrEncode, CdrError, CdrReader, CdrWriter, EncapsulationHeader, EncapsulationKind,
    Endianness,
};

/// `@key string<128> color; int32 x; int32 y; int32 shapesize;
/// sequence<uint8> additional_payload_size;`
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShapeType {
    /// The instance key (`string<128>`).
    pub color: String,
    /// Horizontal position.
    pub x: i32,
    /// Vertical position.
    pub y: i32,
    /// Size in pixels.
    pub shapesize: i32,
    /// Padding used by the interop harness to make samples large.
    pub additional_payload_size: Vec<u8>,
}

/// The bound of `color`.
pub const COLOR_BOUND: usize = 128;

impl ShapeType {
    /// The type descriptor of `idl/shape.idl` (`@appendable`), built once. Member ids are
    /// sequential (`@autoid(SEQUENTIAL)`, the default).
    pub fn descriptor() -> &'static TypeDescriptor {
        static DESCRIPTOR: OnceLock<TypeDescriptor> = OnceLock::new();
        DESCRIPTOR.get_or_init(|| TypeDescriptor {
            name: "ShapeType".to_owned(),
            extensibility: Extensibility::Appendable,
            members: vec![
                Member::new(
                    "color",
                    0,
                    TypeKind::String {
                        bound: Some(COLOR_BOUND as u32),
                    },
                )
                .key(),
                Member::new("x", 1, TypeKind::I32),
                Member::new("y", 2, TypeKind::I32),
                Member::new("shapesize", 3, TypeKind::I32),
                Member::new(
                    "additional_payload_size",
                    4,
                    TypeKind::Sequence {
                        elem: Box::new(TypeKind::U8),
                        bound: None,
                    },
                ),
            ],
        })
    }

    /// The DDS-XTypes 1.3 representation of `idl/shape.idl`, built once: the struct's minimal
    /// and complete TypeObjects (`@appendable`, member ids 0–4, `color` a key), which
    /// `idl::to_type_object` builds from the IDL too (a test compares them).
    pub fn type_representation() -> &'static TypeRepresentation {
        static REPRESENTATION: OnceLock<TypeRepresentation> = OnceLock::new();
        REPRESENTATION.get_or_init(|| {
            let object = |kind| {
                let members = [
                    (
                        "color",
                        TypeIdentifier::string(false, COLOR_BOUND as u32),
                        true,
                    ),
                    ("x", TypeIdentifier::Primitive(TK_INT32), false),
                    ("y", TypeIdentifier::Primitive(TK_INT32), false),
                    ("shapesize", TypeIdentifier::Primitive(TK_INT32), false),
                    (
                        "additional_payload_size",
                        TypeIdentifier::sequence(
                            TypeIdentifier::Primitive(TK_BYTE),
                            TRY_CONSTRUCT1,
                            0,
                        ),
                        false,
                    ),
                ];
                let members = (0u32..)
                    .zip(members)
                    .map(|(id, (name, type_id, key))| StructMember {
                        id,
                        flags: match key {
                            true => TRY_CONSTRUCT1 | IS_KEY | IS_MUST_UNDERSTAND,
                            false => TRY_CONSTRUCT1,
                        },
                        type_id,
                        name: name.to_owned(),
                        name_hash: name_hash(name),
                    })
                    .collect();
                TypeObject {
                    kind,
                    body: TypeObjectBody::Struct(StructType {
                        flags: IS_APPENDABLE,
                        base: TypeIdentifier::None,
                        type_name: "ShapeType".to_owned(),
                        members,
                    }),
                }
            };
            TypeRepresentation::new(
                &object(EquivalenceKind::Minimal),
                &object(EquivalenceKind::Complete),
                &[],
            )
        })
    }

    /// An upper bound of the encoded size, for the buffer's capacity.
    fn max_encoded_len(&self) -> usize {
        32usize
            .saturating_add(self.color.len())
            .saturating_add(self.additional_payload_size.len())
    }

    /// The members in order, aligned by `w`'s XCDR version (XCDR1 / XCDR2 plain rules; all
    /// of ShapeType's primitives are 4-byte, so both give the same bytes).
    fn encode_members(&self, w: &mut CdrWriter<'_>) {
        self.color.encode(w);
        self.x.encode(w);
        self.y.encode(w);
        self.shapesize.encode(w);
        self.additional_payload_size.encode(w);
    }

    /// Reads the members; `r` ends where the struct ends (payload or DHEADER).
    fn decode_members(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        let color = String::decode(r)?;
        if color.len() > COLOR_BOUND {
            return Err(CdrError::TooLarge("ShapeType.color"));
        }
        let x = i32::decode(r)?;
        let y = i32::decode(r)?;
        let shapesize = i32::decode(r)?;
        // Peers built from the 4-member ShapeType (the vendors' demos) end here.
        let additional_payload_size = if r.remaining() >= 4 {
            Vec::<u8>::decode(r)?
        } else {
            Vec::new()
        };
        Ok(ShapeType {
            color,
            x,
            y,
            shapesize,
            additional_payload_size,
        })
    }

    /// D_CDR2: encapsulation header, DHEADER (the members' size, DDS-XTypes 1.3 §7.4.3.5.2),
    /// the members with XCDR2 alignment, then zero padding to a multiple of 4 counted in the
    /// options' low two bits (§7.6.3.1.2), as Cyclone writes it.
    fn serialize_xcdr2(&self, endian: Endianness) -> Vec<u8> {
        let mut buf = Vec::with_capacity(self.max_encoded_len().saturating_add(4));
        EncapsulationHeader::new(EncapsulationKind::DCdr2, endian)
            .emit(&mut CdrWriter::new(&mut buf, endian));
        let dheader_at = buf.len();
        let mut w = CdrWriter::new(&mut buf, endian);
        w.set_xcdr(XcdrVersion::Xcdr2);
        w.u32(0);
        self.encode_members(&mut w);
        let body = w.position().saturating_sub(4);
        let before = w.position();
        w.align(4);
        let pad = w.position().saturating_sub(before);
        let len = u32::try_from(body).unwrap_or(u32::MAX);
        let len = match endian {
            Endianness::Big => len.to_be_bytes(),
            Endianness::Little => len.to_le_bytes(),
        };
        if let Some(dst) = buf.get_mut(dheader_at..dheader_at.saturating_add(4)) {
            dst.copy_from_slice(&len);
        }
        // invariant: pad < 4, so it fits the two option bits of the last header octet.
        if let Some(options) = buf.get_mut(3) {
            *options = u8::try_from(pad).unwrap_or(0);
        }
        buf
    }
}

impl TopicType for ShapeType {
    fn type_name() -> &'static str {
        "ShapeType"
    }

    fn descriptor() -> Option<&'static TypeDescriptor> {
        Some(ShapeType::descriptor())
    }

    fn type_representation() -> Option<&'static TypeRepresentation> {
        Some(ShapeType::type_representation())
    }

    fn is_keyed() -> bool {
        true
    }

    /// XCDR1: CDR, the members, then zero padding to a multiple of 4 counted in the options'
    /// low two bits (DDS-XTypes 1.3 §7.6.3.1.2), as `codec::serialize` and both vendors write
    /// it: Cyclone refuses a DATA whose length is not a multiple of 4, and under RTPS
    /// protection an unpadded last submessage leaves the SRTPS_POSTFIX unaligned, which Fast
    /// DDS refuses.
    fn serialize(&self, endian: Endianness) -> Vec<u8> {
        let mut buf = Vec::with_capacity(self.max_encoded_len().saturating_add(3));
        EncapsulationHeader::new(EncapsulationKind::Cdr, endian)
            .emit(&mut CdrWriter::new(&mut buf, endian));
        self.encode_members(&mut CdrWriter::new(&mut buf, endian));
        let pad = buf.len().wrapping_neg() & 3;
        buf.resize(buf.len().saturating_add(pad), 0);
        // invariant: pad < 4, so it fits the two option bits of the last header octet.
        if let Some(options) = buf.get_mut(3) {
            *options = u8::try_from(pad).unwrap_or(0);
        }
        buf
    }

    fn serialize_as(&self, version: XcdrVersion, endian: Endianness) -> Option<Vec<u8>> {
        Some(match version {
            XcdrVersion::Xcdr1 => self.serialize(endian),
            XcdrVersion::Xcdr2 => self.serialize_xcdr2(endian),
        })
    }

    fn supports(version: XcdrVersion) -> bool {
        matches!(version, XcdrVersion::Xcdr1 | XcdrVersion::Xcdr2)
    }

    fn deserialize(data: &[u8]) -> Result<Self, CdrError> {
        let mut r = CdrReader::new(data, Endianness::Big);
        let header = EncapsulationHeader::parse(&mut r)?;
        let mut r = CdrReader::new(r.rest(), header.endian);
        match header.kind {
            EncapsulationKind::Cdr => Self::decode_members(&mut r),
            // A peer that declared the type @final writes XCDR2 without a DHEADER.
            EncapsulationKind::Cdr2 => {
                r.set_xcdr(XcdrVersion::Xcdr2);
                Self::decode_members(&mut r)
            }
            // DDS-XTypes 1.3 §7.4.3.5.2: DHEADER = size of the members that follow; a longer
            // body (a newer type's appended members) is skipped, a shorter one lacks
            // `additional_payload_size`.
            EncapsulationKind::DCdr2 => {
                r.set_xcdr(XcdrVersion::Xcdr2);
                let len = r.u32("ShapeType DHEADER")?;
                let len = usize::try_from(len).map_err(|_| CdrError::TooLarge("DHEADER"))?;
                Self::decode_members(&mut r.sub(len, "ShapeType delimited body")?)
            }
            EncapsulationKind::PlCdr | EncapsulationKind::PlCdr2 | EncapsulationKind::Xml => Err(
                CdrError::Invalid("ShapeType encapsulation (CDR, CDR2 or D_CDR2 expected)"),
            ),
        }
    }

    fn key_hash(&self) -> Option<[u8; 16]> {
        Some(color_key_hash(&self.color))
    }

    fn serialize_key(&self, endian: Endianness) -> Option<Vec<u8>> {
        self.serialize_key_as(XcdrVersion::Xcdr1, endian)
    }

    /// XCDR1: CDR, the color. XCDR2: D_CDR2 (the samples' encapsulation), the color without
    /// a DHEADER, padded to 4 with the count in the options (what Cyclone writes and reads;
    /// `codec::key`).
    fn serialize_key_as(&self, version: XcdrVersion, endian: Endianness) -> Option<Vec<u8>> {
        let kind = match version {
            XcdrVersion::Xcdr1 => EncapsulationKind::Cdr,
            XcdrVersion::Xcdr2 => EncapsulationKind::DCdr2,
        };
        let mut buf = Vec::with_capacity(self.color.len().saturating_add(12));
        EncapsulationHeader::new(kind, endian).emit(&mut CdrWriter::new(&mut buf, endian));
        let mut w = CdrWriter::new(&mut buf, endian);
        w.set_xcdr(version);
        self.color.encode(&mut w);
        if version == XcdrVersion::Xcdr2 {
            let before = w.position();
            w.align(4);
            let pad = w.position().saturating_sub(before);
            if let Some(options) = buf.get_mut(3) {
                *options = u8::try_from(pad).unwrap_or(0);
            }
        }
        Some(buf)
    }

    fn key_hash_from_serialized_key(data: &[u8]) -> Option<[u8; 16]> {
        let color = read_key_only(data, String::decode)?;
        (color.len() <= COLOR_BOUND).then(|| color_key_hash(&color))
    }
}

/// Key holder {string<128> color} in PLAIN_CDR2 BE: max size 4 + 129 > 16 ⇒ MD5.
fn color_key_hash(color: &str) -> [u8; 16] {
    let mut key = Vec::with_capacity(color.len().saturating_add(5));
    let mut w = CdrWriter::new(&mut key, Endianness::Big);
    w.string(color.as_bytes());
    key_hash_from_key_bytes(&key, 4 + COLOR_BOUND + 1)
}

#[cfg(test)]
mod tests;
