//! Compiles a [`BoundAst`] against a [`TypeDescriptor`] into a [`Program`]: every field path
//! becomes an accessor (a path of member indices and element indices, since member offsets
//! depend on the strings and sequences before them), merged into one extraction plan that
//! `cdr_eval` runs over a serialized sample in a single pass.
//!
//! Must not: accept an expression the compiled evaluator could not run (an invalid or
//! oversized MATCH pattern, unknown fields, incompatible operand types, unknown enum labels are compile errors here), exceed
//! the named limits below, recurse deeper than [`MAX_TYPE_DEPTH`] or the [`BoundAst`] height.
//! No I/O, no clock.
//!
//! # Overview
//! Type compatibility follows Fast DDS (docs/interop-facts.md §4.2): bool↔{bool, int}, int↔{int,
//! bool, float, enum}, float↔{float, int}, char↔{char, string}, string↔{string, char}, enum↔{the
//! same enum, int, a label literal}. A label literal is checked against the enum's labels and
//! compares with `=`/`<>` only: the reference evaluator orders labels as unknown, and we keep
//! the two evaluators in agreement. LIKE needs a string or char field; so does MATCH, whose
//! pattern must compile within [`super::MAX_PATTERN_PROGRAM`]. Incompatible pairs, which
//! the reference evaluator would evaluate as *unknown* on every sample, are rejected.

use core::convert::Infallible;

use super::ast::{BoundAst, Expr, FieldPath, Literal, Operand, Predicate};
use super::error::{FilterError, FilterErrorKind};
use super::eval::Value;
use super::lexer::{TokenKind, tokenize};
use super::pattern::MatchPattern;
use super::vocabulary::RelOp;
use crate::types::{EnumDescriptor, TypeDescriptor, TypeKind};

/// Most distinct field paths one program may read (the evaluator keeps their values in a
/// fixed array on the stack).
pub const MAX_FIELDS: usize = 32;

/// Most accessor steps (members plus indices) in one field path.
pub const MAX_PATH_STEPS: usize = 32;

/// Deepest type nesting (structs, sequences, arrays) a program walks.
pub const MAX_TYPE_DEPTH: usize = 32;

/// A filter compiled for one type: run it with [`Program::evaluate`] and
/// [`Program::project`] (module `cdr_eval`).
#[derive(Clone, Debug)]
pub struct Program {
    pub(super) desc: TypeDescriptor,
    /// What to extract from the top-level struct: (member index, node), sorted by index.
    pub(super) plan: Vec<(usize, Node)>,
    /// Slot `i` holds the value of `fields[i]`.
    pub(super) fields: Vec<FieldPath>,
    pub(super) expr: CExpr,
}

/// One node of the extraction plan, walked together with the type it applies to.
#[derive(Clone, Debug)]
pub(super) enum Node {
    /// Read this primitive, string or enum into the slot.
    Leaf(usize),
    /// Visit these members of a struct: (member index, node), sorted by index.
    Members(Vec<(usize, Node)>),
    /// Visit these elements of a sequence or array (row-major flat index), sorted by index.
    Elems(Vec<(u32, Node)>),
}

/// The compiled condition; same shape as [`Expr`], fields replaced by slots.
#[derive(Clone, Debug)]
pub(super) enum CExpr {
    Or(Vec<CExpr>),
    And(Vec<CExpr>),
    Not(Box<CExpr>),
    Compare {
        lhs: COperand,
        op: RelOp,
        rhs: COperand,
    },
    Between {
        slot: usize,
        negated: bool,
        low: Value,
        high: Value,
    },
    Bool(usize),
    /// `slot MATCH pattern`.
    Match {
        slot: usize,
        pattern: MatchPattern,
    },
}

/// A compiled operand.
#[derive(Clone, Debug)]
pub(super) enum COperand {
    Slot(usize),
    Const(Value),
}

/// One accessor step.
#[derive(Copy, Clone, Debug)]
enum Step {
    Member(usize),
    Elem(u32),
}

/// Static operand class for type checking.
#[derive(Copy, Clone, Debug)]
enum Class<'d> {
    Bool,
    Int,
    Float,
    Char,
    Str,
    Enum(&'d EnumDescriptor),
}

/// A compile error and, for field errors, the path and the index of the failing segment.
type Failure = (FilterErrorKind, Option<(FieldPath, usize)>);

impl Program {
    /// Compiles `ast` for samples of type `desc`. Error positions are 0 (the AST carries no
    /// text positions); [`Program::compile_expression`] reports positions in the text.
    pub fn compile(ast: &BoundAst, desc: &TypeDescriptor) -> Result<Program, FilterError> {
        compile_inner(ast, desc).map_err(|(kind, _)| FilterError::new(0, kind))
    }

    /// Parses `text`, binds `params` and compiles for `desc`; errors are positioned in
    /// `text` (an unknown field at its unknown component).
    pub fn compile_expression(
        text: &str,
        params: &[Literal],
        desc: &TypeDescriptor,
    ) -> Result<Program, FilterError> {
        let ast = super::Ast::parse(text)?.bind(params)?;
        compile_inner(&ast, desc).map_err(|(kind, at)| {
            let position = at
                .and_then(|(path, seg)| locate(text, &path, seg))
                .unwrap_or(0);
            FilterError::new(position, kind)
        })
    }

    /// The field paths the program reads, in slot order (for memo key projection).
    pub fn referenced_fields(&self) -> &[FieldPath] {
        &self.fields
    }

    /// The type the program was compiled for.
    pub fn descriptor(&self) -> &TypeDescriptor {
        &self.desc
    }
}

fn compile_inner(ast: &BoundAst, desc: &TypeDescriptor) -> Result<Program, Failure> {
    if desc.depth() > MAX_TYPE_DEPTH {
        return Err((FilterErrorKind::Unsupported("type nested too deeply"), None));
    }
    if desc.members.iter().any(|m| contains_union(&m.kind)) {
        // The sample walker cannot read or skip a union yet: reject rather than fail per sample.
        let what = "filters on types with union members (the sample walker cannot skip unions)";
        return Err((FilterErrorKind::Unsupported(what), None));
    }
    let mut c = Compiler {
        desc,
        plan: Vec::new(),
        fields: Vec::new(),
        classes: Vec::new(),
    };
    let expr = c.expr(ast.root())?;
    Ok(Program {
        desc: desc.clone(),
        plan: c.plan,
        fields: c.fields,
        expr,
    })
}

struct Compiler<'d> {
    desc: &'d TypeDescriptor,
    plan: Vec<(usize, Node)>,
    fields: Vec<FieldPath>,
    classes: Vec<Class<'d>>,
}

fn mismatch(what: &'static str) -> FilterErrorKind {
    FilterErrorKind::TypeMismatch(what)
}

impl<'d> Compiler<'d> {
    // Recursion is bounded by MAX_DEPTH (ast module invariant).
    fn expr(&mut self, e: &Expr<Infallible>) -> Result<CExpr, Failure> {
        Ok(match e {
            Expr::Or(items) => CExpr::Or(self.list(items)?),
            Expr::And(items) => CExpr::And(self.list(items)?),
            Expr::Not(inner) => CExpr::Not(Box::new(self.expr(inner)?)),
            Expr::Predicate(p) => self.predicate(p)?,
        })
    }

    fn list(&mut self, items: &[Expr<Infallible>]) -> Result<Vec<CExpr>, Failure> {
        items.iter().map(|e| self.expr(e)).collect()
    }

    fn predicate(&mut self, p: &Predicate<Infallible>) -> Result<CExpr, Failure> {
        match p {
            Predicate::Compare {
                op: RelOp::Match,
                lhs,
                rhs,
            } => {
                let at = field_of(lhs).map(|f| (f.clone(), 0));
                let (l, lc) = self.operand(lhs)?;
                let (COperand::Slot(slot), Class::Str | Class::Char) = (l, lc) else {
                    return Err((mismatch("MATCH needs a string or char field"), at));
                };
                let text = match rhs {
                    Operand::Literal(Literal::Str(s)) => s.clone(),
                    Operand::Literal(Literal::Char(c)) => c.to_string(),
                    _ => return Err((mismatch("MATCH needs a string pattern"), at)),
                };
                let pattern = MatchPattern::new(&text).map_err(|k| (k, at))?;
                Ok(CExpr::Match { slot, pattern })
            }
            Predicate::Compare { lhs, op, rhs } => {
                let (l, lc) = self.operand(lhs)?;
                let (r, rc) = self.operand(rhs)?;
                let at = field_of(lhs).or(field_of(rhs)).map(|f| (f.clone(), 0));
                check(lc, *op, rc, lhs, rhs).map_err(|k| (k, at))?;
                Ok(CExpr::Compare {
                    lhs: l,
                    op: *op,
                    rhs: r,
                })
            }
            Predicate::Between {
                field,
                negated,
                low,
                high,
            } => {
                let (slot, class) = self.field(field)?;
                let at = Some((field.clone(), 0));
                let fo = Operand::Field(field.clone());
                let bound = |o: &Operand<Infallible>, op| match o {
                    Operand::Literal(l) => {
                        check(class, op, literal_class(l), &fo, o).map_err(|k| (k, at.clone()))?;
                        Ok(Value::from(l))
                    }
                    _ => Err((FilterErrorKind::Invalid(super::ast::BETWEEN_BOUNDS), None)),
                };
                let low = bound(low, RelOp::Ge)?;
                let high = bound(high, RelOp::Le)?;
                Ok(CExpr::Between {
                    slot,
                    negated: *negated,
                    low,
                    high,
                })
            }
            Predicate::Bool(field) => match self.field(field)? {
                (slot, Class::Bool) => Ok(CExpr::Bool(slot)),
                _ => Err((
                    mismatch("a bare condition must be a boolean field"),
                    Some((field.clone(), 0)),
                )),
            },
        }
    }

    fn operand(&mut self, o: &Operand<Infallible>) -> Result<(COperand, Class<'d>), Failure> {
        match o {
            Operand::Field(f) => self.field(f).map(|(slot, c)| (COperand::Slot(slot), c)),
            Operand::Literal(l) => Ok((COperand::Const(Value::from(l)), literal_class(l))),
            Operand::Param(never) => match *never {},
        }
    }

    /// The slot of `path` (allocated and added to the plan on first use) and its class.
    fn field(&mut self, path: &FieldPath) -> Result<(usize, Class<'d>), Failure> {
        if let Some(slot) = self.fields.iter().position(|f| f == path) {
            if let Some(class) = self.classes.get(slot) {
                return Ok((slot, *class));
            }
        }
        let (steps, class) = resolve(self.desc, path)?;
        let slot = self.fields.len();
        if slot >= MAX_FIELDS {
            let kind = FilterErrorKind::Unsupported("more than 32 distinct fields");
            return Err((kind, Some((path.clone(), 0))));
        }
        insert_members(&mut self.plan, &steps, slot);
        self.fields.push(path.clone());
        self.classes.push(class);
        Ok((slot, class))
    }
}

fn field_of(o: &Operand<Infallible>) -> Option<&FieldPath> {
    match o {
        Operand::Field(f) => Some(f),
        _ => None,
    }
}

fn literal_class(l: &Literal) -> Class<'static> {
    match l {
        Literal::Bool(_) => Class::Bool,
        Literal::Int(_) => Class::Int,
        Literal::Float(_) => Class::Float,
        Literal::Char(_) => Class::Char,
        Literal::Str(_) => Class::Str,
    }
}

/// Checks `l op r` (docs/interop-facts.md §4.2 compatibility; see the module overview).
fn check(
    l: Class<'_>,
    op: RelOp,
    r: Class<'_>,
    lo: &Operand<Infallible>,
    ro: &Operand<Infallible>,
) -> Result<(), FilterErrorKind> {
    use Class as C;
    if op == RelOp::Like {
        return match (l, r) {
            (C::Str | C::Char, C::Str | C::Char) => Ok(()),
            _ => Err(mismatch("LIKE needs a string or char field")),
        };
    }
    let ok = match (l, r) {
        (C::Bool, C::Bool | C::Int) | (C::Int, C::Bool | C::Int | C::Float | C::Enum(_)) => true,
        (C::Float, C::Float | C::Int) | (C::Char | C::Str, C::Char | C::Str) => true,
        (C::Enum(_), C::Int) => true,
        (C::Enum(a), C::Enum(b)) => a.name == b.name,
        (C::Enum(e), C::Str | C::Char) => return check_label(e, op, ro),
        (C::Str | C::Char, C::Enum(e)) => return check_label(e, op, lo),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(mismatch("operand types are not comparable"))
    }
}

/// An enum compared with text: the text must be a label literal and the operator `=`/`<>`.
fn check_label(
    e: &EnumDescriptor,
    op: RelOp,
    text: &Operand<Infallible>,
) -> Result<(), FilterErrorKind> {
    let label = match text {
        Operand::Literal(Literal::Str(s)) => s.as_str(),
        Operand::Literal(Literal::Char(c)) => {
            return check_label_str(e, op, c.encode_utf8(&mut [0; 4]));
        }
        _ => {
            return Err(mismatch(
                "an enum compares with a label literal, not a text field",
            ));
        }
    };
    check_label_str(e, op, label)
}

fn check_label_str(e: &EnumDescriptor, op: RelOp, label: &str) -> Result<(), FilterErrorKind> {
    if !matches!(op, RelOp::Eq | RelOp::Ne) {
        return Err(mismatch("an enum label compares with = or <> only"));
    }
    match e.value_of(label) {
        Some(_) => Ok(()),
        None => Err(FilterErrorKind::UnknownEnumLabel),
    }
}

/// True when `kind` is or contains a union; recursion bounded by [`MAX_TYPE_DEPTH`] (checked
/// by the caller via [`TypeDescriptor::depth`]).
fn contains_union(kind: &TypeKind) -> bool {
    match kind {
        TypeKind::Union(_) => true,
        TypeKind::Struct(d) => d.members.iter().any(|m| contains_union(&m.kind)),
        TypeKind::Sequence { elem, .. } | TypeKind::Array { elem, .. } => contains_union(elem),
        _ => false,
    }
}

/// Resolves `path` in `desc` to accessor steps and the class of the value it names.
fn resolve<'d>(
    desc: &'d TypeDescriptor,
    path: &FieldPath,
) -> Result<(Vec<Step>, Class<'d>), Failure> {
    let fail = |kind, seg| Err((kind, Some((path.clone(), seg))));
    let mut steps = Vec::new();
    let mut current: &'d TypeDescriptor = desc;
    let mut kind: Option<&'d TypeKind> = None;
    for (seg_no, seg) in path.segments.iter().enumerate() {
        if let Some(k) = kind {
            match k {
                TypeKind::Struct(d) => current = d,
                _ => {
                    return fail(
                        mismatch("'.' applied to a member that is not a struct"),
                        seg_no,
                    );
                }
            }
        }
        let Some((index, member)) = current.member(&seg.name) else {
            return fail(FilterErrorKind::UnknownField, seg_no);
        };
        steps.push(Step::Member(index));
        let mut k = &member.kind;
        let mut indices = seg.indices.as_slice();
        while !indices.is_empty() {
            match k {
                TypeKind::Sequence { elem, bound } => {
                    let Some((i, rest)) = indices.split_first() else {
                        break;
                    };
                    if bound.is_some_and(|b| *i >= b) {
                        return fail(mismatch("index beyond the sequence bound"), seg_no);
                    }
                    steps.push(Step::Elem(*i));
                    (k, indices) = (elem, rest);
                }
                TypeKind::Array { elem, dims } => {
                    let Some((these, rest)) = indices.split_at_checked(dims.len()) else {
                        return fail(mismatch("too few indices for the array"), seg_no);
                    };
                    let Some(flat) = flat_index(these, dims) else {
                        return fail(mismatch("array index out of range"), seg_no);
                    };
                    steps.push(Step::Elem(flat));
                    (k, indices) = (elem, rest);
                }
                _ => {
                    return fail(
                        mismatch("index applied to a member that is not a collection"),
                        seg_no,
                    );
                }
            }
        }
        if steps.len() > MAX_PATH_STEPS {
            return fail(FilterErrorKind::Unsupported("field path too long"), seg_no);
        }
        kind = Some(k);
    }
    let last = path.segments.len().saturating_sub(1);
    let class = match kind {
        Some(TypeKind::Bool) => Class::Bool,
        Some(TypeKind::Char) => Class::Char,
        Some(TypeKind::F32 | TypeKind::F64) => Class::Float,
        Some(TypeKind::String { .. }) => Class::Str,
        Some(TypeKind::Enum(e)) => Class::Enum(e),
        Some(k) if k.primitive_size().is_some() => Class::Int,
        _ => return fail(mismatch("field is not a primitive, string or enum"), last),
    };
    Ok((steps, class))
}

/// Row-major flat index of `indices` in an array of `dims`; `None` when out of range.
fn flat_index(indices: &[u32], dims: &[u32]) -> Option<u32> {
    let mut flat: u32 = 0;
    for (i, d) in indices.iter().zip(dims) {
        if i >= d {
            return None;
        }
        flat = flat.checked_mul(*d)?.checked_add(*i)?;
    }
    Some(flat)
}

/// Adds the accessor `steps` (starting with a member step) ending in `slot` to a member list.
fn insert_members(list: &mut Vec<(usize, Node)>, steps: &[Step], slot: usize) {
    let Some((Step::Member(index), rest)) = steps.split_first() else {
        return;
    };
    let pos = list.partition_point(|(i, _)| i < index);
    if list.get(pos).is_none_or(|(i, _)| i != index) {
        list.insert(pos, (*index, empty_node(rest, slot)));
    }
    if let Some((_, node)) = list.get_mut(pos) {
        insert_node(node, rest, slot);
    }
}

fn insert_elems(list: &mut Vec<(u32, Node)>, steps: &[Step], slot: usize) {
    let Some((Step::Elem(index), rest)) = steps.split_first() else {
        return;
    };
    let pos = list.partition_point(|(i, _)| i < index);
    if list.get(pos).is_none_or(|(i, _)| i != index) {
        list.insert(pos, (*index, empty_node(rest, slot)));
    }
    if let Some((_, node)) = list.get_mut(pos) {
        insert_node(node, rest, slot);
    }
}

/// The node kind the next step needs (a leaf when there is none).
fn empty_node(rest: &[Step], slot: usize) -> Node {
    match rest.first() {
        None => Node::Leaf(slot),
        Some(Step::Member(_)) => Node::Members(Vec::new()),
        Some(Step::Elem(_)) => Node::Elems(Vec::new()),
    }
}

// Recursion is bounded by MAX_PATH_STEPS.
fn insert_node(node: &mut Node, rest: &[Step], slot: usize) {
    match node {
        Node::Leaf(_) => {}
        Node::Members(list) => insert_members(list, rest, slot),
        Node::Elems(list) => insert_elems(list, rest, slot),
    }
}

/// Byte position of segment `seg` of `path` in `text` (its first occurrence as a complete
/// field path), for error messages.
fn locate(text: &str, path: &FieldPath, seg: usize) -> Option<usize> {
    let tokens = tokenize(text).ok()?;
    (0..tokens.len()).find_map(|start| {
        let before = start.checked_sub(1).and_then(|b| tokens.get(b));
        if before.is_some_and(|b| b.kind == TokenKind::Dot) {
            return None;
        }
        let mut t = tokens.get(start..)?.iter();
        let mut seg_pos = None;
        for (n, s) in path.segments.iter().enumerate() {
            if n > 0 && t.next()?.kind != TokenKind::Dot {
                return None;
            }
            let name = t.next()?;
            if name.kind != TokenKind::Ident(s.name.as_str()) {
                return None;
            }
            if n == seg {
                seg_pos = Some(name.position);
            }
            for index in &s.indices {
                let ok = t.next()?.kind == TokenKind::LBracket
                    && t.next()?.kind == TokenKind::Int(i128::from(*index))
                    && t.next()?.kind == TokenKind::RBracket;
                if !ok {
                    return None;
                }
            }
        }
        match t.next().map(|tok| tok.kind) {
            Some(TokenKind::Dot | TokenKind::LBracket) => None,
            _ => seg_pos,
        }
    })
}
