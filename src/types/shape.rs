//! `ShapeType` from `idl/shape.idl`, the type of the OMG interoperability demo, written by hand
//! until the IDL generator lands. XCDR1 encoding (final layout; identical on the wire to the
//! appendable form in XCDR1).
//!
//! Must not: panic on any payload.

use std::sync::OnceLock;

use super::descriptor::{Extensibility, Member, TypeDescriptor, TypeKind};
use super::{TopicType, key_hash_from_key_bytes};
use crate::cdr::{
    CdrDecode, CdrEncode, CdrError, EncapsulationHeader, EncapsulationKind, Endianness, Reader,
    Writer,
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
                Member::new("color", 0, TypeKind::String { bound: Some(COLOR_BOUND as u32) })
                    .key(),
                Member::new("x", 1, TypeKind::I32),
                Member::new("y", 2, TypeKind::I32),
                Member::new("shapesize", 3, TypeKind::I32),
                Member::new(
                    "additional_payload_size",
                    4,
                    TypeKind::Sequence { elem: Box::new(TypeKind::U8), bound: None },
                ),
            ],
        })
    }
}

impl TopicType for ShapeType {
    fn type_name() -> &'static str {
        "ShapeType"
    }

    fn descriptor() -> Option<&'static TypeDescriptor> {
        Some(ShapeType::descriptor())
    }

    fn is_keyed() -> bool {
        true
    }

    fn serialize(&self, endian: Endianness) -> Vec<u8> {
        let mut buf = Vec::with_capacity(32 + self.color.len() + self.additional_payload_size.len());
        EncapsulationHeader::new(EncapsulationKind::Cdr, endian).emit(&mut Writer::new(&mut buf, endian));
        let mut w = Writer::new(&mut buf, endian);
        self.color.encode(&mut w);
        self.x.encode(&mut w);
        self.y.encode(&mut w);
        self.shapesize.encode(&mut w);
        self.additional_payload_size.encode(&mut w);
        buf
    }

    fn deserialize(data: &[u8]) -> Result<Self, CdrError> {
        let mut r = Reader::new(data, Endianness::Big);
        let header = EncapsulationHeader::parse(&mut r)?;
        if header.kind != EncapsulationKind::Cdr {
            return Err(CdrError::Invalid("ShapeType encapsulation (XCDR1 only for now)"));
        }
        let mut r = Reader::new(r.rest(), header.endian);
        let color = String::decode(&mut r)?;
        if color.len() > COLOR_BOUND {
            return Err(CdrError::TooLarge("ShapeType.color"));
        }
        let x = i32::decode(&mut r)?;
        let y = i32::decode(&mut r)?;
        let shapesize = i32::decode(&mut r)?;
        // Peers built from the 4-member ShapeType (the vendors' demos) end here.
        let additional_payload_size =
            if r.remaining() >= 4 { Vec::<u8>::decode(&mut r)? } else { Vec::new() };
        Ok(ShapeType { color, x, y, shapesize, additional_payload_size })
    }

    fn key_hash(&self) -> Option<[u8; 16]> {
        Some(color_key_hash(&self.color))
    }

    fn serialize_key(&self, endian: Endianness) -> Option<Vec<u8>> {
        // XCDR1 key-only serialization of the final type: its key members in order.
        let mut buf = Vec::with_capacity(12 + self.color.len());
        EncapsulationHeader::new(EncapsulationKind::Cdr, endian).emit(&mut Writer::new(&mut buf, endian));
        self.color.encode(&mut Writer::new(&mut buf, endian));
        Some(buf)
    }

    fn key_hash_from_serialized_key(data: &[u8]) -> Option<[u8; 16]> {
        let mut r = Reader::new(data, Endianness::Big);
        let header = EncapsulationHeader::parse(&mut r).ok()?;
        if header.kind != EncapsulationKind::Cdr {
            return None;
        }
        let color = String::decode(&mut Reader::new(r.rest(), header.endian)).ok()?;
        (color.len() <= COLOR_BOUND).then(|| color_key_hash(&color))
    }
}

/// Key holder {string<128> color} in PLAIN_CDR2 BE: max size 4 + 129 > 16 ⇒ MD5.
fn color_key_hash(color: &str) -> [u8; 16] {
    let mut key = Vec::with_capacity(color.len() + 5);
    let mut w = Writer::new(&mut key, Endianness::Big);
    w.string(color.as_bytes());
    key_hash_from_key_bytes(&key, 4 + COLOR_BOUND + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_reads_the_four_member_vendor_form() {
        let s = ShapeType { color: "RED".into(), x: 10, y: 20, shapesize: 30, additional_payload_size: vec![1, 2] };
        for e in [Endianness::Little, Endianness::Big] {
            assert_eq!(ShapeType::deserialize(&s.serialize(e)), Ok(s.clone()));
        }
        // What Cyclone's and Fast DDS's demo ShapeType (no sequence) put on the wire.
        let vendor = [0, 1, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0];
        let got = ShapeType::deserialize(&vendor);
        assert_eq!(got, Ok(ShapeType { additional_payload_size: vec![], ..s }));
    }

    #[test]
    fn serialized_key_is_the_xcdr1_color_and_maps_back_to_the_key_hash() {
        let s = ShapeType { color: "RED".into(), x: 1, y: 2, shapesize: 3, additional_payload_size: vec![7] };
        let key = s.serialize_key(Endianness::Little).unwrap();
        assert_eq!(key, [0, 1, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0]);
        assert_eq!(ShapeType::key_hash_from_serialized_key(&key), s.key_hash());
        // Big-endian, and with trailing zero padding (what our writer sends, see core::writer).
        let mut be = s.serialize_key(Endianness::Big).unwrap();
        be.resize(20, 0);
        assert_eq!(ShapeType::key_hash_from_serialized_key(&be), s.key_hash());
        assert_eq!(ShapeType::key_hash_from_serialized_key(&key[..7]), None);
    }

    #[test]
    fn truncated_payloads_are_errors() {
        let s = ShapeType { color: "BLUE".into(), x: 1, y: 2, shapesize: 3, additional_payload_size: vec![9; 5] };
        let bytes = s.serialize(Endianness::Little);
        for cut in 0..20 {
            assert!(ShapeType::deserialize(&bytes[..cut]).is_err(), "cut {cut}");
        }
    }
}
