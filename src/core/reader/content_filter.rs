//! A local DataReader's own content filter (ContentFilteredTopic): applied on delivery unless
//! the writer already evaluated it and said so in PID_CONTENT_FILTER_INFO.
//!
//! Also builds the change a received sample becomes (`make_slot`), with the filter applied.
//!
//! Must not: panic or allocate on received bytes (the info is scanned in place), or trust a
//! result listed under any signature other than our own.
//!
//! RTPS 2.5 §8.7.3.3-§8.7.3.4 (a reader uses the writer's result for its own signature, else
//! filters itself), §9.6.4.1 (ContentFilterInfo_t layout, MSB-first bitmaps); facts §2.3.

use std::sync::Arc;

use bytes::Bytes;

use super::inline_qos::{InlineInfo, PayloadKind};
use super::writer_proxy::Slot;
use super::{Reader, ReaderConfig, ReaderCounters};
use crate::cdr::{self, Endianness};
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
            }),
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

/// The result a PID_CONTENT_FILTER_INFO value (`value`, in the submessage's byte order) gives
/// for `signature`: `None` when malformed (numBitmaps ≠ ceil(numSignatures / 32), truncated)
/// or when the signature is not listed. Scans in place. RTPS 2.5 §9.6.4.1; facts §2.1, §2.3.
pub(super) fn filter_result(
    value: &[u8],
    endian: Endianness,
    signature: &[u8; 16],
) -> Option<bool> {
    let mut r = cdr::Reader::new(value, endian);
    let num_bitmaps = usize::try_from(r.u32("numBitmaps").ok()?).ok()?;
    let bitmaps = r.take(num_bitmaps.checked_mul(4)?, "filterResult").ok()?;
    let num_signatures = usize::try_from(r.u32("numSignatures").ok()?).ok()?;
    if num_bitmaps != num_signatures.div_ceil(32) {
        return None;
    }
    for i in 0..num_signatures {
        if r.take_array::<16>("filterSignature").ok()? != *signature {
            continue;
        }
        let word = i.checked_div(32)?;
        let at = word.checked_mul(4)?;
        let bytes: [u8; 4] = bitmaps.get(at..at.checked_add(4)?)?.try_into().ok()?;
        let w = match endian {
            Endianness::Little => u32::from_le_bytes(bytes),
            Endianness::Big => u32::from_be_bytes(bytes),
        };
        let bit = u32::try_from(i.checked_rem(32)?).ok()?;
        return Some(w & 1u32.checked_shl(31u32.checked_sub(bit)?)? != 0);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdr::Writer;
    use crate::wire::plist::ContentFilterInfo;

    fn encoded(info: &ContentFilterInfo, endian: Endianness) -> Vec<u8> {
        let mut out = Vec::new();
        info.emit(&mut Writer::new(&mut out, endian));
        out
    }

    #[test]
    fn own_signature_bit_is_found_in_both_byte_orders_beyond_32_filters() {
        let mut info = ContentFilterInfo::new();
        for i in 0..40u8 {
            info.push([i; 16], i % 3 == 0);
        }
        for endian in [Endianness::Little, Endianness::Big] {
            let v = encoded(&info, endian);
            for i in 0..40u8 {
                assert_eq!(filter_result(&v, endian, &[i; 16]), Some(i % 3 == 0), "{i}");
            }
            assert_eq!(filter_result(&v, endian, &[200; 16]), None);
        }
    }

    #[test]
    fn malformed_or_truncated_info_gives_no_result() {
        let mut info = ContentFilterInfo::new();
        info.push([7; 16], true);
        let v = encoded(&info, Endianness::Little);
        for cut in 0..v.len() {
            assert_eq!(
                filter_result(&v[..cut], Endianness::Little, &[7; 16]),
                None,
                "{cut}"
            );
        }
        let mut bad = v.clone();
        bad[0] = 2; // numBitmaps 2 for one signature
        assert_eq!(filter_result(&bad, Endianness::Little, &[7; 16]), None);
    }
}
