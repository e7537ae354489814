//! The owned form of a reader's content filter, as announced in SEDP DATA(r) with
//! PID_CONTENT_FILTER_PROPERTY, kept by discovery after the datagram is gone.
//!
//! Must not: parse or evaluate the filter expression (that is `filter/`), or re-implement the
//! wire layout (the borrowed [`ContentFilterProperty`] in `wire::plist` owns it).
//!
//! RTPS 2.5 §8.7.3.1 / Table 8.86 (ContentFilterProperty_t), §9.6.4.1 (filter signature);
//! docs/interop-facts.md §1 (field order, Fast DDS validation and quoting of parameters).

use crate::wire::WireError;
use crate::wire::plist::{ContentFilterProperty, filter_signature};

/// ContentFilterProperty_t, owned. RTPS 2.5 Table 8.86.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ContentFilter {
    /// contentFilteredTopicName, e.g. "SquareFiltered".
    pub content_filtered_topic_name: String,
    /// relatedTopicName: the topic the filter applies to.
    pub related_topic_name: String,
    /// filterClassName, "DDSSQL" for the standard SQL filter.
    pub filter_class_name: String,
    /// filterExpression, e.g. "color = %0".
    pub filter_expression: String,
    /// expressionParameters as sent (Fast DDS quotes strings: `'RED'`, docs/interop-facts.md §1.4).
    pub expression_parameters: Vec<String>,
}

impl ContentFilter {
    /// Copies a decoded property.
    pub fn from_property(p: &ContentFilterProperty<'_>) -> Self {
        ContentFilter {
            content_filtered_topic_name: p.content_filtered_topic_name.to_owned(),
            related_topic_name: p.related_topic_name.to_owned(),
            filter_class_name: p.filter_class_name.to_owned(),
            filter_expression: p.filter_expression.to_owned(),
            expression_parameters: p
                .expression_parameters
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
        }
    }

    /// A borrowed property for encoding.
    pub fn as_property(&self) -> ContentFilterProperty<'_> {
        ContentFilterProperty {
            content_filtered_topic_name: &self.content_filtered_topic_name,
            related_topic_name: &self.related_topic_name,
            filter_class_name: &self.filter_class_name,
            filter_expression: &self.filter_expression,
            expression_parameters: self
                .expression_parameters
                .iter()
                .map(String::as_str)
                .collect(),
        }
    }

    /// Checks the Fast DDS 2.9 rules a receiver applies (docs/interop-facts.md §1.3): a filter that
    /// fails them would be ignored by the peer, so we refuse to announce it.
    pub fn validate(&self) -> Result<(), WireError> {
        self.as_property().validate()
    }

    /// The FilterSignature_t that writers put in PID_CONTENT_FILTER_INFO for this filter.
    /// RTPS 2.5 §9.6.4.1, docs/interop-facts.md §2.2.
    pub fn signature(&self) -> [u8; 16] {
        let params: Vec<&str> = self
            .expression_parameters
            .iter()
            .map(String::as_str)
            .collect();
        filter_signature(
            &self.content_filtered_topic_name,
            &self.related_topic_name,
            &self.filter_class_name,
            &self.filter_expression,
            &params,
        )
    }
}

#[cfg(test)]
mod tests;
