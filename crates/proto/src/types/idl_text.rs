//! IDL 4 text of a [`TypeDescriptor`]: the structure and every enum, structure and union it
//! uses, each declared once before its first use, inside the modules of its scoped name
//! (`a::b::C` in `module a { module b { … }; };`), with `@final`/`@appendable`/`@mutable`,
//! `@key`, `@optional` and, in mutable types, `@id`. `siftdds ls` prints a type fetched
//! through the TypeLookup service with it.
//!
//! Must not: recurse deeper than the descriptor (descriptors are bounded when built, see
//! `types::xtypes::to_descriptor`), or emit a declaration twice.

use super::{Extensibility, Member, TypeDescriptor, TypeKind, UnionDescriptor};

/// The IDL declarations of `d` and the types it uses.
pub fn to_idl(d: &TypeDescriptor) -> String {
    let mut p = Printer::default();
    p.structure(d);
    p.out
}

#[derive(Default)]
struct Printer {
    out: String,
    declared: Vec<String>,
}

fn annotation(e: Extensibility) -> &'static str {
    match e {
        Extensibility::Final => "@final",
        Extensibility::Appendable => "@appendable",
        Extensibility::Mutable => "@mutable",
    }
}

impl Printer {
    /// Declares `name` with `body` (the declaration's own lines, unindented) in its modules.
    fn declare(&mut self, name: &str, body: impl FnOnce(&str) -> String) {
        if self.declared.iter().any(|n| n == name) {
            return;
        }
        self.declared.push(name.to_owned());
        let parts: Vec<&str> = name.split("::").filter(|p| !p.is_empty()).collect();
        let (modules, leaf) = match parts.split_last() {
            Some((leaf, modules)) => (modules, *leaf),
            None => (&[][..], name),
        };
        let mut indent = String::new();
        for m in modules {
            self.out.push_str(&format!("{indent}module {m} {{\n"));
            indent.push_str("  ");
        }
        for line in body(leaf).lines() {
            self.out.push_str(&format!("{indent}{line}\n"));
        }
        for _ in modules {
            indent.truncate(indent.len().saturating_sub(2));
            self.out.push_str(&format!("{indent}}};\n"));
        }
    }

    /// Declares what `kind` names (and what that uses), then gives its IDL spelling.
    fn kind(&mut self, kind: &TypeKind) -> String {
        match kind {
            TypeKind::Bool => "boolean".into(),
            TypeKind::Char => "char".into(),
            TypeKind::Octet => "octet".into(),
            TypeKind::I8 => "int8".into(),
            TypeKind::U8 => "uint8".into(),
            TypeKind::I16 => "short".into(),
            TypeKind::U16 => "unsigned short".into(),
            TypeKind::I32 => "long".into(),
            TypeKind::U32 => "unsigned long".into(),
            TypeKind::I64 => "long long".into(),
            TypeKind::U64 => "unsigned long long".into(),
            TypeKind::F32 => "float".into(),
            TypeKind::F64 => "double".into(),
            TypeKind::String { bound: None } => "string".into(),
            TypeKind::String { bound: Some(b) } => format!("string<{b}>"),
            TypeKind::Sequence { elem, bound } => {
                let e = self.kind(elem);
                match bound {
                    None => format!("sequence<{e}>"),
                    Some(b) => format!("sequence<{e}, {b}>"),
                }
            }
            // Arrays are spelled on the member name (`member`).
            TypeKind::Array { elem, .. } => self.kind(elem),
            TypeKind::Enum(e) => {
                self.declare(&e.name, |leaf| {
                    let labels: Vec<String> = e
                        .labels
                        .iter()
                        .map(|(l, v)| format!("  @value({v}) {l}"))
                        .collect();
                    format!("enum {leaf} {{\n{}\n}};", labels.join(",\n"))
                });
                e.name.clone()
            }
            TypeKind::Struct(d) => {
                self.structure(d);
                d.name.clone()
            }
            TypeKind::Union(u) => {
                self.union(u);
                u.name.clone()
            }
        }
    }

    /// One member line: annotations, type, name and array dimensions.
    fn member(&mut self, m: &Member, mutable: bool) -> String {
        let ty = self.kind(&m.kind);
        let mut line = String::from("  ");
        if m.key {
            line.push_str("@key ");
        }
        if m.optional {
            line.push_str("@optional ");
        }
        if mutable {
            line.push_str(&format!("@id({}) ", m.id));
        }
        line.push_str(&format!("{ty} {}", m.name));
        if let TypeKind::Array { dims, .. } = &m.kind {
            for d in dims {
                line.push_str(&format!("[{d}]"));
            }
        }
        line.push(';');
        line
    }

    fn structure(&mut self, d: &TypeDescriptor) {
        if self.declared.contains(&d.name) {
            return;
        }
        let mutable = d.extensibility == Extensibility::Mutable;
        let members: Vec<String> = d.members.iter().map(|m| self.member(m, mutable)).collect();
        self.declare(&d.name, |leaf| {
            format!(
                "{}\nstruct {leaf} {{\n{}\n}};",
                annotation(d.extensibility),
                members.join("\n")
            )
        });
    }

    fn union(&mut self, u: &UnionDescriptor) {
        if self.declared.contains(&u.name) {
            return;
        }
        let discriminator = self.kind(&u.discriminator);
        let mutable = u.extensibility == Extensibility::Mutable;
        let cases: Vec<String> = u
            .cases
            .iter()
            .map(|c| {
                let label = |l: &i64| match &u.discriminator {
                    // An enum discriminator's labels are its enumerators.
                    TypeKind::Enum(e) => i32::try_from(*l)
                        .ok()
                        .and_then(|v| e.label_of(v))
                        .map_or_else(|| l.to_string(), |n| format!("{}::{n}", scope(&e.name))),
                    _ => l.to_string(),
                };
                let mut labels: Vec<String> = c
                    .labels
                    .iter()
                    .map(|l| format!("  case {}:", label(l)))
                    .collect();
                if c.default {
                    labels.push("  default:".into());
                }
                let member = self.member(&c.member, mutable);
                format!("{}\n  {member}", labels.join("\n"))
            })
            .collect();
        self.declare(&u.name, |leaf| {
            format!(
                "{}\nunion {leaf} switch ({discriminator}) {{\n{}\n}};",
                annotation(u.extensibility),
                cases.join("\n")
            )
        });
    }
}

/// The scope of a scoped name (`a::b` of `a::b::C`), empty when unscoped.
fn scope(name: &str) -> &str {
    match name.rfind("::") {
        Some(i) => name.get(..i).unwrap_or(name),
        None => "",
    }
}

#[cfg(test)]
mod tests;
