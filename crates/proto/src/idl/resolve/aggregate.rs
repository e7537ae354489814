//! Structs and unions: inheritance, member ids (DDS-XTypes 1.3 §7.3.1.2.1.1: `@id`,
//! `@autoid(SEQUENTIAL|HASH)`, `@hashid`), keys, optionals, extensibility
//! (§7.3.1.2.1.8, default `@appendable`) and union labels (OMG IDL 4.2 §7.4.1.4.4.4).
//!
//! Must not: accept duplicate member names or ids (inherited members included), a `@key`
//! that is also `@optional`, duplicate union labels or more than one `default`.

use md5::{Digest, Md5};

use super::{CaseItem, ConstValue, Decl, MemberItem, Resolver, StructType, Sym, Ty, UnionType};
use crate::idl::ast::{Annotation, ExprKind, Primitive, StructDef, TypeSpec, UnionDef};
use crate::idl::{IdlError, Loc};
use crate::types::Extensibility;

/// Largest member id (DDS-XTypes 1.3 §7.3.1.2.1.1: ids fit 28 bits).
pub const MAX_MEMBER_ID: u32 = 0x0FFF_FFFF;

/// How members without `@id` get theirs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AutoId {
    /// Previous id + 1 (the default).
    Sequential,
    /// [`hash_id`] of the member name.
    Hash,
}

/// DDS-XTypes 1.3 §7.3.1.2.1.1: the first 4 bytes of MD5(`name`) as a little-endian
/// `uint32`, masked with `0x0FFFFFFF`.
pub fn hash_id(name: &str) -> u32 {
    let digest = Md5::digest(name.as_bytes());
    let mut first = [0u8; 4];
    for (o, b) in first.iter_mut().zip(digest.iter()) {
        *o = *b;
    }
    u32::from_le_bytes(first) & MAX_MEMBER_ID
}

const AGGREGATE_ANNOTATIONS: &[&str] = &[
    "final",
    "appendable",
    "mutable",
    "extensibility",
    "topic",
    "nested",
    "autoid",
];

impl Resolver {
    pub(super) fn struct_def(&mut self, s: &StructDef) -> Result<(), IdlError> {
        self.check_annotations(&s.annotations, AGGREGATE_ANNOTATIONS, "a struct")?;
        let fq = self.qualify(&s.name.name);
        let stated = extensibility(&s.annotations)?;
        let autoid = self.autoid(&s.annotations)?;
        // Inherited members come first; ids continue after the base's last one.
        let mut all: Vec<MemberItem> = Vec::new();
        let (base, extensibility) = match &s.base {
            None => (None, stated.unwrap_or(Extensibility::Appendable)),
            Some(b) => {
                let ty = self.ty(&TypeSpec::Named(b.clone()), false)?;
                let Some(base) = (match &ty {
                    Ty::Struct(n) => self.model.struct_type(n),
                    _ => None,
                }) else {
                    return Err(IdlError::at(
                        &b.loc,
                        format!("base of '{fq}' must be a struct, '{}' is not", b.text()),
                    ));
                };
                if stated.is_some_and(|e| e != base.extensibility) {
                    let msg = format!(
                        "'{fq}' must have the extensibility of its base '{}'",
                        base.name
                    );
                    return Err(IdlError::at(&s.name.loc, msg));
                }
                all = self.all_members(&base.name);
                (Some(base.name.clone()), base.extensibility)
            }
        };
        // Declared (forward) while its members resolve, so `sequence<Self>` works.
        if !self.symbols.contains_key(&fq) {
            self.declare(&fq, Sym::Forward { union: false }, &s.name.loc)?;
        }
        let inherited = all.len();
        let mut next = all.last().map_or(0, |m| m.id.saturating_add(1));
        for m in &s.members {
            self.check_annotations(
                &m.annotations,
                &["key", "id", "hashid", "optional", "default"],
                "a struct member",
            )?;
            let ty = self.ty(&m.type_spec, false)?;
            for d in &m.declarators {
                let ty = self.with_dims(ty.clone(), &d.dims)?;
                let item = self.member(
                    &m.annotations,
                    &d.name.name,
                    &d.name.loc,
                    ty,
                    autoid,
                    &mut next,
                )?;
                check_unique(&all, &item)?;
                all.push(item);
            }
        }
        let own = all.split_off(inherited);
        let decl = StructType {
            name: fq.clone(),
            base,
            extensibility,
            members: own,
            topic: flag(&s.annotations, "topic")?,
            nested: flag(&s.annotations, "nested")?,
            loc: s.name.loc.clone(),
        };
        self.add_decl(&fq, Decl::Struct(decl), &s.name.loc)
    }

    pub(super) fn union_def(&mut self, u: &UnionDef) -> Result<(), IdlError> {
        self.check_annotations(&u.annotations, AGGREGATE_ANNOTATIONS, "a union")?;
        self.check_annotations(&u.switch_annotations, &["key"], "a union discriminator")?;
        let fq = self.qualify(&u.name.name);
        let discriminator = self.ty(&u.switch_type, false)?;
        let valid = match &discriminator {
            Ty::Prim(p) => !matches!(p, Primitive::F32 | Primitive::F64 | Primitive::F128),
            Ty::Enum(_) => true,
            _ => false,
        };
        if !valid {
            let msg = "expected an integer, char, wchar, boolean, octet or enum discriminator type";
            return Err(IdlError::at(&u.name.loc, msg));
        }
        let autoid = self.autoid(&u.annotations)?;
        if !self.symbols.contains_key(&fq) {
            self.declare(&fq, Sym::Forward { union: true }, &u.name.loc)?;
        }
        let mut cases: Vec<CaseItem> = Vec::new();
        let mut seen: Vec<i64> = Vec::new();
        let mut default_seen = false;
        // The discriminator has member id 0; cases start at 1 (XTypes 1.3 §7.2.2.4.4.4.6,
        // as Cyclone since PR #2446 and eProsima's IDL parser number them).
        let mut next = 1u32;
        for c in &u.cases {
            self.check_annotations(&c.annotations, &["id", "hashid"], "a union member")?;
            let mut labels = Vec::new();
            let mut default = false;
            for label in &c.labels {
                let Some(expr) = label else {
                    if default_seen {
                        return Err(IdlError::at(
                            &c.declarator.name.loc,
                            "a union has at most one default case",
                        ));
                    }
                    (default, default_seen) = (true, true);
                    continue;
                };
                let v = super::coerce(self.eval(expr, None)?, &discriminator, expr.start())?;
                let v = label_value(&v, expr.start())?;
                if seen.contains(&v) {
                    return Err(IdlError::at(
                        expr.start(),
                        format!("duplicate case label {v}"),
                    ));
                }
                seen.push(v);
                labels.push(v);
            }
            let ty = self.ty(&c.type_spec, false)?;
            let ty = self.with_dims(ty, &c.declarator.dims)?;
            let d = &c.declarator.name;
            let member = self.member(&c.annotations, &d.name, &d.loc, ty, autoid, &mut next)?;
            let members: Vec<MemberItem> = cases.iter().map(|c| c.member.clone()).collect();
            check_unique(&members, &member)?;
            cases.push(CaseItem {
                labels,
                default,
                member,
            });
        }
        let decl = UnionType {
            name: fq.clone(),
            extensibility: extensibility(&u.annotations)?.unwrap_or(Extensibility::Appendable),
            discriminator,
            key_discriminator: flag(&u.switch_annotations, "key")?,
            cases,
        };
        self.add_decl(&fq, Decl::Union(decl), &u.name.loc)
    }

    /// One member: its id, key, optional and default.
    fn member(
        &self,
        anns: &[Annotation],
        name: &str,
        loc: &Loc,
        ty: Ty,
        autoid: AutoId,
        next: &mut u32,
    ) -> Result<MemberItem, IdlError> {
        let id = if let Some(a) = find(anns, "id") {
            match self
                .single_param(a)?
                .map(|e| self.eval(e, None))
                .transpose()?
            {
                Some(ConstValue::Int(v)) => u32::try_from(v)
                    .ok()
                    .filter(|v| *v <= MAX_MEMBER_ID)
                    .ok_or_else(|| {
                    IdlError::at(&a.loc, format!("member id {v} is not in 0..=0x0FFFFFFF"))
                })?,
                _ => return Err(IdlError::at(&a.loc, "expected an integer in @id(...)")),
            }
        } else if let Some(a) = find(anns, "hashid") {
            match self.single_param(a)? {
                None => hash_id(name),
                Some(e) => match &e.kind {
                    ExprKind::Str(s) => hash_id(s),
                    _ => return Err(IdlError::at(&e.loc, "expected a string in @hashid(...)")),
                },
            }
        } else if autoid == AutoId::Hash {
            hash_id(name)
        } else {
            *next
        };
        *next = id.saturating_add(1);
        let key = flag(anns, "key")?;
        let optional = flag(anns, "optional")?;
        if key && optional {
            return Err(IdlError::at(
                loc,
                format!("key member '{name}' cannot be @optional"),
            ));
        }
        let default = match find(anns, "default") {
            Some(a) => self
                .single_param(a)?
                .map(|e| self.eval(e, None))
                .transpose()?,
            None => None,
        };
        Ok(MemberItem {
            name: name.to_owned(),
            id,
            ty,
            key,
            optional,
            default,
            loc: loc.clone(),
        })
    }

    /// The members of struct `name` and its bases, base first. The chain is finite: a base
    /// must be complete before use, so it cannot name its derived type.
    pub(crate) fn all_members(&self, name: &str) -> Vec<MemberItem> {
        all_members(&self.model, name)
    }

    fn autoid(&self, anns: &[Annotation]) -> Result<AutoId, IdlError> {
        let Some(a) = find(anns, "autoid") else {
            return Ok(AutoId::Sequential);
        };
        // IDL 4.2 §8.3.1.3: the parameter defaults to HASH.
        match self.single_param(a)?.map(|e| &e.kind) {
            None => Ok(AutoId::Hash),
            Some(ExprKind::Name(n)) if n.parts.last().is_some_and(|p| p == "HASH") => {
                Ok(AutoId::Hash)
            }
            Some(ExprKind::Name(n)) if n.parts.last().is_some_and(|p| p == "SEQUENTIAL") => {
                Ok(AutoId::Sequential)
            }
            _ => Err(IdlError::at(
                &a.loc,
                "expected SEQUENTIAL or HASH in @autoid(...)",
            )),
        }
    }
}

/// The members of struct `name` and its bases, base first.
pub(crate) fn all_members(model: &super::Model, name: &str) -> Vec<MemberItem> {
    let mut chain = Vec::new();
    let mut at = model.struct_type(name);
    while let Some(s) = at {
        if chain.len() > model.decls.len() {
            break; // invariant: bases are acyclic; this only guards the loop
        }
        chain.push(s);
        at = s.base.as_deref().and_then(|b| model.struct_type(b));
    }
    chain
        .iter()
        .rev()
        .flat_map(|s| s.members.iter().cloned())
        .collect()
}

fn find<'a>(anns: &'a [Annotation], name: &str) -> Option<&'a Annotation> {
    anns.iter().find(|a| a.name == name)
}

/// A boolean annotation: absent = false, `@x` = true, `@x(TRUE|FALSE)`.
fn flag(anns: &[Annotation], name: &str) -> Result<bool, IdlError> {
    let Some(a) = find(anns, name) else {
        return Ok(false);
    };
    match a.params.as_slice() {
        [] => Ok(true),
        [(_, e)] => match e.kind {
            ExprKind::Bool(b) => Ok(b),
            _ => Err(IdlError::at(
                &e.loc,
                format!("expected TRUE or FALSE in @{name}(...)"),
            )),
        },
        _ => Err(IdlError::at(&a.loc, format!("@{name} takes one parameter"))),
    }
}

/// The stated extensibility, if any; conflicting statements are an error.
fn extensibility(anns: &[Annotation]) -> Result<Option<Extensibility>, IdlError> {
    let mut out: Option<Extensibility> = None;
    for a in anns {
        let kind = match a.name.as_str() {
            "final" => Extensibility::Final,
            "appendable" => Extensibility::Appendable,
            "mutable" => Extensibility::Mutable,
            "extensibility" => match a.params.as_slice() {
                [(_, e)] => match &e.kind {
                    ExprKind::Name(n) => match n.parts.last().map(String::as_str) {
                        Some("FINAL") => Extensibility::Final,
                        Some("APPENDABLE") => Extensibility::Appendable,
                        Some("MUTABLE") => Extensibility::Mutable,
                        _ => {
                            return Err(IdlError::at(
                                &e.loc,
                                "expected FINAL, APPENDABLE or MUTABLE",
                            ));
                        }
                    },
                    _ => {
                        return Err(IdlError::at(
                            &e.loc,
                            "expected FINAL, APPENDABLE or MUTABLE",
                        ));
                    }
                },
                _ => return Err(IdlError::at(&a.loc, "@extensibility takes one parameter")),
            },
            _ => continue,
        };
        if out.is_some_and(|o| o != kind) {
            return Err(IdlError::at(
                &a.loc,
                "conflicting extensibility annotations",
            ));
        }
        out = Some(kind);
    }
    Ok(out)
}

/// Rejects a second member with the same name or id.
fn check_unique(existing: &[MemberItem], m: &MemberItem) -> Result<(), IdlError> {
    if let Some(other) = existing.iter().find(|o| o.name == m.name) {
        return Err(IdlError::at(
            &m.loc,
            format!(
                "duplicate member '{}' (first declared at {})",
                m.name, other.loc
            ),
        ));
    }
    if let Some(other) = existing.iter().find(|o| o.id == m.id) {
        let msg = format!(
            "member id {} of '{}' is already used by '{}'",
            m.id, m.name, other.name
        );
        return Err(IdlError::at(&m.loc, msg));
    }
    Ok(())
}

/// A union label as a number: integers, character codes, booleans as 0/1, enum values.
fn label_value(v: &ConstValue, loc: &Loc) -> Result<i64, IdlError> {
    match v {
        ConstValue::Int(i) => {
            i64::try_from(*i).map_err(|_| IdlError::at(loc, "case label out of range"))
        }
        ConstValue::Char(c) => Ok(i64::from(u32::from(*c))),
        ConstValue::Bool(b) => Ok(i64::from(*b)),
        ConstValue::Enum { value, .. } => Ok(i64::from(*value)),
        _ => Err(IdlError::at(
            loc,
            "expected an integer, character, boolean or enumerator label",
        )),
    }
}
