//! Which endpoint the router asks for a topic's type when no IDL file of its configuration
//! gives it: per (topic, announced type name), the endpoints of any site that announced
//! PID_TYPE_INFORMATION (DDS-XTypes 1.3 §7.6.2.1), writers before readers (the payloads the
//! router decodes are the writers'); one is asked at a time through its participant's
//! TypeLookup service (§7.6.3.3, the driver's `DomainParticipant::request_endpoint_type`),
//! the next after [`ASK_TIMEOUT`], a refusal, or the participant giving up on the request
//! (no answer held the type), until the type is learnt or [`MAX_ATTEMPTS_PER_TYPE`]
//! endpoints were tried (then it stays unknown: reported once, counted). A writer announced
//! while a reader is being asked is asked at once (the reader waits its turn again). A
//! Cyclone DDS 0.10 writer announces its type, and so does any endpoint that speaks XCDR2
//! only; a topic whose writers announce none (Fast DDS 2.9 without `-typeobject`, XCDR1
//! siftdds writers) learns it from one of its readers that does, and learns it again from a
//! writer that announces one later (a reader's type may differ from the writers' payloads:
//! `router::keys` ranks it below the built-in ShapeType).
//!
//! Must not: perform I/O, read a clock (`now` is passed in), or grow without bound: at most
//! [`MAX_TRACKED_TYPES`] (topic, type) pairs, [`MAX_CANDIDATES`] endpoints each and
//! [`MAX_ASKING`] requests out.

use std::collections::BTreeMap;

use super::table::SiteId;
use crate::time::Instant;
use crate::wire::Guid;

/// How long an asked endpoint's type may take before the next endpoint is asked: the
/// TypeLookup client sends a request 3 times 2 s apart (`core::participant::type_client`).
pub const ASK_TIMEOUT: core::time::Duration = core::time::Duration::from_secs(8);
/// Endpoints asked per type before it is given up.
pub const MAX_ATTEMPTS_PER_TYPE: u32 = 8;
/// (topic, type name) pairs followed; more stay unknown (counted).
pub const MAX_TRACKED_TYPES: usize = 1024;
/// Endpoints remembered per pair, to ask in turn.
pub const MAX_CANDIDATES: usize = 16;
/// Requests out at a time (the driver looks for each one's answer on every pass).
pub const MAX_ASKING: usize = 16;

/// A topic's type as routes are keyed by it: (topic name, announced type name).
pub type TypeKey = (String, String);

/// An endpoint that announced its type (from a site's discovery).
#[derive(Clone, Debug, PartialEq)]
pub struct Announced {
    /// Its GUID.
    pub guid: Guid,
    /// Its topic.
    pub topic: String,
    /// Its announced type name.
    pub type_name: String,
    /// A writer (else a reader).
    pub writer: bool,
    /// Its PID_TYPE_INFORMATION bytes.
    pub type_information: Vec<u8>,
}

/// One request the driver makes: ask `endpoint`'s participant (on `site`) for its type.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeRequest {
    /// The type it is for.
    pub key: TypeKey,
    /// The site the endpoint is on.
    pub site: SiteId,
    /// The endpoint.
    pub endpoint: Guid,
    /// Its PID_TYPE_INFORMATION (what the resolved type is looked up by).
    pub type_information: Vec<u8>,
    /// The endpoint is a writer (else a reader).
    pub writer: bool,
}

/// Counters of the types learnt from the wire.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WireTypeCounters {
    /// Endpoints asked for their type.
    pub requests: u64,
    /// Types learnt.
    pub learnt: u64,
    /// Requests the participant refused (TypeLookup client at a bound, no usable
    /// TypeInformation), gave up on (no answer held the type) or that timed out.
    pub unanswered: u64,
    /// Types given up after [`MAX_ATTEMPTS_PER_TYPE`] endpoints, or with none left to ask.
    pub failed: u64,
    /// Pairs not followed ([`MAX_TRACKED_TYPES`]).
    pub untracked: u64,
}

#[derive(Clone, Debug, PartialEq)]
enum State {
    /// An endpoint to ask next, if any.
    Waiting,
    /// This request is out since `.1`; its endpoint was first seen at `.2`.
    Asking(TypeRequest, Instant, Instant),
    /// Learnt, from a writer (else from a reader: a writer's type is still asked for).
    Known(bool),
    /// Given up (reported once).
    Failed,
}

#[derive(Clone, Debug)]
struct Entry {
    /// Endpoints not asked yet: writers first.
    candidates: Vec<(SiteId, Announced, Instant)>,
    /// Endpoints asked.
    tried: Vec<Guid>,
    attempts: u32,
    state: State,
    /// A reader's type is known (what remains when a writer's cannot be learnt).
    from_reader: bool,
}

/// Where the writers among `candidates` (they come first) end.
fn after_writers(candidates: &[(SiteId, Announced, Instant)]) -> usize {
    candidates.iter().take_while(|(_, c, _)| c.writer).count()
}

/// The types being learnt from the wire.
#[derive(Clone, Debug, Default)]
pub struct WireTypes {
    entries: BTreeMap<TypeKey, Entry>,
    failed: Vec<TypeKey>,
    counters: WireTypeCounters,
}

impl WireTypes {
    /// Nothing followed yet.
    pub fn new() -> Self {
        WireTypes::default()
    }

    /// The endpoints of `site` that announced their type now; those for which `wanted`
    /// (topic, type name) holds are remembered to be asked.
    pub fn note(
        &mut self,
        now: Instant,
        site: SiteId,
        announced: &[Announced],
        wanted: impl Fn(&str, &str) -> bool,
    ) {
        for a in announced {
            let key = (a.topic.clone(), a.type_name.clone());
            if !wanted(&key.0, &key.1) {
                continue;
            }
            if !self.entries.contains_key(&key) && self.entries.len() >= MAX_TRACKED_TYPES {
                self.counters.untracked = self.counters.untracked.saturating_add(1);
                continue;
            }
            let e = self.entries.entry(key).or_insert_with(|| Entry {
                candidates: Vec::new(),
                tried: Vec::new(),
                attempts: 0,
                state: State::Waiting,
                from_reader: false,
            });
            // Only a writer's type replaces a reader's.
            let upgrade = e.state == State::Known(false) && a.writer;
            if matches!(e.state, State::Known(_) | State::Failed) && !upgrade
                || e.tried.contains(&a.guid)
                || e.candidates.iter().any(|(_, c, _)| c.guid == a.guid)
                || e.candidates.len() >= MAX_CANDIDATES
            {
                continue;
            }
            // Writers before readers, each in the order seen.
            let at = if a.writer {
                after_writers(&e.candidates)
            } else {
                e.candidates.len()
            };
            e.candidates.insert(at, (site, a.clone(), now));
            if upgrade {
                e.state = State::Waiting;
            }
            // A writer is asked at once, not after a reader's request out: its type is the
            // one the payloads are in, and the reader's answer may never come. The reader
            // goes back among the candidates, after the writers.
            if a.writer
                && let State::Asking(r, _, seen) = &e.state
                && !r.writer
            {
                let reader = Announced {
                    guid: r.endpoint,
                    topic: r.key.0.clone(),
                    type_name: r.key.1.clone(),
                    writer: false,
                    type_information: r.type_information.clone(),
                };
                let (site, seen) = (r.site, *seen);
                e.tried.retain(|g| *g != reader.guid);
                e.attempts = e.attempts.saturating_sub(1);
                e.candidates
                    .insert(after_writers(&e.candidates), (site, reader, seen));
                e.state = State::Waiting;
            }
        }
    }

    /// The next endpoint to ask for its type (after giving up on requests older than
    /// [`ASK_TIMEOUT`]), while fewer than [`MAX_ASKING`] are out.
    pub fn poll_request(&mut self, now: Instant) -> Option<TypeRequest> {
        let mut asking = self.asking().count();
        for (key, e) in &mut self.entries {
            if let State::Asking(_, since, _) = &e.state
                && now.saturating_duration_since(*since) >= ASK_TIMEOUT
            {
                self.counters.unanswered = self.counters.unanswered.saturating_add(1);
                e.state = State::Waiting;
                asking = asking.saturating_sub(1);
            }
            if e.state != State::Waiting || asking >= MAX_ASKING {
                continue;
            }
            if e.attempts >= MAX_ATTEMPTS_PER_TYPE || e.candidates.is_empty() {
                // Nothing left to ask: unknown until another endpoint announces it (not
                // after the attempts are spent), or the reader's type it had.
                if e.from_reader {
                    e.state = State::Known(false);
                } else if e.attempts > 0 {
                    e.state = State::Failed;
                    self.counters.failed = self.counters.failed.saturating_add(1);
                    self.failed.push(key.clone());
                }
                continue;
            }
            let (site, a, seen) = e.candidates.remove(0);
            e.tried.push(a.guid);
            e.attempts = e.attempts.saturating_add(1);
            let request = TypeRequest {
                key: key.clone(),
                site,
                endpoint: a.guid,
                type_information: a.type_information,
                writer: a.writer,
            };
            e.state = State::Asking(request.clone(), now, seen);
            self.counters.requests = self.counters.requests.saturating_add(1);
            return Some(request);
        }
        None
    }

    /// The participant did not send `key`'s request (a bound, or no usable
    /// TypeInformation), or gave up on it: the next endpoint is asked.
    pub fn refused(&mut self, key: &TypeKey) {
        if let Some(e) = self.entries.get_mut(key)
            && matches!(e.state, State::Asking(..))
        {
            e.state = State::Waiting;
            self.counters.unanswered = self.counters.unanswered.saturating_add(1);
        }
    }

    /// The requests out now (the driver looks their answers up).
    pub fn asking(&self) -> impl Iterator<Item = &TypeRequest> {
        self.entries.values().filter_map(|e| match &e.state {
            State::Asking(r, _, _) => Some(r),
            _ => None,
        })
    }

    /// `key`'s type is known now, from a writer or a reader; how long after the endpoint
    /// asked was first seen. `None` when it was known already (a reader's type counts only
    /// when none was).
    pub fn learnt(
        &mut self,
        now: Instant,
        key: &TypeKey,
        writer: bool,
    ) -> Option<core::time::Duration> {
        let e = self.entries.get_mut(key)?;
        let seen = match e.state {
            State::Asking(_, _, seen) => seen,
            _ => now,
        };
        if e.state == State::Known(true)
            || !writer && (e.from_reader || e.state == State::Known(false))
        {
            return None;
        }
        e.state = State::Known(writer);
        if writer {
            e.candidates = Vec::new();
        } else {
            // Only writers are asked from now on.
            e.from_reader = true;
            e.candidates.retain(|(_, c, _)| c.writer);
            if !e.candidates.is_empty() {
                e.state = State::Waiting;
            }
        }
        self.counters.learnt = self.counters.learnt.saturating_add(1);
        Some(now.saturating_duration_since(seen))
    }

    /// The next type given up (each reported once).
    pub fn poll_failed(&mut self) -> Option<TypeKey> {
        self.failed.pop()
    }

    /// When [`Self::poll_request`] may have something new to say without a new input.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.entries
            .values()
            .filter_map(|e| match &e.state {
                State::Asking(_, since, _) => Some(since.saturating_add(ASK_TIMEOUT)),
                _ => None,
            })
            .min()
    }

    /// The counters so far.
    pub fn counters(&self) -> WireTypeCounters {
        self.counters
    }
}

#[cfg(test)]
mod tests;
