//! `KeyedSeq`, the default type of Cyclone's `ddsperf` (`ddsperf_types.idl`), written by hand:
//! `@final struct KeyedSeq { unsigned long seq; @key unsigned long keyval;
//! sequence<octet> baggage; };` in XCDR1 (identical to XCDR2 for this layout: every member is
//! 4-byte aligned), so `siftdds perf` and `ddsperf -TKS` read each other's samples.
//!
//! Must not: panic or allocate more than the payload on any input (samples come from peers).
//!
//! DDS-XTypes 1.3 §7.4.3 (XCDR encoding), RTPS 2.5 §9.6.4.8 (key hash).

use siftdds::cdr::{
    CdrError, CdrReader, CdrWriter, EncapsulationHeader, EncapsulationKind, Endianness,
};
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
fn body(data: &[u8]) -> Result<(CdrReader<'_>, EncapsulationKind), CdrError> {
    let mut r = CdrReader::new(data, Endianness::Big);
    let header = EncapsulationHeader::parse(&mut r)?;
    match header.kind {
        EncapsulationKind::Cdr | EncapsulationKind::Cdr2 => {
            Ok((CdrReader::new(r.rest(), header.endian), header.kind))
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
            .emit(&mut CdrWriter::new(&mut buf, endian));
        let mut w = CdrWriter::new(&mut buf, endian);
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
            .emit(&mut CdrWriter::new(&mut buf, endian));
        CdrWriter::new(&mut buf, endian).u32(self.keyval);
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
mod tests;
