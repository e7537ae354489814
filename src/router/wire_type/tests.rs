use super::*;
use crate::wire::{EntityId, GuidPrefix};

fn at(ms: u64) -> Instant {
    Instant::from_nanos(ms * 1_000_000)
}

fn announced(p: u8, topic: &str, writer: bool) -> Announced {
    Announced {
        guid: Guid::new(GuidPrefix([p; 12]), EntityId([0, 0, p, 0x02])),
        topic: topic.into(),
        type_name: "T".into(),
        writer,
        type_information: vec![p],
    }
}

fn key(topic: &str) -> TypeKey {
    (topic.into(), "T".into())
}

fn all(_: &str, _: &str) -> bool {
    true
}

#[test]
fn a_writer_is_asked_before_a_reader_seen_earlier() {
    let mut w = WireTypes::new();
    w.note(at(0), SiteId(1), &[announced(1, "Sq", false)], all);
    w.note(at(5), SiteId(0), &[announced(2, "Sq", true)], all);
    let r = w.poll_request(at(5)).unwrap();
    assert_eq!(
        (r.site, r.endpoint),
        (SiteId(0), announced(2, "Sq", true).guid)
    );
    assert_eq!(r.type_information, vec![2]);
    // One request at a time per type.
    assert_eq!(w.poll_request(at(6)), None);
    assert_eq!(w.asking().count(), 1);
    // Learnt 35 ms after the writer asked was first seen; never asked again.
    assert!(r.writer);
    assert_eq!(
        w.learnt(at(40), &key("Sq"), true),
        Some(core::time::Duration::from_millis(35))
    );
    assert_eq!(w.learnt(at(41), &key("Sq"), true), None);
    w.note(at(50), SiteId(0), &[announced(3, "Sq", true)], all);
    assert_eq!(w.poll_request(at(50)), None);
    assert_eq!(w.counters().learnt, 1);
    assert_eq!(w.counters().requests, 1);
}

#[test]
fn an_unanswered_request_passes_to_the_next_endpoint_then_the_type_is_given_up_once() {
    let mut w = WireTypes::new();
    w.note(
        at(0),
        SiteId(0),
        &[announced(1, "Sq", true), announced(2, "Sq", true)],
        all,
    );
    let first = w.poll_request(at(0)).unwrap();
    assert_eq!(w.poll_timeout(), Some(at(0).saturating_add(ASK_TIMEOUT)));
    // Not yet timed out.
    assert_eq!(w.poll_request(at(7_999)), None);
    let second = w.poll_request(at(8_000)).unwrap();
    assert_ne!(first.endpoint, second.endpoint);
    // The participant refuses the second (a bound): nothing left to ask → given up, once.
    w.refused(&second.key);
    assert_eq!(w.poll_request(at(8_001)), None);
    assert_eq!(w.poll_failed(), Some(key("Sq")));
    assert_eq!(w.poll_failed(), None);
    assert_eq!(w.poll_request(at(9_000)), None);
    // Endpoints announced later are not asked: the type stays unknown.
    w.note(at(9_000), SiteId(0), &[announced(3, "Sq", true)], all);
    assert_eq!(w.poll_request(at(9_000)), None);
    let c = w.counters();
    assert_eq!((c.requests, c.unanswered, c.failed, c.learnt), (2, 2, 1, 0));
}

#[test]
fn only_wanted_types_are_followed_and_their_number_is_bounded() {
    let mut w = WireTypes::new();
    w.note(at(0), SiteId(0), &[announced(1, "Cfg", true)], |t, _| {
        t != "Cfg"
    });
    assert_eq!(w.poll_request(at(0)), None);
    let many: Vec<Announced> = (0..MAX_TRACKED_TYPES + 10)
        .map(|i| announced(1, &format!("T{i}"), true))
        .collect();
    w.note(at(0), SiteId(0), &many, all);
    assert_eq!(w.counters().untracked, 10);
    // Candidates per type are bounded too.
    let mut w = WireTypes::new();
    let same: Vec<Announced> = (0..=255u8).map(|p| announced(p, "Sq", true)).collect();
    w.note(at(0), SiteId(0), &same, all);
    let mut asked = 0;
    let mut now = 0;
    while let Some(r) = w.poll_request(at(now)) {
        asked += 1;
        w.refused(&r.key);
        now += 1;
    }
    assert_eq!(asked, MAX_ATTEMPTS_PER_TYPE);
    assert!(MAX_ATTEMPTS_PER_TYPE as usize <= MAX_CANDIDATES);
}

#[test]
fn a_type_learnt_from_a_reader_is_learnt_again_from_a_writer_that_announces_later() {
    let mut w = WireTypes::new();
    w.note(at(0), SiteId(1), &[announced(1, "Sq", false)], all);
    let r = w.poll_request(at(0)).unwrap();
    assert!(!r.writer);
    assert_eq!(
        w.learnt(at(10), &key("Sq"), false),
        Some(core::time::Duration::from_millis(10))
    );
    // Another reader does not make it asked again; a writer does.
    w.note(at(20), SiteId(1), &[announced(2, "Sq", false)], all);
    assert_eq!(w.poll_request(at(20)), None);
    w.note(at(30), SiteId(0), &[announced(3, "Sq", true)], all);
    let r = w.poll_request(at(30)).unwrap();
    assert!(r.writer);
    // The writer does not answer: the reader's type stays, nothing is reported failed.
    assert_eq!(w.poll_request(at(30 + 8_000)), None);
    assert_eq!(w.poll_failed(), None);
    // A later writer is asked and its type learnt.
    w.note(at(9_000), SiteId(0), &[announced(4, "Sq", true)], all);
    let r = w.poll_request(at(9_000)).unwrap();
    assert_eq!(r.endpoint, announced(4, "Sq", true).guid);
    assert!(w.learnt(at(9_100), &key("Sq"), true).is_some());
    assert_eq!(w.counters().learnt, 2);
}

#[test]
fn at_most_max_asking_requests_are_out_at_a_time() {
    let mut w = WireTypes::new();
    let many: Vec<Announced> = (0..MAX_ASKING + 4)
        .map(|i| announced(1, &format!("T{i}"), true))
        .collect();
    w.note(at(0), SiteId(0), &many, all);
    let out: Vec<TypeRequest> = std::iter::from_fn(|| w.poll_request(at(0))).collect();
    assert_eq!(out.len(), MAX_ASKING);
    // One answered: one more goes out; the others time out and the rest go out.
    w.learnt(at(1), &out[0].key, true);
    assert!(w.poll_request(at(1)).is_some());
    assert_eq!(w.poll_request(at(1)), None);
    let rest: Vec<TypeRequest> =
        std::iter::from_fn(|| w.poll_request(at(1).saturating_add(ASK_TIMEOUT))).collect();
    assert_eq!(rest.len(), 3);
}

#[test]
fn a_writer_announced_while_a_reader_is_asked_is_asked_at_once() {
    let mut w = WireTypes::new();
    w.note(at(0), SiteId(1), &[announced(1, "Sq", false)], all);
    let reader = w.poll_request(at(0)).unwrap();
    assert!(!reader.writer);
    // The reader's answer has not come when a writer appears: the writer is asked now, not
    // after ASK_TIMEOUT.
    w.note(at(100), SiteId(0), &[announced(2, "Sq", true)], all);
    let writer = w.poll_request(at(100)).unwrap();
    assert!(writer.writer);
    assert_eq!(writer.endpoint, announced(2, "Sq", true).guid);
    assert_eq!(w.asking().count(), 1);
    // The participant gives the writer's type up: the reader is asked again, then nothing.
    w.refused(&writer.key);
    let again = w.poll_request(at(200)).unwrap();
    assert_eq!(again.endpoint, reader.endpoint);
    assert_eq!(
        w.learnt(at(250), &key("Sq"), false),
        Some(core::time::Duration::from_millis(250))
    );
    assert_eq!(w.poll_request(at(300)), None);
}
