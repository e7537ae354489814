//! `KeyedSeq`, the default type of Cyclone's `ddsperf` (`ddsperf_types.idl`), written by hand:
//! `@final struct KeyedSeq { unsigned long seq; @key unsigned long keyval;
//! sequence<octet> baggage; };` in XCDR1 (identical to XCDR2 for this layout: every member is
//! 4-byte aligned), so `siftdds perf` and `ddsperf -TKS` read each other's samples.
//!
//! Must not: panic or allocate more than the payload on any input (samples come from peers).
//!
//! DDS-XTypes 1.3 §7.4.3 (XCDR encoding), RTPS 2.5 §9.6.4.8 (key hash).

use siftdds::cdr::{CdrError, EncapsulationHeader, EncapsulationKind, Endianness, Reader, Writer};
use siftdds::types::{TopicType, key_hash_from_key_bytes};

/// Bytes of a sample besides the baggage: `seq`, `keyval` and the sequence length. `ddsperf`'s
/// `size S` counts them, and so does `--size`.
pub const FIXED_SIZE: usize = 12;

/// One `ddsperf` KeyedSeq sample.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyedSeq {
    /// Sequence number per writer and key, from 0.
    pub seq: u32,
    /// The instance key.
    pub keyval: u32,
    /// Padding that gives the sample its size.
    pub baggage: Vec<u8>,
}

impl KeyedSeq {
    /// The size `ddsperf` reports for this sample (fixed part plus baggage).
    pub fn size(&self) -> usize {
        FIXED_SIZE.saturating_add(self.baggage.len())
    }

    /// `seq`, `keyval` and size of a serialized sample, without copying the baggage (the
    /// subscriber's hot path needs only these).
    /// Reads the three words off the slice (it runs once per received sample).
    pub fn peek(data: &[u8]) -> Result<(u32, u32, usize), CdrError> {
        let (r, _) = body(data)?;
        let word = |b: &[u8; 4]| match r.endian() {
            Endianness::Big => u32::from_be_bytes(*b),
            Endianness::Little => u32::from_le_bytes(*b),
        };
        let rest = r.rest();
        let (seq, rest) = rest
            .split_first_chunk::<4>()
            .ok_or(CdrError::Truncated("KeyedSeq.seq"))?;
        let (keyval, rest) = rest
            .split_first_chunk::<4>()
            .ok_or(CdrError::Truncated("KeyedSeq.keyval"))?;
        let (len, rest) = rest
            .split_first_chunk::<4>()
            .ok_or(CdrError::Truncated("KeyedSeq.baggage"))?;
        let len = usize::try_from(word(len)).unwrap_or(usize::MAX);
        if len > rest.len() {
            return Err(CdrError::Truncated("KeyedSeq.baggage"));
        }
        Ok((word(seq), word(keyval), FIXED_SIZE.saturating_add(len)))
    }
}

/// The reader over a sample's members, after checking its encapsulation header.
fn body(data: &[u8]) -> Result<(Reader<'_>, EncapsulationKind), CdrError> {
    let mut r = Reader::new(data, Endianness::Big);
    let header = EncapsulationHeader::parse(&mut r)?;
    match header.kind {
        EncapsulationKind::Cdr | EncapsulationKind::Cdr2 => {
            Ok((Reader::new(r.rest(), header.endian), header.kind))
        }
        _ => Err(CdrError::Invalid(
            "KeyedSeq encapsulation (CDR or CDR2 expected)",
        )),
    }
}

impl TopicType for KeyedSeq {
    fn type_name() -> &'static str {
        "KeyedSeq"
    }

    fn is_keyed() -> bool {
        true
    }

    fn serialize(&self, endian: Endianness) -> Vec<u8> {
        let mut buf = Vec::with_capacity(4usize.saturating_add(self.size()));
        EncapsulationHeader::new(EncapsulationKind::Cdr, endian)
            .emit(&mut Writer::new(&mut buf, endian));
        let mut w = Writer::new(&mut buf, endian);
        w.u32(self.seq);
        w.u32(self.keyval);
        w.u32(u32::try_from(self.baggage.len()).unwrap_or(u32::MAX));
        w.bytes(&self.baggage);
        buf
    }

    fn deserialize(data: &[u8]) -> Result<Self, CdrError> {
        let (mut r, _) = body(data)?;
        let seq = r.u32("KeyedSeq.seq")?;
        let keyval = r.u32("KeyedSeq.keyval")?;
        let len = r.seq_len(1, "KeyedSeq.baggage")?;
        let baggage = r.take(len, "KeyedSeq.baggage")?.to_vec();
        Ok(KeyedSeq {
            seq,
            keyval,
            baggage,
        })
    }

    fn key_hash(&self) -> Option<[u8; 16]> {
        Some(keyval_hash(self.keyval))
    }

    fn serialize_key(&self, endian: Endianness) -> Option<Vec<u8>> {
        let mut buf = Vec::with_capacity(8);
        EncapsulationHeader::new(EncapsulationKind::Cdr, endian)
            .emit(&mut Writer::new(&mut buf, endian));
        Writer::new(&mut buf, endian).u32(self.keyval);
        Some(buf)
    }

    fn key_hash_from_serialized_key(data: &[u8]) -> Option<[u8; 16]> {
        let (mut r, _) = body(data).ok()?;
        r.u32("KeyedSeq.keyval").ok().map(keyval_hash)
    }
}

/// Key holder `{ unsigned long keyval }`: 4 bytes big-endian, at most 16, so the bytes
/// themselves. RTPS 2.5 §9.6.4.8.
fn keyval_hash(keyval: u32) -> [u8; 16] {
    key_hash_from_key_bytes(&keyval.to_be_bytes(), 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_in_both_byte_orders_and_peeks_without_the_baggage() {
        let s = KeyedSeq {
            seq: 7,
            keyval: 3,
            baggage: vec![0xee; 5],
        };
        for e in [Endianness::Little, Endianness::Big] {
            let bytes = s.serialize(e);
            assert_eq!(bytes.len(), 4 + 12 + 5);
            assert_eq!(KeyedSeq::deserialize(&bytes), Ok(s.clone()));
            assert_eq!(KeyedSeq::peek(&bytes), Ok((7, 3, 17)));
        }
    }

    #[test]
    fn peek_refuses_truncated_samples_and_a_baggage_longer_than_the_bytes() {
        let bytes = KeyedSeq {
            seq: 1,
            keyval: 2,
            baggage: vec![1; 8],
        }
        .serialize(Endianness::Big);
        for cut in 0..bytes.len() {
            assert!(KeyedSeq::peek(&bytes[..cut]).is_err(), "cut {cut}");
        }
        assert_eq!(KeyedSeq::peek(&bytes), Ok((1, 2, 20)));
    }

    #[test]
    fn reads_the_bytes_ddsperf_sends() {
        // CDR_LE, seq 1, keyval 0, baggage of 4 octets 0xee (ddsperf `size 16`).
        let wire = [
            0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0xee, 0xee, 0xee, 0xee,
        ];
        let got = KeyedSeq::deserialize(&wire);
        assert_eq!(
            got,
            Ok(KeyedSeq {
                seq: 1,
                keyval: 0,
                baggage: vec![0xee; 4]
            })
        );
        assert_eq!(got.map(|s| s.size()), Ok(16));
    }

    #[test]
    fn truncated_or_oversized_payloads_are_errors() {
        let bytes = KeyedSeq {
            seq: 1,
            keyval: 2,
            baggage: vec![1; 8],
        }
        .serialize(Endianness::Little);
        for cut in 0..bytes.len() {
            assert!(KeyedSeq::deserialize(&bytes[..cut]).is_err(), "cut {cut}");
        }
        let mut huge = bytes.clone();
        huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(KeyedSeq::deserialize(&huge).is_err());
    }

    #[test]
    fn key_hash_is_the_big_endian_keyval_and_matches_the_serialized_key() {
        let s = KeyedSeq {
            seq: 0,
            keyval: 0x0102_0304,
            baggage: vec![],
        };
        let mut expected = [0u8; 16];
        expected[..4].copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(s.key_hash(), Some(expected));
        let key = s.serialize_key(Endianness::Little);
        assert_eq!(
            key.as_deref()
                .and_then(KeyedSeq::key_hash_from_serialized_key),
            Some(expected)
        );
    }
}
