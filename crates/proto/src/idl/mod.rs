//! IDL front end: reads OMG IDL 4.2 files and resolves them into [`TypeDescriptor`]s and a
//! [`Model`] that the Rust code generator ([`codegen`]) turns into `TopicType`s.
//!
//! Pipeline: [`lexer`] (characters → tokens; `#` lines become directive tokens) →
//! [`preprocess`] (`#include`, object-like `#define`, `#ifdef`/`#ifndef`/`#else`/`#endif`,
//! `#pragma` ignored; every token keeps its original file:line:col) → [`parser`] (recursive
//! descent into the [`ast`]) → [`resolve`] (scoped names, typedef chains, constants, member
//! ids, keys, extensibility) → [`descriptors`].
//!
//! Must not: panic or overflow the stack on any input (the files are untrusted: everything is
//! bounded by the named limits below), open sockets or read clocks. Only [`parse_file`] and
//! its loader touch the file system.
//!
//! # Overview
//! Coverage (OMG IDL 4.2 §7.4.1 core data types, §7.4.13 annotations subset, DDS-XTypes 1.3
//! §7.3.1.2 standard annotations): modules (nested, reopened), structs with single
//! inheritance, enums with `@value`, unions with `default`, typedefs (with array
//! declarators), constants (integer, float, char, string, boolean, enum; full operator set),
//! all primitive types, bounded/unbounded (w)strings and sequences, multi-dimensional arrays,
//! forward declarations, and the annotations `@key @id @autoid @hashid @optional @final
//! @appendable @mutable @extensibility @topic @nested @default @value`. Unknown annotations
//! are kept in the AST and reported in [`IdlSpec::warnings`].
//!
//! Member ids: `@id(n)`, else `@autoid(SEQUENTIAL)` (the default: previous id + 1, a derived
//! struct continuing after its base) or `@autoid(HASH)`/`@hashid` (MD5-based, DDS-XTypes 1.3
//! §7.3.1.2.1.1). Union cases are numbered from 1: the discriminator is member 0, as XTypes
//! 1.3 §7.2.2.4.4.4.6 has it and as Cyclone DDS (since its PR #2446) and eProsima's IDL parser
//! number them.
//!
//! Extensibility defaults to `@appendable` as DDS-XTypes 1.3 §7.2.2.4.4.4.7 says. Cyclone
//! DDS's `idlc` defaults to `@final` instead (its `-x` option): types shared with Cyclone
//! peers should state their extensibility explicitly.

pub mod ast;
pub mod codegen;
mod eval;
pub mod lexer;
pub mod model;
pub mod parser;
pub mod preprocess;
pub mod resolve;
mod to_descriptor;
pub mod to_type_object;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use model::Model;
pub use preprocess::{FsLoader, MemLoader, SourceLoader};

use crate::types::TypeDescriptor;

/// A parsed and resolved translation unit.
#[derive(Clone, Debug)]
pub struct IdlSpec {
    /// The top-level definitions, includes spliced in.
    pub definitions: Vec<ast::Definition>,
    /// The resolved types, constants and member ids.
    pub model: Model,
    /// Non-fatal findings (unknown annotations), `file:line:col: text`.
    pub warnings: Vec<String>,
}

/// Largest IDL file read, in bytes.
pub const MAX_FILE_SIZE: usize = 4 << 20;
/// Most tokens in one translation unit, includes and macro expansions counted.
pub const MAX_TOKENS: usize = 1 << 20;
/// Deepest nesting of modules, type specs, expressions and declarations in the parser.
pub const MAX_NESTING: usize = 64;
/// Deepest `#include` chain.
pub const MAX_INCLUDE_DEPTH: usize = 16;
/// Most distinct files in one translation unit.
pub const MAX_FILES: usize = 256;
/// Deepest nested macro expansion (`#define A B`, `#define B 1`).
pub const MAX_MACRO_DEPTH: usize = 16;
/// Most nested `#ifdef`/`#ifndef` blocks open at once.
pub const MAX_CONDITIONAL_DEPTH: usize = 64;

/// A position in an original source file (1-based line and column, columns in characters).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    /// The file as it was named (the path given or the resolved include path).
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl Loc {
    /// A location in `file`.
    pub fn new(file: &Arc<str>, line: u32, col: u32) -> Self {
        Loc {
            file: Arc::clone(file),
            line,
            col,
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// An IDL error at a position in an original file, displayed `file:line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdlError {
    /// The file.
    pub file: String,
    /// 1-based line (0 when the error has no position, e.g. the top-level file is missing).
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What went wrong, usually `expected X, found Y`.
    pub message: String,
}

impl IdlError {
    /// An error at `loc`.
    pub fn at(loc: &Loc, message: impl Into<String>) -> Self {
        IdlError {
            file: loc.file.to_string(),
            line: loc.line,
            col: loc.col,
            message: message.into(),
        }
    }
}

impl fmt::Display for IdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

impl std::error::Error for IdlError {}

/// Parses and resolves `path` and what it includes, searching `include_dirs` for
/// `#include <f>` (and, after the including file's directory, for `#include "f"`).
pub fn parse_file(path: &Path, include_dirs: &[PathBuf]) -> Result<IdlSpec, IdlError> {
    parse_with(&FsLoader, path, include_dirs)
}

/// [`parse_file`] over any [`SourceLoader`] (tests use [`MemLoader`]).
pub fn parse_with(
    loader: &dyn SourceLoader,
    path: &Path,
    include_dirs: &[PathBuf],
) -> Result<IdlSpec, IdlError> {
    let tokens = preprocess::run(loader, path, include_dirs)?;
    let definitions = parser::parse(&tokens)?;
    let model = resolve::resolve(&definitions)?;
    let warnings = model.warnings.clone();
    Ok(IdlSpec {
        definitions,
        model,
        warnings,
    })
}

/// The descriptor of every struct in `spec`, in declaration order. Structs the descriptor
/// model cannot express (members of type `wchar`, `wstring`, `long double`, or recursive
/// types) are left out; [`descriptor`] says why.
pub fn descriptors(spec: &IdlSpec) -> Vec<TypeDescriptor> {
    spec.model
        .structs()
        .filter_map(|s| to_descriptor::struct_descriptor(&spec.model, &s.name).ok())
        .collect()
}

/// The descriptor of the struct `name` (fully qualified, `a::b::C`), or why it has none.
pub fn descriptor(spec: &IdlSpec, name: &str) -> Result<TypeDescriptor, IdlError> {
    to_descriptor::struct_descriptor(&spec.model, name)
}
