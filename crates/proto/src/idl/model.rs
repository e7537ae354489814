//! The resolved model: every declaration with names fully qualified, typedefs flattened and
//! constants evaluated — what descriptors and the Rust code generator are built from.
//!
//! Must not: refer to the syntax tree; it is plain data.

use std::collections::BTreeMap;

use crate::idl::Loc;
use crate::idl::ast::Primitive;
use crate::types::Extensibility;

/// A resolved type: typedefs are flattened, named types referenced by fully qualified name.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A primitive type.
    Prim(Primitive),
    /// `string<bound>`.
    String {
        /// `None` when unbounded.
        bound: Option<u32>,
    },
    /// `wstring<bound>`.
    WString {
        /// `None` when unbounded.
        bound: Option<u32>,
    },
    /// `sequence<elem, bound>`.
    Sequence {
        /// The element type.
        elem: Box<Ty>,
        /// `None` when unbounded.
        bound: Option<u32>,
    },
    /// An array, dimensions outermost first.
    Array {
        /// The element type (never itself an array).
        elem: Box<Ty>,
        /// The dimensions, never empty.
        dims: Vec<u32>,
    },
    /// A struct, by fully qualified name.
    Struct(String),
    /// A union, by fully qualified name.
    Union(String),
    /// An enum, by fully qualified name.
    Enum(String),
}

/// The value of a constant.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    /// Any integer type.
    Int(i128),
    /// `float`, `double`, `long double` (held as `f64`).
    Float(f64),
    /// `string`, `wstring`.
    Str(String),
    /// `char`, `wchar`.
    Char(char),
    /// `boolean`.
    Bool(bool),
    /// An enumerator.
    Enum {
        /// The enum's fully qualified name.
        ty: String,
        /// The enumerator.
        label: String,
        /// Its value.
        value: i32,
    },
}

/// A struct or union member.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberItem {
    /// The member name.
    pub name: String,
    /// The member id.
    pub id: u32,
    /// Its type.
    pub ty: Ty,
    /// `@key`.
    pub key: bool,
    /// `@optional`.
    pub optional: bool,
    /// `@default(value)`, unchecked against the type beyond evaluation.
    pub default: Option<ConstValue>,
    /// Where it is declared.
    pub loc: Loc,
}

/// A struct.
#[derive(Clone, Debug, PartialEq)]
pub struct StructType {
    /// Fully qualified name.
    pub name: String,
    /// The base struct, fully qualified.
    pub base: Option<String>,
    /// Extensibility (inherited from the base when not stated).
    pub extensibility: Extensibility,
    /// Own members (the base's are not repeated).
    pub members: Vec<MemberItem>,
    /// `@topic`.
    pub topic: bool,
    /// `@nested`.
    pub nested: bool,
    /// Where it is declared.
    pub loc: Loc,
}

/// A union.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionType {
    /// Fully qualified name.
    pub name: String,
    /// Extensibility.
    pub extensibility: Extensibility,
    /// The discriminator type.
    pub discriminator: Ty,
    /// `@key` on the discriminator.
    pub key_discriminator: bool,
    /// The cases.
    pub cases: Vec<CaseItem>,
}

/// A union case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseItem {
    /// The label values (enumerators by value, characters by code, booleans as 0/1).
    pub labels: Vec<i64>,
    /// True for the `default` case.
    pub default: bool,
    /// The member.
    pub member: MemberItem,
}

/// A resolved declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum Decl {
    /// A struct.
    Struct(StructType),
    /// A union.
    Union(UnionType),
    /// An enum: name and (label, value) pairs.
    Enum {
        /// Fully qualified name.
        name: String,
        /// The enumerators.
        enumerators: Vec<(String, i32)>,
    },
    /// A typedef.
    Typedef {
        /// Fully qualified name.
        name: String,
        /// The aliased type, flattened.
        ty: Ty,
    },
    /// A constant.
    Const {
        /// Fully qualified name.
        name: String,
        /// Its type.
        ty: Ty,
        /// Its value.
        value: ConstValue,
    },
}

/// Every resolved declaration in declaration order, with a name index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    /// The declarations, in order.
    pub decls: Vec<Decl>,
    pub(super) index: BTreeMap<String, usize>,
    /// Non-fatal findings, `file:line:col: text`.
    pub warnings: Vec<String>,
}

impl Model {
    /// The declaration called `name` (fully qualified, no leading `::`).
    pub fn get(&self, name: &str) -> Option<&Decl> {
        self.index.get(name).and_then(|i| self.decls.get(*i))
    }

    /// The structs, in declaration order.
    pub fn structs(&self) -> impl Iterator<Item = &StructType> {
        self.decls.iter().filter_map(|d| match d {
            Decl::Struct(s) => Some(s),
            _ => None,
        })
    }

    /// The struct `name`.
    pub fn struct_type(&self, name: &str) -> Option<&StructType> {
        match self.get(name) {
            Some(Decl::Struct(s)) => Some(s),
            _ => None,
        }
    }

    /// The union `name`.
    pub fn union_type(&self, name: &str) -> Option<&UnionType> {
        match self.get(name) {
            Some(Decl::Union(u)) => Some(u),
            _ => None,
        }
    }
}
