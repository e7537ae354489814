//! A local DataReader's own content filter (ContentFilteredTopic): applied on delivery unless
//! the writer already evaluated it and said so in PID_CONTENT_FILTER_INFO.
//!
//! Also builds the change a received sample becomes (`make_slot`), with the filter applied.
//!
//! Must not: decode PID_CONTENT_FILTER_INFO itself (`wire::plist::ContentFilterInfoView` does),
//! or trust a result listed under any signature other than our own.
//!
//! RTPS 2.5 §8.7.3.3-§8.7.3.4 (a reader uses the writer's result for its own signature, else
//! filters itself), §9.6.4.1 (ContentFilterInfo_t layout, MSB-first bitmaps); docs/interop-facts.md §2.3.

use std::sync::Arc;

use bytes::Bytes;

use super::inline_qos::{InlineInfo, PayloadKind};
use super::writer_proxy::Slot;
use super::{Reader, ReaderConfig, ReaderCounters};
use crate::core::discovery::ContentFilter;
use crate::core::writer::{DDSSQL, NotFiltering};
use crate::core::{CacheChange, ChangeKind};
use crate::filter::{Program, parse_parameters};
use crate::time::Timestamp;
use crate::types::TypeDescriptor;
use crate::wire::{Guid, SequenceNumber};

/// A compiled reader filter and its signature. Compared by signature.
#[derive(Clone)]
pub struct ReaderFilter {
    signature: [u8; 16],
    program: Arc<Program>,
}

impl core::fmt::Debug for ReaderFilter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReaderFilter")
            .field("signature", &self.signature)
            .finish()
    }
}

impl PartialEq for ReaderFilter {
    fn eq(&self, other: &Self) -> bool {
        self.signature == other.signature
    }
}

impl Eq for ReaderFilter {}

impl ReaderFilter {
    /// Compiles a DDSSQL filter against the reader's type.
    pub fn compile(filter: &ContentFilter, desc: &TypeDescriptor) -> Result<Self, NotFiltering> {
        if filter.filter_class_name != DDSSQL {
            return Err(NotFiltering::UnknownClass(filter.filter_class_name.clone()));
        }
        let params =
            parse_parameters(&filter.expression_parameters).map_err(NotFiltering::Invalid)?;
        let program = Program::compile_expression(&filter.filter_expression, &params, desc)
            .map_err(NotFiltering::Invalid)?;
        Ok(ReaderFilter {
            signature: filter.signature(),
            program: Arc::new(program),
        })
    }

    /// Checks `filter` as `create_contentfilteredtopic` must (DDS 1.4 §2.2.2.2.1.7: an
    /// expression that cannot be used fails the creation): compiled against `desc` when the
    /// type has a descriptor (so `x = 'abc'` on an integer field is a type error), else only
    /// parsed and bound. Errors carry the byte position in the expression.
    pub fn check(
        filter: &ContentFilter,
        desc: Option<&TypeDescriptor>,
    ) -> Result<(), NotFiltering> {
        match desc {
            Some(d) => Self::compile(filter, d).map(drop),
            None => {
                if filter.filter_class_name != DDSSQL {
                    return Err(NotFiltering::UnknownClass(filter.filter_class_name.clone()));
                }
                let params = parse_parameters(&filter.expression_parameters)
                    .map_err(NotFiltering::Invalid)?;
                crate::filter::Ast::parse(&filter.filter_expression)
                    .and_then(|a| a.bind(&params))
                    .map(drop)
                    .map_err(NotFiltering::Invalid)
            }
        }
    }

    /// The compiled program (a QueryCondition evaluates it over the reader's samples).
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The filter signature writers list in PID_CONTENT_FILTER_INFO. RTPS 2.5 §9.6.4.1.
    pub fn signature(&self) -> [u8; 16] {
        self.signature
    }

    /// Evaluates the filter on a serialized sample. A sample that cannot be decoded for the
    /// filter is delivered (the application sees the decoding error).
    pub fn accepts(&self, sample: &[u8]) -> bool {
        self.program.evaluate(sample).unwrap_or(true)
    }
}

impl Reader {
    /// The signature of our content filter, to look up in PID_CONTENT_FILTER_INFO.
    pub(super) fn own_signature(&self) -> Option<[u8; 16]> {
        self.config
            .content_filter
            .as_ref()
            .map(ReaderFilter::signature)
    }
}

/// A whole received serializedPayload and what came with it.
pub(super) struct Received {
    /// The writer (GUID resolved by the message receiver).
    pub writer: Guid,
    /// Its writerSN.
    pub sn: SequenceNumber,
    /// From INFO_TS, if any.
    pub source_timestamp: Option<Timestamp>,
    /// The inline QoS the reader acts on.
    pub inline: InlineInfo,
    /// D, K or no payload.
    pub payload: PayloadKind,
    /// The payload (stored: the one copy).
    pub data: Bytes,
}

impl ReaderConfig {
    /// Builds the change for a whole serializedPayload, or `Slot::Irrelevant` when it carries
    /// nothing for the application (see [`InlineInfo::change_kind`]). A method of the
    /// configuration, not the reader, so the caller can hold its writer proxy meanwhile.
    pub(super) fn make_slot(&self, counters: &mut ReaderCounters, r: Received) -> Slot {
        let Received {
            writer,
            sn,
            source_timestamp,
            inline,
            payload,
            data,
        } = r;
        match inline.change_kind(payload) {
            Some(ChangeKind::Alive) if !self.passes_content_filter(counters, &inline, &data) => {
                Slot::Irrelevant
            }
            Some(kind) => Slot::Sample(CacheChange {
                kind,
                writer_guid: writer,
                sequence_number: sn,
                // RTPS 2.5 §9.6.4.8: PID_KEY_HASH is optional; compute it when absent.
                key_hash: inline.key_hash.or_else(|| match self.key_hasher {
                    Some(h) if self.keyed && !data.is_empty() => (h.0)(kind, &data),
                    _ => None,
                }),
                source_timestamp,
                // The sample, the serialized key (K flag) or empty (dispose by inline QoS).
                data,
                coherent_set: inline.coherent_set,
                group: inline.group,
                original_writer: inline.original_writer,
            }),
            // RTPS 2.5 §8.7.5: a DATA with neither payload nor status, only PID_COHERENT_SET,
            // ends a coherent set; `reader::coherent` consumes it, the application never sees it.
            None if payload == PayloadKind::None
                && inline.status_info.is_none()
                && inline.coherent_set.is_some() =>
            {
                Slot::Sample(CacheChange {
                    kind: ChangeKind::Alive,
                    writer_guid: writer,
                    sequence_number: sn,
                    key_hash: None,
                    source_timestamp,
                    data: Bytes::new(),
                    coherent_set: inline.coherent_set,
                    group: inline.group,
                    original_writer: None,
                })
            }
            None => Slot::Irrelevant,
        }
    }

    /// Our content filter's verdict on an ALIVE sample: the writer's bit for our signature
    /// when it sent one (trusted, not re-evaluated), else our own evaluation. A rejected
    /// sample's SN is irrelevant, like a GAP entry. RTPS 2.5 §8.7.3.3-§8.7.3.4.
    fn passes_content_filter(
        &self,
        c: &mut ReaderCounters,
        inline: &InlineInfo,
        data: &[u8],
    ) -> bool {
        let Some(f) = &self.content_filter else {
            return true;
        };
        match inline.filter_result {
            Some(true) => {
                c.content_passed_by_writer = c.content_passed_by_writer.saturating_add(1);
                true
            }
            Some(false) => {
                c.content_filtered_by_writer = c.content_filtered_by_writer.saturating_add(1);
                false
            }
            None if f.accepts(data) => true,
            None => {
                c.content_filtered_locally = c.content_filtered_locally.saturating_add(1);
                false
            }
        }
    }
}
