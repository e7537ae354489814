//! The SQLite store on its own: schema, reopening, the byte bound, actions in order.

use bytes::Bytes;

use super::*;
use crate::core::ChangeKind;
use crate::time::Timestamp;

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("siftdds-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("store.sqlite3")
}

fn put(topic: &str, id: u64, len: usize) -> StoreAction {
    StoreAction::Put {
        topic: topic.into(),
        type_name: "ShapeType".into(),
        sample: DurableSample {
            id,
            kind: if id % 2 == 0 {
                ChangeKind::NotAliveDisposed
            } else {
                ChangeKind::Alive
            },
            key_hash: Some([id as u8; 16]),
            data: Bytes::from(vec![id as u8; len]),
            source_timestamp: Timestamp {
                seconds: 1_700_000_000,
                fraction: id as u32,
            },
        },
    }
}

fn ids(s: &mut SqliteStore, topic: &str) -> Vec<u64> {
    s.load(topic, "ShapeType")
        .unwrap()
        .iter()
        .map(|x| x.id)
        .collect()
}

#[test]
fn samples_survive_closing_and_reopening_the_store_with_every_field() {
    let path = temp_path("reopen");
    let actions = [
        put("Square", 1, 10),
        put("Square", 2, 3),
        put("Circle", 1, 5),
    ];
    {
        let mut s = SqliteStore::open(&path, DEFAULT_MAX_STORE_BYTES).unwrap();
        s.apply(&actions).unwrap();
    }
    let mut s = SqliteStore::open(&path, DEFAULT_MAX_STORE_BYTES).unwrap();
    let got = s.load("Square", "ShapeType").unwrap();
    let want: Vec<DurableSample> = actions[..2]
        .iter()
        .map(|a| match a {
            StoreAction::Put { sample, .. } => sample.clone(),
            StoreAction::Remove { .. } => unreachable!(),
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(s.used_bytes(), 18 + 3 * ROW_OVERHEAD);
    // Another type's rows of the same topic are not handed out.
    assert!(s.load("Square", "OtherType").unwrap().is_empty());
}

#[test]
fn removes_delete_and_a_put_of_a_known_id_replaces_it() {
    let path = temp_path("remove");
    let mut s = SqliteStore::open(&path, DEFAULT_MAX_STORE_BYTES).unwrap();
    s.apply(&[
        put("Square", 1, 4),
        put("Square", 2, 4),
        put("Square", 3, 4),
    ])
    .unwrap();
    let remove = StoreAction::Remove {
        topic: "Square".into(),
        id: 2,
    };
    s.apply(&[remove, put("Square", 3, 8)]).unwrap();
    assert_eq!(ids(&mut s, "Square"), vec![1, 3]);
    assert_eq!(s.used_bytes(), 12 + 2 * ROW_OVERHEAD);
}

#[test]
fn the_byte_bound_drops_the_oldest_rows_of_any_topic() {
    let path = temp_path("bound");
    let row = 100 + ROW_OVERHEAD;
    let mut s = SqliteStore::open(&path, 3 * row).unwrap();
    s.apply(&[put("Circle", 1, 100), put("Square", 1, 100)])
        .unwrap();
    s.apply(&[put("Square", 2, 100), put("Square", 3, 100)])
        .unwrap();
    assert_eq!(ids(&mut s, "Circle"), Vec::<u64>::new());
    assert_eq!(ids(&mut s, "Square"), vec![1, 2, 3]);
    assert!(s.used_bytes() <= 3 * row);
    drop(s);
    // Reopened under a smaller bound, it is trimmed at once.
    let mut s = SqliteStore::open(&path, row).unwrap();
    assert_eq!(ids(&mut s, "Square"), vec![3]);
}

#[test]
fn the_schema_is_the_documented_one_in_wal_mode() {
    let path = temp_path("schema");
    drop(SqliteStore::open(&path, DEFAULT_MAX_STORE_BYTES).unwrap());
    let c = rusqlite::Connection::open(&path).unwrap();
    let mode: String = c
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let mut stmt = c
        .prepare("SELECT name FROM pragma_table_info('durable_sample')")
        .unwrap();
    let cols: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let want = [
        "seq",
        "topic",
        "id",
        "type_name",
        "kind",
        "key_hash",
        "source_seconds",
        "source_fraction",
        "data",
    ];
    assert_eq!(cols, want);
    let v: i64 = c
        .query_row(
            "SELECT value FROM siftdds_meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(v, SCHEMA_VERSION);
}

#[test]
fn a_store_of_an_unknown_schema_version_is_refused() {
    let path = temp_path("version");
    drop(SqliteStore::open(&path, DEFAULT_MAX_STORE_BYTES).unwrap());
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute(
        "UPDATE siftdds_meta SET value = 99 WHERE key = 'schema_version'",
        [],
    )
    .unwrap();
    drop(c);
    match SqliteStore::open(&path, DEFAULT_MAX_STORE_BYTES) {
        Err(StoreError::Schema(99)) => {}
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("opened a store of schema version 99"),
    }
}
