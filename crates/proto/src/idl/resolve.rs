//! Semantic layer: turns the [`ast`](super::ast) into a [`Model`] — scoped names resolved
//! (OMG IDL 4.2 §7.5.2), typedef chains flattened, constants evaluated, enumerator values,
//! member ids (DDS-XTypes 1.3 §7.3.1.2.1.1), keys and extensibility fixed. Struct and union
//! members are in `aggregate`.
//!
//! Must not: accept a name used before its declaration (IDL declares before use; forward
//! declarations allow recursion through sequences only), or recurse deeper than the parser's
//! nesting limit.

mod aggregate;

pub(super) use aggregate::all_members as all_members_of;
pub use aggregate::{MAX_MEMBER_ID, hash_id};

use std::collections::BTreeMap;

use super::ast::{Annotation, Definition, ScopedName, TypeSpec};
use super::eval::{self, coerce, positive_u32};
use super::model::{CaseItem, ConstValue, Decl, MemberItem, Model, StructType, Ty, UnionType};
use super::{IdlError, Loc};

/// What a fully qualified name denotes during resolution.
#[derive(Clone, Debug)]
enum Sym {
    Module,
    /// A complete declaration in `Model::decls`.
    Decl(usize),
    /// Declared forward (struct or union) but not yet defined.
    Forward {
        union: bool,
    },
    Enumerator {
        ty: String,
        value: i32,
    },
}

/// Resolves `defs` into a [`Model`].
pub fn resolve(defs: &[Definition]) -> Result<Model, IdlError> {
    let mut r = Resolver {
        model: Model::default(),
        symbols: BTreeMap::new(),
        scope: Vec::new(),
    };
    r.definitions(defs)?;
    if let Some((name, (_, loc))) = r
        .symbols
        .iter()
        .find(|(_, (s, _))| matches!(s, Sym::Forward { .. }))
    {
        return Err(IdlError::at(
            loc,
            format!("'{name}' is declared but never defined"),
        ));
    }
    Ok(r.model)
}

pub(super) struct Resolver {
    model: Model,
    symbols: BTreeMap<String, (Sym, Loc)>,
    scope: Vec<String>,
}

/// Annotations that this layer understands somewhere; others only draw a warning.
/// Largest size in bytes an IDL array may take inline in the generated Rust type, and that a
/// bounded sequence may reach at its bound (bound × element size). Without it
/// `long a[4294967295];` generated a 16 GiB Rust array. 16 MiB is far above any sample we
/// interoperate with.
pub const MAX_GENERATED_TYPE_SIZE: u64 = 16 * 1024 * 1024;

/// A lower bound of the bytes one value of `ty` takes inline in the generated Rust type:
/// primitives their width, strings and sequences a `Vec` (24 bytes), other types 1 byte.
fn min_inline_size(ty: &Ty) -> u64 {
    use super::ast::Primitive as P;
    match ty {
        Ty::Prim(P::Bool | P::Char | P::Octet | P::I8 | P::U8) => 1,
        Ty::Prim(P::I16 | P::U16) => 2,
        Ty::Prim(P::WChar | P::I32 | P::U32 | P::F32) => 4,
        Ty::Prim(P::I64 | P::U64 | P::F64) => 8,
        Ty::Prim(P::F128) => 16,
        Ty::String { .. } | Ty::WString { .. } | Ty::Sequence { .. } => 24,
        Ty::Array { elem, dims } => dims.iter().fold(min_inline_size(elem), |acc, d| {
            acc.saturating_mul(u64::from(*d))
        }),
        _ => 1,
    }
}

/// Fails at `at` when `count` values of `elem` exceed [`MAX_GENERATED_TYPE_SIZE`].
fn check_size(at: &Loc, what: &str, count: u64, elem: &Ty) -> Result<(), IdlError> {
    let size = count.saturating_mul(min_inline_size(elem));
    if size > MAX_GENERATED_TYPE_SIZE {
        return Err(IdlError::at(
            at,
            format!(
                "{what} of at least {size} bytes exceeds the generated type limit of \
                 {MAX_GENERATED_TYPE_SIZE} bytes (MAX_GENERATED_TYPE_SIZE)"
            ),
        ));
    }
    Ok(())
}

const KNOWN_ANNOTATIONS: &[&str] = &[
    "key",
    "id",
    "autoid",
    "hashid",
    "optional",
    "final",
    "appendable",
    "mutable",
    "extensibility",
    "topic",
    "nested",
    "default",
    "value",
];

impl Resolver {
    fn qualify(&self, name: &str) -> String {
        let mut parts = self.scope.clone();
        parts.push(name.to_owned());
        parts.join("::")
    }

    /// Declares `fq` as `sym`; reopening modules and completing forward declarations is fine.
    fn declare(&mut self, fq: &str, sym: Sym, loc: &Loc) -> Result<(), IdlError> {
        if let Some((old, old_loc)) = self.symbols.get(fq) {
            let ok = match (old, &sym) {
                (Sym::Module, Sym::Module) => true,
                (Sym::Forward { union: a }, Sym::Forward { union: b }) => a == b,
                (Sym::Forward { union }, Sym::Decl(i)) => {
                    let is_union = matches!(self.model.decls.get(*i), Some(Decl::Union(_)));
                    *union == is_union
                }
                (Sym::Decl(i), Sym::Forward { union }) => {
                    let is_union = matches!(self.model.decls.get(*i), Some(Decl::Union(_)));
                    if *union == is_union {
                        return Ok(()); // forward declaration after the definition
                    }
                    false
                }
                _ => false,
            };
            if !ok {
                return Err(IdlError::at(
                    loc,
                    format!("'{fq}' is already defined at {old_loc}"),
                ));
            }
        }
        self.symbols.insert(fq.to_owned(), (sym, loc.clone()));
        Ok(())
    }

    /// Adds a complete declaration named `fq`.
    fn add_decl(&mut self, fq: &str, decl: Decl, loc: &Loc) -> Result<(), IdlError> {
        let index = self.model.decls.len();
        self.model.decls.push(decl);
        if let Err(e) = self.declare(fq, Sym::Decl(index), loc) {
            self.model.decls.pop();
            return Err(e);
        }
        self.model.index.insert(fq.to_owned(), index);
        Ok(())
    }

    /// Finds `name` from the current scope outwards (IDL 4.2 §7.5.2): the first component is
    /// searched in the enclosing scopes, the rest below it.
    fn lookup(&self, name: &ScopedName, what: &str) -> Result<(String, &Sym), IdlError> {
        let (first, rest) = name
            .parts
            .split_first()
            .ok_or_else(|| IdlError::at(&name.loc, "empty name"))?;
        let depth = if name.absolute { 0 } else { self.scope.len() };
        for i in (0..=depth).rev() {
            let mut parts: Vec<&str> = self.scope.iter().take(i).map(String::as_str).collect();
            parts.push(first);
            if !self.symbols.contains_key(&parts.join("::")) {
                continue;
            }
            parts.extend(rest.iter().map(String::as_str));
            let fq = parts.join("::");
            return match self.symbols.get(&fq) {
                Some((sym, _)) => Ok((fq, sym)),
                None => Err(IdlError::at(
                    &name.loc,
                    format!("unknown {what} '{}' (no '{fq}')", name.text()),
                )),
            };
        }
        Err(IdlError::at(
            &name.loc,
            format!("unknown {what} '{}'", name.text()),
        ))
    }

    /// The value of a named constant or enumerator.
    fn const_value(&self, name: &ScopedName) -> Result<ConstValue, IdlError> {
        let (fq, sym) = self.lookup(name, "constant")?;
        match sym {
            Sym::Enumerator { ty, value } => Ok(ConstValue::Enum {
                ty: ty.clone(),
                label: fq.rsplit("::").next().unwrap_or_default().to_owned(),
                value: *value,
            }),
            Sym::Decl(i) => match self.model.decls.get(*i) {
                Some(Decl::Const { value, .. }) => Ok(value.clone()),
                _ => Err(IdlError::at(
                    &name.loc,
                    format!("'{}' is not a constant", name.text()),
                )),
            },
            _ => Err(IdlError::at(
                &name.loc,
                format!("'{}' is not a constant", name.text()),
            )),
        }
    }

    fn eval(
        &self,
        e: &super::ast::ConstExpr,
        unsigned_bits: Option<u32>,
    ) -> Result<ConstValue, IdlError> {
        eval::eval(e, &|n| self.const_value(n), unsigned_bits)
    }

    fn positive(&self, e: &super::ast::ConstExpr, what: &str) -> Result<u32, IdlError> {
        positive_u32(e, &|n| self.const_value(n), what)
    }

    /// Resolves a type spec; `by_ref` is true inside a sequence, where forward-declared types
    /// are allowed.
    fn ty(&self, spec: &TypeSpec, by_ref: bool) -> Result<Ty, IdlError> {
        Ok(match spec {
            TypeSpec::Primitive(p) => Ty::Prim(*p),
            TypeSpec::String(b) => Ty::String {
                bound: self.bound(b.as_deref(), "string bound")?,
            },
            TypeSpec::WString(b) => Ty::WString {
                bound: self.bound(b.as_deref(), "string bound")?,
            },
            TypeSpec::Sequence(elem, b) => {
                let elem = Box::new(self.ty(elem, true)?);
                let bound = self.bound(b.as_deref(), "sequence bound")?;
                if let (Some(n), Some(e)) = (bound, b.as_deref()) {
                    check_size(e.start(), "sequence", u64::from(n), &elem)?;
                }
                Ty::Sequence { elem, bound }
            }
            TypeSpec::Named(n) => {
                let (fq, sym) = self.lookup(n, "type")?;
                match sym {
                    Sym::Decl(i) => match self.model.decls.get(*i) {
                        Some(Decl::Struct(_)) => Ty::Struct(fq),
                        Some(Decl::Union(_)) => Ty::Union(fq),
                        Some(Decl::Enum { .. }) => Ty::Enum(fq),
                        Some(Decl::Typedef { ty, .. }) => ty.clone(),
                        _ => {
                            return Err(IdlError::at(
                                &n.loc,
                                format!("'{}' is not a type", n.text()),
                            ));
                        }
                    },
                    Sym::Forward { union } if by_ref => {
                        if *union {
                            Ty::Union(fq)
                        } else {
                            Ty::Struct(fq)
                        }
                    }
                    Sym::Forward { .. } => {
                        let msg = format!(
                            "'{}' is incomplete here (only sequences may refer to a forward-declared type)",
                            n.text()
                        );
                        return Err(IdlError::at(&n.loc, msg));
                    }
                    _ => {
                        return Err(IdlError::at(
                            &n.loc,
                            format!("'{}' is not a type", n.text()),
                        ));
                    }
                }
            }
        })
    }

    fn bound(
        &self,
        e: Option<&super::ast::ConstExpr>,
        what: &str,
    ) -> Result<Option<u32>, IdlError> {
        e.map(|e| self.positive(e, what)).transpose()
    }

    /// Applies array dimensions to `ty` (an array of an array typedef flattens).
    fn with_dims(&self, ty: Ty, dims_exprs: &[super::ast::ConstExpr]) -> Result<Ty, IdlError> {
        let Some(first) = dims_exprs.first() else {
            return Ok(ty);
        };
        let mut out = Vec::with_capacity(dims_exprs.len());
        for d in dims_exprs {
            out.push(self.positive(d, "array dimension")?);
        }
        let (elem, dims) = match ty {
            Ty::Array { elem, dims: inner } => {
                out.extend(inner);
                (elem, out)
            }
            other => (Box::new(other), out),
        };
        if dims
            .iter()
            .try_fold(1u32, |acc, d| acc.checked_mul(*d))
            .is_none()
        {
            let msg = "array has more than 4294967295 elements";
            return Err(IdlError::at(first.start(), msg));
        }
        let array = Ty::Array { elem, dims };
        check_size(first.start(), "array", 1, &array)?;
        Ok(array)
    }

    /// Checks annotations against those `allowed` on `target`; unknown ones become warnings.
    fn check_annotations(
        &mut self,
        anns: &[Annotation],
        allowed: &[&str],
        target: &str,
    ) -> Result<(), IdlError> {
        for a in anns {
            if allowed.contains(&a.name.as_str()) {
                continue;
            }
            if KNOWN_ANNOTATIONS.contains(&a.name.as_str()) {
                return Err(IdlError::at(
                    &a.loc,
                    format!("@{} does not apply to {target}", a.name),
                ));
            }
            self.model
                .warnings
                .push(format!("{}: unknown annotation @{} ignored", a.loc, a.name));
        }
        Ok(())
    }

    fn definitions(&mut self, defs: &[Definition]) -> Result<(), IdlError> {
        for d in defs {
            self.definition(d)?;
        }
        Ok(())
    }

    fn definition(&mut self, def: &Definition) -> Result<(), IdlError> {
        match def {
            Definition::Module {
                annotations,
                name,
                definitions,
            } => {
                self.check_annotations(annotations, &[], "a module")?;
                let fq = self.qualify(&name.name);
                self.declare(&fq, Sym::Module, &name.loc)?;
                self.scope.push(name.name.clone());
                let r = self.definitions(definitions);
                self.scope.pop();
                r
            }
            Definition::Struct(s) => self.struct_def(s),
            Definition::Union(u) => self.union_def(u),
            Definition::Forward {
                annotations,
                union,
                name,
            } => {
                self.check_annotations(annotations, &[], "a forward declaration")?;
                let fq = self.qualify(&name.name);
                self.declare(&fq, Sym::Forward { union: *union }, &name.loc)
            }
            Definition::Enum(e) => {
                self.check_annotations(
                    &e.annotations,
                    &["final", "appendable", "extensibility"],
                    "an enum",
                )?;
                let fq = self.qualify(&e.name.name);
                let mut enumerators: Vec<(String, i32)> = Vec::new();
                let mut next: i128 = 0;
                for (anns, id) in &e.enumerators {
                    self.check_annotations(anns, &["value"], "an enumerator")?;
                    let value = match anns.iter().find(|a| a.name == "value") {
                        Some(a) => match (
                            self.single_param(a)?
                                .map(|e| self.eval(e, None))
                                .transpose()?,
                            a,
                        ) {
                            (Some(ConstValue::Int(v)), _) => v,
                            _ => {
                                return Err(IdlError::at(
                                    &a.loc,
                                    "expected an integer in @value(...)",
                                ));
                            }
                        },
                        None => next,
                    };
                    let value = i32::try_from(value).map_err(|_| {
                        IdlError::at(
                            &id.loc,
                            format!("enumerator value {value} does not fit int32"),
                        )
                    })?;
                    if let Some((other, _)) = enumerators.iter().find(|(_, v)| *v == value) {
                        return Err(IdlError::at(
                            &id.loc,
                            format!("enumerator value {value} is already used by '{other}'"),
                        ));
                    }
                    next = i128::from(value).saturating_add(1);
                    let label_fq = self.qualify(&id.name);
                    self.declare(
                        &label_fq,
                        Sym::Enumerator {
                            ty: fq.clone(),
                            value,
                        },
                        &id.loc,
                    )?;
                    enumerators.push((id.name.clone(), value));
                }
                self.add_decl(
                    &fq,
                    Decl::Enum {
                        name: fq.clone(),
                        enumerators,
                    },
                    &e.name.loc,
                )
            }
            Definition::Typedef(t) => {
                self.check_annotations(&t.annotations, &[], "a typedef")?;
                let base = self.ty(&t.type_spec, false)?;
                for d in &t.declarators {
                    let ty = self.with_dims(base.clone(), &d.dims)?;
                    let fq = self.qualify(&d.name.name);
                    self.add_decl(
                        &fq,
                        Decl::Typedef {
                            name: fq.clone(),
                            ty,
                        },
                        &d.name.loc,
                    )?;
                }
                Ok(())
            }
            Definition::Const(c) => {
                self.check_annotations(&c.annotations, &[], "a constant")?;
                let ty = self.ty(&c.type_spec, false)?;
                let bits = match &ty {
                    Ty::Prim(p) => p
                        .int_range()
                        .filter(|(lo, _)| *lo == 0)
                        .map(|(_, hi)| bit_width(hi)),
                    _ => None,
                };
                let value = coerce(self.eval(&c.value, bits)?, &ty, c.value.start())?;
                let fq = self.qualify(&c.name.name);
                self.add_decl(
                    &fq,
                    Decl::Const {
                        name: fq.clone(),
                        ty,
                        value,
                    },
                    &c.name.loc,
                )
            }
        }
    }

    /// The only positional parameter of `a`, if any; more than one is an error.
    fn single_param<'a>(
        &self,
        a: &'a Annotation,
    ) -> Result<Option<&'a super::ast::ConstExpr>, IdlError> {
        match a.params.as_slice() {
            [] => Ok(None),
            [(None | Some(_), e)] => Ok(Some(e)),
            _ => Err(IdlError::at(
                &a.loc,
                format!("@{} takes one parameter", a.name),
            )),
        }
    }
}

/// Bits needed for an unsigned maximum (`0xFF` → 8).
fn bit_width(max: i128) -> u32 {
    128u32.saturating_sub(max.leading_zeros())
}
