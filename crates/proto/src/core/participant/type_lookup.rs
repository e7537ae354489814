//! The types this participant announces (DDS-XTypes 1.3 §7.6.3.2): each local type's
//! [`TypeRepresentation`] by type name, registered when an endpoint of that type is created.
//! Discovery attaches its TypeInformation to SEDP (PID_TYPE_INFORMATION) and answers
//! TypeLookup requests from its TypeObjects.
//!
//! Must not: hold more than [`MAX_LOCAL_TYPES`] types, or decode anything from the wire.

use std::collections::BTreeMap;

use crate::types::xtypes::{TypeIdentifier, TypeRepresentation};

/// The most distinct type names registered; later ones are announced by name only.
pub const MAX_LOCAL_TYPES: usize = 1024;

/// The local types by type name.
#[derive(Default)]
pub(super) struct LocalTypes {
    by_name: BTreeMap<String, &'static TypeRepresentation>,
}

impl LocalTypes {
    /// Registers `type_name`'s representation (the first registration of a name wins).
    pub(super) fn register(&mut self, type_name: &str, rep: &'static TypeRepresentation) {
        if self.by_name.len() < MAX_LOCAL_TYPES && !self.by_name.contains_key(type_name) {
            self.by_name.insert(type_name.to_owned(), rep);
        }
    }

    /// The serialized TypeInformation of `type_name`, if registered.
    pub(super) fn information(&self, type_name: &str) -> Option<&'static [u8]> {
        self.by_name
            .get(type_name)
            .map(|r| r.information_bytes.as_slice())
    }

    /// The serialized TypeObject `id` names, from any registered type.
    pub(super) fn object(&self, id: &TypeIdentifier) -> Option<&'static [u8]> {
        self.by_name.values().find_map(|r| r.object(id))
    }
}
