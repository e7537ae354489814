//! Static facts about a member's type that `#[derive(TopicType)]` (the `siftdds-derive`
//! crate) needs and cannot see from the source text: whether it is an XTypes primitive (no
//! DHEADER before collections of it), the EMHEADER length code Cyclone picks for it, and the
//! largest PLAIN_CDR2 key holder it can contribute ([`KeyEnd`]). The IDL generator computes
//! the same facts from the resolved IDL; these reproduce its rules (`idl::codegen::value`) as
//! `const fn`s over the [`XcdrCodec`](super::XcdrCodec) constants, so derived and generated
//! types encode alike.
//!
//! Must not: read or write bytes, or loop without a bound (everything here runs in constant
//! evaluation of the user's crate).
//!
//! DDS-XTypes 1.3 §7.2.2.2 (primitive types), §7.4.3.4.8 (length codes), §7.4.3.5.3
//! (DHEADERs before collections); RTPS 2.5 §9.6.4.8 (the key hash of a holder of at most 16
//! bytes is the bytes themselves, otherwise their MD5).

use super::LengthCode;

/// How deep derived types describe their nested structs (`XcdrCodec::type_kind`), as the
/// IDL front end's nesting limit: past it a type, such as one holding itself, has no
/// descriptor.
pub const MAX_DESCRIBED_DEPTH: usize = 64;

/// RTPS 2.5 §9.6.4.8: a key holder up to this size is its own hash; past it only "larger"
/// matters, so [`KeyEnd`] stops counting there.
const KEY_HASH_INLINE: usize = 16;

/// The largest offset at which a value of a type ends in a PLAIN_CDR2 key holder, for each
/// start offset modulo 4 (XCDR2 aligns to at most 4, so the end from `pos + 4` is the end from
/// `pos` plus 4). `None`: unbounded, or past the 16 bytes a key hash holds as they are, which
/// the hash treats alike.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct KeyEnd([Option<usize>; 4]);

const fn align4(pos: usize, size: usize) -> Option<usize> {
    let a = if size >= 4 {
        4
    } else if size == 0 {
        1
    } else {
        size
    };
    match pos.checked_add(a.saturating_sub(1)) {
        Some(p) => match p.checked_div(a) {
            Some(q) => q.checked_mul(a),
            None => None,
        },
        None => None,
    }
}

const fn capped(end: Option<usize>) -> Option<usize> {
    match end {
        Some(e) if e <= KEY_HASH_INLINE => Some(e),
        _ => None,
    }
}

const fn plus(end: Option<usize>, n: usize) -> Option<usize> {
    match end {
        Some(e) => capped(e.checked_add(n)),
        None => None,
    }
}

/// What one step of a key holder does from a start offset.
#[derive(Copy, Clone)]
enum Step {
    Primitive(usize),
    String(usize),
    Then(KeyEnd, KeyEnd),
    Optional(KeyEnd),
    Sequence(KeyEnd, bool, u32),
    Array(KeyEnd, bool, usize),
}

const fn step(s: Step, pos: usize) -> Option<usize> {
    match s {
        Step::Primitive(size) => plus(align4(pos, size), size),
        Step::String(bound) => match bound.checked_add(5) {
            Some(n) => plus(align4(pos, 4), n),
            None => None,
        },
        Step::Then(a, b) => match a.at(pos) {
            Some(e) => b.at(e),
            None => None,
        },
        Step::Optional(inner) => match pos.checked_add(1) {
            Some(p) => inner.at(p),
            None => None,
        },
        Step::Sequence(elem, primitive, bound) => {
            let mut p = plus(align4(pos, 4), if primitive { 4 } else { 8 });
            let mut left = bound;
            // Each element adds at least the 3 bytes the generator allows for its padding, so
            // the holder passes 16 bytes within a few elements.
            while left > 0 {
                p = match p {
                    Some(at) => plus(elem.at(at), 3),
                    None => return None,
                };
                left = left.saturating_sub(1);
            }
            p
        }
        Step::Array(elem, primitive, n) => {
            let mut p = if primitive {
                Some(pos)
            } else {
                plus(align4(pos, 4), 4)
            };
            let mut left = n;
            while left > 0 {
                let next = match p {
                    Some(at) => elem.at(at),
                    None => return None,
                };
                // Elements of no size leave the end where it is: the rest change nothing.
                if let (Some(a), Some(b)) = (p, next) {
                    if a == b {
                        return p;
                    }
                }
                p = next;
                left = left.saturating_sub(1);
            }
            p
        }
    }
}

const fn each(s: Step) -> KeyEnd {
    KeyEnd([step(s, 0), step(s, 1), step(s, 2), step(s, 3)])
}

impl KeyEnd {
    /// A type whose key holder has no bound (unbounded strings and sequences, unions, types
    /// that do not say): the key hash is an MD5.
    pub const UNBOUNDED: KeyEnd = KeyEnd([None; 4]);

    /// Nothing: the holder ends where it starts.
    pub const EMPTY: KeyEnd = KeyEnd([Some(0), Some(1), Some(2), Some(3)]);

    /// From the ends at start offsets 0 to 3, as the IDL generator computes them for its
    /// structs (ends past 16 bytes count as unbounded).
    pub const fn from_ends(ends: [Option<usize>; 4]) -> KeyEnd {
        let [a, b, c, d] = ends;
        KeyEnd([capped(a), capped(b), capped(c), capped(d)])
    }

    /// Where a value started at `pos` ends at the latest (`None`: unbounded or past 16).
    pub const fn at(&self, pos: usize) -> Option<usize> {
        let [a, b, c, d] = self.0;
        let base = match pos % 4 {
            0 => a,
            1 => b,
            2 => c,
            _ => d,
        };
        plus(base, pos & !3)
    }

    /// A primitive of `size` bytes (an enum is a primitive of 4).
    pub const fn primitive(size: usize) -> KeyEnd {
        each(Step::Primitive(size))
    }

    /// A `string<bound>`: length, at most `bound` bytes and the NUL.
    pub const fn string(bound: Option<u32>) -> KeyEnd {
        match bound {
            Some(b) if (b as usize) <= KEY_HASH_INLINE => each(Step::String(b as usize)),
            _ => KeyEnd::UNBOUNDED,
        }
    }

    /// `self`, then `next`.
    pub const fn then(self, next: KeyEnd) -> KeyEnd {
        each(Step::Then(self, next))
    }

    /// An `@optional` member of a final or appendable key holder: a presence byte, then
    /// the value.
    pub const fn optional(self) -> KeyEnd {
        each(Step::Optional(self))
    }

    /// A `sequence<elem, bound>` (`None`: unbounded); `primitive` elements need no DHEADER.
    pub const fn sequence(self, primitive: bool, bound: Option<u32>) -> KeyEnd {
        match bound {
            Some(b) => each(Step::Sequence(self, primitive, b)),
            None => KeyEnd::UNBOUNDED,
        }
    }

    /// An array of `n` elements of `self` (all dimensions multiplied).
    pub const fn array(self, primitive: bool, n: usize) -> KeyEnd {
        each(Step::Array(self, primitive, n))
    }
}

/// The length code of a `sequence<T>` member whose elements are primitives of
/// `elem_primitive_size` bytes (0: not a primitive), as the generator picks it.
pub const fn sequence_length_code(elem_primitive_size: usize) -> LengthCode {
    match elem_primitive_size {
        0 | 1 => LengthCode::DualUse1,
        4 => LengthCode::DualUse4,
        8 => LengthCode::DualUse8,
        _ => LengthCode::NextInt,
    }
}

/// The length code of an array member: behind a DHEADER (non-primitive elements) the DHEADER
/// gives the length, otherwise a NEXTINT does.
pub const fn array_length_code(elem_primitive_size: usize) -> LengthCode {
    if elem_primitive_size == 0 {
        LengthCode::DualUse1
    } else {
        LengthCode::NextInt
    }
}

/// The length code of a primitive of `size` bytes.
pub const fn primitive_length_code(size: usize) -> LengthCode {
    match size {
        1 => LengthCode::Size1,
        2 => LengthCode::Size2,
        4 => LengthCode::Size4,
        8 => LengthCode::Size8,
        _ => LengthCode::NextInt,
    }
}

#[cfg(test)]
mod tests;
