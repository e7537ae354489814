//! The DDS Security 1.1 token container, `DataHolder` (§7.2.3), and the
//! `ParticipantGenericMessage` that carries handshake tokens on the stateless builtin topic
//! (§7.2.6, §7.4.3.5): their CDR encoding, and bounded decoding.
//!
//! Must not: interpret what a token means (that is `security::auth`), panic, or allocate more
//! than the input holds: every count and length is checked against the remaining bytes and a
//! named limit before anything is built.

use crate::cdr::{CdrError, CdrReader, CdrWriter, Endianness};

use super::{EntityId, Guid, GuidPrefix};

/// At most this many properties, and this many binary properties, per `DataHolder`.
pub const MAX_HOLDER_PROPERTIES: usize = 64;
/// At most this many `DataHolder`s per generic message.
pub const MAX_MESSAGE_HOLDERS: usize = 8;
/// Longest property name or value string accepted.
pub const MAX_PROPERTY_STRING: usize = 64 * 1024;
/// Longest binary property value accepted (a certificate chain or a permissions document).
pub const MAX_BINARY_PROPERTY: usize = 256 * 1024;

/// `Property_t` (§7.2.1): a name and a string value. Only propagated properties travel, so
/// the `propagate` flag is not on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// Property name, e.g. `dds.cert.sn`.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// `BinaryProperty_t` (§7.2.2): a name and an octet sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryProperty {
    /// Property name, e.g. `c.id`.
    pub name: String,
    /// Its value, exactly as received.
    pub value: Vec<u8>,
}

/// `DataHolder` (§7.2.3): the shape of every security token.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataHolder {
    /// What kind of token this is, e.g. `DDS:Auth:PKI-DH:1.0+Req`.
    pub class_id: String,
    /// String properties.
    pub properties: Vec<Property>,
    /// Binary properties.
    pub binary_properties: Vec<BinaryProperty>,
}

impl DataHolder {
    /// An empty holder of `class_id`.
    pub fn new(class_id: &str) -> Self {
        DataHolder {
            class_id: class_id.to_owned(),
            ..DataHolder::default()
        }
    }

    /// The value of the first property named `name`.
    pub fn property(&self, name: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.value.as_str())
    }

    /// The value of the first binary property named `name`.
    pub fn binary_property(&self, name: &str) -> Option<&[u8]> {
        self.binary_properties
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.value.as_slice())
    }

    /// Appends a string property.
    pub fn push_property(&mut self, name: &str, value: &str) {
        self.properties.push(Property {
            name: name.to_owned(),
            value: value.to_owned(),
        });
    }

    /// Appends a binary property.
    pub fn push_binary(&mut self, name: &str, value: Vec<u8>) {
        self.binary_properties.push(BinaryProperty {
            name: name.to_owned(),
            value,
        });
    }

    /// Writes the holder in CDR (XCDR1, the writer's byte order).
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.string(self.class_id.as_bytes());
        w.align(4);
        w.u32(len_u32(self.properties.len()));
        for p in &self.properties {
            w.string(p.name.as_bytes());
            w.string(p.value.as_bytes());
        }
        emit_binary_properties(w, &self.binary_properties);
    }

    /// Reads one holder, refusing counts and lengths beyond the named limits.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        let class_id = string(r, "DataHolder.class_id")?;
        // A property is at least two empty strings (4 + 4 bytes).
        let n = r.seq_len(8, "DataHolder.properties")?;
        if n > MAX_HOLDER_PROPERTIES {
            return Err(CdrError::TooLarge("DataHolder.properties"));
        }
        let mut properties = Vec::with_capacity(n);
        for _ in 0..n {
            let name = string(r, "Property.name")?;
            let value = string(r, "Property.value")?;
            properties.push(Property { name, value });
        }
        let binary_properties = parse_binary_properties(r)?;
        Ok(DataHolder {
            class_id,
            properties,
            binary_properties,
        })
    }

    /// The holder as a standalone CDR body in `endian` (no encapsulation header), the form a
    /// token takes inside a parameter (PID_IDENTITY_TOKEN, PID_PERMISSIONS_TOKEN).
    pub fn to_bytes(&self, endian: Endianness) -> Vec<u8> {
        let mut out = Vec::new();
        self.emit(&mut CdrWriter::new(&mut out, endian));
        out
    }

    /// Reads a standalone holder (see [`DataHolder::to_bytes`]).
    pub fn from_bytes(bytes: &[u8], endian: Endianness) -> Result<Self, CdrError> {
        DataHolder::parse(&mut CdrReader::new(bytes, endian))
    }
}

/// Writes a `BinaryPropertySeq` (§7.2.2). Handshake hashes and signatures are computed over
/// this encoding in big-endian (§9.3.2.5.1).
pub fn emit_binary_properties(w: &mut CdrWriter<'_>, props: &[BinaryProperty]) {
    w.align(4);
    w.u32(len_u32(props.len()));
    for p in props {
        w.string(p.name.as_bytes());
        w.align(4);
        w.u32(len_u32(p.value.len()));
        w.bytes(&p.value);
    }
}

fn parse_binary_properties(r: &mut CdrReader<'_>) -> Result<Vec<BinaryProperty>, CdrError> {
    // A binary property is at least an empty string and an empty sequence (4 + 4 bytes).
    let n = r.seq_len(8, "DataHolder.binary_properties")?;
    if n > MAX_HOLDER_PROPERTIES {
        return Err(CdrError::TooLarge("DataHolder.binary_properties"));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let name = string(r, "BinaryProperty.name")?;
        let len = r.seq_len(1, "BinaryProperty.value")?;
        if len > MAX_BINARY_PROPERTY {
            return Err(CdrError::TooLarge("BinaryProperty.value"));
        }
        let value = r.take(len, "BinaryProperty.value")?.to_vec();
        out.push(BinaryProperty { name, value });
    }
    Ok(out)
}

fn string(r: &mut CdrReader<'_>, what: &'static str) -> Result<String, CdrError> {
    let bytes = r.string(MAX_PROPERTY_STRING, what)?;
    String::from_utf8(bytes.to_vec()).map_err(|_| CdrError::Invalid(what))
}

fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// `MessageIdentity` (§7.2.6): who sent a generic message, and its number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MessageIdentity {
    /// The sending endpoint's GUID.
    pub source_guid: Guid,
    /// Its sequence number, counting from 1 per source.
    pub sequence_number: i64,
}

/// Class id of the authentication messages on the stateless topic (§7.4.3.5, `GMCLASSID_SECURITY_AUTH_HANDSHAKE`).
pub const GMCLASSID_SECURITY_AUTH_HANDSHAKE: &str = "dds.sec.auth";

/// `ParticipantGenericMessage` (§7.2.6), the sample type of the
/// BuiltinParticipantStatelessMessage topic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParticipantGenericMessage {
    /// This message's identity.
    pub message_identity: MessageIdentity,
    /// The message this one answers (zero for a request).
    pub related_message_identity: MessageIdentity,
    /// The participant the message is for.
    pub destination_participant_key: Guid,
    /// The endpoint the message is for (unknown for handshakes).
    pub destination_endpoint_key: Guid,
    /// The endpoint that sent it (unknown for handshakes).
    pub source_endpoint_key: Guid,
    /// `dds.sec.auth` for handshakes.
    pub message_class_id: String,
    /// The tokens.
    pub message_data: Vec<DataHolder>,
}

fn emit_guid(w: &mut CdrWriter<'_>, g: &Guid) {
    w.bytes(&g.prefix.0);
    w.bytes(&g.entity_id.0);
}

fn parse_guid(r: &mut CdrReader<'_>, what: &'static str) -> Result<Guid, CdrError> {
    let prefix = GuidPrefix(r.take_array::<12>(what)?);
    let entity_id = EntityId(r.take_array::<4>(what)?);
    Ok(Guid { prefix, entity_id })
}

fn emit_identity(w: &mut CdrWriter<'_>, m: &MessageIdentity) {
    emit_guid(w, &m.source_guid);
    w.align(8);
    w.i64(m.sequence_number);
}

fn parse_identity(r: &mut CdrReader<'_>) -> Result<MessageIdentity, CdrError> {
    let source_guid = parse_guid(r, "MessageIdentity.source_guid")?;
    r.align(8, "MessageIdentity.sequence_number")?;
    let sequence_number = r.i64("MessageIdentity.sequence_number")?;
    Ok(MessageIdentity {
        source_guid,
        sequence_number,
    })
}

impl ParticipantGenericMessage {
    /// Writes the message body in CDR (XCDR1; the caller writes the encapsulation header).
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        emit_identity(w, &self.message_identity);
        emit_identity(w, &self.related_message_identity);
        emit_guid(w, &self.destination_participant_key);
        emit_guid(w, &self.destination_endpoint_key);
        emit_guid(w, &self.source_endpoint_key);
        w.string(self.message_class_id.as_bytes());
        w.align(4);
        w.u32(len_u32(self.message_data.len()));
        for h in &self.message_data {
            h.emit(w);
        }
    }

    /// Reads a message body (after the encapsulation header), bounded by the limits above.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        let message_identity = parse_identity(r)?;
        let related_message_identity = parse_identity(r)?;
        let destination_participant_key = parse_guid(r, "destination_participant_key")?;
        let destination_endpoint_key = parse_guid(r, "destination_endpoint_key")?;
        let source_endpoint_key = parse_guid(r, "source_endpoint_key")?;
        let message_class_id = string(r, "message_class_id")?;
        // A holder is at least an empty string and two empty sequences.
        let n = r.seq_len(12, "message_data")?;
        if n > MAX_MESSAGE_HOLDERS {
            return Err(CdrError::TooLarge("message_data"));
        }
        let mut message_data = Vec::with_capacity(n);
        for _ in 0..n {
            message_data.push(DataHolder::parse(r)?);
        }
        Ok(ParticipantGenericMessage {
            message_identity,
            related_message_identity,
            destination_participant_key,
            destination_endpoint_key,
            source_endpoint_key,
            message_class_id,
            message_data,
        })
    }
}

#[cfg(test)]
mod tests;
