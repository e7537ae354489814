//! `PeerGroupSeq`, the sample type of `siftdds perf pub|sub --common-bytes N` (peer-group caching
//! benchmarks, issue 18, docs/peer-group-cache.md §8): `@final struct PeerGroupSeq { unsigned long
//! seq; @key unsigned long keyval; sequence<octet> common; sequence<octet> varying; };` in
//! XCDR1, and the deterministic content of its samples: `common` is the same for every
//! sample of one common set (`--common-set`), `varying` starts with the writer's wall clock
//! (nanoseconds since the UNIX epoch, little-endian, for the one-way latency) followed by
//! bytes that depend on (keyval, seq) only, so a subscriber can rebuild every sample it
//! receives and compare it byte for byte ([`Shape::check`]). `examples/peer_group_bytes`
//! includes this file to measure zstd on the very same samples.
//!
//! Sizes: `--common-bytes` counts the `common` member as serialized (its 4-byte length
//! included, a multiple of 4); `--size` counts the rest as `KeyedSeq`'s `--size` does (seq,
//! keyval, the length of `varying` and its octets), so the serialized payload is
//! 4 (encapsulation) + common + size bytes.
//!
//! Must not: panic or allocate more than the payload on any input (samples come from peers).
//!
//! DDS-XTypes 1.3 §7.4.3 (XCDR encoding), RTPS 2.5 §9.6.4.8 (key hash).

// An example/benchmark/test: it indexes and counts what it built itself and unwraps what must
// work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::sync::OnceLock;

use siftdds::cdr::{
    CdrError, CdrReader, CdrWriter, EncapsulationHeader, EncapsulationKind, Endianness,
};
use siftdds::types::{
    Extensibility, Member, TopicType, TypeDescriptor, TypeKind, key_hash_from_key_bytes,
};

/// Bytes of `--size` besides the varying octets: seq, keyval, the length of `varying`.
pub const FIXED_SIZE: usize = 12;
/// Octets at the start of `varying` holding the write time.
pub const STAMP_LEN: usize = 8;
/// The type's common member (the peer group's `common`).
pub const COMMON_MEMBER: &str = "common";

/// One sample.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerGroupSeq {
    /// Sequence number per writer and key, from 0.
    pub seq: u32,
    /// The instance key.
    pub keyval: u32,
    /// The common part (one value per common set).
    pub common: Vec<u8>,
    /// The write time (if there is room for it), then per-sample bytes.
    pub varying: Vec<u8>,
}

/// xorshift64*: the content generator (reproducible, no dependency).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn fill(&mut self, out: &mut [u8]) {
        for b in out {
            *b = self.next() as u8;
        }
    }
}

/// What the samples of a run look like: sizes and the common set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The common member's octets (without its length).
    pub common: Vec<u8>,
    /// Octets of `varying`.
    pub varying_len: usize,
}

/// Why a received sample is not the one the shape rebuilds.
#[derive(Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// Not a decodable PeerGroupSeq.
    Undecodable(CdrError),
    /// Decodable, but some byte differs from the rebuilt sample.
    Bytes,
}

impl Shape {
    /// The shape of `--common-bytes common_bytes --size size --common-set set`; `Err` for
    /// sizes the layout cannot have.
    pub fn new(common_bytes: usize, size: usize, set: u32) -> Result<Shape, String> {
        if common_bytes < 8 || common_bytes % 4 != 0 {
            return Err(format!(
                "--common-bytes {common_bytes}: a multiple of 4, at least 8 (4 of them the length)"
            ));
        }
        if size < FIXED_SIZE {
            return Err(format!(
                "--size {size} is below the {FIXED_SIZE}-byte fixed part of a PeerGroupSeq sample"
            ));
        }
        let mut common = vec![0; common_bytes - 4];
        Rng::new(0x9e37_79b9_7f4a_7c15 ^ u64::from(set)).fill(&mut common);
        Ok(Shape {
            common,
            varying_len: size - FIXED_SIZE,
        })
    }

    /// Sample `seq` of instance `keyval`, written at `stamp_ns`.
    pub fn sample(&self, seq: u32, keyval: u32, stamp_ns: u64) -> PeerGroupSeq {
        let mut varying = vec![0; self.varying_len];
        let n = STAMP_LEN.min(varying.len());
        varying[..n].copy_from_slice(&stamp_ns.to_le_bytes()[..n]);
        Rng::new((u64::from(keyval) << 32) | u64::from(seq)).fill(&mut varying[n..]);
        PeerGroupSeq {
            seq,
            keyval,
            common: self.common.clone(),
            varying,
        }
    }

    /// Checks a received serialized sample against the one this shape writes for its seq,
    /// keyval and stamp; returns (seq, keyval, payload bytes, stamp in ns if present).
    pub fn check(&self, data: &[u8]) -> Result<(u32, u32, usize, Option<u64>), Mismatch> {
        let s = PeerGroupSeq::deserialize(data).map_err(Mismatch::Undecodable)?;
        let stamp = (s.varying.len() >= STAMP_LEN).then(|| {
            let mut b = [0u8; STAMP_LEN];
            b.copy_from_slice(&s.varying[..STAMP_LEN]);
            u64::from_le_bytes(b)
        });
        let mut expected = self.sample(s.seq, s.keyval, 0);
        let n = STAMP_LEN.min(expected.varying.len());
        expected.varying[..n].copy_from_slice(&s.varying[..n.min(s.varying.len())]);
        let endian = match data.get(1) {
            Some(1) => Endianness::Little,
            _ => Endianness::Big,
        };
        if expected.serialize(endian) != data {
            return Err(Mismatch::Bytes);
        }
        Ok((s.seq, s.keyval, data.len(), stamp))
    }
}

fn octets() -> TypeKind {
    TypeKind::Sequence {
        elem: Box::new(TypeKind::Octet),
        bound: None,
    }
}

impl PeerGroupSeq {
    /// The type descriptor (the splitter finds `common` through it).
    pub fn type_descriptor() -> &'static TypeDescriptor {
        static DESCRIPTOR: OnceLock<TypeDescriptor> = OnceLock::new();
        DESCRIPTOR.get_or_init(|| TypeDescriptor {
            name: "PeerGroupSeq".to_owned(),
            extensibility: Extensibility::Final,
            members: vec![
                Member::new("seq", 0, TypeKind::U32),
                Member::new("keyval", 1, TypeKind::U32).key(),
                Member::new(COMMON_MEMBER, 2, octets()),
                Member::new("varying", 3, octets()),
            ],
        })
    }
}

/// The reader over a sample's members, after checking its encapsulation header.
fn body(data: &[u8]) -> Result<CdrReader<'_>, CdrError> {
    let mut r = CdrReader::new(data, Endianness::Big);
    let header = EncapsulationHeader::parse(&mut r)?;
    match header.kind {
        EncapsulationKind::Cdr => Ok(CdrReader::new(r.rest(), header.endian)),
        _ => Err(CdrError::Invalid(
            "PeerGroupSeq encapsulation (CDR expected)",
        )),
    }
}

/// As KeyedSeq's: the key holder `{ unsigned long keyval }` is 4 bytes big-endian, its own
/// hash. RTPS 2.5 §9.6.4.8.
fn keyval_hash(keyval: u32) -> [u8; 16] {
    key_hash_from_key_bytes(&keyval.to_be_bytes(), 4)
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl TopicType for PeerGroupSeq {
    fn type_name() -> &'static str {
        "PeerGroupSeq"
    }

    fn is_keyed() -> bool {
        true
    }

    fn serialize(&self, endian: Endianness) -> Vec<u8> {
        let cap = 4 + FIXED_SIZE + 4 + self.common.len() + 3 + self.varying.len();
        let mut buf = Vec::with_capacity(cap);
        EncapsulationHeader::new(EncapsulationKind::Cdr, endian)
            .emit(&mut CdrWriter::new(&mut buf, endian));
        let mut w = CdrWriter::new(&mut buf, endian);
        w.u32(self.seq);
        w.u32(self.keyval);
        w.u32(len32(self.common.len()));
        w.bytes(&self.common);
        w.align(4);
        w.u32(len32(self.varying.len()));
        w.bytes(&self.varying);
        buf
    }

    fn deserialize(data: &[u8]) -> Result<Self, CdrError> {
        let mut r = body(data)?;
        let seq = r.u32("PeerGroupSeq.seq")?;
        let keyval = r.u32("PeerGroupSeq.keyval")?;
        let len = r.seq_len(1, "PeerGroupSeq.common")?;
        let common = r.take(len, "PeerGroupSeq.common")?.to_vec();
        r.align(4, "PeerGroupSeq.varying")?;
        let len = r.seq_len(1, "PeerGroupSeq.varying")?;
        let varying = r.take(len, "PeerGroupSeq.varying")?.to_vec();
        Ok(PeerGroupSeq {
            seq,
            keyval,
            common,
            varying,
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
        body(data)
            .ok()?
            .u32("PeerGroupSeq.keyval")
            .ok()
            .map(keyval_hash)
    }

    fn descriptor() -> Option<&'static TypeDescriptor> {
        Some(Self::type_descriptor())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_the_issue_cases() {
        let a = Shape::new(188, 28, 0).unwrap();
        assert_eq!(a.sample(1, 0, 7).serialize(Endianness::Little).len(), 220);
        let b = Shape::new(4096, 64, 0).unwrap();
        assert_eq!(b.sample(1, 0, 7).serialize(Endianness::Little).len(), 4164);
        assert!(Shape::new(190, 28, 0).is_err());
        assert!(Shape::new(188, 11, 0).is_err());
    }

    #[test]
    fn check_accepts_what_the_shape_writes_and_refuses_any_changed_byte() {
        let shape = Shape::new(24, 30, 3).unwrap();
        for e in [Endianness::Little, Endianness::Big] {
            let s = shape.sample(9, 2, 0x0102_0304_0506_0708);
            let bytes = s.serialize(e);
            assert_eq!(PeerGroupSeq::deserialize(&bytes), Ok(s.clone()));
            assert_eq!(
                shape.check(&bytes),
                Ok((9, 2, bytes.len(), Some(0x0102_0304_0506_0708)))
            );
            // Every byte but the stamp's (at 4 + seq, keyval 8 + common 24 + length 4).
            let stamp = 4 + 8 + 24 + 4..4 + 8 + 24 + 4 + STAMP_LEN;
            for i in (0..bytes.len()).filter(|i| !stamp.contains(i)) {
                let mut bad = bytes.clone();
                bad[i] ^= 0x40;
                assert!(shape.check(&bad).is_err(), "byte {i} ({e:?})");
            }
            for cut in 0..bytes.len() {
                assert!(shape.check(&bytes[..cut]).is_err(), "cut {cut}");
            }
        }
        let other_set = Shape::new(24, 30, 4).unwrap();
        let bytes = other_set.sample(9, 2, 1).serialize(Endianness::Little);
        assert_eq!(shape.check(&bytes), Err(Mismatch::Bytes));
    }

    #[test]
    fn the_splitter_finds_the_common_member() {
        let shape = Shape::new(188, 28, 0).unwrap();
        let bytes = shape.sample(5, 1, 42).serialize(Endianness::Little);
        let segs = siftdds::core::peer_group::split::common_segments(
            PeerGroupSeq::type_descriptor(),
            &[COMMON_MEMBER.to_string()],
            &bytes,
        )
        .unwrap();
        let (p, rest) = siftdds::core::peer_group::split::split(&bytes, segs).unwrap();
        assert_eq!(rest.len() + 188, bytes.len(), "{:?}", p.segments);
    }
}
