//! Splitting a serialized sample into its common segments and the rest, the projection
//! digest, and the inverse (merge). docs/peer-group-cache.md §3, §4.
//!
//! Must not: panic or allocate beyond the sample's size on any input, or guess: a sample the
//! walker cannot lay out exactly (an unsupported encoding or member kind) is not split and goes
//! in full.
//!
//! # Overview
//! [`common_segments`] walks the top-level members of a plain XCDR1 sample (CDR_BE/CDR_LE,
//! RTPS 2.5 §10.2; final or appendable struct, whose XCDR1 layouts are the same) and returns
//! the byte range of each named common member, alignment padding excluded (padding depends on
//! the position, so it stays in the rest). Supported member kinds: primitives, enums,
//! strings, arrays and sequences of primitives (CDR alignment rules, DDS-XTypes 1.3 §7.4.1).
//! The digest covers the layout and the bytes, so the same values at other offsets make
//! another key, and [`merge`] always rebuilds exactly the original bytes.

use md5::{Digest, Md5};

use crate::cdr::{CdrReader, EncapsulationHeader, EncapsulationKind};
use crate::types::{TypeDescriptor, TypeKind};
use crate::wire::{MAX_SEGMENTS, Segment};

/// Largest common projection we cache (bytes).
pub const MAX_COMMON_BYTES: usize = 64 * 1024;

/// Why a sample was not split (it is then sent in full).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SplitError {
    /// Not plain XCDR1, or a member kind the walker cannot lay out.
    Unsupported(&'static str),
    /// The sample does not decode against the type.
    Malformed(&'static str),
    /// More than [`MAX_SEGMENTS`] segments or [`MAX_COMMON_BYTES`] bytes.
    TooLarge,
    /// No common member in the sample.
    NoCommon,
}

/// A sample's common part: where it sits, its bytes, its digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Projection {
    /// The segments, increasing.
    pub segments: Vec<Segment>,
    /// The concatenated common bytes.
    pub common: Vec<u8>,
    /// [`digest`] of the two.
    pub digest: u64,
}

/// The digest of a layout and its bytes: the first 8 octets of MD5 (big-endian).
pub fn digest(segments: &[Segment], common: &[u8]) -> u64 {
    let mut h = Md5::new();
    for s in segments {
        h.update(s.offset.to_be_bytes());
        h.update(s.length.to_be_bytes());
    }
    h.update(common);
    let d = h.finalize();
    let mut first = [0u8; 8];
    for (o, i) in first.iter_mut().zip(d.iter()) {
        *o = *i;
    }
    u64::from_be_bytes(first)
}

/// A group's common-member list that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommonConfigError {
    /// The name is not a top-level member of the type.
    UnknownMember(String),
    /// The member is marked sensitive: never cached (docs/peer-group-cache.md §5 rule 11).
    Sensitive(String),
    /// The list is empty.
    Empty,
}

impl core::fmt::Display for CommonConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CommonConfigError::UnknownMember(m) => {
                write!(f, "common member `{m}` is not a member of the type")
            }
            CommonConfigError::Sensitive(m) => write!(
                f,
                "common member `{m}` is marked sensitive and is never cached"
            ),
            CommonConfigError::Empty => write!(f, "a peer group needs at least one common member"),
        }
    }
}

/// Checks a group's common-member names against the type and its sensitive members, once,
/// when the group is configured.
pub fn check_common(
    desc: &TypeDescriptor,
    common: &[String],
    sensitive: &[String],
) -> Result<(), CommonConfigError> {
    if common.is_empty() {
        return Err(CommonConfigError::Empty);
    }
    for c in common {
        if desc.member(c).is_none() {
            return Err(CommonConfigError::UnknownMember(c.clone()));
        }
        if sensitive.contains(c) {
            return Err(CommonConfigError::Sensitive(c.clone()));
        }
    }
    Ok(())
}

/// The byte ranges of the members named in `common` in `payload` (encapsulation included).
pub fn common_segments(
    desc: &TypeDescriptor,
    common: &[String],
    payload: &[u8],
) -> Result<Vec<Segment>, SplitError> {
    let (header, mut r) =
        EncapsulationHeader::body(payload).map_err(|_| SplitError::Malformed("encapsulation"))?;
    if header.kind != EncapsulationKind::Cdr {
        return Err(SplitError::Unsupported("encoding other than plain XCDR1"));
    }
    let base = EncapsulationHeader::LEN;
    let mut out: Vec<Segment> = Vec::new();
    for m in &desc.members {
        if m.optional {
            return Err(SplitError::Unsupported("optional member"));
        }
        align_for(&mut r, &m.kind)?;
        let start = r.position();
        skip_member(&mut r, &m.kind)?;
        let end = r.position();
        if end > start && common.contains(&m.name) {
            let off =
                u32::try_from(base.saturating_add(start)).map_err(|_| SplitError::TooLarge)?;
            let len = u32::try_from(end.saturating_sub(start)).map_err(|_| SplitError::TooLarge)?;
            match out.last_mut() {
                // Adjacent common members make one segment.
                Some(last) if last.offset.saturating_add(last.length) == off => {
                    last.length = last.length.saturating_add(len);
                }
                _ => out.push(Segment {
                    offset: off,
                    length: len,
                }),
            }
            if out.len() > MAX_SEGMENTS {
                return Err(SplitError::TooLarge);
            }
        }
    }
    if out.is_empty() {
        return Err(SplitError::NoCommon);
    }
    Ok(out)
}

fn align_for(r: &mut CdrReader<'_>, kind: &TypeKind) -> Result<(), SplitError> {
    let a = match kind {
        TypeKind::String { .. } | TypeKind::Sequence { .. } => 4,
        TypeKind::Array { elem, .. } => elem.primitive_size().unwrap_or(1),
        k => k.primitive_size().unwrap_or(1),
    };
    r.align(a, "member")
        .map_err(|_| SplitError::Malformed("padding"))
}

fn skip_member(r: &mut CdrReader<'_>, kind: &TypeKind) -> Result<(), SplitError> {
    let bad = |_| SplitError::Malformed("member");
    if let Some(n) = kind.primitive_size() {
        return r.skip(n, "primitive").map_err(bad);
    }
    match kind {
        TypeKind::String { bound } => {
            let max = bound.map_or(usize::MAX, |b| usize::try_from(b).unwrap_or(usize::MAX));
            r.string(max.saturating_add(1), "string")
                .map(|_| ())
                .map_err(bad)
        }
        TypeKind::Sequence { elem, .. } => {
            let size = elem
                .primitive_size()
                .ok_or(SplitError::Unsupported("sequence of constructed"))?;
            let n = r.seq_len(size, "sequence").map_err(bad)?;
            if n > 0 {
                r.align(size, "sequence").map_err(bad)?;
            }
            r.skip(n.saturating_mul(size), "sequence").map_err(bad)
        }
        TypeKind::Array { elem, dims } => {
            let size = elem
                .primitive_size()
                .ok_or(SplitError::Unsupported("array of constructed"))?;
            let count = dims.iter().try_fold(1usize, |acc, d| {
                acc.checked_mul(usize::try_from(*d).unwrap_or(usize::MAX))
            });
            let count = count.ok_or(SplitError::TooLarge)?;
            r.skip(count.saturating_mul(size), "array").map_err(bad)
        }
        _ => Err(SplitError::Unsupported("constructed member")),
    }
}

/// Splits `payload` at `segments` into the projection and the rest.
pub fn split(payload: &[u8], segments: Vec<Segment>) -> Result<(Projection, Vec<u8>), SplitError> {
    let mut common = Vec::new();
    let mut rest = Vec::with_capacity(payload.len());
    let mut pos = 0usize;
    for s in &segments {
        let start = usize::try_from(s.offset).map_err(|_| SplitError::TooLarge)?;
        let end =
            start.saturating_add(usize::try_from(s.length).map_err(|_| SplitError::TooLarge)?);
        let (Some(before), Some(seg)) = (payload.get(pos..start), payload.get(start..end)) else {
            return Err(SplitError::Malformed("segment outside the sample"));
        };
        rest.extend_from_slice(before);
        common.extend_from_slice(seg);
        pos = end;
    }
    if common.len() > MAX_COMMON_BYTES {
        return Err(SplitError::TooLarge);
    }
    rest.extend_from_slice(payload.get(pos..).unwrap_or_default());
    let digest = digest(&segments, &common);
    Ok((
        Projection {
            segments,
            common,
            digest,
        },
        rest,
    ))
}

/// Rebuilds the full payload from the segments, their bytes and the rest; `None` if they do
/// not fit together (a lying rest: too short for the layout).
pub fn merge(segments: &[Segment], common: &[u8], rest: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(common.len().saturating_add(rest.len()));
    let (mut rpos, mut cpos) = (0usize, 0usize);
    for s in segments {
        let start = usize::try_from(s.offset).ok()?;
        let len = usize::try_from(s.length).ok()?;
        // The rest bytes before this segment: up to its offset in the full payload.
        let need = start.checked_sub(out.len())?;
        out.extend_from_slice(rest.get(rpos..rpos.checked_add(need)?)?);
        rpos = rpos.checked_add(need)?;
        out.extend_from_slice(common.get(cpos..cpos.checked_add(len)?)?);
        cpos = cpos.checked_add(len)?;
    }
    if cpos != common.len() {
        return None;
    }
    out.extend_from_slice(rest.get(rpos..)?);
    Some(out)
}
