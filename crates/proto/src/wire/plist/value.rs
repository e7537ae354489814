//! Typed parameter values: one [`Value`] variant per wire shape, chosen by the PID table's
//! [`ValueKind`] column, with `parse` from a parameter's value bytes and `emit` back.
//!
//! Must not: decide which PID carries which shape (that is `table.rs`), panic, or allocate from
//! a wire count before checking the bytes are there (sequences go through `seq_len`).
//!
//! RTPS 2.5 §9.4.2.11 (CDR alignment restarts at each value), §9.3.2 (Duration_t, Locator_t,
//! GUID_t, SequenceNumber_t), §9.6.3 (QoS encodings), §9.6.4.8/9 (KeyHash, StatusInfo).
//! QoS kinds are enums, i.e. u32 in message byte order (Fast DDS writes one octet plus three
//! zero pads, which is the same bytes little-endian; docs/interop-facts.md §5.4).

use super::content_filter::{ContentFilterInfo, ContentFilterProperty, align4, string_end};
use crate::cdr::{CdrReader, CdrWriter, MAX_STRING};
use crate::time::Duration;
use crate::wire::{Guid, Locator, ProtocolVersion, SequenceNumber, VendorId, WireError};

/// ReliabilityKind on the wire: BEST_EFFORT = 1, RELIABLE = 2; others are refused as Cyclone
/// does (docs/interop-facts.md §5.4, `ddsi_plist.c::deser_reliability`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReliabilityKind {
    /// BEST_EFFORT_RELIABILITY_QOS (1).
    BestEffort,
    /// RELIABLE_RELIABILITY_QOS (2).
    Reliable,
}

impl ReliabilityKind {
    /// The wire value.
    pub fn to_wire(self) -> u32 {
        match self {
            ReliabilityKind::BestEffort => 1,
            ReliabilityKind::Reliable => 2,
        }
    }
}

/// Which wire shape a PID's value has: the decoder column of the PID table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// Kept as raw bytes (known PID whose content we do not need).
    Opaque,
    /// CDR string.
    String,
    /// `sequence<string>` (PARTITION).
    StringSeq,
    /// `sequence<octet>` (USER/TOPIC/GROUP_DATA).
    Octets,
    /// uint32.
    U32,
    /// int32.
    I32,
    /// boolean plus 3 pad octets.
    Bool,
    /// Duration_t.
    Duration,
    /// A QoS enum kind as u32 (durability, ownership, destination order).
    QosKind,
    /// ReliabilityQosPolicy.
    Reliability,
    /// LivelinessQosPolicy.
    Liveliness,
    /// HistoryQosPolicy.
    History,
    /// ResourceLimitsQosPolicy.
    ResourceLimits,
    /// DurabilityServiceQosPolicy.
    DurabilityService,
    /// PresentationQosPolicy.
    Presentation,
    /// Locator_t.
    Locator,
    /// GUID_t.
    Guid,
    /// sequence<GUID_t>.
    GuidSeq,
    /// ProtocolVersion_t (2 octets + pad).
    ProtocolVersion,
    /// VendorId_t (2 octets + pad).
    VendorId,
    /// KeyHash_t (16 octets).
    KeyHash,
    /// StatusInfo_t (u32, always big-endian).
    StatusInfo,
    /// SequenceNumber_t.
    SequenceNumber,
    /// SampleIdentity (GUID_t + SequenceNumber_t).
    SampleIdentity,
    /// `sequence<short>` (DATA_REPRESENTATION).
    DataRepresentation,
    /// sequence<{string name, string value}> and any trailing binary properties.
    PropertyList,
    /// ContentFilterProperty_t.
    ContentFilterProperty,
    /// ContentFilterInfo_t.
    ContentFilterInfo,
}

/// A decoded parameter value; strings and byte strings borrow from the message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // field names are the spec's member names
pub enum Value<'a> {
    /// Raw value bytes, re-emitted verbatim.
    Opaque(&'a [u8]),
    /// A string (UTF-8 required).
    String(&'a str),
    /// `sequence<string>`.
    StringSeq(Vec<&'a str>),
    /// `sequence<octet>`.
    Octets(&'a [u8]),
    /// uint32.
    U32(u32),
    /// int32.
    I32(i32),
    /// boolean.
    Bool(bool),
    /// Duration_t.
    Duration(Duration),
    /// A QoS enum kind.
    QosKind(u32),
    /// ReliabilityQosPolicy.
    Reliability {
        kind: ReliabilityKind,
        max_blocking_time: Duration,
    },
    /// LivelinessQosPolicy.
    Liveliness { kind: u32, lease_duration: Duration },
    /// HistoryQosPolicy.
    History { kind: u32, depth: i32 },
    /// ResourceLimitsQosPolicy.
    ResourceLimits {
        max_samples: i32,
        max_instances: i32,
        max_samples_per_instance: i32,
    },
    /// DurabilityServiceQosPolicy.
    DurabilityService {
        service_cleanup_delay: Duration,
        history_kind: u32,
        history_depth: i32,
        max_samples: i32,
        max_instances: i32,
        max_samples_per_instance: i32,
    },
    /// PresentationQosPolicy.
    Presentation {
        access_scope: u32,
        coherent_access: bool,
        ordered_access: bool,
    },
    /// Locator_t.
    Locator(Locator),
    /// GUID_t.
    Guid(Guid),
    /// sequence<GUID_t>.
    GuidSeq(Vec<Guid>),
    /// ProtocolVersion_t.
    ProtocolVersion(ProtocolVersion),
    /// VendorId_t.
    VendorId(VendorId),
    /// KeyHash_t.
    KeyHash([u8; 16]),
    /// StatusInfo_t flags (D = 0x01, U = 0x02, F = 0x04).
    StatusInfo(u32),
    /// SequenceNumber_t.
    SequenceNumber(SequenceNumber),
    /// SampleIdentity.
    SampleIdentity {
        writer: Guid,
        sequence_number: SequenceNumber,
    },
    /// Data representation ids (XCDR = 0, XML = 1, XCDR2 = 2).
    DataRepresentation(Vec<i16>),
    /// Name/value properties, plus the bytes after them (binary properties) kept raw.
    PropertyList {
        properties: Vec<(&'a str, &'a str)>,
        rest: &'a [u8],
    },
    /// ContentFilterProperty_t.
    ContentFilterProperty(ContentFilterProperty<'a>),
    /// ContentFilterInfo_t.
    ContentFilterInfo(ContentFilterInfo),
}

fn read_str<'a>(r: &mut CdrReader<'a>, what: &'static str) -> Result<&'a str, WireError> {
    let bytes = r.string(MAX_STRING, what)?;
    core::str::from_utf8(bytes).map_err(|_| WireError::Invalid(what))
}

fn read_bool(r: &mut CdrReader<'_>, what: &'static str) -> Result<bool, WireError> {
    match r.u8(what)? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(WireError::Invalid(what)),
    }
}

fn read_duration(r: &mut CdrReader<'_>, what: &'static str) -> Result<Duration, WireError> {
    Ok(Duration {
        seconds: r.i32(what)?,
        fraction: r.u32(what)?,
    })
}

fn write_duration(w: &mut CdrWriter<'_>, d: Duration) {
    w.i32(d.seconds);
    w.u32(d.fraction);
}

fn write_len(w: &mut CdrWriter<'_>, n: usize) {
    w.align(4);
    w.u32(u32::try_from(n).unwrap_or(u32::MAX));
}

impl<'a> Value<'a> {
    /// Decodes a value of `kind` from a cursor over exactly the parameter's value bytes (its
    /// origin is the value start, RTPS 2.5 §9.4.2.11). Bytes after the value are ignored.
    pub fn parse(kind: ValueKind, r: &mut CdrReader<'a>) -> Result<Self, WireError> {
        Ok(match kind {
            ValueKind::Opaque => Value::Opaque(r.take_rest()),
            ValueKind::String => Value::String(read_str(r, "string")?),
            ValueKind::StringSeq => {
                let n = r.seq_len(4, "sequence<string>")?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(read_str(r, "sequence<string>")?);
                }
                Value::StringSeq(v)
            }
            ValueKind::Octets => {
                let n = r.seq_len(1, "sequence<octet>")?;
                Value::Octets(r.take(n, "sequence<octet>")?)
            }
            ValueKind::U32 => Value::U32(r.u32("uint32")?),
            ValueKind::I32 => Value::I32(r.i32("int32")?),
            ValueKind::Bool => Value::Bool(read_bool(r, "boolean")?),
            ValueKind::Duration => Value::Duration(read_duration(r, "Duration_t")?),
            ValueKind::QosKind => Value::QosKind(r.u32("QoS kind")?),
            ValueKind::Reliability => {
                let kind = match r.u32("reliability.kind")? {
                    1 => ReliabilityKind::BestEffort,
                    2 => ReliabilityKind::Reliable,
                    _ => return Err(WireError::Invalid("reliability.kind")),
                };
                let max_blocking_time = read_duration(r, "reliability.max_blocking_time")?;
                Value::Reliability {
                    kind,
                    max_blocking_time,
                }
            }
            ValueKind::Liveliness => Value::Liveliness {
                kind: r.u32("liveliness.kind")?,
                lease_duration: read_duration(r, "liveliness.lease_duration")?,
            },
            ValueKind::History => Value::History {
                kind: r.u32("history.kind")?,
                depth: r.i32("history.depth")?,
            },
            ValueKind::ResourceLimits => Value::ResourceLimits {
                max_samples: r.i32("resource_limits")?,
                max_instances: r.i32("resource_limits")?,
                max_samples_per_instance: r.i32("resource_limits")?,
            },
            ValueKind::DurabilityService => Value::DurabilityService {
                service_cleanup_delay: read_duration(r, "durability_service")?,
                history_kind: r.u32("durability_service")?,
                history_depth: r.i32("durability_service")?,
                max_samples: r.i32("durability_service")?,
                max_instances: r.i32("durability_service")?,
                max_samples_per_instance: r.i32("durability_service")?,
            },
            ValueKind::Presentation => Value::Presentation {
                access_scope: r.u32("presentation.access_scope")?,
                coherent_access: read_bool(r, "presentation.coherent_access")?,
                ordered_access: read_bool(r, "presentation.ordered_access")?,
            },
            ValueKind::Locator => Value::Locator(Locator::parse(r)?),
            ValueKind::Guid => Value::Guid(Guid::parse(r)?),
            ValueKind::GuidSeq => {
                let n = r.seq_len(16, "sequence<GUID_t>")?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(Guid::parse(r)?);
                }
                Value::GuidSeq(v)
            }
            ValueKind::ProtocolVersion => {
                let [major, minor] = r.take_array::<2>("ProtocolVersion_t")?;
                Value::ProtocolVersion(ProtocolVersion { major, minor })
            }
            ValueKind::VendorId => Value::VendorId(VendorId(r.take_array::<2>("VendorId_t")?)),
            ValueKind::KeyHash => Value::KeyHash(r.take_array::<16>("KeyHash_t")?),
            // RTPS 2.5 §9.6.4.9: big-endian whatever the submessage byte order
            // (docs/interop-facts.md §5.7).
            ValueKind::StatusInfo => Value::StatusInfo(r.u32_be("StatusInfo_t")?),
            ValueKind::SequenceNumber => Value::SequenceNumber(SequenceNumber::parse(r)?),
            ValueKind::SampleIdentity => Value::SampleIdentity {
                writer: Guid::parse(r)?,
                sequence_number: SequenceNumber::parse(r)?,
            },
            ValueKind::DataRepresentation => {
                let n = r.seq_len(2, "DataRepresentationIdSeq")?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(r.i16("DataRepresentationId")?);
                }
                Value::DataRepresentation(v)
            }
            ValueKind::PropertyList => {
                let n = r.seq_len(8, "PropertySeq")?;
                let mut properties = Vec::with_capacity(n);
                for _ in 0..n {
                    properties.push((
                        read_str(r, "Property.name")?,
                        read_str(r, "Property.value")?,
                    ));
                }
                r.align(4, "PropertySeq")?;
                Value::PropertyList {
                    properties,
                    rest: r.take_rest(),
                }
            }
            ValueKind::ContentFilterProperty => {
                Value::ContentFilterProperty(ContentFilterProperty::parse(r)?)
            }
            ValueKind::ContentFilterInfo => Value::ContentFilterInfo(ContentFilterInfo::parse(r)?),
        })
    }

    /// The shape of this value.
    pub fn kind(&self) -> ValueKind {
        match self {
            Value::Opaque(_) => ValueKind::Opaque,
            Value::String(_) => ValueKind::String,
            Value::StringSeq(_) => ValueKind::StringSeq,
            Value::Octets(_) => ValueKind::Octets,
            Value::U32(_) => ValueKind::U32,
            Value::I32(_) => ValueKind::I32,
            Value::Bool(_) => ValueKind::Bool,
            Value::Duration(_) => ValueKind::Duration,
            Value::QosKind(_) => ValueKind::QosKind,
            Value::Reliability { .. } => ValueKind::Reliability,
            Value::Liveliness { .. } => ValueKind::Liveliness,
            Value::History { .. } => ValueKind::History,
            Value::ResourceLimits { .. } => ValueKind::ResourceLimits,
            Value::DurabilityService { .. } => ValueKind::DurabilityService,
            Value::Presentation { .. } => ValueKind::Presentation,
            Value::Locator(_) => ValueKind::Locator,
            Value::Guid(_) => ValueKind::Guid,
            Value::GuidSeq(_) => ValueKind::GuidSeq,
            Value::ProtocolVersion(_) => ValueKind::ProtocolVersion,
            Value::VendorId(_) => ValueKind::VendorId,
            Value::KeyHash(_) => ValueKind::KeyHash,
            Value::StatusInfo(_) => ValueKind::StatusInfo,
            Value::SequenceNumber(_) => ValueKind::SequenceNumber,
            Value::SampleIdentity { .. } => ValueKind::SampleIdentity,
            Value::DataRepresentation(_) => ValueKind::DataRepresentation,
            Value::PropertyList { .. } => ValueKind::PropertyList,
            Value::ContentFilterProperty(_) => ValueKind::ContentFilterProperty,
            Value::ContentFilterInfo(_) => ValueKind::ContentFilterInfo,
        }
    }

    /// Writes the value (without trailing padding; the parameter writer pads to 4).
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        match self {
            Value::Opaque(b) => w.bytes(b),
            Value::String(s) => w.string(s.as_bytes()),
            Value::StringSeq(v) => {
                write_len(w, v.len());
                for s in v {
                    w.string(s.as_bytes());
                }
            }
            Value::Octets(b) => {
                write_len(w, b.len());
                w.bytes(b);
            }
            Value::U32(v) | Value::QosKind(v) => w.u32(*v),
            Value::I32(v) => w.i32(*v),
            Value::Bool(b) => w.u8(u8::from(*b)),
            Value::Duration(d) => write_duration(w, *d),
            Value::Reliability {
                kind,
                max_blocking_time,
            } => {
                w.u32(kind.to_wire());
                write_duration(w, *max_blocking_time);
            }
            Value::Liveliness {
                kind,
                lease_duration,
            } => {
                w.u32(*kind);
                write_duration(w, *lease_duration);
            }
            Value::History { kind, depth } => {
                w.u32(*kind);
                w.i32(*depth);
            }
            Value::ResourceLimits {
                max_samples,
                max_instances,
                max_samples_per_instance,
            } => {
                w.i32(*max_samples);
                w.i32(*max_instances);
                w.i32(*max_samples_per_instance);
            }
            Value::DurabilityService {
                service_cleanup_delay,
                history_kind,
                history_depth,
                max_samples,
                max_instances,
                max_samples_per_instance,
            } => {
                write_duration(w, *service_cleanup_delay);
                w.u32(*history_kind);
                w.i32(*history_depth);
                w.i32(*max_samples);
                w.i32(*max_instances);
                w.i32(*max_samples_per_instance);
            }
            Value::Presentation {
                access_scope,
                coherent_access,
                ordered_access,
            } => {
                w.u32(*access_scope);
                w.u8(u8::from(*coherent_access));
                w.u8(u8::from(*ordered_access));
            }
            Value::Locator(l) => l.emit(w),
            Value::Guid(g) => g.emit(w),
            Value::GuidSeq(v) => {
                write_len(w, v.len());
                for g in v {
                    g.emit(w);
                }
            }
            Value::ProtocolVersion(v) => w.bytes(&[v.major, v.minor]),
            Value::VendorId(v) => w.bytes(&v.0),
            Value::KeyHash(k) => w.bytes(k),
            Value::StatusInfo(s) => w.u32_be(*s),
            Value::SequenceNumber(sn) => sn.emit(w),
            Value::SampleIdentity {
                writer,
                sequence_number,
            } => {
                writer.emit(w);
                sequence_number.emit(w);
            }
            Value::DataRepresentation(v) => {
                write_len(w, v.len());
                for id in v {
                    w.i16(*id);
                }
            }
            Value::PropertyList { properties, rest } => {
                write_len(w, properties.len());
                for (name, value) in properties {
                    w.string(name.as_bytes());
                    w.string(value.as_bytes());
                }
                w.align(4);
                w.bytes(rest);
            }
            Value::ContentFilterProperty(p) => p.emit(w),
            Value::ContentFilterInfo(i) => i.emit(w),
        }
    }

    /// Bytes [`Value::emit`] writes from a 4-aligned start, before the final pad to 4.
    pub fn buffer_len(&self) -> usize {
        match self {
            Value::Opaque(b) => b.len(),
            Value::String(s) => string_end(0, s.as_bytes()),
            Value::StringSeq(v) => v.iter().fold(4, |pos, s| string_end(pos, s.as_bytes())),
            Value::Octets(b) => b.len().saturating_add(4),
            Value::U32(_) | Value::I32(_) | Value::QosKind(_) | Value::StatusInfo(_) => 4,
            Value::Bool(_) => 1,
            Value::Duration(_) | Value::History { .. } | Value::SequenceNumber(_) => 8,
            Value::Reliability { .. } | Value::Liveliness { .. } => 12,
            Value::ResourceLimits { .. } => 12,
            Value::DurabilityService { .. } => 28,
            Value::Presentation { .. } => 6,
            Value::Locator(_) => Locator::LEN,
            Value::Guid(_) | Value::KeyHash(_) => 16,
            Value::GuidSeq(v) => v.len().saturating_mul(16).saturating_add(4),
            Value::ProtocolVersion(_) | Value::VendorId(_) => 2,
            Value::SampleIdentity { .. } => 24,
            Value::DataRepresentation(v) => v.len().saturating_mul(2).saturating_add(4),
            Value::PropertyList { properties, rest } => {
                let end = properties.iter().fold(4, |pos, (n, v)| {
                    string_end(string_end(pos, n.as_bytes()), v.as_bytes())
                });
                align4(end).saturating_add(rest.len())
            }
            Value::ContentFilterProperty(p) => p.buffer_len(),
            Value::ContentFilterInfo(i) => i.buffer_len(),
        }
    }
}
