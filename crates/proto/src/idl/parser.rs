//! Recursive-descent parser for the IDL 4.2 "Core Data Types" and "Annotations" building
//! blocks (OMG IDL 4.2 §7.4.1, §7.4.15): modules, structs, unions, enums, typedefs,
//! constants and forward declarations, over the preprocessed token stream. Constant
//! expressions are in `expr`.
//!
//! Must not: recurse deeper than [`MAX_NESTING`] (modules, type specs and parenthesised
//! expressions all count) or build an expression larger than [`MAX_EXPR_NODES`], so no input
//! overflows the stack here or in the recursive passes after it. Errors read
//! `expected X, found Y` at the offending token.

mod expr;
mod type_spec;

use super::ast::{
    Annotation, ConstDef, ConstExpr, Definition, EnumDef, Ident, MemberDecl, ScopedName, StructDef,
    TypedefDef, UnionCaseDef, UnionDef,
};
use super::lexer::{Punct, Tok, Token};
use super::{IdlError, Loc, MAX_NESTING};

/// Most nodes in one constant expression (bounds the evaluator's recursion).
pub const MAX_EXPR_NODES: usize = 256;

/// IDL 4.2 §7.2.4 keywords; they cannot name anything (escape them as `_name`).
const KEYWORDS: &[&str] = &[
    "abstract",
    "any",
    "alias",
    "attribute",
    "bitfield",
    "bitmask",
    "bitset",
    "boolean",
    "case",
    "char",
    "component",
    "connector",
    "const",
    "consumes",
    "context",
    "custom",
    "default",
    "double",
    "exception",
    "emits",
    "enum",
    "eventtype",
    "factory",
    "FALSE",
    "finder",
    "fixed",
    "float",
    "getraises",
    "getter",
    "home",
    "import",
    "in",
    "inout",
    "interface",
    "local",
    "long",
    "manages",
    "map",
    "mirrorport",
    "module",
    "multiple",
    "native",
    "Object",
    "octet",
    "oneway",
    "out",
    "primarykey",
    "private",
    "port",
    "porttype",
    "provides",
    "public",
    "publishes",
    "raises",
    "readonly",
    "setraises",
    "setter",
    "sequence",
    "short",
    "string",
    "struct",
    "supports",
    "switch",
    "TRUE",
    "truncatable",
    "typedef",
    "typeid",
    "typename",
    "typeprefix",
    "unsigned",
    "union",
    "uses",
    "ValueBase",
    "valuetype",
    "void",
    "wchar",
    "wstring",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "uint16",
    "uint32",
    "uint64",
];

/// Constructs of full IDL that this front end rejects by name.
const UNSUPPORTED: &[&str] = &[
    "interface",
    "valuetype",
    "exception",
    "native",
    "bitmask",
    "bitset",
    "abstract",
    "local",
    "custom",
    "eventtype",
    "component",
    "home",
    "porttype",
    "connector",
    "typeid",
    "typeprefix",
    "import",
    "map",
    "fixed",
    "any",
    "Object",
    "ValueBase",
];

/// Parses a preprocessed token stream (ending with `Eof`) into definitions.
pub fn parse(tokens: &[Token]) -> Result<Vec<Definition>, IdlError> {
    let mut p = Parser::new(tokens);
    let defs = p.definitions(false)?;
    Ok(defs)
}

static GT: Tok = Tok::Punct(Punct::Gt);
static EOF: Tok = Tok::Eof;

/// Parser state: a cursor over the tokens.
pub(super) struct Parser<'t> {
    toks: &'t [Token],
    pos: usize,
    depth: usize,
    /// The current token is a `>>` whose first `>` was consumed as a template close.
    split_shr: bool,
    /// Nodes in the expression being parsed.
    expr_nodes: usize,
}

impl<'t> Parser<'t> {
    fn new(toks: &'t [Token]) -> Self {
        Parser {
            toks,
            pos: 0,
            depth: 0,
            split_shr: false,
            expr_nodes: 0,
        }
    }

    fn peek(&self) -> &Tok {
        if self.split_shr {
            return &GT;
        }
        self.toks.get(self.pos).map_or(&EOF, |t| &t.tok)
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        self.toks
            .get(self.pos.saturating_add(ahead))
            .map_or(&EOF, |t| &t.tok)
    }

    fn loc(&self) -> Loc {
        match self.toks.get(self.pos).or(self.toks.last()) {
            Some(t) if self.split_shr => Loc {
                col: t.loc.col.saturating_add(1),
                ..t.loc.clone()
            },
            Some(t) => t.loc.clone(),
            None => Loc::new(&std::sync::Arc::from("<input>"), 1, 1),
        }
    }

    fn advance(&mut self) {
        self.split_shr = false;
        if self.pos < self.toks.len() {
            self.pos = self.pos.saturating_add(1);
        }
    }

    fn error(&self, expected: &str) -> IdlError {
        IdlError::at(
            &self.loc(),
            format!("expected {expected}, found {}", self.peek().describe()),
        )
    }

    fn is_punct(&self, p: Punct) -> bool {
        *self.peek() == Tok::Punct(p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == w)
    }

    fn eat_punct(&mut self, p: Punct) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.advance();
        }
        yes
    }

    fn expect_punct(&mut self, p: Punct, context: &str) -> Result<(), IdlError> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.error(&format!("'{}' {context}", p.text())))
        }
    }

    /// A closing `>`; the first half of a `>>` counts (`sequence<sequence<long>>`).
    fn expect_gt(&mut self, context: &str) -> Result<(), IdlError> {
        if self.is_punct(Punct::Gt) {
            self.advance();
        } else if self.is_punct(Punct::Shr) {
            self.split_shr = true;
        } else {
            return Err(self.error(&format!("'>' {context}")));
        }
        Ok(())
    }

    /// Enters one nesting level, failing past [`MAX_NESTING`].
    fn enter(&mut self) -> Result<(), IdlError> {
        if self.depth >= MAX_NESTING {
            return Err(IdlError::at(
                &self.loc(),
                format!("nesting deeper than {MAX_NESTING} levels"),
            ));
        }
        self.depth = self.depth.saturating_add(1);
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// An identifier that is not a keyword; `_name` escapes a keyword (IDL 4.2 §7.2.3.1).
    fn ident(&mut self, what: &str) -> Result<Ident, IdlError> {
        let loc = self.loc();
        let Tok::Ident(text) = self.peek() else {
            return Err(self.error(what));
        };
        if KEYWORDS.contains(&text.as_str()) {
            return Err(IdlError::at(
                &loc,
                format!("expected {what}, found keyword '{text}'"),
            ));
        }
        let name = text.strip_prefix('_').unwrap_or(text).to_owned();
        self.advance();
        Ok(Ident { name, loc })
    }

    /// `A::B`, `::A::B`.
    fn scoped_name(&mut self, what: &str) -> Result<ScopedName, IdlError> {
        let loc = self.loc();
        let absolute = self.eat_punct(Punct::ColonColon);
        let mut parts = vec![self.ident(what)?.name];
        while self.eat_punct(Punct::ColonColon) {
            parts.push(self.ident("an identifier after '::'")?.name);
        }
        Ok(ScopedName {
            absolute,
            parts,
            loc,
        })
    }

    /// Definitions up to `}` (inside a module) or end of input.
    fn definitions(&mut self, in_module: bool) -> Result<Vec<Definition>, IdlError> {
        let mut defs = Vec::new();
        loop {
            match self.peek() {
                Tok::Eof if in_module => return Err(self.error("'}' to close the module")),
                Tok::Eof => return Ok(defs),
                Tok::Punct(Punct::RBrace) if in_module => return Ok(defs),
                _ => defs.push(self.definition()?),
            }
        }
    }

    fn definition(&mut self) -> Result<Definition, IdlError> {
        let annotations = self.annotations()?;
        let Tok::Ident(word) = self.peek() else {
            return Err(self.error("a definition (module, struct, union, enum, typedef or const)"));
        };
        let def = match word.as_str() {
            "module" => {
                self.advance();
                let name = self.ident("a module name")?;
                self.expect_punct(Punct::LBrace, "after the module name")?;
                self.enter()?;
                let definitions = self.definitions(true)?;
                self.leave();
                self.expect_punct(Punct::RBrace, "to close the module")?;
                Definition::Module {
                    annotations,
                    name,
                    definitions,
                }
            }
            "struct" => self.struct_def(annotations)?,
            "union" => self.union_def(annotations)?,
            "enum" => Definition::Enum(self.enum_def(annotations)?),
            "typedef" => {
                self.advance();
                let type_spec = self.type_spec()?;
                let declarators = self.declarators()?;
                Definition::Typedef(TypedefDef {
                    annotations,
                    type_spec,
                    declarators,
                })
            }
            "const" => {
                self.advance();
                let type_spec = self.type_spec()?;
                let name = self.ident("a constant name")?;
                self.expect_punct(Punct::Eq, "after the constant name")?;
                let value = self.const_expr(false)?;
                Definition::Const(ConstDef {
                    annotations,
                    type_spec,
                    name,
                    value,
                })
            }
            w if UNSUPPORTED.contains(&w) => {
                return Err(IdlError::at(&self.loc(), format!("'{w}' is not supported")));
            }
            _ => {
                return Err(
                    self.error("a definition (module, struct, union, enum, typedef or const)")
                );
            }
        };
        let what = match &def {
            Definition::Module { .. } => "module",
            Definition::Struct(_) => "struct",
            Definition::Union(_) => "union",
            Definition::Enum(_) => "enum",
            Definition::Typedef(_) => "typedef",
            Definition::Const(_) => "const",
            Definition::Forward { .. } => "forward",
        };
        self.expect_punct(Punct::Semi, &format!("after {what} definition"))?;
        Ok(def)
    }

    /// `@name`, `@name(expr, ...)`, `@name(a = expr, ...)`, repeated.
    fn annotations(&mut self) -> Result<Vec<Annotation>, IdlError> {
        let mut out = Vec::new();
        while self.is_punct(Punct::At) {
            let loc = self.loc();
            self.advance();
            let Tok::Ident(name) = self.peek() else {
                return Err(self.error("an annotation name after '@'"));
            };
            let name = name.clone();
            self.advance();
            let mut params = Vec::new();
            if self.eat_punct(Punct::LParen) && !self.eat_punct(Punct::RParen) {
                loop {
                    let named = match (self.peek(), self.peek_at(1)) {
                        (Tok::Ident(n), Tok::Punct(Punct::Eq)) => Some(n.clone()),
                        _ => None,
                    };
                    if named.is_some() {
                        self.advance();
                        self.advance();
                    }
                    params.push((named, self.const_expr(false)?));
                    if self.eat_punct(Punct::RParen) {
                        break;
                    }
                    self.expect_punct(Punct::Comma, "or ')' in annotation parameters")?;
                }
            }
            out.push(Annotation { name, params, loc });
        }
        Ok(out)
    }

    fn struct_def(&mut self, annotations: Vec<Annotation>) -> Result<Definition, IdlError> {
        self.advance();
        let name = self.ident("a struct name")?;
        if self.is_punct(Punct::Semi) {
            return Ok(Definition::Forward {
                annotations,
                union: false,
                name,
            });
        }
        let base = if self.eat_punct(Punct::Colon) {
            Some(self.scoped_name("a base struct name after ':'")?)
        } else {
            None
        };
        self.expect_punct(Punct::LBrace, "to open the struct body")?;
        let mut members = Vec::new();
        while !self.eat_punct(Punct::RBrace) {
            let annotations = self.annotations()?;
            if self.is_punct(Punct::RBrace) {
                return Err(self.error("a member declaration after the annotations"));
            }
            let type_spec = self.type_spec()?;
            let declarators = self.declarators()?;
            self.expect_punct(Punct::Semi, "after member declaration")?;
            members.push(MemberDecl {
                annotations,
                type_spec,
                declarators,
            });
        }
        Ok(Definition::Struct(StructDef {
            annotations,
            name,
            base,
            members,
        }))
    }

    fn union_def(&mut self, annotations: Vec<Annotation>) -> Result<Definition, IdlError> {
        self.advance();
        let name = self.ident("a union name")?;
        if self.is_punct(Punct::Semi) {
            return Ok(Definition::Forward {
                annotations,
                union: true,
                name,
            });
        }
        if !self.is_word("switch") {
            return Err(self.error("'switch' after the union name"));
        }
        self.advance();
        self.expect_punct(Punct::LParen, "after 'switch'")?;
        let switch_annotations = self.annotations()?;
        let switch_type = self.type_spec()?;
        self.expect_punct(Punct::RParen, "after the discriminator type")?;
        self.expect_punct(Punct::LBrace, "to open the union body")?;
        let mut cases = Vec::new();
        while !self.eat_punct(Punct::RBrace) {
            let mut labels = Vec::new();
            loop {
                if self.is_word("case") {
                    self.advance();
                    labels.push(Some(self.const_expr(false)?));
                } else if self.is_word("default") {
                    self.advance();
                    labels.push(None);
                } else if labels.is_empty() {
                    return Err(self.error("'case' or 'default'"));
                } else {
                    break;
                }
                self.expect_punct(Punct::Colon, "after the case label")?;
            }
            let annotations = self.annotations()?;
            let type_spec = self.type_spec()?;
            let declarator = self.declarator()?;
            self.expect_punct(Punct::Semi, "after union element")?;
            cases.push(UnionCaseDef {
                labels,
                annotations,
                type_spec,
                declarator,
            });
        }
        if cases.is_empty() {
            return Err(IdlError::at(&name.loc, "a union needs at least one case"));
        }
        Ok(Definition::Union(UnionDef {
            annotations,
            name,
            switch_annotations,
            switch_type,
            cases,
        }))
    }

    fn enum_def(&mut self, annotations: Vec<Annotation>) -> Result<EnumDef, IdlError> {
        self.advance();
        let name = self.ident("an enum name")?;
        self.expect_punct(Punct::LBrace, "to open the enum body")?;
        let mut enumerators = Vec::new();
        loop {
            let anns = self.annotations()?;
            enumerators.push((anns, self.ident("an enumerator")?));
            if self.eat_punct(Punct::RBrace) {
                break;
            }
            self.expect_punct(Punct::Comma, "or '}' after the enumerator")?;
        }
        Ok(EnumDef {
            annotations,
            name,
            enumerators,
        })
    }

    /// A constant expression; `in_template` stops at a top-level `>` or `>>`.
    fn const_expr(&mut self, in_template: bool) -> Result<ConstExpr, IdlError> {
        self.expr_nodes = 0;
        self.expr(in_template)
    }
}
