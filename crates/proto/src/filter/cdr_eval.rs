//! Runs a compiled [`Program`] on a serialized sample: reads the encapsulation header, walks
//! the XCDR1 or XCDR2 body once with the bounded [`CdrReader`], skips unreferenced members by
//! their encoded size, stops after the last referenced member, and evaluates the condition
//! with the reference evaluator's comparison rules (`eval::apply_ref`) and Kleene logic.
//!
//! Must not: panic or allocate on any payload (the hot path uses a fixed stack array of
//! [`MAX_FIELDS`] values and borrows strings from the payload; only [`Program::project`]
//! allocates its output, and [`Program::project_into`] reuses the caller's buffer); loop more
//! often than the payload has bytes, or recurse deeper than the type (bounded at compile).
//!
//! # Overview
//! - Encodings (RTPS 2.5 §10.2, DDS-XTypes 1.3 §7.4.3): CDR_BE/LE (XCDR1, final and
//!   appendable layouts are the same), CDR2_BE/LE (XCDR2 plain), D_CDR2_BE/LE (XCDR2 with a
//!   DHEADER before the top-level struct). Nested appendable structs and collections of
//!   non-primitive elements carry a DHEADER in XCDR2 (§7.4.3.5), which lets us skip them in
//!   one step. PL_CDR, PL_CDR2, XML, mutable nested types and XCDR1 optional members are
//!   [`EvalError::Unsupported`]. XCDR2 optional members are preceded by a presence octet.
//! - Missing values: an index past a sequence's length, an absent optional, a member after
//!   the end of an appendable struct's data (an older peer's type, like the vendors'
//!   4-member ShapeType) or an enum value with no label are *missing*, and a predicate on a
//!   missing value is unknown (so it never passes).
//! - Only bytes up to the last referenced member are read, so trailing garbage is not
//!   detected; whatever is read is validated (bool is 0/1, strings within their bound and
//!   UTF-8, sequence lengths within the bytes left and the bound).
//! - Trailing padding announced in the options (low two bits, XTypes §7.6.3.1.2) is removed
//!   first.

use super::compile::{CExpr, COperand, MAX_FIELDS, Node, Program};
use super::eval::{EvalError, Truth, ValueRef, apply_ref, kleene_fold, text_of};
use super::vocabulary::RelOp;
use crate::cdr::{
    CdrError, CdrReader, EncapsulationHeader, EncapsulationKind, MAX_STRING, XcdrVersion,
};
use crate::types::{Extensibility, TypeDescriptor, TypeKind};

/// The extracted values, slot by slot; `None` = missing.
type Slots<'a> = [Option<ValueRef<'a>>; MAX_FIELDS];

impl Program {
    /// Whether the serialized sample (encapsulation header included) passes the filter.
    /// A missing or unknown result does not pass. Allocation-free.
    pub fn evaluate(&self, payload: &[u8]) -> Result<bool, EvalError> {
        let mut slots: Slots<'_> = [None; MAX_FIELDS];
        self.extract(payload, &mut slots)?;
        Ok(eval(&self.expr, &slots) == Some(true))
    }

    /// The canonical key of the referenced fields: samples whose referenced fields are equal
    /// (whatever their byte order, encoding or unreferenced members) have equal keys, and
    /// different keys mean different values, so [`Program::evaluate`] is a function of it.
    pub fn project(&self, payload: &[u8]) -> Result<Vec<u8>, EvalError> {
        let mut out = Vec::new();
        self.project_into(payload, &mut out)?;
        Ok(out)
    }

    /// [`Program::project`] into `out` (cleared first), reusing its allocation.
    ///
    /// Format, per slot in [`Program::referenced_fields`] order: `0` if missing, else `1`
    /// followed by the value: bool/char as 1 and 4 bytes, integers as 16-byte i128/u128,
    /// floats as their bits, strings and enum values as a u32 length and UTF-8 bytes or as
    /// the i64 value. Each slot's type is fixed by the program, so the encoding is injective.
    pub fn project_into(&self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), EvalError> {
        let mut slots: Slots<'_> = [None; MAX_FIELDS];
        self.extract(payload, &mut slots)?;
        out.clear();
        for slot in slots.iter().take(self.fields.len()) {
            let Some(v) = slot else {
                out.push(0);
                continue;
            };
            out.push(1);
            match *v {
                ValueRef::Bool(b) => out.push(u8::from(b)),
                ValueRef::Int(i) => out.extend_from_slice(&i.to_le_bytes()),
                ValueRef::UInt(u) => out.extend_from_slice(&u.to_le_bytes()),
                ValueRef::Float(f) => out.extend_from_slice(&f.to_bits().to_le_bytes()),
                ValueRef::Float32(f) => out.extend_from_slice(&f.to_bits().to_le_bytes()),
                ValueRef::Char(c) => out.extend_from_slice(&u32::from(c).to_le_bytes()),
                ValueRef::Str(s) => {
                    // Strings are at most MAX_STRING bytes, so the length always fits a u32.
                    let len = u32::try_from(s.len()).unwrap_or(u32::MAX);
                    out.extend_from_slice(&len.to_le_bytes());
                    out.extend_from_slice(s.as_bytes());
                }
                ValueRef::Enum(_, n) => out.extend_from_slice(&n.to_le_bytes()),
            }
        }
        Ok(())
    }

    /// Walks the payload once, filling the slots of the referenced fields.
    fn extract<'a>(&'a self, payload: &'a [u8], slots: &mut Slots<'a>) -> Result<(), EvalError> {
        let (header, mut r) = EncapsulationHeader::body(payload).map_err(EvalError::Malformed)?;
        let dheader = match header.kind {
            EncapsulationKind::Cdr | EncapsulationKind::Cdr2 => false,
            EncapsulationKind::DCdr2 => true,
            EncapsulationKind::PlCdr | EncapsulationKind::PlCdr2 => {
                return Err(EvalError::Unsupported("parameter-list encapsulation"));
            }
            EncapsulationKind::Xml => return Err(EvalError::Unsupported("XML encapsulation")),
        };
        let desc = &self.desc;
        if desc.extensibility == Extensibility::Mutable {
            return Err(EvalError::Unsupported(
                "mutable type in plain encapsulation",
            ));
        }
        let appendable = desc.extensibility == Extensibility::Appendable;
        if dheader {
            let mut sub = delimited(&mut r)?;
            members(&mut sub, desc, &self.plan, slots, false, true)
        } else {
            members(&mut r, desc, &self.plan, slots, false, appendable)
        }
    }
}

fn malformed(e: CdrError) -> EvalError {
    EvalError::Malformed(e)
}

/// Reads a DHEADER (XTypes §7.4.3.5.2) and returns a reader over the delimited bytes.
fn delimited<'a>(r: &mut CdrReader<'a>) -> Result<CdrReader<'a>, EvalError> {
    r.align(4, "DHEADER").map_err(malformed)?;
    let len = r.u32("DHEADER").map_err(malformed)?;
    let len = usize::try_from(len).map_err(|_| malformed(CdrError::TooLarge("DHEADER")))?;
    r.sub(len, "delimited body").map_err(malformed)
}

fn is_xcdr2(r: &CdrReader<'_>) -> bool {
    r.xcdr() == XcdrVersion::Xcdr2
}

/// Visits the members of a struct body. `need_rest`: the caller reads what follows, so the
/// unreferenced tail must be skipped; `truncatable`: running out of data at a member
/// boundary makes the remaining members missing (appendable types).
// Recursion (with `visit`) is bounded by the type depth, checked at compile time.
fn members<'a>(
    r: &mut CdrReader<'a>,
    desc: &'a TypeDescriptor,
    plan: &'a [(usize, Node)],
    slots: &mut Slots<'a>,
    need_rest: bool,
    truncatable: bool,
) -> Result<(), EvalError> {
    let mut next = plan.iter().peekable();
    for (index, member) in desc.members.iter().enumerate() {
        let wanted = next.peek().filter(|(i, _)| *i == index).map(|(_, n)| n);
        if next.peek().is_none() && !need_rest {
            break;
        }
        if truncatable && r.is_empty() {
            break;
        }
        let present = optional_present(r, member.optional)?;
        match wanted {
            Some(node) => {
                next.next();
                if present {
                    let rest = need_rest || next.peek().is_some();
                    visit(r, &member.kind, node, slots, rest)?;
                }
            }
            None if present => skip(r, &member.kind)?,
            None => {}
        }
    }
    Ok(())
}

/// Whether a member is present: always unless `optional`, when XCDR2 (XTypes §7.4.3.5.3)
/// prefixes it with an is_present octet; XCDR1 optionals use parameter headers (unsupported).
fn optional_present(r: &mut CdrReader<'_>, optional: bool) -> Result<bool, EvalError> {
    if !optional {
        return Ok(true);
    }
    if !is_xcdr2(r) {
        return Err(EvalError::Unsupported("optional member in XCDR1"));
    }
    match r.u8("optional flag").map_err(malformed)? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(malformed(CdrError::Invalid("optional flag"))),
    }
}

/// Applies `node` to a value of type `kind` at the reader's position.
fn visit<'a>(
    r: &mut CdrReader<'a>,
    kind: &'a TypeKind,
    node: &'a Node,
    slots: &mut Slots<'a>,
    need_rest: bool,
) -> Result<(), EvalError> {
    match (node, kind) {
        (Node::Leaf(slot), _) => {
            let v = leaf(r, kind)?;
            if let Some(s) = slots.get_mut(*slot) {
                *s = v;
            }
            Ok(())
        }
        (Node::Members(plan), TypeKind::Struct(d)) => match d.extensibility {
            Extensibility::Mutable => Err(EvalError::Unsupported("mutable nested type")),
            Extensibility::Appendable if is_xcdr2(r) => {
                let mut sub = delimited(r)?;
                members(&mut sub, d, plan, slots, false, true)
            }
            _ => members(r, d, plan, slots, need_rest, false),
        },
        (Node::Elems(picks), TypeKind::Sequence { elem, bound }) => {
            if is_xcdr2(r) && elem.primitive_size().is_none() {
                let mut sub = delimited(r)?;
                let n = seq_len(&mut sub, elem, *bound)?;
                elems(&mut sub, elem, n, picks, slots, false)
            } else {
                let n = seq_len(r, elem, *bound)?;
                elems(r, elem, n, picks, slots, need_rest)
            }
        }
        (Node::Elems(picks), TypeKind::Array { elem, dims }) => {
            let n = array_len(dims)?;
            if is_xcdr2(r) && elem.primitive_size().is_none() {
                let mut sub = delimited(r)?;
                elems(&mut sub, elem, n, picks, slots, false)
            } else {
                elems(r, elem, n, picks, slots, need_rest)
            }
        }
        _ => Err(EvalError::Unsupported("plan does not match the type")),
    }
}

/// Visits the picked elements of a collection of `n` elements of type `elem`.
fn elems<'a>(
    r: &mut CdrReader<'a>,
    elem: &'a TypeKind,
    n: u32,
    picks: &'a [(u32, Node)],
    slots: &mut Slots<'a>,
    need_rest: bool,
) -> Result<(), EvalError> {
    let mut at: u32 = 0;
    let mut picks = picks.iter().peekable();
    while let Some((index, node)) = picks.next() {
        if *index >= n {
            return Ok(()); // past the end: missing (slots stay None)
        }
        skip_elems(r, elem, index.saturating_sub(at))?;
        let rest = need_rest || picks.peek().is_some();
        visit(r, elem, node, slots, rest)?;
        at = index.saturating_add(1);
    }
    if need_rest {
        skip_elems(r, elem, n.saturating_sub(at))
    } else {
        Ok(())
    }
}

/// Reads a sequence length, checked against the bytes left and the bound.
fn seq_len(r: &mut CdrReader<'_>, elem: &TypeKind, bound: Option<u32>) -> Result<u32, EvalError> {
    let min = elem.primitive_size().unwrap_or(1);
    let n = r.seq_len(min, "sequence length").map_err(malformed)?;
    let n = u32::try_from(n).map_err(|_| malformed(CdrError::TooLarge("sequence length")))?;
    if bound.is_some_and(|b| n > b) {
        return Err(malformed(CdrError::TooLarge("sequence over its bound")));
    }
    Ok(n)
}

fn array_len(dims: &[u32]) -> Result<u32, EvalError> {
    dims.iter()
        .try_fold(1u32, |acc, d| acc.checked_mul(*d))
        .ok_or(EvalError::Unsupported("array too large"))
}

/// Skips `count` consecutive elements of type `elem`.
fn skip_elems(r: &mut CdrReader<'_>, elem: &TypeKind, count: u32) -> Result<(), EvalError> {
    if count == 0 {
        return Ok(());
    }
    if let Some(size) = elem.primitive_size() {
        r.align_prim(size, "element").map_err(malformed)?;
        let bytes = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(size))
            .ok_or(malformed(CdrError::TooLarge("elements")))?;
        return r.skip(bytes, "elements").map_err(malformed);
    }
    for _ in 0..count {
        // Each element reads at least one byte or fails, so this loop is bounded by the input
        // except for types that encode to nothing (empty structs), bounded by `count`.
        skip(r, elem)?;
    }
    Ok(())
}

/// Skips one value of type `kind` without reading it more than its length words.
fn skip(r: &mut CdrReader<'_>, kind: &TypeKind) -> Result<(), EvalError> {
    if let Some(size) = kind.primitive_size() {
        r.align_prim(size, "member").map_err(malformed)?;
        return r.skip(size, "member").map_err(malformed);
    }
    match kind {
        TypeKind::String { .. } => {
            r.align(4, "string length").map_err(malformed)?;
            let len = r.u32("string length").map_err(malformed)?;
            let len = usize::try_from(len).map_err(|_| malformed(CdrError::TooLarge("string")))?;
            r.skip(len, "string").map_err(malformed)
        }
        TypeKind::Struct(d) => match d.extensibility {
            Extensibility::Mutable => Err(EvalError::Unsupported("mutable nested type")),
            Extensibility::Appendable if is_xcdr2(r) => delimited(r).map(|_| ()),
            _ => {
                for member in &d.members {
                    if optional_present(r, member.optional)? {
                        skip(r, &member.kind)?;
                    }
                }
                Ok(())
            }
        },
        TypeKind::Sequence { elem, bound } => {
            if is_xcdr2(r) && elem.primitive_size().is_none() {
                return delimited(r).map(|_| ());
            }
            let n = seq_len(r, elem, *bound)?;
            skip_elems(r, elem, n)
        }
        TypeKind::Array { elem, dims } => {
            if is_xcdr2(r) && elem.primitive_size().is_none() {
                return delimited(r).map(|_| ());
            }
            skip_elems(r, elem, array_len(dims)?)
        }
        _ => Err(EvalError::Unsupported("unknown primitive")),
    }
}

/// Reads one primitive, string or enum value; `None` for an enum value without a label.
fn leaf<'a>(r: &mut CdrReader<'a>, kind: &'a TypeKind) -> Result<Option<ValueRef<'a>>, EvalError> {
    if let Some(size) = kind.primitive_size() {
        r.align_prim(size, "member").map_err(malformed)?;
    }
    let m = malformed;
    Ok(Some(match kind {
        TypeKind::Bool => match r.u8("boolean").map_err(m)? {
            0 => ValueRef::Bool(false),
            1 => ValueRef::Bool(true),
            _ => return Err(m(CdrError::Invalid("boolean"))),
        },
        TypeKind::Char => ValueRef::Char(char::from(r.u8("char").map_err(m)?)),
        TypeKind::Octet | TypeKind::U8 => ValueRef::UInt(r.u8("octet").map_err(m)?.into()),
        TypeKind::I8 => ValueRef::Int(i8::from_ne_bytes(r.take_array("int8").map_err(m)?).into()),
        TypeKind::I16 => ValueRef::Int(r.i16("int16").map_err(m)?.into()),
        TypeKind::U16 => ValueRef::UInt(r.u16("uint16").map_err(m)?.into()),
        TypeKind::I32 => ValueRef::Int(r.i32("int32").map_err(m)?.into()),
        TypeKind::U32 => ValueRef::UInt(r.u32("uint32").map_err(m)?.into()),
        TypeKind::I64 => ValueRef::Int(r.i64("int64").map_err(m)?.into()),
        TypeKind::U64 => ValueRef::UInt(r.u64("uint64").map_err(m)?.into()),
        TypeKind::F32 => ValueRef::Float32(f32::from_bits(r.u32("float").map_err(m)?)),
        TypeKind::F64 => ValueRef::Float(f64::from_bits(r.u64("double").map_err(m)?)),
        TypeKind::String { bound } => {
            // The CDR length counts the NUL: a string<b> has at most b + 1.
            let max = bound
                .and_then(|b| usize::try_from(b).ok())
                .map_or(MAX_STRING, |b| b.saturating_add(1));
            let bytes = r.string(max, "string").map_err(m)?;
            let text = core::str::from_utf8(bytes)
                .map_err(|_| m(CdrError::Invalid("string (not UTF-8)")))?;
            ValueRef::Str(text)
        }
        TypeKind::Enum(e) => {
            let v = r.i32("enum").map_err(m)?;
            match e.label_of(v) {
                Some(label) => ValueRef::Enum(label, v.into()),
                None => return Ok(None),
            }
        }
        TypeKind::Struct(_)
        | TypeKind::Sequence { .. }
        | TypeKind::Array { .. }
        | TypeKind::Union(_) => {
            return Err(EvalError::Unsupported("plan does not match the type"));
        }
    }))
}

/// The value of an operand; `None` when missing.
fn operand<'v>(o: &'v COperand, slots: &Slots<'v>) -> Option<ValueRef<'v>> {
    match o {
        COperand::Slot(i) => slots.get(*i).copied().flatten(),
        COperand::Const(v) => Some(v.as_ref()),
    }
}

/// Kleene evaluation with short-circuit (compiled programs cannot fail after extraction).
// Recursion is bounded by MAX_DEPTH (ast module invariant, preserved by compile).
fn eval<'v>(e: &'v CExpr, slots: &Slots<'v>) -> Truth {
    match e {
        CExpr::Or(items) => fold(items, slots, true),
        CExpr::And(items) => fold(items, slots, false),
        CExpr::Not(inner) => eval(inner, slots).map(|b| !b),
        CExpr::Compare { lhs, op, rhs } => {
            apply_ref(*op, &operand(lhs, slots)?, &operand(rhs, slots)?)
        }
        CExpr::Between {
            slot,
            negated,
            low,
            high,
        } => {
            let v = slots.get(*slot).copied().flatten()?;
            let inside = kleene_fold(
                &[
                    apply_ref(RelOp::Ge, &v, &low.as_ref()),
                    apply_ref(RelOp::Le, &v, &high.as_ref()),
                ],
                false,
            );
            if *negated { inside.map(|b| !b) } else { inside }
        }
        CExpr::Match { slot, pattern } => {
            let mut buf = [0u8; 4];
            text_of(&slots.get(*slot).copied().flatten()?, &mut buf).map(|t| pattern.matches(t))
        }
        CExpr::Bool(slot) => match slots.get(*slot).copied().flatten()? {
            ValueRef::Bool(b) => Some(b),
            _ => None,
        },
    }
}

/// OR (`dominant` = true) or AND (`dominant` = false), stopping at the dominant value.
fn fold<'v>(items: &'v [CExpr], slots: &Slots<'v>, dominant: bool) -> Truth {
    let mut unknown = false;
    for item in items {
        match eval(item, slots) {
            Some(b) if b == dominant => return Some(dominant),
            Some(_) => {}
            None => unknown = true,
        }
    }
    if unknown { None } else { Some(!dominant) }
}

#[cfg(test)]
mod tests;
