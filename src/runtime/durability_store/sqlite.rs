//! The SQLite store of PERSISTENT durability: one database file (per participant, or the
//! configured path) holding the durable history of every PERSISTENT topic, as the core's
//! [`StoreAction`]s describe it; bounded by a byte budget.
//!
//! Must not: decide which samples the durability service keeps (the core's `TopicHistory`
//! does); it only applies its actions, and on its own drops the oldest rows when the file
//! would exceed its byte bound.
//!
//! Crash safety: WAL journal with `synchronous=FULL`, every [`SqliteStore::apply`] one
//! transaction, committed before it returns. Schema (version 1) in docs/durability.md.

use std::path::Path;

use bytes::Bytes;
use rusqlite::{Connection, OptionalExtension, params};

use super::{DurableStore, StoreError};
use crate::core::ChangeKind;
use crate::core::durability::{DurableSample, StoreAction};
use crate::time::Timestamp;

/// The schema version this code writes and reads (`siftdds_meta.schema_version`).
pub const SCHEMA_VERSION: i64 = 1;

/// What one row costs against the byte bound on top of its payload (key hash, names,
/// SQLite's own bookkeeping, roughly).
pub const ROW_OVERHEAD: u64 = 64;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS siftdds_meta (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS durable_sample (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    topic           TEXT    NOT NULL,
    id              INTEGER NOT NULL,
    type_name       TEXT    NOT NULL,
    kind            INTEGER NOT NULL,
    key_hash        BLOB,
    source_seconds  INTEGER NOT NULL,
    source_fraction INTEGER NOT NULL,
    data            BLOB    NOT NULL,
    UNIQUE (topic, id)
);
";

/// A PERSISTENT store in one SQLite file.
pub struct SqliteStore {
    conn: Connection,
    max_bytes: u64,
    /// Bytes the rows count against `max_bytes` (payloads plus [`ROW_OVERHEAD`] each).
    used: u64,
}

impl SqliteStore {
    /// Opens (creating if needed) the store at `path`, bounded to `max_bytes`.
    pub fn open(path: &Path, max_bytes: u64) -> Result<Self, StoreError> {
        let conn = Connection::open(path).map_err(StoreError::at("open"))?;
        // WAL keeps the last committed transaction across a crash; FULL syncs the WAL at each
        // commit, so a commit that returned survives power loss too.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(StoreError::at("journal_mode=WAL"))?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(StoreError::at("synchronous=FULL"))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(StoreError::at("busy_timeout"))?;
        conn.execute_batch(SCHEMA)
            .map_err(StoreError::at("schema"))?;
        let version: Option<i64> = conn
            .query_row(
                "SELECT value FROM siftdds_meta WHERE key = 'schema_version'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(StoreError::at("schema_version"))?;
        match version {
            None => {
                conn.execute(
                    "INSERT INTO siftdds_meta (key, value) VALUES ('schema_version', ?1)",
                    [SCHEMA_VERSION],
                )
                .map_err(StoreError::at("schema_version"))?;
            }
            Some(SCHEMA_VERSION) => {}
            Some(v) => return Err(StoreError::Schema(v)),
        }
        let used: i64 = conn
            .query_row(
                "SELECT COALESCE(SUM(length(data)), 0) + ?1 * COUNT(*) FROM durable_sample",
                [ROW_OVERHEAD as i64],
                |r| r.get(0),
            )
            .map_err(StoreError::at("size"))?;
        let mut store = SqliteStore {
            conn,
            max_bytes,
            used: u64::try_from(used).unwrap_or(0),
        };
        // A store written under a larger bound is trimmed now.
        let tx = store.conn.transaction().map_err(StoreError::at("begin"))?;
        let used = trim(&tx, store.used, store.max_bytes)?;
        tx.commit().map_err(StoreError::at("commit"))?;
        store.used = used;
        Ok(store)
    }

    /// Bytes counted against the bound.
    pub fn used_bytes(&self) -> u64 {
        self.used
    }
}

impl DurableStore for SqliteStore {
    fn load(&mut self, topic: &str, type_name: &str) -> Result<Vec<DurableSample>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, kind, key_hash, source_seconds, source_fraction, data, type_name \
                 FROM durable_sample WHERE topic = ?1 ORDER BY id",
            )
            .map_err(StoreError::at("load"))?;
        let rows = stmt
            .query_map([topic], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, Option<Vec<u8>>>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, Vec<u8>>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })
            .map_err(StoreError::at("load"))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, kind, key_hash, seconds, fraction, data, stored_type) =
                row.map_err(StoreError::at("load"))?;
            let sample = (|| {
                if stored_type != type_name {
                    return None;
                }
                Some(DurableSample {
                    id: u64::try_from(id).ok()?,
                    kind: kind_from(kind)?,
                    key_hash: match key_hash {
                        Some(k) => Some(<[u8; 16]>::try_from(k.as_slice()).ok()?),
                        None => None,
                    },
                    data: Bytes::from(data),
                    source_timestamp: Timestamp {
                        seconds: i32::try_from(seconds).ok()?,
                        fraction: u32::try_from(fraction).ok()?,
                    },
                })
            })();
            match sample {
                Some(s) => out.push(s),
                None => log::warn!("durability store: row {id} of {topic:?} not usable; skipped"),
            }
        }
        Ok(out)
    }

    fn apply(&mut self, actions: &[StoreAction]) -> Result<(), StoreError> {
        if actions.is_empty() {
            return Ok(());
        }
        let tx = self.conn.transaction().map_err(StoreError::at("begin"))?;
        let mut used = self.used;
        for a in actions {
            match a {
                StoreAction::Put {
                    topic,
                    type_name,
                    sample,
                } => {
                    let s = sample;
                    let id = i64::try_from(s.id).map_err(|_| StoreError::Range("id"))?;
                    // A row of the same id (a store the core no longer knows) is replaced.
                    used = used.saturating_sub(delete(&tx, topic, id)?);
                    tx.execute(
                        "INSERT INTO durable_sample (topic, id, type_name, kind, key_hash, \
                         source_seconds, source_fraction, data) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                        params![
                            topic,
                            id,
                            type_name,
                            kind_code(s.kind),
                            s.key_hash.as_ref().map(|k| k.as_slice()),
                            s.source_timestamp.seconds,
                            s.source_timestamp.fraction,
                            s.data.as_ref(),
                        ],
                    )
                    .map_err(StoreError::at("put"))?;
                    used = used.saturating_add(cost(s.data.len()));
                }
                StoreAction::Remove { topic, id } => {
                    let id = i64::try_from(*id).map_err(|_| StoreError::Range("id"))?;
                    used = used.saturating_sub(delete(&tx, topic, id)?);
                }
            }
        }
        let used = trim(&tx, used, self.max_bytes)?;
        tx.commit().map_err(StoreError::at("commit"))?;
        self.used = used;
        Ok(())
    }
}

/// Deletes row (`topic`, `id`) if present; returns the bytes it counted.
fn delete(tx: &rusqlite::Transaction<'_>, topic: &str, id: i64) -> Result<u64, StoreError> {
    let len: Option<i64> = tx
        .query_row(
            "DELETE FROM durable_sample WHERE topic = ?1 AND id = ?2 RETURNING length(data)",
            params![topic, id],
            |r| r.get(0),
        )
        .optional()
        .map_err(StoreError::at("remove"))?;
    Ok(len.map_or(0, |l| cost(usize::try_from(l).unwrap_or(0))))
}

/// Drops the oldest rows (any topic) while `used` exceeds `max`; returns what is left.
fn trim(tx: &rusqlite::Transaction<'_>, mut used: u64, max: u64) -> Result<u64, StoreError> {
    while used > max {
        let len: Option<i64> = tx
            .query_row(
                "DELETE FROM durable_sample WHERE seq = (SELECT MIN(seq) FROM durable_sample) \
                 RETURNING length(data)",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(StoreError::at("trim"))?;
        let Some(len) = len else {
            return Ok(0);
        };
        used = used.saturating_sub(cost(usize::try_from(len).unwrap_or(0)));
        log::warn!("durability store: over its bound of {max} bytes; dropped the oldest sample");
    }
    Ok(used)
}

fn cost(payload: usize) -> u64 {
    (payload as u64).saturating_add(ROW_OVERHEAD)
}

/// `durable_sample.kind`: the PID_STATUS_INFO flags (RTPS 2.5 §9.6.4.9): 0 ALIVE,
/// 1 disposed, 2 unregistered, 3 both.
fn kind_code(kind: ChangeKind) -> i64 {
    i64::from(kind.status_info())
}

fn kind_from(code: i64) -> Option<ChangeKind> {
    let flags = u32::try_from(code).ok().filter(|f| *f <= 3)?;
    Some(ChangeKind::from_status_info(flags))
}
