//! The DCPS reading model between siftdds endpoints over real sockets (inside the sandbox):
//! SampleInfo through dispose, rebirth and unregister; per-instance iteration; a WaitSet with
//! read, query, status and guard conditions. The vendor peers' side is
//! `vendors/instances.rs`. DDS 1.4 §2.2.2.1.6-8, §2.2.2.5.

// Real sockets in real time: a thread sleeps before it sets a guard condition, so that the
// WaitSet is already blocked when it wakes.
#![allow(clippy::disallowed_methods)]

use std::time::Duration;

use siftdds::api::{
    Condition, DataReader, DataWriter, DomainParticipant, Error, GuardCondition, InstanceHandle,
    InstanceState, StateMasks, StatusMask, ViewState, ViewStateMask, WaitSet,
};
use siftdds::qos::{DataReaderQos, DataWriterQos, History, Reliability, SubscriberQos, TopicQos};
use siftdds::types::{ShapeType, TopicType};

use crate::sandbox::may_open_sockets;

fn shape(color: &str, x: i32) -> ShapeType {
    ShapeType {
        color: color.into(),
        x,
        y: 0,
        shapesize: 30,
        additional_payload_size: vec![],
    }
}

/// A reliable KEEP_ALL writer on `a` and reader on `b`, both on "Square", matched.
fn pair(
    domain: u32,
) -> (
    DomainParticipant,
    DomainParticipant,
    DataWriter<ShapeType>,
    DataReader<ShapeType>,
) {
    let part = || {
        DomainParticipant::builder(domain)
            .announce_period(Duration::from_millis(200))
            .build()
            .unwrap()
    };
    let (a, b) = (part(), part());
    let topic = a.create_topic::<ShapeType>("Square", TopicQos::default());
    let w = a
        .create_publisher(Default::default())
        .create_datawriter(
            &topic,
            DataWriterQos {
                history: History::KeepAll,
                ..DataWriterQos::default()
            },
        )
        .unwrap();
    let r = b
        .create_subscriber(SubscriberQos::default())
        .create_datareader(
            &b.create_topic::<ShapeType>("Square", TopicQos::default()),
            DataReaderQos {
                reliability: Reliability::reliable(),
                history: History::KeepAll,
                ..DataReaderQos::default()
            },
        )
        .unwrap();
    w.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    r.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    (a, b, w, r)
}

/// Waits on a WaitSet until `n` new samples arrived in `r`, reading them (so they are READ,
/// and their instances NOT_NEW, afterwards).
fn wait_for_samples(r: &DataReader<ShapeType>, n: usize) {
    let mut ws = WaitSet::new();
    let unread = r.create_readcondition(StateMasks::NOT_READ).unwrap();
    ws.attach(&unread);
    let mut seen = 0;
    for _ in 0..50 {
        if ws.wait(Duration::from_millis(200)).is_ok() {
            seen += r.read_w_condition(&unread, usize::MAX).unwrap().len();
        }
        if seen >= n {
            return;
        }
    }
    panic!("only {seen} of {n} samples arrived");
}

#[test]
fn generations_and_view_state_follow_dispose_rebirth_and_unregister() {
    if !may_open_sockets("generations_and_view_state_follow_dispose_rebirth_and_unregister") {
        return;
    }
    let (_a, b, w, r) = pair(91);
    // An untyped reader of the same topic sees the same states (siftdds writers send
    // PID_KEY_HASH, so it knows the instances).
    let untyped = b
        .create_subscriber(SubscriberQos::default())
        .create_untyped_datareader(
            "Square",
            ShapeType::type_name(),
            true,
            DataReaderQos {
                reliability: Reliability::reliable(),
                history: History::KeepAll,
                ..DataReaderQos::default()
            },
        )
        .unwrap();
    untyped
        .wait_for_matched(1, Duration::from_secs(10))
        .unwrap();
    w.wait_for_matched(2, Duration::from_secs(10)).unwrap();
    w.write(&shape("RED", 1)).unwrap();
    w.dispose(&shape("RED", 0)).unwrap();
    w.write(&shape("RED", 2)).unwrap();
    w.unregister_instance(&shape("RED", 0)).unwrap();
    w.write(&shape("RED", 3)).unwrap();
    wait_for_samples(&r, 5);
    let all = r.take().unwrap();
    let got: Vec<(Option<i32>, u32, u32, u32, u32, u32)> = all
        .iter()
        .map(|s| {
            let i = &s.info;
            (
                s.value.as_ref().map(|v| v.x),
                i.disposed_generation_count,
                i.no_writers_generation_count,
                i.sample_rank,
                i.generation_rank,
                i.absolute_generation_rank,
            )
        })
        .collect();
    // DDS 1.4 §2.2.2.5.1.5-6: the rebirth after the dispose and after the last unregister
    // each start a generation; ranks are relative to this collection of five.
    assert_eq!(
        got,
        [
            (Some(1), 0, 0, 4, 2, 2),
            (None, 0, 0, 3, 2, 2),
            (Some(2), 1, 0, 2, 1, 1),
            (None, 1, 0, 1, 1, 1),
            (Some(3), 1, 1, 0, 0, 0),
        ],
        "{all:#?}"
    );
    assert!(
        all.iter()
            .all(|s| s.info.instance_state == InstanceState::Alive)
    );
    assert_eq!(
        all.iter().map(|s| s.info.valid_data).collect::<Vec<_>>(),
        [true, false, true, false, true]
    );
    // Acknowledged by both readers: the untyped one holds all five too.
    w.wait_for_acknowledgments(Duration::from_secs(10)).unwrap();
    let raw = untyped.take_with(StateMasks::ANY, usize::MAX).unwrap();
    let raw_generations: Vec<(bool, u32, u32)> = raw
        .iter()
        .map(|(_, i)| {
            (
                i.valid_data,
                i.disposed_generation_count,
                i.no_writers_generation_count,
            )
        })
        .collect();
    assert_eq!(
        raw_generations,
        got.iter()
            .zip(&all)
            .map(|(g, s)| (s.info.valid_data, g.1, g.2))
            .collect::<Vec<_>>()
    );
    assert!(raw.iter().all(|(_, i)| i.view_state == ViewState::New));
    // The read above was the first access (wait_for_samples read them): NOT_NEW now.
    assert!(all.iter().all(|s| s.info.view_state == ViewState::NotNew));
    // Disposed again, then reborn: NEW until read.
    w.dispose(&shape("RED", 0)).unwrap();
    w.write(&shape("RED", 4)).unwrap();
    wait_for_samples(&r, 2);
    let new = StateMasks {
        view: ViewStateMask::NEW,
        ..StateMasks::ANY
    };
    assert!(
        r.read_with(new, usize::MAX).unwrap().is_empty(),
        "read made it NOT_NEW"
    );
    let h = r.lookup_instance(&shape("RED", 99)).unwrap();
    assert_eq!(
        h,
        InstanceHandle::from_key_hash(shape("RED", 0).key_hash().unwrap())
    );
    assert_eq!(
        r.lookup_instance(&shape("PURPLE", 0)).unwrap(),
        InstanceHandle::NIL
    );
    let last = r.take_instance(h, StateMasks::ANY, 1).unwrap();
    assert_eq!(last.len(), 1, "max_samples");
    assert_eq!(last[0].info.disposed_generation_count, 1);
    assert_eq!(
        r.take_instance(h, StateMasks::ANY, 9).unwrap()[0]
            .info
            .disposed_generation_count,
        2
    );
}

#[test]
fn next_instance_iterates_in_handle_order_and_query_conditions_filter_contents() {
    if !may_open_sockets(
        "next_instance_iterates_in_handle_order_and_query_conditions_filter_contents",
    ) {
        return;
    }
    let (_a, _b, w, r) = pair(92);
    let colors = ["RED", "BLUE", "GREEN", "YELLOW"];
    let big = r
        .create_querycondition(StateMasks::NOT_READ, "x > %0 AND color <> 'BLUE'", &["5"])
        .unwrap();
    assert!(
        r.create_querycondition(StateMasks::ANY, "nosuchfield > 1", &[])
            .is_err()
    );
    let mut ws = WaitSet::new();
    ws.attach(&big);
    assert!(matches!(
        ws.wait(Duration::from_millis(100)),
        Err(Error::Timeout)
    ));
    for x in 0..10 {
        w.write(&shape(colors[x as usize % 4], x)).unwrap();
    }
    assert_eq!(ws.wait(Duration::from_secs(10)).unwrap(), [big.id()]);
    wait_for_samples(&r, 10);
    // The query: x > 5 and not BLUE, among the samples not read by it yet (the helper's
    // reads marked every sample READ, so read the ANY-state query instead).
    let any_big = r
        .create_querycondition(StateMasks::ANY, "x > %0 AND color <> 'BLUE'", &["5"])
        .unwrap();
    let mut xs: Vec<i32> = r
        .read_w_condition(&any_big, usize::MAX)
        .unwrap()
        .iter()
        .filter_map(|s| s.value.as_ref().map(|v| v.x))
        .collect();
    xs.sort();
    assert_eq!(xs, [6, 7, 8]);
    assert!(!big.trigger_value(), "every sample is READ now");
    // read_next_instance: each instance once, in handle order.
    let mut handles = Vec::new();
    let mut prev = InstanceHandle::NIL;
    loop {
        let batch = r
            .take_next_instance(prev, StateMasks::ANY, usize::MAX)
            .unwrap();
        let Some(first) = batch.first() else { break };
        let h = first.info.instance_handle;
        assert!(batch.iter().all(|s| s.info.instance_handle == h));
        handles.push(h);
        prev = h;
    }
    let mut want: Vec<InstanceHandle> = colors
        .iter()
        .map(|c| InstanceHandle::from_key_hash(shape(c, 0).key_hash().unwrap()))
        .collect();
    want.sort();
    assert_eq!(handles, want);
    assert!(r.read().unwrap().is_empty());
}

#[test]
fn status_and_guard_conditions_wake_a_waitset() {
    if !may_open_sockets("status_and_guard_conditions_wake_a_waitset") {
        return;
    }
    let (a, _b, w, r) = pair(93);
    let status = r
        .status_condition(StatusMask::DATA_AVAILABLE | StatusMask::SUBSCRIPTION_MATCHED)
        .unwrap();
    let guard = GuardCondition::new();
    let mut ws = WaitSet::new();
    ws.attach(&status);
    ws.attach(&guard);
    assert_eq!(ws.conditions(), [status.id(), guard.id()]);
    assert!(matches!(
        ws.wait(Duration::from_millis(100)),
        Err(Error::Timeout)
    ));
    // Data: DATA_AVAILABLE until read.
    w.write(&shape("RED", 1)).unwrap();
    assert_eq!(ws.wait(Duration::from_secs(10)).unwrap(), [status.id()]);
    assert_eq!(status.take_changes().unwrap(), StatusMask::DATA_AVAILABLE);
    assert_eq!(r.take().unwrap().len(), 1);
    assert!(!status.trigger_value());
    // A guard set from another thread wakes the waiting one.
    let g = guard.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        g.set_trigger_value(true);
    });
    assert_eq!(ws.wait(Duration::from_secs(10)).unwrap(), [guard.id()]);
    t.join().unwrap();
    guard.set_trigger_value(false);
    // The writer goes: SUBSCRIPTION_MATCHED changes (and NOT_ALIVE_NO_WRITERS is data).
    drop(w);
    let triggered = ws.wait(Duration::from_secs(10)).unwrap();
    assert_eq!(triggered, [status.id()]);
    let changed = status.take_changes().unwrap();
    assert!(
        changed.contains(StatusMask::SUBSCRIPTION_MATCHED),
        "{changed:?}"
    );
    assert!(ws.detach(&guard));
    assert!(!ws.detach(&guard));
    drop(a);
}
