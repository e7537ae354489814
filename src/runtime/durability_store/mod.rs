//! The runtime's side of PERSISTENT durability: the store behind [`DurableStore`] (SQLite by
//! default, `sqlite.rs`), opened lazily per participant ([`PersistentStore`]), the loading of
//! a topic's history before its first PERSISTENT writer is created, and the write of such a
//! writer, which returns only once the change is stored.
//!
//! Must not: decide what is kept (the core's durability service hands out
//! [`StoreAction`]s); the connection lives here, never in the core.
//!
//! DDS 1.4 §2.2.3.4 (PERSISTENT). Schema and configuration: docs/durability.md.

#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(all(test, feature = "sqlite"))]
mod tests;

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

#[cfg(feature = "sqlite")]
pub use sqlite::{ROW_OVERHEAD, SCHEMA_VERSION, SqliteStore};

use super::{RuntimeHandle, RuntimeStopped};
use crate::core::durability::{DurableSample, StoreAction};
use crate::core::writer::WriteError;
use crate::core::{Participant, WriteRequest};
use crate::qos::DurabilityService;
use crate::wire::Guid;

/// Default bound on a store's size: 256 MiB of samples (payload plus a fixed overhead per row,
/// `ROW_OVERHEAD` for SQLite).
pub const DEFAULT_MAX_STORE_BYTES: u64 = 256 << 20;

/// Where PERSISTENT samples go: the durable history of each PERSISTENT topic, as the core's
/// durability service keeps it.
pub trait DurableStore: Send {
    /// The stored samples of `topic` written with type `type_name`, in id order.
    fn load(&mut self, topic: &str, type_name: &str) -> Result<Vec<DurableSample>, StoreError>;
    /// Applies `actions` in order, all or nothing, durably before returning.
    fn apply(&mut self, actions: &[StoreAction]) -> Result<(), StoreError>;
}

/// A store could not be used.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The SQLite operation named failed.
    #[cfg(feature = "sqlite")]
    Sqlite(&'static str, rusqlite::Error),
    /// This build has no store (the `sqlite` feature is off), so PERSISTENT durability is
    /// unavailable.
    #[cfg(not(feature = "sqlite"))]
    Unavailable,
    /// The file holds a schema version this build does not know.
    Schema(i64),
    /// A value does not fit the store's column.
    Range(&'static str),
    /// The participant's event loop stopped.
    Stopped,
    /// A store setting (QoS property) has a value that cannot be used.
    BadProperty {
        /// The property's name.
        name: &'static str,
        /// Its value.
        value: String,
    },
}

#[cfg(feature = "sqlite")]
impl StoreError {
    fn at(what: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
        move |e| StoreError::Sqlite(what, e)
    }
}

impl core::fmt::Display for StoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            #[cfg(feature = "sqlite")]
            StoreError::Sqlite(what, e) => write!(f, "durability store: {what}: {e}"),
            #[cfg(feature = "sqlite")]
            StoreError::Schema(v) => write!(
                f,
                "durability store: schema version {v} (this build reads {SCHEMA_VERSION})"
            ),
            #[cfg(not(feature = "sqlite"))]
            StoreError::Schema(v) => write!(f, "durability store: schema version {v}"),
            #[cfg(not(feature = "sqlite"))]
            StoreError::Unavailable => write!(
                f,
                "durability store: PERSISTENT durability needs siftdds built with the `sqlite` feature"
            ),
            StoreError::Range(what) => write!(f, "durability store: {what} out of range"),
            StoreError::Stopped => write!(f, "durability store: the event loop stopped"),
            StoreError::BadProperty { name, value } => {
                write!(f, "durability store: property {name}: cannot use {value:?}")
            }
        }
    }
}

impl std::error::Error for StoreError {}

impl From<RuntimeStopped> for StoreError {
    fn from(_: RuntimeStopped) -> Self {
        StoreError::Stopped
    }
}

/// Where a participant keeps its PERSISTENT samples and how much.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreConfig {
    /// The SQLite file.
    pub path: PathBuf,
    /// Bound on its size ([`DEFAULT_MAX_STORE_BYTES`] by default).
    pub max_bytes: u64,
}

impl StoreConfig {
    /// The default file of participant `participant_id` in `domain_id`, in the current
    /// directory: `siftdds-persistence-d<domain>-p<participant>.sqlite3`.
    pub fn default_for(domain_id: u32, participant_id: u16) -> Self {
        StoreConfig {
            path: PathBuf::from(format!(
                "siftdds-persistence-d{domain_id}-p{participant_id}.sqlite3"
            )),
            max_bytes: DEFAULT_MAX_STORE_BYTES,
        }
    }
}

/// A participant's store, opened at its first PERSISTENT writer. The lock is held across a
/// persistent write (on the loop, then in the store), so that the store applies the
/// participant's actions in the order the core made them.
pub struct PersistentStore {
    config: StoreConfig,
    store: Mutex<Option<Box<dyn DurableStore>>>,
}

impl PersistentStore {
    /// A store of `config`, not opened yet.
    pub fn new(config: StoreConfig) -> Self {
        PersistentStore {
            config,
            store: Mutex::new(None),
        }
    }

    /// Its configuration.
    pub fn config(&self) -> &StoreConfig {
        &self.config
    }

    fn lock(&self) -> Result<StoreGuard<'_>, StoreError> {
        // A panic while holding the lock leaves the store as SQLite left it: usable.
        let mut guard = self.store.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(self.open()?);
        }
        Ok(StoreGuard(guard))
    }

    #[cfg(feature = "sqlite")]
    fn open(&self) -> Result<Box<dyn DurableStore>, StoreError> {
        let s = SqliteStore::open(&self.config.path, self.config.max_bytes)?;
        Ok(Box::new(s))
    }

    #[cfg(not(feature = "sqlite"))]
    fn open(&self) -> Result<Box<dyn DurableStore>, StoreError> {
        Err(StoreError::Unavailable)
    }
}

struct StoreGuard<'a>(MutexGuard<'a, Option<Box<dyn DurableStore>>>);

impl StoreGuard<'_> {
    fn store(&mut self) -> &mut dyn DurableStore {
        // invariant: `lock` fills the slot before handing out a guard.
        #[allow(clippy::expect_used)]
        self.0.as_deref_mut().expect("opened by lock")
    }
}

/// A PERSISTENT write failed: the writer refused it, or it could not be stored.
#[derive(Debug)]
pub enum PersistentWriteError {
    /// As [`RuntimeHandle::write`] reports it.
    Write(WriteError),
    /// The store failed (the change may have been sent, but is not stored).
    Store(StoreError),
}

impl RuntimeHandle<Participant> {
    /// Loads `topic`'s stored history into the participant (unless it already has one) and
    /// creates a PERSISTENT writer with `create`; returns what `create` returned.
    pub fn create_persistent_writer<R, F>(
        &self,
        store: &PersistentStore,
        topic: &str,
        type_name: &str,
        limits: DurabilityService,
        create: F,
    ) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Participant, crate::time::Now) -> R + Send + 'static,
    {
        let mut guard = store.lock()?;
        let loaded = guard.store().load(topic, type_name)?;
        let (topic, type_name) = (topic.to_string(), type_name.to_string());
        let (out, actions) = self.execute(move |p, now| {
            p.restore_persistent(&topic, &type_name, limits, loaded);
            let out = create(p, now);
            (out, p.take_store_actions())
        })?;
        guard.store().apply(&actions)?;
        Ok(out)
    }

    /// A write of a PERSISTENT writer: on the loop as [`RuntimeHandle::write`] without
    /// credit (waiting up to `max_blocking` for history room), then the store actions it
    /// caused are applied and committed; returns once they are.
    pub fn write_persistent(
        &self,
        store: &PersistentStore,
        writer: Guid,
        request: WriteRequest,
        max_blocking: Duration,
    ) -> Result<(), PersistentWriteError> {
        let mut guard = store.lock().map_err(PersistentWriteError::Store)?;
        let actions = self
            .write_waiting(
                writer,
                request,
                max_blocking,
                Participant::take_store_actions,
            )
            .map_err(|e| PersistentWriteError::Store(e.into()))?
            .map_err(PersistentWriteError::Write)?;
        guard
            .store()
            .apply(&actions)
            .map_err(PersistentWriteError::Store)
    }
}
