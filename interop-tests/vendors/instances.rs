//! The DCPS reading model against Cyclone DDS 0.10 and Fast DDS 2.9 writers: the vendor
//! writes RED, BLUE and GREEN, disposes RED, unregisters BLUE (autodispose off, `-a 0`) and
//! exits; our reader sees each instance ALIVE first, then RED NOT_ALIVE_DISPOSED and BLUE and
//! GREEN NOT_ALIVE_NO_WRITERS through SampleInfo, the state changes as samples with
//! valid_data false, and a WaitSet wakes on each. DDS 1.4 §2.2.2.5.1, §2.2.2.5.4, §2.2.2.5.7.

// These tests drive real vendor processes in real time, so they read the clock.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;

use siftdds::api::{
    Condition, InstanceHandle, InstanceState, InstanceStateMask, SampleInfo, StateMasks, ViewState,
    WaitSet,
};

use super::*;

/// What the reader saw of one instance over the test.
#[derive(Debug, Default)]
struct Seen {
    /// Instance states of the valid samples when first returned.
    alive_reads: Vec<InstanceState>,
    /// (instance state, kind) of each invalid sample when first returned.
    changes: Vec<(InstanceState, ChangeKind)>,
    /// View state of the first sample returned.
    first_view: Option<ViewState>,
}

/// Why nothing may arrive at all: a peer built before it had `-a` exits at once.
const STALE_PEER: &str = "peers built before their -a option exit at once: scripts/build-peers";

fn instances_from_vendor(vendor: Vendor, domain: u32) {
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reliable_reader_qos());
    let mut ws = WaitSet::new();
    let unread = r.create_readcondition(StateMasks::NOT_READ).unwrap();
    let not_alive = r
        .create_readcondition(StateMasks {
            instance: InstanceStateMask::NOT_ALIVE,
            ..StateMasks::NOT_READ
        })
        .unwrap();
    ws.attach(&unread);
    ws.attach(&not_alive);
    let peer = spawn(
        vendor,
        &argv(&format!(
            "pub -d {domain} -k 0 -n 3 -i 500 -c RED,BLUE,GREEN -x RED -u BLUE -a 0 -t 10 -l 300"
        )),
    );
    let colors = ["RED", "BLUE", "GREEN"];
    let handle = |c: &str| InstanceHandle::from_key_hash(shape(0, c).key_hash().unwrap());
    let mut seen: BTreeMap<&str, Seen> = BTreeMap::new();
    let mut wakes = 0usize;
    let mut not_alive_wakes = 0usize;
    let deadline = Instant::now() + Duration::from_secs(20);
    let done = |seen: &BTreeMap<&str, Seen>| {
        colors.iter().all(|c| {
            seen.get(c)
                .is_some_and(|s| s.changes.iter().any(|(st, _)| *st != InstanceState::Alive))
        })
    };
    while !done(&seen) && Instant::now() < deadline {
        let Ok(triggered) = ws.wait(Duration::from_millis(500)) else {
            continue;
        };
        wakes += 1;
        not_alive_wakes += usize::from(triggered.contains(&not_alive.id()));
        for s in r.read_w_condition(&unread, usize::MAX).unwrap() {
            let color = colors
                .iter()
                .find(|c| handle(c) == s.info.instance_handle)
                .copied()
                .unwrap_or("?");
            let e = seen.entry(color).or_default();
            e.first_view.get_or_insert(s.info.view_state);
            check_info(&s.info, vendor);
            if s.info.valid_data {
                e.alive_reads.push(s.info.instance_state);
            } else {
                e.changes.push((s.info.instance_state, s.kind));
            }
        }
    }
    let out = peer.output();
    drop(peer);
    eprintln!("{vendor:?}: {wakes} WaitSet wakes ({not_alive_wakes} NOT_ALIVE), {seen:?}");
    let ctx = format!("{vendor:?}: {seen:#?}\n{out}");
    for c in colors {
        let s = seen
            .get(c)
            .unwrap_or_else(|| panic!("{c} never seen ({STALE_PEER}): {ctx}"));
        assert_eq!(s.first_view, Some(ViewState::New), "{c}: {ctx}");
        assert_eq!(
            s.alive_reads.first(),
            Some(&InstanceState::Alive),
            "{c}: {ctx}"
        );
    }
    let state_changes =
        |c: &str| -> Vec<InstanceState> { seen[c].changes.iter().map(|(s, _)| *s).collect() };
    assert!(
        state_changes("RED").contains(&InstanceState::NotAliveDisposed),
        "RED: {ctx}"
    );
    assert!(
        seen["RED"]
            .changes
            .iter()
            .any(|(_, k)| *k == ChangeKind::NotAliveDisposed),
        "RED: {ctx}"
    );
    assert!(
        state_changes("BLUE").contains(&InstanceState::NotAliveNoWriters),
        "BLUE: {ctx}"
    );
    assert!(
        seen["BLUE"]
            .changes
            .iter()
            .any(|(_, k)| *k == ChangeKind::NotAliveUnregistered),
        "BLUE: {ctx}"
    );
    assert!(
        state_changes("GREEN").contains(&InstanceState::NotAliveNoWriters),
        "GREEN: {ctx}"
    );
    // The state changes woke the WaitSet through the NOT_ALIVE condition: RED's dispose and
    // BLUE's unregister (sent back to back, they may share a wake), then GREEN's loss of its
    // writer at the peer's exit; the three valid samples, 500 ms apart, each woke it too.
    assert!(
        not_alive_wakes >= 2 && wakes >= 4,
        "wakes {wakes}/{not_alive_wakes}: {ctx}"
    );
    // The instances stay known with their final states; per-instance reads return them.
    let expect = [
        ("RED", InstanceState::NotAliveDisposed),
        ("BLUE", InstanceState::NotAliveNoWriters),
        ("GREEN", InstanceState::NotAliveNoWriters),
    ];
    for (c, state) in expect {
        let h = r.lookup_instance(&shape(0, c)).unwrap();
        assert_eq!(h, handle(c), "{c}: {ctx}");
        let all = r.read_instance(h, StateMasks::ANY, usize::MAX).unwrap();
        assert!(!all.is_empty(), "{c}: {ctx}");
        assert!(
            all.iter().all(|s| s.info.instance_state == state
                && s.info.view_state == ViewState::NotNew
                && s.info.sample_state == siftdds::api::SampleState::Read),
            "{c}: {all:#?}"
        );
        // Ranks relative to this collection: the last sample has rank 0.
        assert_eq!(all.last().map(|s| s.info.sample_rank), Some(0));
        assert_eq!(
            all.first().map(|s| s.info.sample_rank),
            Some(all.len() as u32 - 1)
        );
    }
    // read_next_instance walks the three in handle order.
    let mut order = Vec::new();
    let mut prev = InstanceHandle::NIL;
    while let Some(s) = r
        .read_next_instance(prev, StateMasks::ANY, usize::MAX)
        .unwrap()
        .first()
        .map(|s| s.info.instance_handle)
    {
        order.push(s);
        prev = s;
    }
    let mut want: Vec<InstanceHandle> = colors.iter().map(|c| handle(c)).collect();
    want.sort();
    assert_eq!(order, want, "{ctx}");
}

/// What holds of every SampleInfo from a vendor: no rebirths here, a writer's GUID, and a
/// source timestamp on data samples.
fn check_info(i: &SampleInfo, vendor: Vendor) {
    assert_eq!(i.disposed_generation_count, 0, "{vendor:?}: {i:?}");
    assert_eq!(i.no_writers_generation_count, 0, "{vendor:?}: {i:?}");
    assert_eq!(i.absolute_generation_rank, 0, "{vendor:?}: {i:?}");
    assert!(!i.instance_handle.is_nil(), "{vendor:?}: {i:?}");
    if i.valid_data {
        assert!(i.source_timestamp.is_some(), "{vendor:?}: {i:?}");
    }
}

#[test]
fn cyclone_instance_states_seen_through_sample_info() {
    if ready(
        "cyclone_instance_states_seen_through_sample_info",
        Vendor::Cyclone,
    ) {
        instances_from_vendor(Vendor::Cyclone, 86);
    }
}

#[test]
fn fastdds_instance_states_seen_through_sample_info() {
    if ready(
        "fastdds_instance_states_seen_through_sample_info",
        Vendor::FastDds,
    ) {
        instances_from_vendor(Vendor::FastDds, 87);
    }
}
