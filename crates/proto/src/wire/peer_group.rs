//! Peer-group cache wire elements (issue 18, docs/peer-group-cache.md §4): the cache key, the
//! vendor parameter carrying a definition's key and segment layout (`PID_SIFTDDS_PEER_GROUP_KEY`,
//! 0x8100), the capability parameter (0x8101) and the abbreviated-sample vendor submessage
//! (`SIFTDDS_ABBREVIATED_DATA`, 0x81).
//!
//! Must not: interpret any of these unless the sender's vendor id is siftdds (vendor PIDs and
//! submessage ids 0x80–0xff mean something only with the sender's vendor id, RTPS 2.5
//! §9.6.2.2.1, §9.4.5.1.1), panic on any input, or allocate from a wire count before checking
//! the bytes are there. No cache logic (that is `core::peer_group`).
//!
//! RTPS 2.5 §8.3.4.1: receivers skip unknown submessage ids by octetsToNextHeader, which is
//! what every other vendor does with 0x81.

use super::submessage::{SubmessageHeader, body_reader, emit_submessage};
use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::wire::{EntityId, SequenceNumber, VendorId, WireError};

/// PID_SIFTDDS_PEER_GROUP_KEY: the key and segment layout of a definition, in the inline QoS of
/// an ordinary DATA. Vendor bit set, must-understand clear (others skip it). The router's
/// PIDs take 0x8000 upwards; the peer-group cache owns 0x8100–0x810f
/// (docs/interop-facts.md §12).
pub const PID_SIFTDDS_PEER_GROUP_KEY: u16 = 0x8100;
/// PID_SIFTDDS_PEER_GROUP_CAPABILITY: in SPDP data, the participant restores abbreviated samples
/// ([`Capability::to_octets`]).
pub use super::plist::pid::PID_SIFTDDS_PEER_GROUP_CAPABILITY;
/// SIFTDDS_ABBREVIATED_DATA: a vendor submessage id (RTPS 2.5 §9.4.5.1.1: 0x80–0xff).
pub const SIFTDDS_ABBREVIATED_DATA: u8 = 0x81;

/// Most common segments in one definition.
pub const MAX_SEGMENTS: usize = 16;
/// Largest serialized rest of an abbreviated sample (it must fit one datagram).
pub const MAX_REST: usize = 64 * 1024;

/// The key of one cache entry. docs/peer-group-cache.md §3.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheKey {
    /// The group's 32-bit id.
    pub group: u32,
    /// The intermediary's cache epoch.
    pub generation: u32,
    /// First 8 octets of the type identifier hash.
    pub type_hash: u64,
    /// Digest of the layout and the common bytes.
    pub digest: u64,
}

impl CacheKey {
    /// Size on the wire.
    pub const LEN: usize = 24;

    /// Reads the 24 octets in the reader's byte order.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        Ok(CacheKey {
            group: r.u32("CacheKey.group")?,
            generation: r.u32("CacheKey.generation")?,
            type_hash: r.u64("CacheKey.typeHash")?,
            digest: r.u64("CacheKey.digest")?,
        })
    }

    /// Writes the 24 octets.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.u32(self.group);
        w.u32(self.generation);
        w.u64(self.type_hash);
        w.u64(self.digest);
    }
}

/// One common segment of a serialized sample: `length` octets at `offset` (encapsulation
/// header included in the offsets).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Segment {
    /// Offset in the full serialized payload.
    pub offset: u32,
    /// Length, > 0.
    pub length: u32,
}

/// The value of `PID_SIFTDDS_PEER_GROUP_KEY`: the key and where the common bytes sit.
/// Invariant (checked by `parse` and by the constructor): 1..=MAX_SEGMENTS segments,
/// increasing, non-overlapping, each non-empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyDefinition {
    /// The key.
    pub key: CacheKey,
    segments: Vec<Segment>,
}

impl KeyDefinition {
    /// A definition, or `Invalid` if the segments break the invariant.
    pub fn new(key: CacheKey, segments: Vec<Segment>) -> Result<Self, WireError> {
        check_segments(&segments)?;
        Ok(KeyDefinition { key, segments })
    }

    /// The segments, increasing.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Parses the parameter value (its byte order is the parameter list's).
    pub fn parse(value: &[u8], endian: Endianness) -> Result<Self, WireError> {
        let mut r = CdrReader::new(value, endian);
        let key = CacheKey::parse(&mut r)?;
        let count = r.u32("KeyDefinition.segmentCount")?;
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        if count > MAX_SEGMENTS {
            return Err(WireError::TooLarge("KeyDefinition.segmentCount"));
        }
        // Bounded by MAX_SEGMENTS, not by the wire count alone.
        let mut segments = Vec::with_capacity(count);
        for _ in 0..count {
            let offset = r.u32("Segment.offset")?;
            let length = r.u32("Segment.length")?;
            segments.push(Segment { offset, length });
        }
        check_segments(&segments)?;
        Ok(KeyDefinition { key, segments })
    }

    /// Encoded value size.
    pub fn buffer_len(&self) -> usize {
        CacheKey::LEN
            .saturating_add(4)
            .saturating_add(self.segments.len().saturating_mul(8))
    }

    /// Appends the parameter value (no parameter header).
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        let start = w.position();
        self.key.emit(w);
        // invariant: at most MAX_SEGMENTS (16) segments.
        w.u32(u32::try_from(self.segments.len()).unwrap_or(u32::MAX));
        for s in &self.segments {
            w.u32(s.offset);
            w.u32(s.length);
        }
        debug_assert_eq!(w.position().saturating_sub(start), self.buffer_len());
    }

    /// Finds and decodes the definition in a DATA's inline QoS, only from a siftdds sender.
    /// `None`: absent or another vendor; `Some(Err)`: present but malformed (count and drop
    /// the key, keep the DATA, which is a valid sample).
    pub fn from_inline_qos(
        vendor: VendorId,
        qos: &crate::wire::plist::ParameterListView<'_>,
    ) -> Option<Result<Self, WireError>> {
        if vendor != VendorId::SIFTDDS {
            return None;
        }
        let p = qos.find(PID_SIFTDDS_PEER_GROUP_KEY)?;
        Some(Self::parse(p.value, qos.endian()))
    }
}

fn check_segments(segments: &[Segment]) -> Result<(), WireError> {
    if segments.is_empty() {
        return Err(WireError::Invalid("KeyDefinition: no segment"));
    }
    if segments.len() > MAX_SEGMENTS {
        return Err(WireError::TooLarge("KeyDefinition.segmentCount"));
    }
    let mut end: u64 = 0;
    for s in segments {
        if s.length == 0 {
            return Err(WireError::Invalid("Segment.length"));
        }
        if u64::from(s.offset) < end {
            return Err(WireError::Invalid("Segment.offset (overlap or order)"));
        }
        end = u64::from(s.offset).saturating_add(u64::from(s.length));
    }
    Ok(())
}

/// The value of `PID_SIFTDDS_PEER_GROUP_CAPABILITY`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Capability {
    /// Entries the intermediary keeps per group (0 on a writer: it only sends).
    pub capacity: u32,
    /// The intermediary's current cache epoch.
    pub generation: u32,
}

impl Capability {
    /// Size of the value.
    pub const LEN: usize = 8;

    /// Parses the parameter value.
    pub fn parse(value: &[u8], endian: Endianness) -> Result<Self, WireError> {
        let mut r = CdrReader::new(value, endian);
        Ok(Capability {
            capacity: r.u32("Capability.capacity")?,
            generation: r.u32("Capability.generation")?,
        })
    }

    /// Appends the parameter value.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.u32(self.capacity);
        w.u32(self.generation);
    }
    /// The `sequence<octet>` carried in SPDP: capacity and generation, big-endian.
    pub fn to_octets(&self) -> [u8; 8] {
        let mut o = [0u8; 8];
        for (d, s) in o.iter_mut().zip(
            self.capacity
                .to_be_bytes()
                .into_iter()
                .chain(self.generation.to_be_bytes()),
        ) {
            *d = s;
        }
        o
    }

    /// The inverse of [`to_octets`](Self::to_octets); `None` unless exactly 8 octets.
    pub fn from_octets(o: &[u8]) -> Option<Self> {
        let o: [u8; 8] = o.try_into().ok()?;
        let [a, b, c, d, e, f, g, h] = o;
        Some(Capability {
            capacity: u32::from_be_bytes([a, b, c, d]),
            generation: u32::from_be_bytes([e, f, g, h]),
        })
    }
}

/// readerId + writerId + writerSN.
const ABBREVIATED_IDS_LEN: usize = 16;
/// Flag H: a 16-octet key hash (PID_KEY_HASH of a keyed sample) follows the key.
pub const ABBREVIATED_FLAG_KEY_HASH: u8 = 0x02;
/// Flag S: the key is short: its digest only (8 octets); group, generation and type hash are
/// the receiver's for this writer (its group, its own generation, the writer's type).
pub const ABBREVIATED_FLAG_SHORT_KEY: u8 = 0x04;
/// Flag A: the key is an [`Alias`]: the low bits of the writerSN of the definition that bound
/// it (two octets in the E byte order, or one with flag N). Not together with S.
pub const ABBREVIATED_FLAG_ALIAS: u8 = 0x08;
/// Flag N (only with A): the alias is one octet (the low 8 bits).
pub const ABBREVIATED_FLAG_NARROW: u8 = 0x10;
/// Octets of a short key.
pub const SHORT_KEY_LEN: usize = 8;

/// How an abbreviated sample names its key.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum KeyRef {
    /// The whole 24-octet key (no flag).
    Full(CacheKey),
    /// Its digest only (flag S); the receiver completes it for the writer.
    Digest(u64),
    /// The definition that bound it, by the low bits of its SN (flag A, with N if narrow).
    Alias(Alias),
}

impl KeyRef {
    fn len(&self) -> usize {
        match self {
            KeyRef::Full(_) => CacheKey::LEN,
            KeyRef::Digest(_) => SHORT_KEY_LEN,
            KeyRef::Alias(a) => a.len(),
        }
    }

    fn flags(&self) -> u8 {
        match self {
            KeyRef::Full(_) => 0,
            KeyRef::Digest(_) => ABBREVIATED_FLAG_SHORT_KEY,
            KeyRef::Alias(a) if a.narrow => ABBREVIATED_FLAG_ALIAS | ABBREVIATED_FLAG_NARROW,
            KeyRef::Alias(_) => ABBREVIATED_FLAG_ALIAS,
        }
    }

    fn parse(flags: u8, r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        let short = flags & ABBREVIATED_FLAG_SHORT_KEY != 0;
        let alias = flags & ABBREVIATED_FLAG_ALIAS != 0;
        match (short, alias) {
            (true, true) => Err(WireError::Invalid("AbbreviatedData: flags S and A")),
            (true, false) => Ok(KeyRef::Digest(r.u64("AbbreviatedData.digest")?)),
            (false, false) => Ok(KeyRef::Full(CacheKey::parse(r)?)),
            (false, true) if flags & ABBREVIATED_FLAG_NARROW != 0 => Ok(KeyRef::Alias(Alias {
                low: u16::from(r.u8("AbbreviatedData.alias")?),
                narrow: true,
            })),
            (false, true) => Ok(KeyRef::Alias(Alias {
                low: r.u16("AbbreviatedData.alias")?,
                narrow: false,
            })),
        }
    }

    fn emit(&self, w: &mut CdrWriter<'_>) {
        match self {
            KeyRef::Full(k) => k.emit(w),
            KeyRef::Digest(d) => w.u64(*d),
            // invariant: a narrow alias is below 256.
            KeyRef::Alias(a) if a.narrow => w.u8(u8::try_from(a.low).unwrap_or(u8::MAX)),
            KeyRef::Alias(a) => w.u16(a.low),
        }
    }
}

/// An abbreviated sample: the key plus the serialized sample without its common segments.
/// docs/peer-group-cache.md §4.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AbbreviatedData<'a> {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// readerId (ENTITYID_UNKNOWN for all readers of the intermediary).
    pub reader_id: EntityId,
    /// writerId.
    pub writer_id: EntityId,
    /// writerSN.
    pub writer_sn: SequenceNumber,
    /// The cache key of the omitted common segments, in one of its three forms.
    pub key: KeyRef,
    /// Flag H: the sample's key hash (keyed topics), restored as PID_KEY_HASH.
    pub key_hash: Option<[u8; 16]>,
    /// The serialized sample minus the common segments (borrowed from the datagram).
    pub rest: &'a [u8],
}

impl<'a> AbbreviatedData<'a> {
    /// Parses the body of a submessage with id [`SIFTDDS_ABBREVIATED_DATA`].
    pub fn parse(flags: u8, body: &'a [u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let reader_id = EntityId::parse(&mut r)?;
        let writer_id = EntityId::parse(&mut r)?;
        let writer_sn = SequenceNumber::parse(&mut r)?;
        // RTPS 2.5 §8.3.7.2.3 (as for DATA): writerSN ≥ 1.
        if writer_sn.0 <= 0 {
            return Err(WireError::Invalid("AbbreviatedData.writerSN"));
        }
        let key = KeyRef::parse(flags, &mut r)?;
        let key_hash = if flags & ABBREVIATED_FLAG_KEY_HASH != 0 {
            Some(r.take_array::<16>("AbbreviatedData.keyHash")?)
        } else {
            None
        };
        let rest = r.take_rest();
        if rest.len() > MAX_REST {
            return Err(WireError::TooLarge("AbbreviatedData.rest"));
        }
        Ok(AbbreviatedData {
            endian: r.endian(),
            reader_id,
            writer_id,
            writer_sn,
            key,
            key_hash,
            rest,
        })
    }

    /// Interprets a submessage the standard iterator reported as not understood: `None` unless
    /// the message's vendor id is siftdds and the id is ours (RTPS 2.5 §9.4.5.1.1: vendor ids
    /// are scoped by the sender's vendor); otherwise the parse result.
    pub fn from_not_understood(
        vendor: VendorId,
        id: u8,
        flags: u8,
        body: &'a [u8],
    ) -> Option<Result<Self, WireError>> {
        if vendor != VendorId::SIFTDDS || id != SIFTDDS_ABBREVIATED_DATA {
            return None;
        }
        Some(Self::parse(flags, body))
    }

    fn body_len(&self) -> usize {
        ABBREVIATED_IDS_LEN
            .saturating_add(self.key.len())
            .saturating_add(if self.key_hash.is_some() { 16 } else { 0 })
            .saturating_add(self.rest.len())
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        self.body_len().saturating_add(SubmessageHeader::LEN)
    }

    /// The flags besides E: H, S, A, N.
    fn flags(&self) -> u8 {
        let h = if self.key_hash.is_some() {
            ABBREVIATED_FLAG_KEY_HASH
        } else {
            0
        };
        h | self.key.flags()
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        emit_submessage(
            buf,
            SIFTDDS_ABBREVIATED_DATA,
            self.flags(),
            self.endian,
            self.body_len(),
            |w| {
                self.reader_id.emit(w);
                self.writer_id.emit(w);
                self.writer_sn.emit(w);
                self.key.emit(w);
                if let Some(h) = &self.key_hash {
                    w.bytes(h);
                }
                w.bytes(self.rest);
            },
        );
    }
}

mod alias;
pub use alias::{Alias, NARROW_WINDOW, WIDE_WINDOW};

#[cfg(test)]
mod tests;
