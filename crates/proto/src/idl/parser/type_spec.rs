//! Type specifications and declarators (OMG IDL 4.2 §7.4.1.4.4: base types, template types
//! `sequence`/`string`/`wstring`, scoped names, array declarators).
//!
//! Must not: nest type specs deeper than [`MAX_NESTING`](crate::idl::MAX_NESTING).

use super::{Parser, UNSUPPORTED};
use crate::idl::IdlError;
use crate::idl::ast::{Declarator, Primitive, TypeSpec};
use crate::idl::lexer::{Punct, Tok};

impl Parser<'_> {
    /// `a, b[2][3]`.
    pub(super) fn declarators(&mut self) -> Result<Vec<Declarator>, IdlError> {
        let mut out = vec![self.declarator()?];
        while self.eat_punct(Punct::Comma) {
            out.push(self.declarator()?);
        }
        Ok(out)
    }

    pub(super) fn declarator(&mut self) -> Result<Declarator, IdlError> {
        let name = self.ident("a declarator name")?;
        let mut dims = Vec::new();
        while self.eat_punct(Punct::LBracket) {
            dims.push(self.const_expr(false)?);
            self.expect_punct(Punct::RBracket, "after the array dimension")?;
        }
        Ok(Declarator { name, dims })
    }

    /// A type specification.
    pub(super) fn type_spec(&mut self) -> Result<TypeSpec, IdlError> {
        self.enter()?;
        let spec = self.type_spec_inner();
        self.leave();
        spec
    }

    fn type_spec_inner(&mut self) -> Result<TypeSpec, IdlError> {
        const EXPECTED: &str = "a type";
        let word = match self.peek() {
            Tok::Ident(w) => w.clone(),
            Tok::Punct(Punct::ColonColon) => {
                return Ok(TypeSpec::Named(self.scoped_name(EXPECTED)?));
            }
            _ => return Err(self.error(EXPECTED)),
        };
        let prim = |p| Ok(TypeSpec::Primitive(p));
        let simple = match word.as_str() {
            "boolean" => Some(Primitive::Bool),
            "char" => Some(Primitive::Char),
            "wchar" => Some(Primitive::WChar),
            "octet" => Some(Primitive::Octet),
            "int8" => Some(Primitive::I8),
            "uint8" => Some(Primitive::U8),
            "short" | "int16" => Some(Primitive::I16),
            "uint16" => Some(Primitive::U16),
            "int32" => Some(Primitive::I32),
            "uint32" => Some(Primitive::U32),
            "int64" => Some(Primitive::I64),
            "uint64" => Some(Primitive::U64),
            "float" => Some(Primitive::F32),
            "double" => Some(Primitive::F64),
            _ => None,
        };
        if let Some(p) = simple {
            self.advance();
            return prim(p);
        }
        match word.as_str() {
            "long" => {
                self.advance();
                if self.is_word("long") {
                    self.advance();
                    prim(Primitive::I64)
                } else if self.is_word("double") {
                    self.advance();
                    prim(Primitive::F128)
                } else {
                    prim(Primitive::I32)
                }
            }
            "unsigned" => {
                self.advance();
                if self.is_word("short") {
                    self.advance();
                    prim(Primitive::U16)
                } else if self.is_word("long") {
                    self.advance();
                    if self.is_word("long") {
                        self.advance();
                        prim(Primitive::U64)
                    } else {
                        prim(Primitive::U32)
                    }
                } else {
                    Err(self.error("'short' or 'long' after 'unsigned'"))
                }
            }
            "string" | "wstring" => {
                self.advance();
                let bound = if self.eat_punct(Punct::Lt) {
                    let b = self.const_expr(true)?;
                    self.expect_gt(&format!("to close {word}<...>"))?;
                    Some(Box::new(b))
                } else {
                    None
                };
                Ok(if word == "string" {
                    TypeSpec::String(bound)
                } else {
                    TypeSpec::WString(bound)
                })
            }
            "sequence" => {
                self.advance();
                self.expect_punct(Punct::Lt, "after 'sequence'")?;
                let elem = self.type_spec()?;
                let bound = if self.eat_punct(Punct::Comma) {
                    Some(Box::new(self.const_expr(true)?))
                } else {
                    None
                };
                self.expect_gt("to close sequence<...>")?;
                Ok(TypeSpec::Sequence(Box::new(elem), bound))
            }
            "struct" | "union" | "enum" => Err(IdlError::at(
                &self.loc(),
                format!("expected a type name, found '{word}' (declare the {word} first)"),
            )),
            w if UNSUPPORTED.contains(&w) => Err(IdlError::at(
                &self.loc(),
                format!("type '{w}' is not supported"),
            )),
            _ => Ok(TypeSpec::Named(self.scoped_name(EXPECTED)?)),
        }
    }
}
