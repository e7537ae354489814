//! `TypeInformation` (DDS-XTypes 1.3 §7.6.3.2.2), the value of PID_TYPE_INFORMATION: for
//! each of minimal and complete, the type's identifier with its TypeObject's serialized size
//! and (some of) its dependencies. A mutable struct (members 0x1001 `minimal`, 0x1002
//! `complete`) of appendable structs.
//!
//! Must not: keep more than [`MAX_DEPENDENT_TYPEIDS`] dependencies from a peer, or panic.

use super::{
    MAX_DEPENDENT_TYPEIDS, TypeIdentifier, begin_dheader, bounded_len, dheader, end_dheader,
    xcdr2_reader, xcdr2_writer,
};
use crate::cdr::{CdrError, CdrReader, CdrWriter, Endianness};
use crate::types::codec::{LengthCode, read_mutable, write_mutable};

const MEMBER_MINIMAL: u32 = 0x1001;
const MEMBER_COMPLETE: u32 = 0x1002;

/// `TypeIdentifierWithSize` (appendable).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeIdentifierWithSize {
    /// A hash identifier.
    pub type_id: TypeIdentifier,
    /// The size of the TypeObject it names, serialized.
    pub typeobject_serialized_size: u32,
}

/// `TypeIdentifierWithDependencies` (appendable).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeIdentifierWithDependencies {
    /// The type itself.
    pub typeid_with_size: TypeIdentifierWithSize,
    /// How many dependencies the type has (-1: not said); may exceed the list below.
    pub dependent_typeid_count: i32,
    /// The dependencies listed.
    pub dependent_typeids: Vec<TypeIdentifierWithSize>,
}

/// `TypeInformation`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeInformation {
    /// Member 0x1001.
    pub minimal: TypeIdentifierWithDependencies,
    /// Member 0x1002.
    pub complete: TypeIdentifierWithDependencies,
}

impl TypeIdentifierWithSize {
    fn emit(&self, w: &mut CdrWriter<'_>) {
        let at = begin_dheader(w);
        self.type_id.emit(w);
        w.align(4);
        w.u32(self.typeobject_serialized_size);
        end_dheader(w, at);
    }

    fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        let mut b = dheader(r, "TypeIdentifierWithSize")?;
        let type_id = TypeIdentifier::parse(&mut b, 0)?;
        b.align(4, "typeobject_serialized_size")?;
        Ok(TypeIdentifierWithSize {
            type_id,
            typeobject_serialized_size: b.u32("typeobject_serialized_size")?,
        })
    }
}

impl TypeIdentifierWithDependencies {
    fn emit(&self, w: &mut CdrWriter<'_>) {
        let at = begin_dheader(w);
        self.typeid_with_size.emit(w);
        w.align(4);
        w.i32(self.dependent_typeid_count);
        let seq = begin_dheader(w);
        w.u32(u32::try_from(self.dependent_typeids.len()).unwrap_or(u32::MAX));
        for d in &self.dependent_typeids {
            d.emit(w);
        }
        end_dheader(w, seq);
        end_dheader(w, at);
    }

    fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        let mut b = dheader(r, "TypeIdentifierWithDependencies")?;
        let typeid_with_size = TypeIdentifierWithSize::parse(&mut b)?;
        b.align(4, "dependent_typeid_count")?;
        let dependent_typeid_count = b.i32("dependent_typeid_count")?;
        let mut seq = dheader(&mut b, "dependent_typeids")?;
        let n = bounded_len(&mut seq, 8, usize::MAX, "dependent_typeids")?;
        let mut dependent_typeids = Vec::with_capacity(n.min(MAX_DEPENDENT_TYPEIDS));
        for _ in 0..n.min(MAX_DEPENDENT_TYPEIDS) {
            dependent_typeids.push(TypeIdentifierWithSize::parse(&mut seq)?);
        }
        Ok(TypeIdentifierWithDependencies {
            typeid_with_size,
            dependent_typeid_count,
            dependent_typeids,
        })
    }
}

impl TypeInformation {
    /// The XCDR2 little-endian serialization (a PID_TYPE_INFORMATION value).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        self.emit(&mut xcdr2_writer(&mut buf));
        buf
    }

    /// Serializes as a mutable struct: DHEADER, then each member behind an EMHEADER with
    /// length code 4 (a NEXTINT), as Cyclone DDS writes it.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        let result = write_mutable(w, |m| {
            m.member(MEMBER_MINIMAL, false, LengthCode::NextInt, |w| {
                self.minimal.emit(w);
                Ok(())
            })?;
            m.member(MEMBER_COMPLETE, false, LengthCode::NextInt, |w| {
                self.complete.emit(w);
                Ok(())
            })
        });
        debug_assert!(result.is_ok(), "TypeInformation encoding cannot fail");
    }

    /// Decodes a TypeInformation in byte order `endian` (PID values follow the parameter
    /// list's byte order). Both members are required; unknown members are skipped.
    pub fn from_bytes(bytes: &[u8], endian: Endianness) -> Result<Self, CdrError> {
        Self::parse(&mut xcdr2_reader(bytes, endian))
    }

    /// Decodes a TypeInformation.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        let (mut minimal, mut complete) = (None, None);
        read_mutable(r, |id, v| {
            match id {
                MEMBER_MINIMAL => minimal = Some(TypeIdentifierWithDependencies::parse(v)?),
                MEMBER_COMPLETE => complete = Some(TypeIdentifierWithDependencies::parse(v)?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        match (minimal, complete) {
            (Some(minimal), Some(complete)) => Ok(TypeInformation { minimal, complete }),
            _ => Err(CdrError::Invalid(
                "TypeInformation without minimal and complete",
            )),
        }
    }
}
