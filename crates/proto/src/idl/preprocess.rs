//! IDL preprocessor (OMG IDL 4.2 §7.3, the C-preprocessor subset IDL files use):
//! `#include "f"` / `<f>`, object-like `#define`/`#undef`, `#ifdef`/`#ifndef`/`#else`/
//! `#endif`, `#error`; `#pragma` and the null directive are ignored. Works on tokens rather
//! than text, so every token, macro expansions included (they take the position of the
//! macro's use), keeps its original file:line:col — the source map is the tokens themselves.
//!
//! Must not: recurse without bound (include depth, macro depth and total work are capped),
//! include a file into itself, or read a file larger than [`MAX_FILE_SIZE`]. Only
//! [`FsLoader`] touches the file system.
//!
//! # Overview
//! A file already included once is not included again (as if every file had an include
//! guard or `#pragma once`); a file that includes itself, directly or not, is an error.
//! `#include "f"` searches the including file's directory, then the include directories;
//! `#include <f>` only the include directories.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::lexer::{Lexer, Tok, Token};
use super::{
    IdlError, Loc, MAX_CONDITIONAL_DEPTH, MAX_FILE_SIZE, MAX_FILES, MAX_INCLUDE_DEPTH,
    MAX_MACRO_DEPTH, MAX_TOKENS,
};

/// Where source text comes from.
pub trait SourceLoader {
    /// The contents of `path`; `Ok(None)` when there is no such file, `Err` with a reason
    /// when it exists but cannot be read (or is larger than [`MAX_FILE_SIZE`]).
    fn load(&self, path: &Path) -> Result<Option<String>, String>;

    /// The identity of `path` for the include-once and cycle guards.
    fn identity(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
}

/// Reads files from the file system.
#[derive(Copy, Clone, Debug, Default)]
pub struct FsLoader;

impl SourceLoader for FsLoader {
    fn load(&self, path: &Path) -> Result<Option<String>, String> {
        if !path.is_file() {
            return Ok(None);
        }
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        let limit = u64::try_from(MAX_FILE_SIZE)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let mut text = String::new();
        file.take(limit)
            .read_to_string(&mut text)
            .map_err(|e| e.to_string())?;
        if text.len() > MAX_FILE_SIZE {
            return Err(format!("file larger than {MAX_FILE_SIZE} bytes"));
        }
        Ok(Some(text))
    }

    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// An in-memory set of files (tests, generated sources).
#[derive(Clone, Debug, Default)]
pub struct MemLoader {
    files: BTreeMap<PathBuf, String>,
}

impl MemLoader {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) `path` with `text`.
    pub fn with(mut self, path: &str, text: &str) -> Self {
        self.files.insert(PathBuf::from(path), text.to_owned());
        self
    }
}

impl SourceLoader for MemLoader {
    fn load(&self, path: &Path) -> Result<Option<String>, String> {
        match self.files.get(path) {
            Some(t) if t.len() > MAX_FILE_SIZE => {
                Err(format!("file larger than {MAX_FILE_SIZE} bytes"))
            }
            t => Ok(t.cloned()),
        }
    }
}

/// Preprocesses `path`: the token stream of the translation unit, ending with one `Eof`.
pub fn run(
    loader: &dyn SourceLoader,
    path: &Path,
    include_dirs: &[PathBuf],
) -> Result<Vec<Token>, IdlError> {
    let mut pp = Preprocessor {
        loader,
        include_dirs,
        defines: HashMap::new(),
        out: Vec::new(),
        stack: Vec::new(),
        done: HashSet::new(),
        work: 0,
    };
    let shown: Arc<str> = Arc::from(path.display().to_string());
    let text = match loader.load(path) {
        Ok(Some(text)) => text,
        Ok(None) => return Err(IdlError::at(&Loc::new(&shown, 0, 0), "file not found")),
        Err(why) => return Err(IdlError::at(&Loc::new(&shown, 0, 0), why)),
    };
    let eof = pp.file(path, shown, &text)?;
    pp.out.push(eof);
    Ok(pp.out)
}

/// One open `#ifdef`/`#ifndef`.
struct Cond {
    /// Tokens are kept here.
    active: bool,
    /// The enclosing region was active (so `#else` may activate this one).
    parent_active: bool,
    seen_else: bool,
    loc: Loc,
}

struct Preprocessor<'a> {
    loader: &'a dyn SourceLoader,
    include_dirs: &'a [PathBuf],
    defines: HashMap<String, Vec<Tok>>,
    out: Vec<Token>,
    /// Identities of the files being read, outermost first.
    stack: Vec<(PathBuf, Arc<str>)>,
    done: HashSet<PathBuf>,
    /// Tokens produced or examined during macro expansion, capped at [`MAX_TOKENS`].
    work: usize,
}

impl Preprocessor<'_> {
    /// Reads one file (already loaded as `text`); returns its end-of-file token.
    fn file(&mut self, path: &Path, shown: Arc<str>, text: &str) -> Result<Token, IdlError> {
        self.stack
            .push((self.loader.identity(path), Arc::clone(&shown)));
        let mut lexer = Lexer::new(text, shown);
        let mut conds: Vec<Cond> = Vec::new();
        loop {
            let active = conds.last().is_none_or(|c| c.active);
            let token = if active {
                lexer.next_token()?
            } else {
                lexer.skip_to_directive()
            };
            match token.tok {
                Tok::Eof => {
                    if let Some(open) = conds.last() {
                        return Err(IdlError::at(
                            &open.loc,
                            "unterminated conditional: expected #endif",
                        ));
                    }
                    if let Some((id, _)) = self.stack.pop() {
                        self.done.insert(id);
                    }
                    return Ok(token);
                }
                Tok::Directive(body) => self.directive(&body, &token.loc, path, &mut conds)?,
                Tok::Ident(ref name) if self.defines.contains_key(name) => {
                    let mut active_macros = Vec::new();
                    self.expand(name, &token.loc, &mut active_macros)?;
                }
                _ => self.push(token)?,
            }
        }
    }

    fn push(&mut self, token: Token) -> Result<(), IdlError> {
        if self.out.len() >= MAX_TOKENS {
            return Err(IdlError::at(
                &token.loc,
                format!("more than {MAX_TOKENS} tokens"),
            ));
        }
        self.out.push(token);
        Ok(())
    }

    /// Replaces a use of macro `name` at `at` by its body, expanding nested macros except
    /// those being expanded (C semantics: a macro does not expand inside itself).
    fn expand(&mut self, name: &str, at: &Loc, active: &mut Vec<String>) -> Result<(), IdlError> {
        if active.len() >= MAX_MACRO_DEPTH {
            return Err(IdlError::at(
                at,
                format!("macro expansion nested deeper than {MAX_MACRO_DEPTH}"),
            ));
        }
        let body = self.defines.get(name).cloned().unwrap_or_default();
        active.push(name.to_owned());
        for tok in body {
            self.work = self.work.saturating_add(1);
            if self.work > MAX_TOKENS {
                return Err(IdlError::at(at, "macro expansion too large"));
            }
            match tok {
                Tok::Ident(ref n) if self.defines.contains_key(n) && !active.contains(n) => {
                    self.expand(n, at, active)?;
                }
                tok => self.push(Token {
                    tok,
                    loc: at.clone(),
                })?,
            }
        }
        active.pop();
        Ok(())
    }

    /// Handles `#body` at `hash` (the `#`).
    fn directive(
        &mut self,
        body: &str,
        hash: &Loc,
        path: &Path,
        conds: &mut Vec<Cond>,
    ) -> Result<(), IdlError> {
        let col = hash.col.saturating_add(1);
        let mut lx = Lexer::starting_at(body, Arc::clone(&hash.file), hash.line, col);
        let word = lx.next_token()?;
        let name = match &word.tok {
            Tok::Ident(n) => n.clone(),
            Tok::Eof => return Ok(()), // null directive
            other => {
                let msg = format!(
                    "expected a directive name after '#', found {}",
                    other.describe()
                );
                return Err(IdlError::at(&word.loc, msg));
            }
        };
        let active = conds.last().is_none_or(|c| c.active);
        match name.as_str() {
            "ifdef" | "ifndef" => {
                if conds.len() >= MAX_CONDITIONAL_DEPTH {
                    return Err(IdlError::at(hash, "conditionals nested too deeply"));
                }
                let defined = if active {
                    let macro_name = self.macro_name(&mut lx, &name)?;
                    self.defines.contains_key(&macro_name.0)
                } else {
                    false
                };
                let wanted = name == "ifdef";
                conds.push(Cond {
                    active: active && defined == wanted,
                    parent_active: active,
                    seen_else: false,
                    loc: hash.clone(),
                });
            }
            "else" => match conds.last_mut() {
                Some(c) if !c.seen_else => {
                    c.seen_else = true;
                    c.active = c.parent_active && !c.active;
                }
                Some(_) => return Err(IdlError::at(hash, "#else after #else")),
                None => return Err(IdlError::at(hash, "#else without #ifdef")),
            },
            "endif" => {
                if conds.pop().is_none() {
                    return Err(IdlError::at(hash, "#endif without #ifdef"));
                }
            }
            _ if !active => {}
            "define" => {
                let (macro_name, name_loc) = self.macro_name(&mut lx, "define")?;
                let mut value = Vec::new();
                loop {
                    let t = lx.next_token()?;
                    if t.tok == Tok::Eof {
                        break;
                    }
                    let adjacent = name_loc.col.saturating_add(char_len(&macro_name)) == t.loc.col;
                    if value.is_empty()
                        && adjacent
                        && t.tok == Tok::Punct(super::lexer::Punct::LParen)
                    {
                        return Err(IdlError::at(
                            &t.loc,
                            "function-like macros are not supported",
                        ));
                    }
                    value.push(t.tok);
                }
                self.defines.insert(macro_name, value);
            }
            "undef" => {
                let (macro_name, _) = self.macro_name(&mut lx, "undef")?;
                self.defines.remove(&macro_name);
            }
            "include" => self.include(body, &word, hash, path)?,
            "pragma" => {}
            "error" => {
                let text = body.trim_start().trim_start_matches("error").trim();
                return Err(IdlError::at(hash, format!("#error {text}")));
            }
            other => {
                return Err(IdlError::at(
                    &word.loc,
                    format!("unsupported preprocessor directive #{other}"),
                ));
            }
        }
        Ok(())
    }

    /// The identifier after `#define`/`#ifdef`/... and its position.
    fn macro_name(&self, lx: &mut Lexer<'_>, directive: &str) -> Result<(String, Loc), IdlError> {
        let t = lx.next_token()?;
        match t.tok {
            Tok::Ident(n) => Ok((n, t.loc)),
            other => Err(IdlError::at(
                &t.loc,
                format!(
                    "expected a macro name after #{directive}, found {}",
                    other.describe()
                ),
            )),
        }
    }

    /// `#include "f"` or `#include <f>`.
    fn include(
        &mut self,
        body: &str,
        word: &Token,
        hash: &Loc,
        path: &Path,
    ) -> Result<(), IdlError> {
        let after = word.loc.col.saturating_add(7); // "include"
        let rest_start = body
            .find("include")
            .map_or(body.len(), |i| i.saturating_add(7));
        let rest = body.get(rest_start..).unwrap_or_default();
        let trimmed = rest.trim_start();
        let skipped = u32::try_from(rest.len().saturating_sub(trimmed.len())).unwrap_or(0);
        let spec_loc = Loc::new(&hash.file, hash.line, after.saturating_add(skipped));
        let (name, angled) = match trimmed.chars().next() {
            Some('"') => (trimmed.get(1..).and_then(|t| t.split('"').next()), false),
            Some('<') => (trimmed.get(1..).and_then(|t| t.split('>').next()), true),
            _ => (None, false),
        };
        let closed = match (name, angled) {
            (Some(n), false) => trimmed
                .get(n.len().saturating_add(1)..)
                .is_some_and(|r| r.starts_with('"')),
            (Some(n), true) => trimmed
                .get(n.len().saturating_add(1)..)
                .is_some_and(|r| r.starts_with('>')),
            _ => false,
        };
        let Some(name) = name.filter(|n| closed && !n.is_empty()) else {
            return Err(IdlError::at(
                &spec_loc,
                "expected \"file\" or <file> after #include",
            ));
        };
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(IdlError::at(
                &spec_loc,
                format!("#include nested deeper than {MAX_INCLUDE_DEPTH}"),
            ));
        }
        let mut candidates = Vec::new();
        if !angled {
            let dir = path.parent().unwrap_or(Path::new(""));
            candidates.push(dir.join(name));
        }
        candidates.extend(self.include_dirs.iter().map(|d| d.join(name)));
        for candidate in candidates {
            let text = match self.loader.load(&candidate) {
                Ok(Some(text)) => text,
                Ok(None) => continue,
                Err(why) => {
                    return Err(IdlError::at(
                        &spec_loc,
                        format!("cannot read {name}: {why}"),
                    ));
                }
            };
            let id = self.loader.identity(&candidate);
            if let Some(pos) = self.stack.iter().position(|(open, _)| *open == id) {
                let chain: Vec<&str> = self.stack.iter().skip(pos).map(|(_, s)| &**s).collect();
                let msg = format!(
                    "include cycle: {} -> {}",
                    chain.join(" -> "),
                    candidate.display()
                );
                return Err(IdlError::at(&spec_loc, msg));
            }
            if self.done.contains(&id) {
                return Ok(()); // included once already
            }
            if self.done.len() >= MAX_FILES {
                return Err(IdlError::at(
                    &spec_loc,
                    format!("more than {MAX_FILES} files"),
                ));
            }
            let shown: Arc<str> = Arc::from(candidate.display().to_string());
            self.file(&candidate, shown, &text)?;
            return Ok(());
        }
        Err(IdlError::at(
            &spec_loc,
            format!("include file not found: {name}"),
        ))
    }
}

fn char_len(s: &str) -> u32 {
    u32::try_from(s.chars().count()).unwrap_or(u32::MAX)
}
