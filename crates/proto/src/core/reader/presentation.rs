//! The order of a take/read batch under the subscriber's PRESENTATION `ordered_access`
//! (DDS 1.4 §2.2.3.6); coherent sets are `coherent.rs`.
//!
//! Must not: drop or add samples; it only reorders one batch.

use std::collections::HashMap;

use crate::core::CacheChange;
use crate::qos::{Presentation, PresentationAccessScope};

/// The order of one `take`/`read` batch under the subscriber's PRESENTATION (DDS 1.4
/// §2.2.3.6): with `ordered_access` and INSTANCE scope the samples come instance by instance
/// (each instance's in its order; instances in the order of their first sample), as RTI
/// Connext 6.1 returns them and the OMG dds-rtps suite expects (`Test_OrderedAccess_10`,
/// docs/interop-facts.md §8.3); with TOPIC or GROUP scope, or without ordered access, the
/// batch stays in delivery order (each writer's SN order, writers by arrival).
pub(super) fn presentation_order(p: &Presentation, batch: &mut [CacheChange]) {
    presentation_order_by(p, batch, |c| c);
}

/// [`presentation_order`] over items that each carry a change (`change` picks it).
pub(super) fn presentation_order_by<X>(
    p: &Presentation,
    batch: &mut [X],
    change: impl Fn(&X) -> &CacheChange,
) {
    if !p.ordered_access || p.access_scope != PresentationAccessScope::Instance {
        return;
    }
    let mut rank: HashMap<Option<[u8; 16]>, usize> = HashMap::new();
    for x in batch.iter() {
        let next = rank.len();
        rank.entry(change(x).key_hash).or_insert(next);
    }
    // Stable: each instance keeps its own order.
    batch.sort_by_key(|x| rank.get(&change(x).key_hash).copied().unwrap_or(usize::MAX));
}
