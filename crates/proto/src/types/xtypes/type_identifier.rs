//! `TypeIdentifier` (DDS-XTypes 1.3 §7.3.4.2, Annex B): a final union on an octet that names
//! a primitive, a string, a plain collection or a TypeObject by its equivalence hash.
//!
//! Must not: accept strongly connected components (recursive types), nest deeper than
//! [`MAX_DEPTH`](super::MAX_DEPTH) or allocate from an unchecked length.

use super::{MAX_ARRAY_DIMENSIONS, MAX_DEPTH, equivalence_hash, xcdr2_reader, xcdr2_writer};
use crate::cdr::{CdrError, CdrReader, CdrWriter, Endianness};

/// `EquivalenceHash`: the first 14 bytes of an MD5 (§7.3.4.4).
pub type EquivalenceHash = [u8; 14];

/// `EK_MINIMAL`.
pub const EK_MINIMAL: u8 = 0xF1;
/// `EK_COMPLETE`.
pub const EK_COMPLETE: u8 = 0xF2;
/// `EK_BOTH`: a fully descriptive identifier, the same in both representations.
pub const EK_BOTH: u8 = 0xF3;

/// `TK_NONE`.
pub const TK_NONE: u8 = 0x00;
/// `TK_BOOLEAN`.
pub const TK_BOOLEAN: u8 = 0x01;
/// `TK_BYTE`.
pub const TK_BYTE: u8 = 0x02;
/// `TK_INT16`.
pub const TK_INT16: u8 = 0x03;
/// `TK_INT32`.
pub const TK_INT32: u8 = 0x04;
/// `TK_INT64`.
pub const TK_INT64: u8 = 0x05;
/// `TK_UINT16`.
pub const TK_UINT16: u8 = 0x06;
/// `TK_UINT32`.
pub const TK_UINT32: u8 = 0x07;
/// `TK_UINT64`.
pub const TK_UINT64: u8 = 0x08;
/// `TK_FLOAT32`.
pub const TK_FLOAT32: u8 = 0x09;
/// `TK_FLOAT64`.
pub const TK_FLOAT64: u8 = 0x0A;
/// `TK_FLOAT128`.
pub const TK_FLOAT128: u8 = 0x0B;
/// `TK_INT8`.
pub const TK_INT8: u8 = 0x0C;
/// `TK_UINT8`.
pub const TK_UINT8: u8 = 0x0D;
/// `TK_CHAR8`.
pub const TK_CHAR8: u8 = 0x10;
/// `TK_CHAR16`.
pub const TK_CHAR16: u8 = 0x11;
/// `TK_ALIAS`.
pub const TK_ALIAS: u8 = 0x30;
/// `TK_ENUM`.
pub const TK_ENUM: u8 = 0x40;
/// `TK_STRUCTURE`.
pub const TK_STRUCTURE: u8 = 0x51;
/// `TK_UNION`.
pub const TK_UNION: u8 = 0x52;
/// `TK_SEQUENCE`.
pub const TK_SEQUENCE: u8 = 0x60;
/// `TK_ARRAY`.
pub const TK_ARRAY: u8 = 0x61;

const TI_STRING8_SMALL: u8 = 0x70;
const TI_STRING8_LARGE: u8 = 0x71;
const TI_STRING16_SMALL: u8 = 0x72;
const TI_STRING16_LARGE: u8 = 0x73;
const TI_PLAIN_SEQUENCE_SMALL: u8 = 0x80;
const TI_PLAIN_SEQUENCE_LARGE: u8 = 0x81;
const TI_PLAIN_ARRAY_SMALL: u8 = 0x90;
const TI_PLAIN_ARRAY_LARGE: u8 = 0x91;
const TI_PLAIN_MAP_SMALL: u8 = 0xA0;
const TI_PLAIN_MAP_LARGE: u8 = 0xA1;
const TI_STRONGLY_CONNECTED_COMPONENT: u8 = 0xB0;

/// The two equivalence kinds a TypeObject has.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EquivalenceKind {
    /// `EK_MINIMAL`: what is needed to read the data (names hashed).
    Minimal,
    /// `EK_COMPLETE`: everything the IDL says.
    Complete,
}

impl EquivalenceKind {
    /// The `EquivalenceKind` octet.
    pub const fn octet(self) -> u8 {
        match self {
            EquivalenceKind::Minimal => EK_MINIMAL,
            EquivalenceKind::Complete => EK_COMPLETE,
        }
    }
}

/// True for the primitive `TypeKind`s a TypeIdentifier may be (§7.3.4.2: the discriminator
/// alone, no body).
pub const fn primitive_kind(tk: u8) -> bool {
    matches!(tk, TK_BOOLEAN..=TK_UINT8 | TK_CHAR8 | TK_CHAR16)
}

/// `PlainCollectionHeader`: the element's equivalence kind (`EK_BOTH` when the element is
/// itself fully descriptive) and its `CollectionElementFlag`s.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlainCollectionHeader {
    /// `EK_MINIMAL`, `EK_COMPLETE` or `EK_BOTH`.
    pub equiv_kind: u8,
    /// `TRY_CONSTRUCT1` etc.
    pub element_flags: u16,
}

/// A `TypeIdentifier`. The small/large variants are kept apart so a decoded identifier
/// serializes back to the same bytes; [`TypeIdentifier::string`],
/// [`TypeIdentifier::sequence`] and [`TypeIdentifier::array`] choose as §7.3.4.2 says (small
/// when every bound is below 256).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TypeIdentifier {
    /// `TK_NONE` (no base type).
    None,
    /// A primitive `TK_*` ([`primitive_kind`]).
    Primitive(u8),
    /// `TI_STRING8_SMALL` / `TI_STRING16_SMALL` (`wide`); bound 0 is unbounded.
    StringSmall {
        /// `string16` (wstring).
        wide: bool,
        /// The bound.
        bound: u8,
    },
    /// `TI_STRING8_LARGE` / `TI_STRING16_LARGE`.
    StringLarge {
        /// `string16` (wstring).
        wide: bool,
        /// The bound.
        bound: u32,
    },
    /// `TI_PLAIN_SEQUENCE_SMALL`; bound 0 is unbounded.
    SequenceSmall {
        /// The element header.
        header: PlainCollectionHeader,
        /// The bound.
        bound: u8,
        /// The element.
        element: Box<TypeIdentifier>,
    },
    /// `TI_PLAIN_SEQUENCE_LARGE`.
    SequenceLarge {
        /// The element header.
        header: PlainCollectionHeader,
        /// The bound.
        bound: u32,
        /// The element.
        element: Box<TypeIdentifier>,
    },
    /// `TI_PLAIN_ARRAY_SMALL`, dimensions outermost first.
    ArraySmall {
        /// The element header.
        header: PlainCollectionHeader,
        /// The dimensions.
        bounds: Vec<u8>,
        /// The element.
        element: Box<TypeIdentifier>,
    },
    /// `TI_PLAIN_ARRAY_LARGE`.
    ArrayLarge {
        /// The element header.
        header: PlainCollectionHeader,
        /// The dimensions.
        bounds: Vec<u32>,
        /// The element.
        element: Box<TypeIdentifier>,
    },
    /// `TI_PLAIN_MAP_SMALL` / `TI_PLAIN_MAP_LARGE` (`large`).
    Map {
        /// Large (u32 bound) form.
        large: bool,
        /// The element header.
        header: PlainCollectionHeader,
        /// The bound.
        bound: u32,
        /// The element.
        element: Box<TypeIdentifier>,
        /// The key's `CollectionElementFlag`s.
        key_flags: u16,
        /// The key.
        key: Box<TypeIdentifier>,
    },
    /// `EK_MINIMAL`: a minimal TypeObject by hash.
    Minimal(EquivalenceHash),
    /// `EK_COMPLETE`: a complete TypeObject by hash.
    Complete(EquivalenceHash),
}

impl TypeIdentifier {
    /// The identifier of a serialized TypeObject of kind `kind`.
    pub fn for_serialized(kind: EquivalenceKind, bytes: &[u8]) -> Self {
        let hash = equivalence_hash(bytes);
        match kind {
            EquivalenceKind::Minimal => TypeIdentifier::Minimal(hash),
            EquivalenceKind::Complete => TypeIdentifier::Complete(hash),
        }
    }

    /// A (w)string identifier; `bound` 0 is unbounded.
    pub fn string(wide: bool, bound: u32) -> Self {
        match u8::try_from(bound) {
            Ok(bound) => TypeIdentifier::StringSmall { wide, bound },
            Err(_) => TypeIdentifier::StringLarge { wide, bound },
        }
    }

    /// A plain sequence of `element`; `bound` 0 is unbounded.
    pub fn sequence(element: TypeIdentifier, element_flags: u16, bound: u32) -> Self {
        let header = PlainCollectionHeader {
            equiv_kind: element.equiv_kind(),
            element_flags,
        };
        let element = Box::new(element);
        match u8::try_from(bound) {
            Ok(bound) => TypeIdentifier::SequenceSmall {
                header,
                bound,
                element,
            },
            Err(_) => TypeIdentifier::SequenceLarge {
                header,
                bound,
                element,
            },
        }
    }

    /// A plain array of `element` with `dims` (outermost first).
    pub fn array(element: TypeIdentifier, element_flags: u16, dims: &[u32]) -> Self {
        let header = PlainCollectionHeader {
            equiv_kind: element.equiv_kind(),
            element_flags,
        };
        let element = Box::new(element);
        let small: Option<Vec<u8>> = dims.iter().map(|d| u8::try_from(*d).ok()).collect();
        match small {
            Some(bounds) => TypeIdentifier::ArraySmall {
                header,
                bounds,
                element,
            },
            None => TypeIdentifier::ArrayLarge {
                header,
                bounds: dims.to_vec(),
                element,
            },
        }
    }

    /// The equivalence kind a plain collection header records for this element: its hash's
    /// kind, that of a nested collection's element, or `EK_BOTH` for fully descriptive ones.
    pub fn equiv_kind(&self) -> u8 {
        match self {
            TypeIdentifier::Minimal(_) => EK_MINIMAL,
            TypeIdentifier::Complete(_) => EK_COMPLETE,
            TypeIdentifier::SequenceSmall { header, .. }
            | TypeIdentifier::SequenceLarge { header, .. }
            | TypeIdentifier::ArraySmall { header, .. }
            | TypeIdentifier::ArrayLarge { header, .. }
            | TypeIdentifier::Map { header, .. } => header.equiv_kind,
            _ => EK_BOTH,
        }
    }

    /// Every hash identifier this identifier reaches (itself, or its collection's elements).
    pub fn hashes(&self, out: &mut Vec<TypeIdentifier>) {
        match self {
            TypeIdentifier::Minimal(_) | TypeIdentifier::Complete(_) => out.push(self.clone()),
            TypeIdentifier::SequenceSmall { element, .. }
            | TypeIdentifier::SequenceLarge { element, .. }
            | TypeIdentifier::ArraySmall { element, .. }
            | TypeIdentifier::ArrayLarge { element, .. } => element.hashes(out),
            TypeIdentifier::Map { element, key, .. } => {
                key.hashes(out);
                element.hashes(out);
            }
            _ => {}
        }
    }

    /// The identifier serialized alone (XCDR2 little-endian), as a TypeLookup request or a
    /// map key carries it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        self.emit(&mut xcdr2_writer(&mut buf));
        buf
    }

    /// Decodes an identifier serialized alone in byte order `endian`.
    pub fn from_bytes(bytes: &[u8], endian: Endianness) -> Result<Self, CdrError> {
        Self::parse(&mut xcdr2_reader(bytes, endian), 0)
    }

    /// Serializes the identifier (XCDR2; a final union: the discriminator octet, then the
    /// selected member).
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        match self {
            TypeIdentifier::None => w.u8(TK_NONE),
            TypeIdentifier::Primitive(tk) => w.u8(*tk),
            TypeIdentifier::StringSmall { wide, bound } => {
                w.u8(if *wide {
                    TI_STRING16_SMALL
                } else {
                    TI_STRING8_SMALL
                });
                w.u8(*bound);
            }
            TypeIdentifier::StringLarge { wide, bound } => {
                w.u8(if *wide {
                    TI_STRING16_LARGE
                } else {
                    TI_STRING8_LARGE
                });
                w.align(4);
                w.u32(*bound);
            }
            TypeIdentifier::SequenceSmall {
                header,
                bound,
                element,
            } => {
                w.u8(TI_PLAIN_SEQUENCE_SMALL);
                emit_header(w, header);
                w.u8(*bound);
                element.emit(w);
            }
            TypeIdentifier::SequenceLarge {
                header,
                bound,
                element,
            } => {
                w.u8(TI_PLAIN_SEQUENCE_LARGE);
                emit_header(w, header);
                w.align(4);
                w.u32(*bound);
                element.emit(w);
            }
            TypeIdentifier::ArraySmall {
                header,
                bounds,
                element,
            } => {
                w.u8(TI_PLAIN_ARRAY_SMALL);
                emit_header(w, header);
                w.align(4);
                w.u32(u32::try_from(bounds.len()).unwrap_or(u32::MAX));
                w.bytes(bounds);
                element.emit(w);
            }
            TypeIdentifier::ArrayLarge {
                header,
                bounds,
                element,
            } => {
                w.u8(TI_PLAIN_ARRAY_LARGE);
                emit_header(w, header);
                w.align(4);
                w.u32(u32::try_from(bounds.len()).unwrap_or(u32::MAX));
                for b in bounds {
                    w.u32(*b);
                }
                element.emit(w);
            }
            TypeIdentifier::Map {
                large,
                header,
                bound,
                element,
                key_flags,
                key,
            } => {
                w.u8(if *large {
                    TI_PLAIN_MAP_LARGE
                } else {
                    TI_PLAIN_MAP_SMALL
                });
                emit_header(w, header);
                if *large {
                    w.align(4);
                    w.u32(*bound);
                } else {
                    w.u8(u8::try_from(*bound).unwrap_or(u8::MAX));
                }
                element.emit(w);
                w.align(2);
                w.u16(*key_flags);
                key.emit(w);
            }
            TypeIdentifier::Minimal(h) => {
                w.u8(EK_MINIMAL);
                w.bytes(h);
            }
            TypeIdentifier::Complete(h) => {
                w.u8(EK_COMPLETE);
                w.bytes(h);
            }
        }
    }

    /// Decodes an identifier at nesting `depth`.
    pub fn parse(r: &mut CdrReader<'_>, depth: usize) -> Result<Self, CdrError> {
        Self::parse_with(r, depth, true)
    }

    /// [`Self::parse`]; `strict` false takes a plain collection header's equivalence kind as
    /// written (see [`parse_lenient`]).
    fn parse_with(r: &mut CdrReader<'_>, depth: usize, strict: bool) -> Result<Self, CdrError> {
        const WHAT: &str = "TypeIdentifier";
        if depth >= MAX_DEPTH {
            return Err(CdrError::TooLarge("TypeIdentifier nesting"));
        }
        let next = depth.saturating_add(1);
        let d = r.u8(WHAT)?;
        Ok(match d {
            TK_NONE => TypeIdentifier::None,
            tk if primitive_kind(tk) => TypeIdentifier::Primitive(tk),
            TI_STRING8_SMALL | TI_STRING16_SMALL => TypeIdentifier::StringSmall {
                wide: d == TI_STRING16_SMALL,
                bound: r.u8(WHAT)?,
            },
            TI_STRING8_LARGE | TI_STRING16_LARGE => {
                r.align(4, WHAT)?;
                TypeIdentifier::StringLarge {
                    wide: d == TI_STRING16_LARGE,
                    bound: r.u32(WHAT)?,
                }
            }
            TI_PLAIN_SEQUENCE_SMALL => {
                let header = parse_header(r, strict)?;
                let bound = r.u8(WHAT)?;
                let element = Box::new(Self::parse_with(r, next, strict)?);
                TypeIdentifier::SequenceSmall {
                    header,
                    bound,
                    element,
                }
            }
            TI_PLAIN_SEQUENCE_LARGE => {
                let header = parse_header(r, strict)?;
                r.align(4, WHAT)?;
                let bound = r.u32(WHAT)?;
                let element = Box::new(Self::parse_with(r, next, strict)?);
                TypeIdentifier::SequenceLarge {
                    header,
                    bound,
                    element,
                }
            }
            TI_PLAIN_ARRAY_SMALL => {
                let header = parse_header(r, strict)?;
                let n = super::bounded_len(r, 1, MAX_ARRAY_DIMENSIONS, "array bounds")?;
                let bounds = r.take(n, "array bounds")?.to_vec();
                let element = Box::new(Self::parse_with(r, next, strict)?);
                TypeIdentifier::ArraySmall {
                    header,
                    bounds,
                    element,
                }
            }
            TI_PLAIN_ARRAY_LARGE => {
                let header = parse_header(r, strict)?;
                let n = super::bounded_len(r, 4, MAX_ARRAY_DIMENSIONS, "array bounds")?;
                let mut bounds = Vec::with_capacity(n);
                for _ in 0..n {
                    bounds.push(r.u32("array bounds")?);
                }
                let element = Box::new(Self::parse_with(r, next, strict)?);
                TypeIdentifier::ArrayLarge {
                    header,
                    bounds,
                    element,
                }
            }
            TI_PLAIN_MAP_SMALL | TI_PLAIN_MAP_LARGE => {
                let large = d == TI_PLAIN_MAP_LARGE;
                let header = parse_header(r, strict)?;
                let bound = if large {
                    r.align(4, WHAT)?;
                    r.u32(WHAT)?
                } else {
                    u32::from(r.u8(WHAT)?)
                };
                let element = Box::new(Self::parse_with(r, next, strict)?);
                r.align(2, WHAT)?;
                let key_flags = r.u16(WHAT)?;
                let key = Box::new(Self::parse_with(r, next, strict)?);
                TypeIdentifier::Map {
                    large,
                    header,
                    bound,
                    element,
                    key_flags,
                    key,
                }
            }
            EK_MINIMAL => TypeIdentifier::Minimal(r.take_array(WHAT)?),
            EK_COMPLETE => TypeIdentifier::Complete(r.take_array(WHAT)?),
            TI_STRONGLY_CONNECTED_COMPONENT => {
                // Recursive types are not supported: refused rather than half-understood.
                return Err(CdrError::Invalid(
                    "strongly connected component TypeIdentifier",
                ));
            }
            _ => return Err(CdrError::Invalid(WHAT)),
        })
    }
}

fn emit_header(w: &mut CdrWriter<'_>, h: &PlainCollectionHeader) {
    w.u8(h.equiv_kind);
    w.align(2);
    w.u16(h.element_flags);
}

/// [`TypeIdentifier::parse`] for identifiers Fast DDS 2.9 writes in its XTypes 1.1/1.2
/// TypeObjects: a plain collection header whose equivalence kind is none of `EK_MINIMAL`,
/// `EK_COMPLETE`, `EK_BOTH` (Fast DDS 2.9 writes the element's type kind there) is taken
/// for `EK_BOTH`.
pub(crate) fn parse_lenient(
    r: &mut CdrReader<'_>,
    depth: usize,
) -> Result<TypeIdentifier, CdrError> {
    TypeIdentifier::parse_with(r, depth, false)
}

fn parse_header(r: &mut CdrReader<'_>, strict: bool) -> Result<PlainCollectionHeader, CdrError> {
    const WHAT: &str = "PlainCollectionHeader";
    let mut equiv_kind = r.u8(WHAT)?;
    if !matches!(equiv_kind, EK_MINIMAL | EK_COMPLETE | EK_BOTH) {
        if strict {
            return Err(CdrError::Invalid(WHAT));
        }
        equiv_kind = EK_BOTH;
    }
    r.align(2, WHAT)?;
    Ok(PlainCollectionHeader {
        equiv_kind,
        element_flags: r.u16(WHAT)?,
    })
}
