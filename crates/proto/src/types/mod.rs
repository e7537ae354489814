//! The type layer: how an application type becomes a serialized payload, a key hash and a
//! type name that peers recognise. Types generated from IDL (`idl::codegen`) implement
//! [`TopicType`] through [`codec`]; [`ShapeType`] is written by hand. [`TypeDescriptor`]
//! describes a type's members for the filter compiler; [`xtypes`] is the DDS-XTypes type
//! representation (TypeIdentifier, TypeObject, TypeInformation) announced to peers.
//!
//! Must not: know about RTPS or perform I/O; depends only on `cdr`.

pub mod codec;
mod descriptor;
pub mod dynamic;
pub mod idl_text;
mod shape;
pub mod transcode;
pub mod xtypes;

pub use descriptor::{
    EnumDescriptor, Extensibility, Member, TypeDescriptor, TypeKind, UnionCase, UnionDescriptor,
};
pub use shape::ShapeType;

use md5::{Digest, Md5};

pub use crate::cdr::XcdrVersion;
use crate::cdr::{CdrError, Endianness};

/// A type that can be published on a topic.
pub trait TopicType: Sized + Send + 'static {
    /// The type name announced in SEDP; peers match on exact equality (docs/interop-facts.md §5.4).
    fn type_name() -> &'static str;

    /// True when the type has @key members (entity kinds 0x02/0x07, docs/interop-facts.md §5.4).
    fn is_keyed() -> bool;

    /// The serialized sample, encapsulation header included.
    fn serialize(&self, endian: Endianness) -> Vec<u8>;

    /// The sample serialized in XCDR `version` (encapsulation header included, its kind set
    /// by the type's extensibility: CDR/PL_CDR for XCDR1; CDR2, D_CDR2 or PL_CDR2 for XCDR2),
    /// or `None` when the type does not implement that version. The default implements only
    /// XCDR1, through [`TopicType::serialize`]. DDS-XTypes 1.3 §7.4.3, §7.6.3.1.2.
    fn serialize_as(&self, version: XcdrVersion, endian: Endianness) -> Option<Vec<u8>> {
        match version {
            XcdrVersion::Xcdr1 => Some(self.serialize(endian)),
            XcdrVersion::Xcdr2 => None,
        }
    }

    /// True when [`TopicType::serialize_as`] returns `Some` for `version`, whatever the
    /// sample: a DataWriter whose DATA_REPRESENTATION names a version the type does not write
    /// is refused at creation. Implementations overriding `serialize_as` override this too.
    fn supports(version: XcdrVersion) -> bool {
        version == XcdrVersion::Xcdr1
    }

    /// Decodes a serialized sample (encapsulation header included); implementations accept
    /// every version they can write, dispatching on the encapsulation header.
    fn deserialize(data: &[u8]) -> Result<Self, CdrError>;

    /// The instance's key hash (PID_KEY_HASH), `None` for unkeyed types. RTPS 2.5 §9.6.4.8.
    fn key_hash(&self) -> Option<[u8; 16]>;

    /// The serialized key (encapsulation header included) sent as the payload of a dispose or
    /// unregister (DATA with the K flag; docs/interop-facts.md §5.7: Cyclone needs it for non-fixed
    /// keys). `None` (the default) sends only the inline key hash.
    fn serialize_key(&self, _endian: Endianness) -> Option<Vec<u8>> {
        None
    }

    /// The serialized key in the writer's data representation `version`: the key payload of
    /// a dispose or unregister must carry the encapsulation the writer's samples carry
    /// (Cyclone refuses an XCDR1 key from an XCDR2 writer; docs/interop-facts.md §5.10).
    /// The default: [`TopicType::serialize_key`] for XCDR1, `None` (the inline key hash
    /// only) for XCDR2.
    fn serialize_key_as(&self, version: XcdrVersion, endian: Endianness) -> Option<Vec<u8>> {
        match version {
            XcdrVersion::Xcdr1 => self.serialize_key(endian),
            XcdrVersion::Xcdr2 => None,
        }
    }

    /// The key hash of a received serialized key (K-flag payload, trailing padding allowed),
    /// for writers that send the key without PID_KEY_HASH (Cyclone). `None` by default.
    fn key_hash_from_serialized_key(_data: &[u8]) -> Option<[u8; 16]> {
        None
    }

    /// The type's descriptor, used to compile content filters (writer-side filtering for
    /// remote readers, local filtering for our filtered readers). `None` (the default): the
    /// writer filters for nobody and filtered readers rely on the writer. RTPS 2.5 §8.7.3.
    fn descriptor() -> Option<&'static TypeDescriptor> {
        None
    }

    /// The type's DDS-XTypes 1.3 representation: its TypeInformation (announced in SEDP as
    /// PID_TYPE_INFORMATION) and the TypeObjects it names (served by the TypeLookup service).
    /// `None` (the default): the type is announced by name only.
    fn type_representation() -> Option<&'static xtypes::TypeRepresentation> {
        None
    }
}

/// RTPS 2.5 §9.6.4.8: the key hash of a key holder serialized as PLAIN_CDR2 big-endian.
/// When the holder's maximum serialized size is at most 16 bytes, the bytes themselves
/// (zero-padded); otherwise their MD5.
pub fn key_hash_from_key_bytes(serialized_key_be: &[u8], max_serialized_size: usize) -> [u8; 16] {
    let mut out = [0u8; 16];
    if max_serialized_size <= 16 {
        for (o, b) in out.iter_mut().zip(serialized_key_be) {
            *o = *b;
        }
    } else {
        out.copy_from_slice(&Md5::digest(serialized_key_be));
    }
    out
}

#[cfg(test)]
mod tests;
