//! `ShapeType` from `idl/shape.idl`, the type of the OMG interoperability demo, written by hand
//! until the IDL generator lands. `@appendable`, so it is written as XCDR1 (CDR_BE/LE, the
//! same bytes as the final layout) or as XCDR2 D_CDR2_BE/LE with a DHEADER (DDS-XTypes 1.3
//! §7.4.3.5); [`ShapeType::deserialize`](TopicType::deserialize) reads CDR, CDR2 and D_CDR2.
//!
//! Must not: panic or allocate beyond the payload's size on any payload.

use std::sync::OnceLock;

use super::codec::read_key_only;
use super::descriptor::{Extensibility, Member, TypeDescriptor, TypeKind};
use super::{TopicType, XcdrVersion, key_hash_from_key_bytes};
use crate::cdr::{
    self, CdrDecode, CdrEncode, CdrError, EncapsulationHeader, EncapsulationKind, Endianness,
    Reader, Writer,
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

    /// An upper bound of the encoded size, for the buffer's capacity.
    fn max_encoded_len(&self) -> usize {
        32usize
            .saturating_add(self.color.len())
            .saturating_add(self.additional_payload_size.len())
    }

    /// The members in order, aligned by `w`'s XCDR version (XCDR1 / XCDR2 plain rules; all
    /// of ShapeType's primitives are 4-byte, so both give the same bytes).
    fn encode_members(&self, w: &mut Writer<'_>) {
        self.color.encode(w);
        self.x.encode(w);
        self.y.encode(w);
        self.shapesize.encode(w);
        self.additional_payload_size.encode(w);
    }

    /// Reads the members; `r` ends where the struct ends (payload or DHEADER).
    fn decode_members(r: &mut Reader<'_>) -> Result<Self, CdrError> {
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
            .emit(&mut Writer::new(&mut buf, endian));
        let dheader_at = buf.len();
        let mut w = Writer::new(&mut buf, endian);
        w.set_xcdr(cdr::XcdrVersion::Xcdr2);
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

    fn is_keyed() -> bool {
        true
    }

    fn serialize(&self, endian: Endianness) -> Vec<u8> {
        let mut buf = Vec::with_capacity(self.max_encoded_len());
        EncapsulationHeader::new(EncapsulationKind::Cdr, endian)
            .emit(&mut Writer::new(&mut buf, endian));
        self.encode_members(&mut Writer::new(&mut buf, endian));
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
        let mut r = Reader::new(data, Endianness::Big);
        let header = EncapsulationHeader::parse(&mut r)?;
        let mut r = Reader::new(r.rest(), header.endian);
        match header.kind {
            EncapsulationKind::Cdr => Self::decode_members(&mut r),
            // A peer that declared the type @final writes XCDR2 without a DHEADER.
            EncapsulationKind::Cdr2 => {
                r.set_xcdr(cdr::XcdrVersion::Xcdr2);
                Self::decode_members(&mut r)
            }
            // DDS-XTypes 1.3 §7.4.3.5.2: DHEADER = size of the members that follow; a longer
            // body (a newer type's appended members) is skipped, a shorter one lacks
            // `additional_payload_size`.
            EncapsulationKind::DCdr2 => {
                r.set_xcdr(cdr::XcdrVersion::Xcdr2);
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
        let (kind, xcdr) = match version {
            XcdrVersion::Xcdr1 => (EncapsulationKind::Cdr, cdr::XcdrVersion::Xcdr1),
            XcdrVersion::Xcdr2 => (EncapsulationKind::DCdr2, cdr::XcdrVersion::Xcdr2),
        };
        let mut buf = Vec::with_capacity(self.color.len().saturating_add(12));
        EncapsulationHeader::new(kind, endian).emit(&mut Writer::new(&mut buf, endian));
        let mut w = Writer::new(&mut buf, endian);
        w.set_xcdr(xcdr);
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
    let mut w = Writer::new(&mut key, Endianness::Big);
    w.string(color.as_bytes());
    key_hash_from_key_bytes(&key, 4 + COLOR_BOUND + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_reads_the_four_member_vendor_form() {
        let s = ShapeType {
            color: "RED".into(),
            x: 10,
            y: 20,
            shapesize: 30,
            additional_payload_size: vec![1, 2],
        };
        for e in [Endianness::Little, Endianness::Big] {
            assert_eq!(ShapeType::deserialize(&s.serialize(e)), Ok(s.clone()));
        }
        // What Cyclone's and Fast DDS's demo ShapeType (no sequence) put on the wire.
        let vendor = [
            0, 1, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0,
        ];
        let got = ShapeType::deserialize(&vendor);
        assert_eq!(
            got,
            Ok(ShapeType {
                additional_payload_size: vec![],
                ..s
            })
        );
    }

    #[test]
    fn serialized_key_is_the_xcdr1_color_and_maps_back_to_the_key_hash() {
        let s = ShapeType {
            color: "RED".into(),
            x: 1,
            y: 2,
            shapesize: 3,
            additional_payload_size: vec![7],
        };
        let key = s.serialize_key(Endianness::Little).unwrap();
        assert_eq!(key, [0, 1, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0]);
        assert_eq!(ShapeType::key_hash_from_serialized_key(&key), s.key_hash());
        // Big-endian, and with trailing zero padding (what our writer sends, see core::writer).
        let mut be = s.serialize_key(Endianness::Big).unwrap();
        be.resize(20, 0);
        assert_eq!(ShapeType::key_hash_from_serialized_key(&be), s.key_hash());
        assert_eq!(ShapeType::key_hash_from_serialized_key(&key[..7]), None);
    }

    /// What pip `cyclonedds` 11.0.1 `ShapeType.serialize(use_version_2=True)` gives for the
    /// 5-member @appendable type, plus the trailing padding Cyclone's serdata adds (counted
    /// in the options): D_CDR2, DHEADER 26.
    #[test]
    fn xcdr2_is_d_cdr2_with_dheader_in_both_byte_orders() {
        let s = ShapeType {
            color: "RED".into(),
            x: 10,
            y: 20,
            shapesize: 30,
            additional_payload_size: vec![1, 2],
        };
        let le = s
            .serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
            .unwrap();
        assert_eq!(
            le,
            [
                0, 9, 0, 2, 26, 0, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0, 10, 0, 0, 0, 20, 0, 0, 0,
                30, 0, 0, 0, 2, 0, 0, 0, 1, 2, 0, 0
            ]
        );
        let be = s.serialize_as(XcdrVersion::Xcdr2, Endianness::Big).unwrap();
        assert_eq!(
            be,
            [
                0, 8, 0, 2, 0, 0, 0, 26, 0, 0, 0, 4, b'R', b'E', b'D', 0, 0, 0, 0, 10, 0, 0, 0, 20,
                0, 0, 0, 30, 0, 0, 0, 2, 1, 2, 0, 0
            ]
        );
        for bytes in [le, be] {
            assert_eq!(ShapeType::deserialize(&bytes), Ok(s.clone()));
        }
        assert_eq!(
            s.serialize_as(XcdrVersion::Xcdr1, Endianness::Little),
            Some(s.serialize(Endianness::Little))
        );
        assert!(ShapeType::supports(XcdrVersion::Xcdr2) && ShapeType::supports(XcdrVersion::Xcdr1));
    }

    /// pip `cyclonedds` 11.0.1, 4-member @appendable ShapeType, XCDR2 (the vendors' demo type):
    /// its DHEADER ends after `shapesize`; a newer type's appended members are skipped.
    #[test]
    fn xcdr2_reads_older_and_newer_appendable_forms() {
        let older = [
            0, 9, 0, 0, 24, 0, 0, 0, 5, 0, 0, 0, b'B', b'L', b'U', b'E', 0, 0, 0, 0, 1, 0, 0, 0, 2,
            0, 0, 0, 3, 0, 0, 0,
        ];
        let want = ShapeType {
            color: "BLUE".into(),
            x: 1,
            y: 2,
            shapesize: 3,
            additional_payload_size: vec![],
        };
        assert_eq!(ShapeType::deserialize(&older), Ok(want.clone()));
        // A newer writer appended a long after the sequence: DHEADER 28 + 4.
        let mut newer = want
            .serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
            .unwrap();
        assert_eq!(newer.get(4), Some(&28));
        newer[4] = 32;
        newer.extend_from_slice(&[9, 9, 9, 9]);
        assert_eq!(ShapeType::deserialize(&newer), Ok(want.clone()));
        // A DHEADER longer than the payload, and the final (CDR2, no DHEADER) form.
        newer[4] = 40;
        assert!(ShapeType::deserialize(&newer).is_err());
        let mut plain = older.to_vec();
        plain.drain(4..8);
        plain[1] = 7;
        assert_eq!(ShapeType::deserialize(&plain), Ok(want));
        // Cyclone's XCDR2 serialized key (`serialize_key(use_version_2=True)`): D_CDR2 + DHEADER.
        let key = [
            0, 9, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0, b'B', b'L', b'U', b'E', 0,
        ];
        assert_eq!(
            ShapeType::key_hash_from_serialized_key(&key),
            Some(color_key_hash("BLUE"))
        );
        assert_eq!(ShapeType::key_hash_from_serialized_key(&key[..12]), None);
    }

    #[test]
    fn xcdr2_truncations_and_other_encapsulations_are_errors() {
        let s = ShapeType {
            color: "BLUE".into(),
            x: 1,
            y: 2,
            shapesize: 3,
            additional_payload_size: vec![9; 5],
        };
        let bytes = s.serialize_as(XcdrVersion::Xcdr2, Endianness::Big).unwrap();
        for cut in 0..28 {
            assert!(ShapeType::deserialize(&bytes[..cut]).is_err(), "cut {cut}");
        }
        for id in [2u8, 3, 4, 10, 11] {
            let mut other = bytes.clone();
            other[1] = id;
            assert!(
                ShapeType::deserialize(&other).is_err(),
                "encapsulation {id}"
            );
        }
    }

    #[test]
    fn truncated_payloads_are_errors() {
        let s = ShapeType {
            color: "BLUE".into(),
            x: 1,
            y: 2,
            shapesize: 3,
            additional_payload_size: vec![9; 5],
        };
        let bytes = s.serialize(Endianness::Little);
        for cut in 0..20 {
            assert!(ShapeType::deserialize(&bytes[..cut]).is_err(), "cut {cut}");
        }
    }
}
