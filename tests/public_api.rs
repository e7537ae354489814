//! The public API of each library crate (siftdds-proto, siftdds-derive, siftdds), listed from
//! its source and compared with the committed listing in `docs/api/<crate>.txt`, so a change to
//! the public surface shows up as a diff in review.
//!
//! The listing is read with `syn` from `src/`, starting at `src/lib.rs` and following `mod`
//! declarations (`x.rs` or `x/mod.rs`; `#[path]` modules and `#[cfg(test)]` items are left out).
//! One line per item whose visibility is exactly `pub`: functions with their signature,
//! structs with their public fields, enums with their variants, traits with their items,
//! consts, statics, type aliases, `pub use` re-exports, the `pub` methods of inherent impls and
//! the trait impls. Every module is walked, private ones included, since types defined in a
//! private module reach the API through a `pub use`; a `pub` item no re-export reaches is
//! listed too (an over-approximation, never an omission). Items made by `macro_rules!` are not
//! seen. Regenerate after an intended change with
//! `SIFTDDS_BLESS=1 cargo test -p siftdds --test public_api`.
//!
//! Must not: build or run the crates (it reads their source only), or open a socket.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Attribute, ImplItem, Item, TraitItem, Visibility};

/// The crates listed: name and directory, relative to the workspace root.
/// A proc-macro crate exports only its macros, which sit in `src/lib.rs`: its modules are
/// not walked (`false`).
const CRATES: [(&str, &str, bool); 3] = [
    ("siftdds-proto", "crates/proto", true),
    ("siftdds-derive", "crates/derive", false),
    ("siftdds", ".", true),
];

/// The environment variable that rewrites the committed listings instead of comparing.
const BLESS: &str = "SIFTDDS_BLESS";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tokens(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

fn is_pub(v: &Visibility) -> bool {
    matches!(v, Visibility::Public(_))
}

/// `#[cfg(test)]` (or any cfg naming `test`) and `#[doc(hidden)]` items are not API.
fn skipped(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        let args = || tokens(&a.meta);
        (path.is_ident("cfg")
            && args()
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == "test"))
            || (path.is_ident("doc") && args().contains("hidden"))
    })
}

/// The file of `mod name;` declared in `file` (whose own module directory is `dir`).
fn module_file(dir: &Path, name: &str) -> Option<PathBuf> {
    [
        dir.join(format!("{name}.rs")),
        dir.join(name).join("mod.rs"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// The directory holding the child modules of the module in `file`.
fn child_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap().to_path_buf();
    match file.file_name().and_then(|n| n.to_str()) {
        Some("lib.rs" | "mod.rs") => parent,
        _ => parent.join(file.file_stem().unwrap()),
    }
}

/// A variant's fields without their attributes (doc comments are not API).
fn fields(f: &syn::Fields) -> String {
    let each = f.iter().map(|f| match &f.ident {
        Some(name) => format!("{name}: {}", tokens(&f.ty)),
        None => tokens(&f.ty),
    });
    let each: Vec<String> = each.collect();
    match f {
        syn::Fields::Named(_) => format!(" {{ {} }}", each.join(", ")),
        syn::Fields::Unnamed(_) => format!("({})", each.join(", ")),
        syn::Fields::Unit => String::new(),
    }
}

fn walk_file(file: &Path, module: &str, out: &mut Vec<String>) {
    walk_file_with(file, module, true, out);
}

fn walk_file_with(file: &Path, module: &str, modules: bool, out: &mut Vec<String>) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let items = parsed.items.iter();
    let items: Vec<Item> = items
        .filter(|i| modules || !matches!(i, Item::Mod(_)))
        .cloned()
        .collect();
    walk_items(&items, module, &child_dir(file), out);
}

fn walk_items(items: &[Item], module: &str, dir: &Path, out: &mut Vec<String>) {
    for item in items {
        walk_item(item, module, dir, out);
    }
}

fn walk_item(item: &Item, m: &str, dir: &Path, out: &mut Vec<String>) {
    let mut line = |s: String| out.push(format!("{m}: {s}"));
    match item {
        Item::Mod(x) if !skipped(&x.attrs) => {
            let child = format!("{m}::{}", x.ident);
            if let Some((_, items)) = &x.content {
                walk_items(items, &child, &dir.join(x.ident.to_string()), out);
            } else if x.attrs.iter().any(|a| a.path().is_ident("path")) {
                // A `#[path]` module is test or tooling support, outside the module tree.
            } else if let Some(file) = module_file(dir, &x.ident.to_string()) {
                if is_pub(&x.vis) {
                    out.push(format!("{m}: pub mod {}", x.ident));
                }
                walk_file(&file, &child, out);
            } else {
                panic!("{m}: no file for mod {} in {}", x.ident, dir.display());
            }
        }
        Item::Fn(x) if is_pub(&x.vis) && !skipped(&x.attrs) => {
            // A proc macro's name and helper attributes are in its `#[proc_macro_*]`.
            let mut head = String::new();
            for a in x.attrs.iter().filter(|a| {
                a.path()
                    .get_ident()
                    .is_some_and(|i| i.to_string().starts_with("proc_macro"))
            }) {
                head.push_str(&format!("#[{}] ", tokens(&a.meta)));
            }
            line(format!("{head}pub {}", tokens(&x.sig)));
        }
        Item::Struct(x) if is_pub(&x.vis) && !skipped(&x.attrs) => {
            line(format!("pub struct {}{}", x.ident, tokens(&x.generics)));
            for (i, f) in x.fields.iter().enumerate() {
                if is_pub(&f.vis) && !skipped(&f.attrs) {
                    let name = f.ident.as_ref().map_or(i.to_string(), ToString::to_string);
                    line(format!("pub {}.{name}: {}", x.ident, tokens(&f.ty)));
                }
            }
        }
        Item::Enum(x) if is_pub(&x.vis) && !skipped(&x.attrs) => {
            line(format!("pub enum {}{}", x.ident, tokens(&x.generics)));
            for v in x.variants.iter().filter(|v| !skipped(&v.attrs)) {
                line(format!("{}::{}{}", x.ident, v.ident, fields(&v.fields)));
            }
        }
        Item::Union(x) if is_pub(&x.vis) && !skipped(&x.attrs) => {
            line(format!("pub union {}{}", x.ident, tokens(&x.generics)));
        }
        Item::Trait(x) if is_pub(&x.vis) && !skipped(&x.attrs) => {
            line(format!("pub trait {}{}", x.ident, tokens(&x.generics)));
            for t in &x.items {
                let s = match t {
                    TraitItem::Fn(f) if !skipped(&f.attrs) => tokens(&f.sig),
                    TraitItem::Const(c) if !skipped(&c.attrs) => {
                        format!("const {}: {}", c.ident, tokens(&c.ty))
                    }
                    TraitItem::Type(t) if !skipped(&t.attrs) => format!("type {}", t.ident),
                    _ => continue,
                };
                line(format!("{}::{s}", x.ident));
            }
        }
        Item::Const(x) if is_pub(&x.vis) && !skipped(&x.attrs) => {
            line(format!("pub const {}: {}", x.ident, tokens(&x.ty)));
        }
        Item::Static(x) if is_pub(&x.vis) && !skipped(&x.attrs) => {
            line(format!("pub static {}: {}", x.ident, tokens(&x.ty)));
        }
        Item::Type(x) if is_pub(&x.vis) && !skipped(&x.attrs) => {
            line(format!(
                "pub type {}{} = {}",
                x.ident,
                tokens(&x.generics),
                tokens(&x.ty)
            ));
        }
        Item::Use(x) if is_pub(&x.vis) && !skipped(&x.attrs) => {
            line(format!("pub use {}", tokens(&x.tree)));
        }
        Item::Impl(x) if !skipped(&x.attrs) => {
            let head = match &x.trait_ {
                Some((bang, path, _)) => {
                    let bang = if bang.is_some() { "!" } else { "" };
                    format!(
                        "impl{} {bang}{} for {}",
                        tokens(&x.generics),
                        tokens(path),
                        tokens(&x.self_ty)
                    )
                }
                None => format!("impl{} {}", tokens(&x.generics), tokens(&x.self_ty)),
            };
            if x.trait_.is_some() {
                line(head);
                return;
            }
            for i in &x.items {
                if let ImplItem::Fn(f) = i {
                    if is_pub(&f.vis) && !skipped(&f.attrs) {
                        line(format!("{head}: pub {}", tokens(&f.sig)));
                    }
                } else if let ImplItem::Const(c) = i {
                    if is_pub(&c.vis) && !skipped(&c.attrs) {
                        line(format!("{head}: pub const {}: {}", c.ident, tokens(&c.ty)));
                    }
                }
            }
        }
        _ => {}
    }
}

/// The listing of the crate whose source is in `dir`.
fn listing(name: &str, dir: &str, modules: bool) -> String {
    let mut lines = Vec::new();
    let lib = root().join(dir).join("src/lib.rs");
    walk_file_with(&lib, &name.replace('-', "_"), modules, &mut lines);
    lines.sort();
    lines.dedup();
    let mut text = String::new();
    for l in lines {
        writeln!(text, "{l}").unwrap();
    }
    text
}

/// The lines of `new` not in `old` (`+`) and of `old` not in `new` (`-`), each list sorted.
fn diff(old: &str, new: &str) -> String {
    let (o, n): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let mut d = String::new();
    for l in o.iter().filter(|l| !n.contains(l)) {
        writeln!(d, "- {l}").unwrap();
    }
    for l in n.iter().filter(|l| !o.contains(l)) {
        writeln!(d, "+ {l}").unwrap();
    }
    d
}

#[test]
fn each_library_crates_public_api_matches_its_committed_listing() {
    let bless = std::env::var_os(BLESS).is_some();
    let mut failures = String::new();
    for (name, dir, modules) in CRATES {
        let now = listing(name, dir, modules);
        assert!(!now.is_empty(), "{name}: the listing is empty");
        let path = root().join("docs/api").join(format!("{name}.txt"));
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &now).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != now {
            write!(
                failures,
                "{name} ({}):\n{}",
                path.display(),
                diff(&committed, &now)
            )
            .unwrap();
        }
    }
    assert!(
        failures.is_empty(),
        "the public API differs from the committed listing:\n{failures}\nIf the change is \
         intended, regenerate with `{BLESS}=1 cargo test -p siftdds --test public_api` and \
         commit docs/api/."
    );
}

#[test]
fn the_listing_sees_a_public_item_and_leaves_out_private_and_test_items() {
    let file: syn::File = syn::parse_quote! {
        pub fn shown(a: u8) -> u8 { a }
        pub(crate) fn crate_only() {}
        fn private() {}
        #[cfg(test)]
        pub fn in_tests() {}
        pub enum Kind {
            A,
            B(u8),
            /// Not API.
            C { x: u8 },
        }
        impl Kind { pub fn get(&self) {} fn hidden(&self) {} }
    };
    let mut out = Vec::new();
    walk_items(&file.items, "c", Path::new("."), &mut out);
    assert_eq!(
        out,
        [
            "c: pub fn shown (a : u8) -> u8",
            "c: pub enum Kind",
            "c: Kind::A",
            "c: Kind::B(u8)",
            "c: Kind::C { x: u8 }",
            "c: impl Kind: pub fn get (& self)",
        ]
    );
}
