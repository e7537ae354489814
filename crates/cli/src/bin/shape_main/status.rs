//! `shape_main`'s status lines: the harness's `on_publication_matched()`,
//! `on_subscription_matched()`, `on_*_incompatible_qos()` and `on_*_deadline_missed()` lines,
//! printed from the participant's status events in the formats of `srcCxx/shape_main.cxx`.
//!
//! Must not: decide anything; it only prints what the core reported.

use siftdds::core::Event;
use siftdds::qos::IncompatiblePolicies;
use siftdds::types::{ShapeType, TopicType};
use siftdds::wire::Guid;

use crate::{App, out};

impl App {
    fn matched_line(&mut self, endpoint: Guid, matched: bool, callback: &str, what: &str) {
        let Some(topic) = self.topic_of(&endpoint).map(str::to_string) else {
            return;
        };
        let change: i64 = if matched { 1 } else { -1 };
        let count = self.matched.entry(endpoint).or_insert(0);
        *count = (*count + change).max(0);
        let type_name = ShapeType::type_name();
        out(&format!(
            "{callback}() topic: '{topic}'  type: '{type_name}' : matched {what} {count} \
             (change = {change})"
        ));
    }

    fn incompatible_line(&self, endpoint: Guid, callback: &str, policies: IncompatiblePolicies) {
        let Some(topic) = self.topic_of(&endpoint) else {
            return;
        };
        let (id, name) = policies
            .first()
            .map_or((0, "UNKNOWN"), |p| (p.as_u32(), p.name()));
        out(&format!(
            "{callback}() topic: '{topic}'  type: '{}' : {id} ({name})",
            ShapeType::type_name()
        ));
    }

    /// The harness's `on_*_deadline_missed()` line: `(total = n, change = 1)`.
    fn deadline_line(&mut self, endpoint: Guid, callback: &str) {
        let Some(topic) = self.topic_of(&endpoint).map(str::to_string) else {
            return;
        };
        let total = self.deadline_missed.entry(endpoint).or_insert(0);
        *total += 1;
        out(&format!(
            "{callback}() topic: '{topic}'  type: '{}' : (total = {total}, change = 1)",
            ShapeType::type_name()
        ));
    }

    pub(crate) fn handle_event(&mut self, event: Event) {
        match event {
            Event::OfferedDeadlineMissed { writer, .. } => {
                self.deadline_line(writer, "on_offered_deadline_missed");
            }
            Event::RequestedDeadlineMissed { reader, .. } => {
                self.deadline_line(reader, "on_requested_deadline_missed");
            }
            Event::PublicationMatched {
                writer, matched, ..
            } => {
                self.matched_line(writer, matched, "on_publication_matched", "readers");
            }
            Event::SubscriptionMatched {
                reader, matched, ..
            } => {
                // NOT_ALIVE_NO_WRITERS arrives as a sample (ChangeKind::NotAliveNoWriters).
                self.matched_line(reader, matched, "on_subscription_matched", "writers");
            }
            Event::OfferedIncompatibleQos {
                writer, policies, ..
            } => {
                self.incompatible_line(writer, "on_offered_incompatible_qos", policies);
            }
            Event::RequestedIncompatibleQos {
                reader, policies, ..
            } => {
                self.incompatible_line(reader, "on_requested_incompatible_qos", policies);
            }
            other => self.debug(&format!("event: {other:?}")),
        }
    }
}
