//! The syntax tree of an IDL 4.2 specification (OMG IDL 4.2 §7.4.1, building blocks "Core
//! Data Types" and "Annotations"), as written: names are unresolved, constant expressions
//! unevaluated. Every node keeps the [`Loc`] of its first token for error messages.
//!
//! Must not: hold anything but plain data; semantic checks belong to `resolve`.

use super::Loc;

/// An identifier and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name (an escaped identifier `_struct` is stored as `struct`, IDL 4.2 §7.2.3.1).
    pub name: String,
    /// Its position.
    pub loc: Loc,
}

/// `A::B::C` or `::A::B`.
#[derive(Clone, Debug, PartialEq)]
pub struct ScopedName {
    /// True for a name starting with `::` (looked up from the global scope).
    pub absolute: bool,
    /// The components, never empty.
    pub parts: Vec<String>,
    /// Position of the first token.
    pub loc: Loc,
}

impl ScopedName {
    /// The name as written (`A::B`).
    pub fn text(&self) -> String {
        let joined = self.parts.join("::");
        if self.absolute {
            format!("::{joined}")
        } else {
            joined
        }
    }
}

/// `@name` or `@name(params)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Annotation {
    /// The annotation name.
    pub name: String,
    /// Its parameters: positional (`None`) or `name = value`.
    pub params: Vec<(Option<String>, ConstExpr)>,
    /// Position of the `@`.
    pub loc: Loc,
}

/// A top-level or module-level definition.
#[derive(Clone, Debug, PartialEq)]
pub enum Definition {
    /// `module M { ... };`
    Module {
        /// Annotations before `module`.
        annotations: Vec<Annotation>,
        /// The module name.
        name: Ident,
        /// Its definitions.
        definitions: Vec<Definition>,
    },
    /// `struct S { ... };`
    Struct(StructDef),
    /// `union U switch (T) { ... };`
    Union(UnionDef),
    /// `enum E { ... };`
    Enum(EnumDef),
    /// `typedef T a, b[3];`
    Typedef(TypedefDef),
    /// `const T name = expr;`
    Const(ConstDef),
    /// `struct S;` or `union U;`
    Forward {
        /// Annotations before the keyword.
        annotations: Vec<Annotation>,
        /// True for `union`, false for `struct`.
        union: bool,
        /// The declared name.
        name: Ident,
    },
}

/// A structure definition.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    /// Annotations before `struct`.
    pub annotations: Vec<Annotation>,
    /// The struct name.
    pub name: Ident,
    /// `: Base`.
    pub base: Option<ScopedName>,
    /// Member declarations in order.
    pub members: Vec<MemberDecl>,
}

/// `@ann T a, b[2];` inside a struct.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberDecl {
    /// Annotations applied to every declarator.
    pub annotations: Vec<Annotation>,
    /// The type.
    pub type_spec: TypeSpec,
    /// The names (with optional array dimensions).
    pub declarators: Vec<Declarator>,
}

/// A declared name with optional array dimensions.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    /// The name.
    pub name: Ident,
    /// `[d0][d1]...`, outermost first.
    pub dims: Vec<ConstExpr>,
}

/// A union definition.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionDef {
    /// Annotations before `union`.
    pub annotations: Vec<Annotation>,
    /// The union name.
    pub name: Ident,
    /// Annotations inside `switch (...)` (`@key`).
    pub switch_annotations: Vec<Annotation>,
    /// The discriminator type.
    pub switch_type: TypeSpec,
    /// The cases in order.
    pub cases: Vec<UnionCaseDef>,
}

/// `case 1: case 2: default: @ann T name;`
#[derive(Clone, Debug, PartialEq)]
pub struct UnionCaseDef {
    /// The labels; `None` is `default`.
    pub labels: Vec<Option<ConstExpr>>,
    /// Annotations on the element.
    pub annotations: Vec<Annotation>,
    /// The element type.
    pub type_spec: TypeSpec,
    /// The element name.
    pub declarator: Declarator,
}

/// An enum definition.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDef {
    /// Annotations before `enum`.
    pub annotations: Vec<Annotation>,
    /// The enum name.
    pub name: Ident,
    /// Enumerators with their annotations (`@value(n)`).
    pub enumerators: Vec<(Vec<Annotation>, Ident)>,
}

/// `typedef T a, b[2];`
#[derive(Clone, Debug, PartialEq)]
pub struct TypedefDef {
    /// Annotations before `typedef`.
    pub annotations: Vec<Annotation>,
    /// The aliased type.
    pub type_spec: TypeSpec,
    /// The new names.
    pub declarators: Vec<Declarator>,
}

/// `const T name = expr;`
#[derive(Clone, Debug, PartialEq)]
pub struct ConstDef {
    /// Annotations before `const`.
    pub annotations: Vec<Annotation>,
    /// The declared type.
    pub type_spec: TypeSpec,
    /// The constant's name.
    pub name: Ident,
    /// Its value.
    pub value: ConstExpr,
}

/// A primitive type (IDL 4.2 §7.4.1.4.4.2, §7.4.13.4.4 for the sized integers).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// `boolean`.
    Bool,
    /// `char`.
    Char,
    /// `wchar`.
    WChar,
    /// `octet`.
    Octet,
    /// `int8`.
    I8,
    /// `uint8`.
    U8,
    /// `short`, `int16`.
    I16,
    /// `unsigned short`, `uint16`.
    U16,
    /// `long`, `int32`.
    I32,
    /// `unsigned long`, `uint32`.
    U32,
    /// `long long`, `int64`.
    I64,
    /// `unsigned long long`, `uint64`.
    U64,
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `long double` (128-bit in CDR).
    F128,
}

impl Primitive {
    /// True for the integer types (octet and the sized integers included).
    pub fn is_integer(self) -> bool {
        !matches!(
            self,
            Primitive::Bool
                | Primitive::Char
                | Primitive::WChar
                | Primitive::F32
                | Primitive::F64
                | Primitive::F128
        )
    }

    /// The inclusive value range of an integer type.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Primitive::I8 => (i8::MIN.into(), i8::MAX.into()),
            Primitive::U8 | Primitive::Octet => (0, u8::MAX.into()),
            Primitive::I16 => (i16::MIN.into(), i16::MAX.into()),
            Primitive::U16 => (0, u16::MAX.into()),
            Primitive::I32 => (i32::MIN.into(), i32::MAX.into()),
            Primitive::U32 => (0, u32::MAX.into()),
            Primitive::I64 => (i64::MIN.into(), i64::MAX.into()),
            Primitive::U64 => (0, u64::MAX.into()),
            _ => return None,
        })
    }
}

/// A type as written.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeSpec {
    /// A primitive type.
    Primitive(Primitive),
    /// `string` / `string<N>`.
    String(Option<Box<ConstExpr>>),
    /// `wstring` / `wstring<N>`.
    WString(Option<Box<ConstExpr>>),
    /// `sequence<T>` / `sequence<T, N>`.
    Sequence(Box<TypeSpec>, Option<Box<ConstExpr>>),
    /// A named type.
    Named(ScopedName),
}

/// A constant expression (IDL 4.2 §7.4.1.4.2).
#[derive(Clone, Debug, PartialEq)]
pub struct ConstExpr {
    /// The expression.
    pub kind: ExprKind,
    /// Position of its first token (of the operator for unary and binary expressions).
    pub loc: Loc,
}

impl ConstExpr {
    /// Where the expression text starts (its leftmost token), for errors about the whole
    /// value; [`ConstExpr::loc`] is the operator for errors about one operation.
    pub fn start(&self) -> &Loc {
        let mut e = self;
        while let ExprKind::Binary(_, lhs, _) = &e.kind {
            e = lhs;
        }
        &e.loc
    }
}

/// The forms of a constant expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(u128),
    /// A floating-point literal.
    Float(f64),
    /// A (possibly concatenated) string literal; `wide` for `L"..."`.
    Str(String),
    /// A character literal.
    Char(char),
    /// `TRUE` / `FALSE`.
    Bool(bool),
    /// A constant or enumerator name.
    Name(ScopedName),
    /// `-x`, `+x`, `~x`.
    Unary(UnaryOp, Box<ConstExpr>),
    /// `a op b`.
    Binary(BinaryOp, Box<ConstExpr>, Box<ConstExpr>),
}

/// Unary operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-`.
    Neg,
    /// `+`.
    Plus,
    /// `~`.
    Not,
}

/// Binary operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `|`.
    Or,
    /// `^`.
    Xor,
    /// `&`.
    And,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
}
