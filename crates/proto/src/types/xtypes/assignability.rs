//! Whether data of a writer's type can be read as a reader's type: the assignability
//! relation of DDS-XTypes 1.3 §7.2.4.4, over TypeObjects (minimal, complete or a mix of the
//! two: names are compared through their `NameHash`), under the options the
//! TypeConsistencyEnforcementQosPolicy gives it (§7.6.3.4.1). Returns the first reason two
//! types are not assignable, naming the member.
//!
//! Must not: follow references deeper than [`MAX_DEPTH`] or do more than
//! [`MAX_ASSIGNABILITY_STEPS`] comparisons (the TypeObjects may come from a peer), panic on
//! an inconsistent set of TypeObjects (a missing referenced type is a reason), know about
//! RTPS, QoS or the TypeLookup service (the caller supplies the TypeObjects through lookup
//! functions and the options as [`AssignabilityRules`]).

use std::collections::BTreeSet;

use super::{EnumType, UnionMember};
use super::{
    IS_APPENDABLE, IS_KEY, IS_MUST_UNDERSTAND, IS_MUTABLE, MAX_DEPTH, NameHash, StructMember,
    StructType, TypeIdentifier, TypeObject, TypeObjectBody, UnionType, name_hash,
};

/// Most type comparisons one assignability check makes before it gives up (a type graph
/// from a peer could otherwise make the walk exponential).
pub const MAX_ASSIGNABILITY_STEPS: usize = 100_000;

/// The options of the TypeConsistencyEnforcementQosPolicy that shape assignability
/// (DDS-XTypes 1.3 §7.6.3.4.1); `Default` gives the specification's defaults.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AssignabilityRules {
    /// Sequence bounds are not compared (default true).
    pub ignore_sequence_bounds: bool,
    /// String bounds are not compared (default true).
    pub ignore_string_bounds: bool,
    /// Members and enumerators are matched by id or value only, not by name (default false).
    pub ignore_member_names: bool,
    /// A writer's type may not have members the reader's type lacks (default false).
    pub prevent_type_widening: bool,
}

impl Default for AssignabilityRules {
    fn default() -> Self {
        AssignabilityRules {
            ignore_sequence_bounds: true,
            ignore_string_bounds: true,
            ignore_member_names: false,
            prevent_type_widening: false,
        }
    }
}

/// Why a writer's type is not assignable to a reader's: a sentence naming the member
/// (`Probe.x: int32 is not assignable from string`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAssignable(pub String);

impl core::fmt::Display for NotAssignable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotAssignable {}

/// Finds the TypeObject a hash identifier names.
pub type TypeLookup<'a> = &'a dyn Fn(&TypeIdentifier) -> Option<&'a TypeObject>;

/// Whether data of type `writer` (its TypeObjects found through `writer_types`) is assignable
/// to type `reader` (through `reader_types`) under `rules`. DDS-XTypes 1.3 §7.2.4.4.
pub fn is_assignable<'a>(
    (reader, reader_types): (&'a TypeIdentifier, TypeLookup<'a>),
    (writer, writer_types): (&'a TypeIdentifier, TypeLookup<'a>),
    rules: AssignabilityRules,
) -> Result<(), NotAssignable> {
    let mut walk = Walk {
        reader_types,
        writer_types,
        rules,
        steps: 0,
        proven: BTreeSet::new(),
    };
    walk.check(reader, writer, "", 0)
}

/// A type with aliases resolved, in one shape for plain identifiers and TypeObjects.
enum Shape<'a> {
    Primitive(u8),
    String {
        wide: bool,
        bound: u32,
    },
    Sequence {
        bound: u32,
        element: &'a TypeIdentifier,
    },
    Array {
        dims: Vec<u32>,
        element: &'a TypeIdentifier,
    },
    Map(&'a TypeIdentifier),
    Struct(&'a StructType),
    Union(&'a UnionType),
    Enum(&'a EnumType),
}

impl Shape<'_> {
    fn describe(&self) -> String {
        match self {
            Shape::Primitive(tk) => primitive_name(*tk).to_owned(),
            Shape::String { wide, bound } => {
                let s = if *wide { "wstring" } else { "string" };
                match bound {
                    0 => s.to_owned(),
                    b => format!("{s}<{b}>"),
                }
            }
            Shape::Sequence { .. } => "sequence".to_owned(),
            Shape::Array { dims, .. } => format!("array{dims:?}"),
            Shape::Map(_) => "map".to_owned(),
            Shape::Struct(s) => format!("struct {}", type_name(&s.type_name)),
            Shape::Union(u) => format!("union {}", type_name(&u.type_name)),
            Shape::Enum(e) => format!("enum {}", type_name(&e.type_name)),
        }
    }
}

fn type_name(name: &str) -> &str {
    if name.is_empty() { "(minimal)" } else { name }
}

fn primitive_name(tk: u8) -> &'static str {
    use super::type_identifier::*;
    match tk {
        TK_BOOLEAN => "boolean",
        TK_BYTE => "octet",
        TK_INT8 => "int8",
        TK_INT16 => "int16",
        TK_INT32 => "int32",
        TK_INT64 => "int64",
        TK_UINT8 => "uint8",
        TK_UINT16 => "uint16",
        TK_UINT32 => "uint32",
        TK_UINT64 => "uint64",
        TK_FLOAT32 => "float",
        TK_FLOAT64 => "double",
        TK_FLOAT128 => "long double",
        TK_CHAR8 => "char",
        TK_CHAR16 => "wchar",
        _ => "primitive",
    }
}

fn extensibility(flags: u16) -> &'static str {
    if flags & IS_MUTABLE != 0 {
        "mutable"
    } else if flags & IS_APPENDABLE != 0 {
        "appendable"
    } else {
        "final"
    }
}

/// A member's or enumerator's name as a `NameHash`: complete TypeObjects carry the name,
/// minimal ones its hash (§7.3.4.3).
fn name_key(name: &str, hash: &NameHash) -> NameHash {
    if name.is_empty() {
        *hash
    } else {
        name_hash(name)
    }
}

fn member_label(path: &str, name: &str, id: u32) -> String {
    let leaf = if name.is_empty() {
        format!("#{id}")
    } else {
        name.to_owned()
    };
    if path.is_empty() {
        leaf
    } else {
        format!("{path}.{leaf}")
    }
}

/// `None` (unbounded) for 0.
fn bound_covers(reader: u32, writer: u32) -> bool {
    reader == 0 || (writer != 0 && writer <= reader)
}

struct Walk<'a> {
    reader_types: TypeLookup<'a>,
    writer_types: TypeLookup<'a>,
    rules: AssignabilityRules,
    steps: usize,
    /// Pairs of hash identifiers already found assignable.
    proven: BTreeSet<(TypeIdentifier, TypeIdentifier)>,
}

fn fail<T>(reason: String) -> Result<T, NotAssignable> {
    Err(NotAssignable(reason))
}

fn at(path: &str) -> &str {
    if path.is_empty() {
        "the topic type"
    } else {
        path
    }
}

impl<'a> Walk<'a> {
    fn check(
        &mut self,
        reader: &'a TypeIdentifier,
        writer: &'a TypeIdentifier,
        path: &str,
        depth: usize,
    ) -> Result<(), NotAssignable> {
        self.steps = self.steps.saturating_add(1);
        if self.steps > MAX_ASSIGNABILITY_STEPS || depth > MAX_DEPTH {
            return fail(format!(
                "{}: the types are too deep or large to compare",
                at(path)
            ));
        }
        if reader == writer {
            // Equal plain identifiers, or equal hashes: the same type.
            return Ok(());
        }
        let hashes = is_hash(reader) && is_hash(writer);
        if hashes && self.proven.contains(&(reader.clone(), writer.clone())) {
            return Ok(());
        }
        let next = depth.saturating_add(1);
        let r = self.shape(self.reader_types, reader, path)?;
        let w = self.shape(self.writer_types, writer, path)?;
        self.check_shapes(&r, &w, path, next)?;
        if hashes {
            self.proven.insert((reader.clone(), writer.clone()));
        }
        Ok(())
    }

    fn check_shapes(
        &mut self,
        r: &Shape<'a>,
        w: &Shape<'a>,
        path: &str,
        depth: usize,
    ) -> Result<(), NotAssignable> {
        let rules = self.rules;
        let mismatch = || {
            fail(format!(
                "{}: {} is not assignable from {}",
                at(path),
                r.describe(),
                w.describe()
            ))
        };
        match (r, w) {
            (Shape::Primitive(a), Shape::Primitive(b)) if a == b => Ok(()),
            (
                Shape::String {
                    wide: rw,
                    bound: rb,
                },
                Shape::String {
                    wide: ww,
                    bound: wb,
                },
            ) if rw == ww => {
                // §7.2.4.4 (strings); ignore_string_bounds, §7.6.3.4.1.
                if rules.ignore_string_bounds || bound_covers(*rb, *wb) {
                    Ok(())
                } else {
                    fail(format!(
                        "{}: string bound {rb} is smaller than the writer's {wb}",
                        at(path)
                    ))
                }
            }
            (
                Shape::Sequence {
                    bound: rb,
                    element: re,
                },
                Shape::Sequence {
                    bound: wb,
                    element: we,
                },
            ) => {
                // §7.2.4.4 (sequences); ignore_sequence_bounds, §7.6.3.4.1.
                if !rules.ignore_sequence_bounds && !bound_covers(*rb, *wb) {
                    return fail(format!(
                        "{}: sequence bound {rb} is smaller than the writer's {wb}",
                        at(path)
                    ));
                }
                self.check(re, we, &format!("{path}[]"), depth)
            }
            (
                Shape::Array {
                    dims: rd,
                    element: re,
                },
                Shape::Array {
                    dims: wd,
                    element: we,
                },
            ) => {
                // §7.2.4.4 (arrays): the same dimensions.
                if rd != wd {
                    return fail(format!(
                        "{}: array dimensions {rd:?} differ from the writer's {wd:?}",
                        at(path)
                    ));
                }
                self.check(re, we, &format!("{path}[]"), depth)
            }
            // Maps are compared by identifier only (they are not decoded either).
            (Shape::Map(a), Shape::Map(b)) if a == b => Ok(()),
            (Shape::Enum(a), Shape::Enum(b)) => self.check_enum(a, b, path),
            (Shape::Struct(a), Shape::Struct(b)) => self.check_struct(a, b, path, depth),
            (Shape::Union(a), Shape::Union(b)) => self.check_union(a, b, path, depth),
            _ => mismatch(),
        }
    }

    /// The shape of `id`, aliases followed.
    fn shape(
        &self,
        types: TypeLookup<'a>,
        id: &'a TypeIdentifier,
        path: &str,
    ) -> Result<Shape<'a>, NotAssignable> {
        let mut id = id;
        // Each pass returns the shape, or follows one alias (`continue`), at most MAX_DEPTH
        // aliases deep (§7.2.4.4: an alias is assignable as the type it names).
        for _ in 0..MAX_DEPTH {
            return Ok(match id {
                TypeIdentifier::Primitive(tk) => Shape::Primitive(*tk),
                TypeIdentifier::StringSmall { wide, bound } => Shape::String {
                    wide: *wide,
                    bound: u32::from(*bound),
                },
                TypeIdentifier::StringLarge { wide, bound } => Shape::String {
                    wide: *wide,
                    bound: *bound,
                },
                TypeIdentifier::SequenceSmall { bound, element, .. } => Shape::Sequence {
                    bound: u32::from(*bound),
                    element,
                },
                TypeIdentifier::SequenceLarge { bound, element, .. } => Shape::Sequence {
                    bound: *bound,
                    element,
                },
                TypeIdentifier::ArraySmall {
                    bounds, element, ..
                } => Shape::Array {
                    dims: bounds.iter().map(|b| u32::from(*b)).collect(),
                    element,
                },
                TypeIdentifier::ArrayLarge {
                    bounds, element, ..
                } => Shape::Array {
                    dims: bounds.clone(),
                    element,
                },
                TypeIdentifier::Map { .. } => Shape::Map(id),
                TypeIdentifier::None => {
                    return fail(format!("{}: refers to no type (TK_NONE)", at(path)));
                }
                TypeIdentifier::Minimal(_) | TypeIdentifier::Complete(_) => {
                    let Some(object) = types(id) else {
                        return fail(format!("{}: type {id:?} is not known", at(path)));
                    };
                    match &object.body {
                        TypeObjectBody::Alias(a) => {
                            id = &a.related;
                            continue;
                        }
                        TypeObjectBody::Struct(s) => Shape::Struct(s),
                        TypeObjectBody::Union(u) => Shape::Union(u),
                        TypeObjectBody::Enum(e) => Shape::Enum(e),
                        TypeObjectBody::Sequence(c) => Shape::Sequence {
                            bound: c.bounds.first().copied().unwrap_or(0),
                            element: &c.element,
                        },
                        TypeObjectBody::Array(c) => Shape::Array {
                            dims: c.bounds.clone(),
                            element: &c.element,
                        },
                    }
                }
            });
        }
        fail(format!("{}: aliases nested too deep", at(path)))
    }

    /// A struct's members with its base types' first (§7.2.2.4.4.4.5, inheritance).
    fn flat_members(
        &self,
        types: TypeLookup<'a>,
        s: &'a StructType,
        path: &str,
    ) -> Result<Vec<&'a StructMember>, NotAssignable> {
        let mut chain = vec![s];
        let mut base = &s.base;
        while *base != TypeIdentifier::None {
            if chain.len() > MAX_DEPTH {
                return fail(format!("{}: base types nested too deep", at(path)));
            }
            match self.shape(types, base, path)? {
                Shape::Struct(b) => {
                    chain.push(b);
                    base = &b.base;
                }
                other => {
                    return fail(format!("{}: base type is a {}", at(path), other.describe()));
                }
            }
        }
        Ok(chain.iter().rev().flat_map(|s| s.members.iter()).collect())
    }

    /// §7.2.4.4 (structures): same extensibility; members matched by id, and by name unless
    /// ignore_member_names; the same key members; final types the same members, appendable
    /// ones the common members first in the same order; at least one member in common.
    fn check_struct(
        &mut self,
        r: &'a StructType,
        w: &'a StructType,
        path: &str,
        depth: usize,
    ) -> Result<(), NotAssignable> {
        let (name, re) = same_extensibility(path, &r.type_name, (r.flags, w.flags), "type")?;
        let rm = self.flat_members(self.reader_types, r, &name)?;
        let wm = self.flat_members(self.writer_types, w, &name)?;
        let names = !self.rules.ignore_member_names;
        let mut common = 0usize;
        for m in &rm {
            let label = member_label(&name, &m.name, m.id);
            let key = name_key(&m.name, &m.name_hash);
            let by_id = wm.iter().find(|o| o.id == m.id);
            if names {
                if let Some(o) = wm
                    .iter()
                    .find(|o| name_key(&o.name, &o.name_hash) == key && o.id != m.id)
                {
                    return fail(format!(
                        "{label}: member id {} in the reader's type, {} in the writer's",
                        m.id, o.id
                    ));
                }
            }
            let Some(o) = by_id else {
                if m.flags & IS_KEY != 0 {
                    return fail(format!(
                        "{label}: key member missing from the writer's type"
                    ));
                }
                continue;
            };
            if names && name_key(&o.name, &o.name_hash) != key {
                return fail(format!(
                    "{label}: member id {} is named differently in the writer's type{}",
                    m.id,
                    if o.name.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", o.name)
                    }
                ));
            }
            if (m.flags & IS_KEY) != (o.flags & IS_KEY) {
                return fail(format!("{label}: a key in one type and not in the other"));
            }
            common = common.saturating_add(1);
            self.check(&m.type_id, &o.type_id, &label, depth)?;
        }
        for o in &wm {
            if rm.iter().any(|m| m.id == o.id) {
                continue;
            }
            let label = member_label(&name, &o.name, o.id);
            if o.flags & IS_KEY != 0 {
                return fail(format!(
                    "{label}: key member missing from the reader's type"
                ));
            }
            if o.flags & IS_MUST_UNDERSTAND != 0 {
                return fail(format!(
                    "{label}: must-understand member missing from the reader's type"
                ));
            }
            if self.rules.prevent_type_widening {
                return fail(format!(
                    "{label}: the writer's type has a member the reader's lacks \
                     (prevent_type_widening)"
                ));
            }
        }
        if common == 0 {
            return fail(format!("{name}: no member in common"));
        }
        match re {
            "final" if rm.len() != wm.len() || rm.iter().zip(&wm).any(|(a, b)| a.id != b.id) => {
                fail(format!("{name}: final types with different members"))
            }
            "appendable" => {
                // Members are added at the end only: the shorter list is a prefix.
                match rm.iter().zip(&wm).find(|(a, b)| a.id != b.id) {
                    Some((a, _)) => fail(format!(
                        "{}: appendable types whose members differ before the end",
                        member_label(&name, &a.name, a.id)
                    )),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }

    /// §7.2.4.4 (enumerations): the same bit bound; enumerators of the same name have the same value (by
    /// value only with ignore_member_names); final enums the same enumerators.
    fn check_enum(&self, r: &EnumType, w: &EnumType, path: &str) -> Result<(), NotAssignable> {
        let path = at(path);
        if r.bit_bound != w.bit_bound {
            return fail(format!(
                "{path}: enum bit bound {} differs from the writer's {}",
                r.bit_bound, w.bit_bound
            ));
        }
        let names = !self.rules.ignore_member_names;
        for l in &r.literals {
            let key = name_key(&l.name, &l.name_hash);
            let same_name = w
                .literals
                .iter()
                .find(|o| name_key(&o.name, &o.name_hash) == key);
            if let Some(o) = same_name {
                if names && o.value != l.value {
                    return fail(format!(
                        "{path}: enumerator {} is {} in the reader's type, {} in the writer's",
                        if l.name.is_empty() { "?" } else { &l.name },
                        l.value,
                        o.value
                    ));
                }
            }
        }
        let set = |e: &EnumType| -> BTreeSet<(i32, Option<NameHash>)> {
            e.literals
                .iter()
                .map(|l| (l.value, names.then(|| name_key(&l.name, &l.name_hash))))
                .collect()
        };
        // Enums are final unless flagged appendable (§7.3.4.5: IS_FINAL, the default).
        if r.flags & IS_APPENDABLE == 0 && set(r) != set(w) {
            return fail(format!("{path}: final enums with different enumerators"));
        }
        Ok(())
    }

    /// §7.2.4.4 (unions): same extensibility, assignable discriminators, cases sharing a label
    /// assignable; final unions the same labels.
    fn check_union(
        &mut self,
        r: &'a UnionType,
        w: &'a UnionType,
        path: &str,
        depth: usize,
    ) -> Result<(), NotAssignable> {
        let (name, re) = same_extensibility(path, &r.type_name, (r.flags, w.flags), "union")?;
        self.check(
            &r.discriminator,
            &w.discriminator,
            &format!("{name}._d"),
            depth,
        )?;
        let labels = |u: &UnionType| -> BTreeSet<i32> {
            u.members
                .iter()
                .flat_map(|m| m.labels.iter().copied())
                .collect()
        };
        if re == "final" && labels(r) != labels(w) {
            return fail(format!("{name}: final unions with different labels"));
        }
        let names = !self.rules.ignore_member_names;
        for m in &r.members {
            let shares = |o: &&UnionMember| o.labels.iter().any(|l| m.labels.contains(l));
            for o in w.members.iter().filter(shares) {
                let label = member_label(&name, &m.name, m.id);
                if names && name_key(&o.name, &o.name_hash) != name_key(&m.name, &m.name_hash) {
                    return fail(format!(
                        "{label}: a case label selects differently named members"
                    ));
                }
                self.check(&m.type_id, &o.type_id, &label, depth)?;
            }
        }
        Ok(())
    }
}

/// The name a constructed type is reported under (`path`, or its own name at the top) and
/// its extensibility, which the reader's (`flags.0`) and the writer's (`flags.1`) type must
/// share (§7.2.4.4, structures and unions).
fn same_extensibility(
    path: &str,
    reader_type_name: &str,
    (reader, writer): (u16, u16),
    what: &str,
) -> Result<(String, &'static str), NotAssignable> {
    let name = if path.is_empty() {
        type_name(reader_type_name).to_owned()
    } else {
        path.to_owned()
    };
    let (re, we) = (extensibility(reader), extensibility(writer));
    if re != we {
        return fail(format!(
            "{name}: the reader's {what} is {re}, the writer's {we}"
        ));
    }
    Ok((name, re))
}

fn is_hash(id: &TypeIdentifier) -> bool {
    matches!(id, TypeIdentifier::Minimal(_) | TypeIdentifier::Complete(_))
}

#[cfg(test)]
mod tests;
