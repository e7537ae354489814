//! Content-filter parameters: PID_CONTENT_FILTER_PROPERTY (0x0035, in SEDP DATA(r)) and
//! PID_CONTENT_FILTER_INFO (0x0055, inline QoS of DATA/DATA_FRAG), plus the filter signature
//! that ties the two together.
//!
//! Must not: interpret the filter expression (that is `filter/`), or panic or allocate from a
//! wire count before checking the bytes are there.
//!
//! # Overview
//! RTPS 2.5 §8.7.3 / Table 8.86 (ContentFilterProperty_t), §9.6.4.1 (ContentFilterInfo_t and
//! the MD5 filter signature). Byte layouts and vendor behaviour are in docs/interop-facts.md §1.2, §1.3,
//! §2.1, §2.2. Validation of the property follows Fast DDS 2.9 (`ParameterSerializer.hpp`);
//! a property or info that fails validation is ignored by the PID table (the entity is still
//! accepted, with no filter / no writer-side result), as Fast DDS does.

use md5::{Digest, Md5};

use crate::cdr::{CdrReader, CdrWriter, MAX_STRING};
use crate::wire::WireError;

mod info;

pub use info::{ContentFilterInfo, ContentFilterInfoView, SINGLE_FILTER_INFO_LEN};

/// Most expression parameters accepted in a property (Fast DDS 2.9 default maximum, docs/interop-facts.md §1.3).
pub const MAX_FILTER_PARAMETERS: usize = 100;
/// Longest topic/class name or parameter, in bytes without the NUL (Fast DDS `string_255`).
pub const MAX_FILTER_NAME: usize = 255;

/// ContentFilterProperty_t. RTPS 2.5 Table 8.86; field order and types docs/interop-facts.md §1.2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentFilterProperty<'a> {
    /// contentFilteredTopicName (non-empty, ≤ 255).
    pub content_filtered_topic_name: &'a str,
    /// relatedTopicName (non-empty, ≤ 255).
    pub related_topic_name: &'a str,
    /// filterClassName, e.g. "DDSSQL" (non-empty, ≤ 255).
    pub filter_class_name: &'a str,
    /// filterExpression (non-empty, bounded only by [`MAX_STRING`]).
    pub filter_expression: &'a str,
    /// expressionParameters (≤ [`MAX_FILTER_PARAMETERS`], each ≤ 255).
    pub expression_parameters: Vec<&'a str>,
}

fn read_str<'a>(
    r: &mut CdrReader<'a>,
    max: usize,
    what: &'static str,
) -> Result<&'a str, WireError> {
    let bytes = r.string(max.saturating_add(1), what)?;
    core::str::from_utf8(bytes).map_err(|_| WireError::Invalid(what))
}

/// Position after a CDR string starting (before alignment) at `pos`.
pub(super) fn string_end(pos: usize, s: &[u8]) -> usize {
    align4(pos)
        .saturating_add(4)
        .saturating_add(s.len())
        .saturating_add(1)
}

/// `pos` rounded up to a multiple of 4.
pub(super) fn align4(pos: usize) -> usize {
    pos.saturating_add(3) & !3
}

impl<'a> ContentFilterProperty<'a> {
    /// Reads the five fields from a parameter value and validates them (docs/interop-facts.md §1.3).
    pub fn parse(r: &mut CdrReader<'a>) -> Result<Self, WireError> {
        let content_filtered_topic_name = read_str(r, MAX_FILTER_NAME, "contentFilteredTopicName")?;
        let related_topic_name = read_str(r, MAX_FILTER_NAME, "relatedTopicName")?;
        let filter_class_name = read_str(r, MAX_FILTER_NAME, "filterClassName")?;
        let filter_expression = read_str(r, MAX_STRING, "filterExpression")?;
        let n = r.seq_len(4, "expressionParameters")?;
        if n > MAX_FILTER_PARAMETERS {
            return Err(WireError::TooLarge("expressionParameters"));
        }
        let mut expression_parameters = Vec::with_capacity(n);
        for _ in 0..n {
            expression_parameters.push(read_str(r, MAX_FILTER_NAME, "expressionParameter")?);
        }
        let p = ContentFilterProperty {
            content_filtered_topic_name,
            related_topic_name,
            filter_class_name,
            filter_expression,
            expression_parameters,
        };
        p.validate()?;
        Ok(p)
    }

    /// Fast DDS 2.9 rules (docs/interop-facts.md §1.3): the four strings non-empty, names and parameters at
    /// most 255 bytes, at most 100 parameters.
    pub fn validate(&self) -> Result<(), WireError> {
        let names = [
            (self.content_filtered_topic_name, "contentFilteredTopicName"),
            (self.related_topic_name, "relatedTopicName"),
            (self.filter_class_name, "filterClassName"),
        ];
        for (s, what) in names {
            if s.is_empty() {
                return Err(WireError::Invalid(what));
            }
            if s.len() > MAX_FILTER_NAME {
                return Err(WireError::TooLarge(what));
            }
        }
        if self.filter_expression.is_empty() {
            return Err(WireError::Invalid("filterExpression"));
        }
        if self.filter_expression.len() >= MAX_STRING {
            return Err(WireError::TooLarge("filterExpression"));
        }
        if self.expression_parameters.len() > MAX_FILTER_PARAMETERS {
            return Err(WireError::TooLarge("expressionParameters"));
        }
        if self
            .expression_parameters
            .iter()
            .any(|p| p.len() > MAX_FILTER_NAME)
        {
            return Err(WireError::TooLarge("expressionParameter"));
        }
        Ok(())
    }

    /// Writes the five fields (each string padded to 4 before the next length word).
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.string(self.content_filtered_topic_name.as_bytes());
        w.string(self.related_topic_name.as_bytes());
        w.string(self.filter_class_name.as_bytes());
        w.string(self.filter_expression.as_bytes());
        w.align(4);
        w.u32(u32::try_from(self.expression_parameters.len()).unwrap_or(u32::MAX));
        for p in &self.expression_parameters {
            w.string(p.as_bytes());
        }
    }

    /// Bytes [`ContentFilterProperty::emit`] writes from a 4-aligned start.
    pub fn buffer_len(&self) -> usize {
        let mut pos = 0;
        for s in [
            self.content_filtered_topic_name,
            self.related_topic_name,
            self.filter_class_name,
            self.filter_expression,
        ] {
            pos = string_end(pos, s.as_bytes());
        }
        pos = align4(pos).saturating_add(4);
        for p in &self.expression_parameters {
            pos = string_end(pos, p.as_bytes());
        }
        pos
    }

    /// The RTPS 2.5 filter signature of this property (see [`filter_signature`]).
    pub fn signature(&self) -> [u8; 16] {
        filter_signature(
            self.content_filtered_topic_name,
            self.related_topic_name,
            self.filter_class_name,
            self.filter_expression,
            &self.expression_parameters,
        )
    }

    /// The RTI Connext ≤ 6.1 variant (see [`filter_signature_rti61`]).
    pub fn signature_rti61(&self) -> [u8; 16] {
        filter_signature_rti61(
            self.content_filtered_topic_name,
            self.related_topic_name,
            self.filter_class_name,
            self.filter_expression,
            &self.expression_parameters,
        )
    }
}

fn signature(strings: &[&str], omit_last_nul: bool) -> [u8; 16] {
    let mut h = Md5::new();
    let last = strings.len().saturating_sub(1);
    for (i, s) in strings.iter().enumerate() {
        h.update(s.as_bytes());
        if !(omit_last_nul && i == last) {
            h.update([0u8]);
        }
    }
    h.finalize().into()
}

fn collect<'s>(fixed: [&'s str; 4], params: &[&'s str]) -> Vec<&'s str> {
    let mut all = Vec::with_capacity(params.len().saturating_add(4));
    all.extend_from_slice(&fixed);
    all.extend_from_slice(params);
    all
}

/// FilterSignature_t: MD5 over contentFilteredTopicName, relatedTopicName, filterClassName,
/// filterExpression and each expression parameter, each followed by its NUL; nothing else.
/// RTPS 2.5 §9.6.4.1; Fast DDS `ContentFilterUtils::compute_signature` (docs/interop-facts.md §2.2).
pub fn filter_signature(
    cft_name: &str,
    related: &str,
    class: &str,
    expression: &str,
    params: &[&str],
) -> [u8; 16] {
    signature(
        &collect([cft_name, related, class, expression], params),
        false,
    )
}

/// The RTI Connext ≤ 6.1 compatible signature: as [`filter_signature`] but without the NUL of
/// the very last string (docs/interop-facts.md §2.2). Fast DDS accepts it only from GUID prefixes 01.01.
pub fn filter_signature_rti61(
    cft_name: &str,
    related: &str,
    class: &str,
    expression: &str,
    params: &[&str],
) -> [u8; 16] {
    signature(
        &collect([cft_name, related, class, expression], params),
        true,
    )
}

#[cfg(test)]
mod tests;
