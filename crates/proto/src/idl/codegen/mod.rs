//! IDL → Rust code generator: resolved IDL ([`Model`]) becomes Rust source with one item per
//! declaration — modules, structs, enums, unions, typedefs, constants — and for each type an
//! `XcdrCodec` impl (XCDR1 and XCDR2, both byte orders), for top-level structs a `TopicType`
//! impl with key hash and type descriptor.
//!
//! Must not: encode wire rules itself (they live in `types::codec`, which generated code calls
//! as `_rt`), write anywhere but the output path it is given, or run anything but `rustfmt`.
//!
//! # Overview
//! Entry points: [`generate`] (IDL files → source text), [`generate_to_out_dir`] (for
//! `build.rs`: writes `$OUT_DIR/<name>` and prints `cargo:rerun-if-changed`), and the
//! `siftdds idl` subcommand. The output is meant for `include!` inside any module: paths
//! between generated items are relative and the runtime is reached through the crate path in
//! [`GenOptions::crate_path`].
//!
//! Type mapping: `boolean`→`bool`, `char`→`char` (Latin-1), `wchar`→`char` (one UTF-16 code
//! unit), `octet`/`uint8`→`u8`, `int8`→`i8`, integers and floats to their Rust twins,
//! `long double`→`LongDouble` (binary128 bits; Rust has no stable `f128`), strings→`String`,
//! sequences→`Vec`, arrays→nested `[T; N]`, `@optional`→`Option`, enums→`#[repr(i32)]` enums,
//! unions→Rust enums (see `unions`), typedefs→`type` aliases, constants→`const`.

mod descriptor;
mod names;
mod structs;
mod unions;
mod value;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::model::{Decl, Model};
use super::preprocess::{FsLoader, SourceLoader};
use super::{IdlError, parse_with, to_descriptor};
use names::{RESERVED_TYPE_NAMES, ident, last};
use value::{Ctx, const_lit};

/// How to generate.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Directories searched by `#include`.
    pub include_dirs: Vec<PathBuf>,
    /// The path of the siftdds crate as the generated code sees it (`::siftdds`, or `crate`
    /// inside siftdds itself).
    pub crate_path: String,
    /// Run `rustfmt --edition 2024` on the output when it is on `PATH`.
    pub rustfmt: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            include_dirs: Vec::new(),
            crate_path: "::siftdds".to_owned(),
            rustfmt: true,
        }
    }
}

/// The name of the synthetic file that `#include`s every input, so that files shared by
/// several inputs are read once.
const ROOT: &str = "<siftdds idl inputs>";

struct RootLoader {
    root: String,
}

impl SourceLoader for RootLoader {
    fn load(&self, path: &Path) -> Result<Option<String>, String> {
        if path == Path::new(ROOT) {
            Ok(Some(self.root.clone()))
        } else {
            FsLoader.load(path)
        }
    }

    fn identity(&self, path: &Path) -> PathBuf {
        if path == Path::new(ROOT) {
            path.to_path_buf()
        } else {
            FsLoader.identity(path)
        }
    }
}

/// Generates Rust source for the IDL files `paths` (one translation unit).
pub fn generate(paths: &[PathBuf], options: &GenOptions) -> Result<String, IdlError> {
    let mut root = String::new();
    for p in paths {
        if !p.is_file() {
            let file = p.display().to_string();
            return Err(IdlError {
                file,
                line: 0,
                col: 0,
                message: "file not found".into(),
            });
        }
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.clone());
        let _ = writeln!(root, "#include \"{}\"", abs.display());
    }
    let spec = parse_with(&RootLoader { root }, Path::new(ROOT), &options.include_dirs)?;
    let code = generate_model(&spec.model, &options.crate_path)?;
    Ok(if options.rustfmt {
        rustfmt(&code).unwrap_or(code)
    } else {
        code
    })
}

/// For `build.rs`: generates `paths` into `$OUT_DIR/out_name` and tells Cargo to rerun when
/// an input changes. Returns the written path, for `include!(concat!(env!("OUT_DIR"), ..))`.
pub fn generate_to_out_dir(
    paths: &[PathBuf],
    options: &GenOptions,
    out_name: &str,
) -> Result<PathBuf, IdlError> {
    let no_out = |m: String| IdlError {
        file: out_name.to_owned(),
        line: 0,
        col: 0,
        message: m,
    };
    let dir = std::env::var_os("OUT_DIR").ok_or_else(|| no_out("OUT_DIR is not set".into()))?;
    for p in paths.iter().chain(&options.include_dirs) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    let code = generate(paths, options)?;
    let out = PathBuf::from(dir).join(out_name);
    std::fs::write(&out, code).map_err(|e| no_out(e.to_string()))?;
    Ok(out)
}

/// `code` formatted by `rustfmt --edition 2024`, `None` if rustfmt is missing or fails.
pub fn rustfmt(code: &str) -> Option<String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = code.to_owned();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    feeder.join().ok()?.ok()?;
    if out.status.success() {
        String::from_utf8(out.stdout).ok()
    } else {
        None
    }
}

/// A module of the output: its items (declaration indexes) and child modules, in order.
#[derive(Default)]
struct ModNode {
    decls: Vec<usize>,
    children: BTreeMap<String, ModNode>,
    order: Vec<String>,
}

/// Generates the source for a resolved model.
pub fn generate_model(model: &Model, crate_path: &str) -> Result<String, IdlError> {
    let mut root = ModNode::default();
    for (i, d) in model.decls.iter().enumerate() {
        let name = decl_name(d);
        check_name(model, name)?;
        let mut node = &mut root;
        for part in names::scope_of(name) {
            if !node.children.contains_key(&part) {
                node.order.push(part.clone());
            }
            node = node.children.entry(part).or_default();
        }
        node.decls.push(i);
    }
    let mut out = String::from(
        "// Generated by siftdds::idl::codegen from IDL. Do not edit: change the IDL instead.\n",
    );
    emit_module(model, crate_path, &root, &mut Vec::new(), &mut out);
    Ok(out)
}

fn decl_name(d: &Decl) -> &str {
    match d {
        Decl::Struct(s) => &s.name,
        Decl::Union(u) => &u.name,
        Decl::Enum { name, .. } | Decl::Typedef { name, .. } | Decl::Const { name, .. } => name,
    }
}

fn check_name(model: &Model, fq: &str) -> Result<(), IdlError> {
    let name = last(fq);
    if !RESERVED_TYPE_NAMES.contains(&name) {
        return Ok(());
    }
    let msg = format!("'{fq}': the name {name} is reserved for the Rust type it names");
    Err(match model.get(fq) {
        Some(Decl::Struct(s)) => IdlError::at(&s.loc, msg),
        _ => IdlError {
            file: String::new(),
            line: 0,
            col: 0,
            message: msg,
        },
    })
}

fn emit_module(
    model: &Model,
    krate: &str,
    node: &ModNode,
    scope: &mut Vec<String>,
    out: &mut String,
) {
    let _ = writeln!(
        out,
        "#[allow(unused_imports)]\nuse {krate}::types::codec as _rt;\n#[allow(unused_imports)]\nuse {krate}::types::xtypes as _xt;\n"
    );
    let cx = Ctx {
        model,
        scope: scope.clone(),
    };
    for &i in &node.decls {
        let Some(d) = model.decls.get(i) else {
            continue;
        };
        match d {
            Decl::Struct(s) => {
                let desc = to_descriptor::struct_descriptor(model, &s.name).ok();
                structs::emit(&cx, s, desc.as_ref(), out);
            }
            Decl::Union(u) => unions::emit_union(&cx, u, out),
            Decl::Enum { name, enumerators } => unions::emit_enum(name, enumerators, out),
            Decl::Typedef { name, ty } => {
                let _ = writeln!(
                    out,
                    "/// IDL typedef `{name}`.\npub type {} = {};\n",
                    ident(last(name)),
                    cx.ty(ty)
                );
            }
            Decl::Const { name, ty, value } => {
                let (t, v) = match ty {
                    super::model::Ty::String { .. } | super::model::Ty::WString { .. } => {
                        ("&str".to_owned(), const_lit(&cx, ty, value, false))
                    }
                    super::model::Ty::Prim(super::ast::Primitive::F128) => {
                        ("f64".to_owned(), const_lit(&cx, ty, value, false))
                    }
                    _ => (cx.ty(ty), const_lit(&cx, ty, value, false)),
                };
                if let Some(v) = v {
                    let _ = writeln!(
                        out,
                        "/// IDL constant `{name}`.\npub const {}: {t} = {v};\n",
                        ident(last(name))
                    );
                }
            }
        }
    }
    for child in &node.order {
        let Some(n) = node.children.get(child) else {
            continue;
        };
        let _ = writeln!(
            out,
            "/// IDL module `{child}`.\npub mod {} {{",
            ident(child)
        );
        scope.push(child.clone());
        emit_module(model, krate, n, scope, out);
        scope.pop();
        let _ = writeln!(out, "}}\n");
    }
}

#[cfg(test)]
mod tests;
