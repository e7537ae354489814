//! Type descriptors: the shape of a topic type as DDS-XTypes 1.3 §7.2 describes it (members,
//! their ids and kinds, keys, optionals, extensibility). The filter compiler resolves field
//! paths against them and walks serialized samples with them. The IDL generator will emit one
//! per generated type; until then [`ShapeType::descriptor`](super::ShapeType::descriptor) is
//! written by hand.
//!
//! Must not: perform I/O, know about RTPS, or describe anything the CDR walkers cannot bound
//! (descriptors are trusted local data; [`TypeDescriptor::depth`] lets consumers cap nesting).

/// How a type may evolve, which decides its XCDR2 encoding (DDS-XTypes 1.3 §7.2.2.4.4.4.7,
/// §7.4.3.5): final = plain, appendable = DHEADER in XCDR2, mutable = parameter list.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Extensibility {
    /// `@final`: members fixed; XCDR2 PLAIN_CDR2.
    Final,
    /// `@appendable` (the IDL 4 default): members may be added at the end; XCDR2 D_CDR2.
    Appendable,
    /// `@mutable`: members identified by id; XCDR2 PL_CDR2.
    Mutable,
}

/// A structure type.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeDescriptor {
    /// The fully qualified type name (`ShapeType`, `a::b::C`).
    pub name: String,
    /// Its extensibility kind.
    pub extensibility: Extensibility,
    /// The members in declaration (= serialization) order.
    pub members: Vec<Member>,
}

/// One structure member.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// The IDL member name, as used in filter field paths.
    pub name: String,
    /// The member id (`@id`, or the declaration index under `@autoid(SEQUENTIAL)`).
    pub id: u32,
    /// Its type.
    pub kind: TypeKind,
    /// `@key`.
    pub key: bool,
    /// `@optional`.
    pub optional: bool,
}

/// An enumerated type: its name and its enumerators (label, value). Encoded as an `int32`
/// (the default `@bit_bound(32)`; narrower bit bounds are not modelled yet).
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDescriptor {
    /// The fully qualified enum name; two enum fields are comparable only with equal names.
    pub name: String,
    /// The enumerators, label and value.
    pub labels: Vec<(String, i32)>,
}

impl EnumDescriptor {
    /// The value of `label`, if it is one of the enumerators.
    pub fn value_of(&self, label: &str) -> Option<i32> {
        self.labels
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, v)| *v)
    }

    /// The label of `value`, if some enumerator has it.
    pub fn label_of(&self, value: i32) -> Option<&str> {
        self.labels
            .iter()
            .find(|(_, v)| *v == value)
            .map(|(l, _)| l.as_str())
    }
}

/// The type of a member or of a collection element.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// `boolean` (one octet, 0 or 1).
    Bool,
    /// `char` (one octet, Latin-1).
    Char,
    /// `octet`.
    Octet,
    /// `int8`.
    I8,
    /// `uint8`.
    U8,
    /// `short` / `int16`.
    I16,
    /// `unsigned short` / `uint16`.
    U16,
    /// `long` / `int32`.
    I32,
    /// `unsigned long` / `uint32`.
    U32,
    /// `long long` / `int64`.
    I64,
    /// `unsigned long long` / `uint64`.
    U64,
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `string` or `string<bound>` (bound in characters, excluding the NUL).
    String {
        /// `None` for an unbounded string.
        bound: Option<u32>,
    },
    /// An enumerated type.
    Enum(EnumDescriptor),
    /// A nested structure.
    Struct(Box<TypeDescriptor>),
    /// `sequence<elem>` or `sequence<elem, bound>`.
    Sequence {
        /// The element type.
        elem: Box<TypeKind>,
        /// `None` for an unbounded sequence.
        bound: Option<u32>,
    },
    /// `elem name[d0][d1]...`: a multi-dimensional array, stored row-major.
    Array {
        /// The element type.
        elem: Box<TypeKind>,
        /// The dimensions, outermost first; never empty.
        dims: Vec<u32>,
    },
    /// A discriminated union (IDL 4.2 §7.4.1.4.4.4). Described for completeness; content
    /// filters reject types containing one (the sample walker cannot skip it yet).
    Union(Box<UnionDescriptor>),
}

/// A union type (DDS-XTypes 1.3 §7.2.2.4.4.4.6): a discriminator and its cases.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionDescriptor {
    /// The fully qualified union name.
    pub name: String,
    /// Its extensibility kind.
    pub extensibility: Extensibility,
    /// The discriminator type: an integer, `char`, `boolean`, `octet` or enum kind.
    pub discriminator: TypeKind,
    /// The cases in declaration order.
    pub cases: Vec<UnionCase>,
}

/// One union case: its labels (discriminator values; enum labels by value) and its member.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionCase {
    /// The `case` label values.
    pub labels: Vec<i64>,
    /// True for the `default:` case (it may also carry labels).
    pub default: bool,
    /// The selected member (`key` is always false).
    pub member: Member,
}

impl UnionDescriptor {
    /// Nesting depth: 1 plus the deepest case type.
    pub fn depth(&self) -> usize {
        self.cases
            .iter()
            .map(|c| c.member.kind.depth())
            .max()
            .unwrap_or(0)
            .saturating_add(1)
    }
}

impl TypeKind {
    /// The size in bytes of a primitive (bool, char, integers, floats, enums), `None` for
    /// strings and constructed types. Primitives are aligned to this size (capped at 4 in
    /// XCDR2) and need no DHEADER as collection elements (DDS-XTypes 1.3 §7.4.3.5.3).
    pub fn primitive_size(&self) -> Option<usize> {
        Some(match self {
            TypeKind::Bool | TypeKind::Char | TypeKind::Octet | TypeKind::I8 | TypeKind::U8 => 1,
            TypeKind::I16 | TypeKind::U16 => 2,
            TypeKind::I32 | TypeKind::U32 | TypeKind::F32 | TypeKind::Enum(_) => 4,
            TypeKind::I64 | TypeKind::U64 | TypeKind::F64 => 8,
            TypeKind::String { .. }
            | TypeKind::Struct(_)
            | TypeKind::Sequence { .. }
            | TypeKind::Array { .. }
            | TypeKind::Union(_) => return None,
        })
    }

    /// Nesting depth of constructed types below and including this one (1 for a leaf).
    pub fn depth(&self) -> usize {
        match self {
            TypeKind::Struct(s) => s.depth(),
            TypeKind::Union(u) => u.depth(),
            TypeKind::Sequence { elem, .. } | TypeKind::Array { elem, .. } => {
                elem.depth().saturating_add(1)
            }
            _ => 1,
        }
    }
}

impl TypeDescriptor {
    /// The member called `name` and its index.
    pub fn member(&self, name: &str) -> Option<(usize, &Member)> {
        self.members
            .iter()
            .enumerate()
            .find(|(_, m)| m.name == name)
    }

    /// Nesting depth: 1 plus the deepest member type.
    pub fn depth(&self) -> usize {
        self.members
            .iter()
            .map(|m| m.kind.depth())
            .max()
            .unwrap_or(0)
            .saturating_add(1)
    }
}

impl Member {
    /// A plain (non-key, non-optional) member.
    pub fn new(name: &str, id: u32, kind: TypeKind) -> Self {
        Member {
            name: name.to_owned(),
            id,
            kind,
            key: false,
            optional: false,
        }
    }

    /// The same member marked `@key`.
    pub fn key(mut self) -> Self {
        self.key = true;
        self
    }

    /// The same member marked `@optional`.
    pub fn optional(mut self) -> Self {
        self.optional = true;
        self
    }
}

#[cfg(test)]
mod tests;
