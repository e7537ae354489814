//! The subscriber's view of instance states (DDS 1.4 §2.2.2.5.1.4, instance_state): per
//! instance, its color, the writers that wrote it and whether it is alive. This is what lets a
//! dispose (which carries no data) be printed with its color, and NOT_ALIVE_NO_WRITERS be
//! printed when the last writer unregisters or the reader reports that the instance has no
//! writers left ([`ChangeKind::NotAliveNoWriters`]).
//!
//! Must not: print or touch the network; callers print what these methods return.

use std::collections::{HashMap, HashSet};

use siftdds::core::ChangeKind;
use siftdds::wire::Guid;

/// NOT_ALIVE_DISPOSED_INSTANCE_STATE.
pub const DISPOSED: &str = "NOT_ALIVE_DISPOSED_INSTANCE_STATE";
/// NOT_ALIVE_NO_WRITERS_INSTANCE_STATE.
pub const NO_WRITERS: &str = "NOT_ALIVE_NO_WRITERS_INSTANCE_STATE";

#[derive(Debug)]
struct Instance {
    color: String,
    writers: HashSet<Guid>,
    alive: bool,
}

/// Instances by (topic index, key hash).
#[derive(Debug, Default)]
pub struct Instances {
    map: HashMap<(usize, [u8; 16]), Instance>,
}

/// What a not-alive change did.
#[derive(Debug, PartialEq, Eq)]
pub enum Transition {
    /// The instance (of this color) entered this state.
    Now(String, &'static str),
    /// Nothing to print: already not alive, or other writers still alive.
    Unchanged,
    /// No instance this reader knows of (never seen, or filtered out).
    Unknown,
}

impl Instances {
    /// `writer` wrote a valid sample of the instance `key` of `color`.
    pub fn alive(&mut self, topic: usize, key: [u8; 16], color: &str, writer: Guid) {
        let inst = self.map.entry((topic, key)).or_insert_with(|| Instance {
            color: color.to_string(),
            writers: HashSet::new(),
            alive: true,
        });
        inst.alive = true;
        inst.writers.insert(writer);
    }

    /// `writer` disposed and/or unregistered the instance `key`. Without a key hash, the one
    /// alive instance `writer` wrote on `topic` is taken, if there is exactly one: a stand-in
    /// for Cyclone DDS, which sends the serialized key instead of PID_KEY_HASH (the reader
    /// does not turn it into a key hash yet).
    pub fn not_alive(
        &mut self,
        topic: usize,
        key: Option<[u8; 16]>,
        writer: Guid,
        kind: ChangeKind,
    ) -> Transition {
        let Some(key) = key.or_else(|| self.only_instance_of(topic, writer)) else {
            return Transition::Unknown;
        };
        let Some(inst) = self.map.get_mut(&(topic, key)) else {
            return Transition::Unknown;
        };
        let state = match kind {
            ChangeKind::NotAliveDisposed => Some(DISPOSED),
            ChangeKind::NotAliveDisposedUnregistered => {
                inst.writers.remove(&writer);
                Some(DISPOSED)
            }
            ChangeKind::NotAliveUnregistered => {
                inst.writers.remove(&writer);
                inst.writers.is_empty().then_some(NO_WRITERS)
            }
            // The reader's own verdict: no matched writer writes the instance any more.
            ChangeKind::NotAliveNoWriters => {
                inst.writers.clear();
                Some(NO_WRITERS)
            }
            ChangeKind::Alive => None,
        };
        match state {
            Some(state) if inst.alive => {
                inst.alive = false;
                Transition::Now(inst.color.clone(), state)
            }
            _ => Transition::Unchanged,
        }
    }

    fn only_instance_of(&self, topic: usize, writer: Guid) -> Option<[u8; 16]> {
        let mut keys = self
            .map
            .iter()
            .filter(|((t, _), i)| *t == topic && i.alive && i.writers.contains(&writer))
            .map(|((_, k), _)| *k);
        let first = keys.next()?;
        keys.next().is_none().then_some(first)
    }
}

#[cfg(test)]
mod tests;
