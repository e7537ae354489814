use super::*;

fn ts(s: i32) -> Timestamp {
    Timestamp {
        seconds: s,
        fraction: 0,
    }
}

fn admit(h: &mut TopicHistory, key: u8, n: i32) -> Vec<u64> {
    let k = Some([key; 16]);
    h.admit(ChangeKind::Alive, k, Bytes::from(vec![key]), ts(n))
        .1
}

#[test]
fn keep_last_keeps_the_newest_depth_per_instance() {
    let mut h = TopicHistory::new(
        "T",
        DurabilityService {
            history: History::KeepLast(2),
            ..DurabilityService::default()
        },
    );
    assert!(admit(&mut h, 1, 1).is_empty());
    assert!(admit(&mut h, 2, 2).is_empty());
    assert!(admit(&mut h, 1, 3).is_empty());
    assert_eq!(admit(&mut h, 1, 4), vec![1]);
    let ids: Vec<u64> = h.samples().map(|s| s.id).collect();
    assert_eq!(ids, vec![2, 3, 4]);
}

#[test]
fn max_samples_and_max_instances_evict_the_oldest() {
    let mut h = TopicHistory::new(
        "T",
        DurabilityService {
            history: History::KeepAll,
            max_samples: Length::Limited(3),
            max_instances: Length::Limited(2),
            ..DurabilityService::default()
        },
    );
    admit(&mut h, 1, 1);
    admit(&mut h, 2, 2);
    // A third instance: instance 1 (updated longest ago) goes.
    assert_eq!(admit(&mut h, 3, 3), vec![1]);
    admit(&mut h, 3, 4);
    // Four samples > 3: the oldest (instance 2's) goes.
    assert_eq!(admit(&mut h, 3, 5), vec![2]);
    assert_eq!(h.len(), 3);
}

#[test]
fn restore_continues_ids_and_trims_to_the_limits() {
    let mut h = TopicHistory::new("T", DurabilityService::default());
    let loaded = (1..=3)
        .map(|id| DurableSample {
            id,
            kind: ChangeKind::Alive,
            key_hash: None,
            data: Bytes::new(),
            source_timestamp: ts(0),
        })
        .collect();
    // KEEP_LAST(1) by default: ids 1 and 2 are trimmed.
    assert_eq!(h.restore(loaded), vec![1, 2]);
    let (s, _) = h.admit(ChangeKind::Alive, None, Bytes::new(), ts(1));
    assert_eq!(s.id, 4);
}
