//! Runtime tests over real loopback sockets: two loops exchanging unicast and SPDP-multicast
//! datagrams, commands, the manual clock, and a protocol panic. Each test asks the network
//! gate first and records a skip (printed, counted by `scripts/test`) when it may not open
//! sockets.
//!
//! Must not: send anywhere but 127.0.0.1 and the loopback multicast group; rely on sleeps
//! (every wait is a bounded `recv_timeout` on an event channel).

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

use super::*;
use crate::core::Transmit;
use crate::time::Instant;
use crate::transport::tests::may_open_sockets;
use crate::transport::{TransportConfig, UdpTransport};
use crate::wire::Locator;

/// How long any single condition may take.
const WAIT: Duration = Duration::from_secs(5);
/// How often the toy protocol resends (datagrams sent before the peer's loop runs are queued
/// by the kernel anyway; resending only makes the test robust to a lost datagram).
const RESEND: Duration = Duration::from_millis(20);

/// Something the toy protocol observed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    Datagram { source: Locator, payload: Vec<u8> },
    Timeout(Instant),
}

/// Sends each `(destinations, payload)` every [`RESEND`] and reports what it sees.
struct Pinger {
    sends: Vec<(Vec<Locator>, Vec<u8>)>,
    queue: Vec<Transmit>,
    next: Option<Instant>,
    period: Option<Duration>,
    seen: Sender<Seen>,
    timeouts: u64,
    /// Batched commands and closures that ran, in order, with the time each was given.
    log: Vec<(u64, Instant)>,
}

impl Pinger {
    fn new(sends: Vec<(Vec<Locator>, &[u8])>, first: Option<Instant>) -> (Self, Receiver<Seen>) {
        let (seen, rx) = mpsc::channel();
        let sends = sends.into_iter().map(|(d, p)| (d, p.to_vec())).collect();
        let pinger = Pinger {
            sends,
            queue: Vec::new(),
            next: first,
            period: Some(RESEND),
            seen,
            timeouts: 0,
            log: Vec::new(),
        };
        (pinger, rx)
    }
}

impl Protocol for Pinger {
    type Command = u64;

    fn handle_command(&mut self, now: Now, command: u64) {
        self.log.push((command, now.mono));
    }

    fn handle_datagram(&mut self, _now: Now, source: Locator, data: &[u8]) {
        let _ = self.seen.send(Seen::Datagram {
            source,
            payload: data.to_vec(),
        });
    }

    fn handle_timeout(&mut self, now: Now) {
        self.timeouts += 1;
        let _ = self.seen.send(Seen::Timeout(now.mono));
        for (destinations, payload) in &self.sends {
            self.queue
                .push(Transmit::new(destinations.clone(), payload.clone()));
        }
        self.next = self.period.map(|p| now.mono.saturating_add(p));
    }

    fn poll_transmit(&mut self, _now: Now) -> Option<Transmit> {
        self.queue.pop()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.next
    }
}

/// Waits until a datagram with `payload` arrives; returns its source.
fn wait_for_payload(rx: &Receiver<Seen>, payload: &[u8]) -> Locator {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(Seen::Datagram { source, payload: p }) if p == payload => return source,
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                panic!(
                    "no datagram {:?} within {WAIT:?}",
                    String::from_utf8_lossy(payload)
                )
            }
        }
    }
}

#[test]
fn two_runtimes_exchange_unicast_and_spdp_multicast() {
    let test = "two_runtimes_exchange_unicast_and_spdp_multicast";
    if may_open_sockets(test, true).is_none() {
        return;
    }
    let domain = 44;
    let ta = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    let tb = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    let a_meta = ta.metatraffic_unicast_locators()[0];
    let group = tb.metatraffic_multicast_locators()[0];
    assert_eq!(ta.metatraffic_multicast_locators(), [group]);

    let a_sends = vec![
        (tb.default_unicast_locators().to_vec(), &b"A-unicast"[..]),
        (vec![group], &b"A-multicast"[..]),
    ];
    let (pa, a_seen) = Pinger::new(a_sends, Some(Instant::ZERO));
    let (pb, b_seen) = Pinger::new(vec![(vec![a_meta], &b"B-unicast"[..])], Some(Instant::ZERO));
    let a = Runtime::spawn(pa, ta).unwrap();
    let b = Runtime::spawn(pb, tb).unwrap();

    // Both sockets of B see A: its user unicast socket and the shared SPDP group.
    assert_eq!(wait_for_payload(&b_seen, b"A-unicast"), a_meta);
    assert_eq!(wait_for_payload(&b_seen, b"A-multicast"), a_meta);
    // A hears B by unicast, and its own multicast (IP_MULTICAST_LOOP).
    assert_eq!(
        wait_for_payload(&a_seen, b"B-unicast"),
        b.locators().metatraffic_unicast[0]
    );
    assert_eq!(wait_for_payload(&a_seen, b"A-multicast"), a_meta);

    let sa = a.stats();
    assert!(
        sa.datagrams_sent >= 2 && sa.datagrams_received >= 2,
        "{sa:?}"
    );
    assert_eq!(
        (
            sa.send_errors,
            sa.destinations_skipped,
            sa.datagrams_dropped
        ),
        (0, 0, 0)
    );
    assert!(sa.bytes_sent >= 9 + 11);

    // Commands run on the loop thread with the protocol's state.
    let timeouts = a.execute(|p: &mut Pinger, _| p.timeouts).unwrap();
    assert!(timeouts >= 1);
    let pa = a.shutdown().expect("loop returns the protocol");
    assert!(pa.timeouts >= timeouts);
    drop(b); // Drop stops and joins too.
}

#[test]
fn manual_clock_drives_timeouts_and_commands() {
    let test = "manual_clock_drives_timeouts_and_commands";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let transport = UdpTransport::open(&TransportConfig::new(45)).unwrap();
    let clock = ManualClock::new(Instant::ZERO, 1_000_000_000);
    let due = Instant::from_nanos(1_000_000_000);
    let (mut pinger, seen) = Pinger::new(Vec::new(), Some(due));
    pinger.period = None;
    let handle = Runtime::spawn_with_clock(pinger, transport, clock.clone()).unwrap();

    // Time stands still: commands see it, and the timeout does not fire.
    let now = handle.execute(|_: &mut Pinger, now| now).unwrap();
    assert_eq!(now.mono, Instant::ZERO);
    assert_eq!(now.wall.seconds, 1);
    assert_eq!(seen.try_recv(), Err(mpsc::TryRecvError::Empty));

    clock.advance(Duration::from_secs(1));
    // Any command wakes the loop, which then sees the timeout is due.
    let now = handle.execute(|_: &mut Pinger, now| now.mono).unwrap();
    assert_eq!(now, due);
    assert_eq!(seen.recv_timeout(WAIT), Ok(Seen::Timeout(due)));
    assert_eq!(handle.shutdown().map(|p| p.timeouts), Some(1));
}

#[test]
fn a_panicking_command_stops_the_runtime_without_hanging_callers() {
    let test = "a_panicking_command_stops_the_runtime_without_hanging_callers";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let transport = UdpTransport::open(&TransportConfig::new(46)).unwrap();
    let (pinger, _seen) = Pinger::new(Vec::new(), None);
    let handle = Runtime::spawn(pinger, transport).unwrap();
    let r: Result<(), _> = handle.execute(|_: &mut Pinger, _| panic!("test panic in a command"));
    assert_eq!(r, Err(RuntimeStopped));
    assert_eq!(handle.execute(|_: &mut Pinger, _| ()), Err(RuntimeStopped));
    assert!(handle.shutdown().is_none());
}

#[test]
fn submitted_commands_run_in_order_before_a_later_execute() {
    let test = "submitted_commands_run_in_order_before_a_later_execute";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let transport = UdpTransport::open(&TransportConfig::new(142)).unwrap();
    let (pinger, _seen) = Pinger::new(Vec::new(), None);
    let handle = Runtime::spawn(pinger, transport).unwrap();
    for i in 0..100 {
        // Each sees the ones before it: timeouts counts 0, 1, 2, ...
        handle
            .submit(move |p: &mut Pinger, _| {
                assert_eq!(p.timeouts, i);
                p.timeouts += 1;
            })
            .unwrap();
    }
    assert_eq!(handle.execute(|p: &mut Pinger, _| p.timeouts), Ok(100));
}

#[test]
fn batched_commands_keep_their_order_with_other_commands_and_see_a_later_time() {
    let test = "batched_commands_keep_their_order_with_other_commands_and_see_a_later_time";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let transport = UdpTransport::open(&TransportConfig::new(184)).unwrap();
    let (pinger, _seen) = Pinger::new(Vec::new(), None);
    let clock = ManualClock::new(Instant::ZERO, 0);
    let handle = Runtime::spawn_with_clock(pinger, transport, clock.clone()).unwrap();
    let mut handed_over_at = Vec::new();
    for i in 0..3000u64 {
        handed_over_at.push(clock.now().mono);
        match i % 50 {
            // Closures and batched commands interleave: each must run in the order made.
            7 => handle
                .submit(move |p: &mut Pinger, now| p.log.push((i, now.mono)))
                .unwrap(),
            13 => handle
                .execute(move |p: &mut Pinger, now| p.log.push((i, now.mono)))
                .unwrap(),
            _ => handle.submit_command(i).unwrap(),
        }
        if i % 10 == 0 {
            clock.advance(Duration::from_micros(1));
        }
    }
    let log = handle
        .execute(|p: &mut Pinger, _| core::mem::take(&mut p.log))
        .unwrap();
    let order: Vec<u64> = log.iter().map(|(i, _)| *i).collect();
    assert_eq!(order, (0..3000).collect::<Vec<_>>());
    for ((i, ran_at), at) in log.iter().zip(&handed_over_at) {
        assert!(
            ran_at >= at,
            "command {i} ran at {ran_at:?}, handed over at {at:?}"
        );
    }
}

#[test]
fn a_timed_out_wait_never_runs_its_check_again() {
    let test = "a_timed_out_wait_never_runs_its_check_again";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let transport = UdpTransport::open(&TransportConfig::new(143)).unwrap();
    let (pinger, _seen) = Pinger::new(Vec::new(), None);
    let handle = Runtime::spawn(pinger, transport).unwrap();
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let r = std::sync::Arc::clone(&runs);
    let got = handle.wait_for(Duration::from_millis(30), move |_: &mut Pinger, _| {
        r.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        None::<()>
    });
    assert_eq!(got, Ok(None));
    let after = runs.load(std::sync::atomic::Ordering::SeqCst);
    assert!(after >= 1, "the check ran when registered");
    // Every command is a wakeup that polls the registered waits.
    for _ in 0..20 {
        handle.execute(|_: &mut Pinger, _| ()).unwrap();
    }
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), after);
    // A satisfied wait returns the check's value.
    assert_eq!(
        handle.wait_for(WAIT, |p: &mut Pinger, _| Some(p.timeouts)),
        Ok(Some(0))
    );
}

/// A wait whose timeout expires while the loop is still busy with earlier work (a CPU-starved
/// loop) is not a timeout: its check has not run yet. It runs once the loop gets to it, and
/// its result is returned (a write queued behind other work must not fail as "full").
#[test]
fn a_wait_the_loop_has_not_reached_by_its_deadline_still_runs_once() {
    let test = "a_wait_the_loop_has_not_reached_by_its_deadline_still_runs_once";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let transport = UdpTransport::open(&TransportConfig::new(146)).unwrap();
    let (pinger, _seen) = Pinger::new(Vec::new(), None);
    let handle = Runtime::spawn(pinger, transport).unwrap();
    // Keep the loop busy for 100 ms, then register a 10 ms wait behind it.
    handle
        .submit(|_: &mut Pinger, _| std::thread::sleep(Duration::from_millis(100)))
        .unwrap();
    let got = handle.wait_for(Duration::from_millis(10), |_: &mut Pinger, _| Some(7));
    assert_eq!(got, Ok(Some(7)));
    // A check that ran and said "not yet" still times out.
    let got = handle.wait_for(Duration::from_millis(10), |_: &mut Pinger, _| None::<()>);
    assert_eq!(got, Ok(None));
}

#[test]
fn a_pending_wait_is_released_when_the_loop_stops() {
    let test = "a_pending_wait_is_released_when_the_loop_stops";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let transport = UdpTransport::open(&TransportConfig::new(144)).unwrap();
    let (pinger, _seen) = Pinger::new(Vec::new(), None);
    let handle = Runtime::spawn(pinger, transport).unwrap();
    let (registered, is_registered) = mpsc::channel();
    std::thread::scope(|s| {
        let waiter = s.spawn(|| {
            handle.wait_for(Duration::from_secs(3600), move |_: &mut Pinger, _| {
                let _ = registered.send(());
                None::<()>
            })
        });
        is_registered.recv_timeout(WAIT).unwrap();
        let r: Result<(), _> =
            handle.execute(|_: &mut Pinger, _| panic!("test panic stops the loop"));
        assert_eq!(r, Err(RuntimeStopped));
        // Not Ok(None) after an hour: the wait learns that the loop is gone.
        assert_eq!(waiter.join().unwrap(), Err(RuntimeStopped));
    });
}

#[test]
fn what_the_last_command_queued_is_sent_however_the_shutdown_is_read() {
    let test = "what_the_last_command_queued_is_sent_however_the_shutdown_is_read";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let domain = 210;
    let tb = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    let to_b = tb.default_unicast_locators().to_vec();
    let (pb, b_seen) = Pinger::new(Vec::new(), None);
    let b = Runtime::spawn(pb, tb).unwrap();
    // The shutdown may reach the loop while it runs the commands just before blocking, while
    // it spins after work, or while it is blocked; each round lands wherever it lands, and
    // every round's farewell must arrive (a deleted writer's SEDP dispose is such a farewell).
    for round in 0..20u8 {
        let ta = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
        let (pa, _) = Pinger::new(Vec::new(), None);
        let a = Runtime::spawn(pa, ta).unwrap();
        if round % 2 == 1 {
            // Work first, so that the loop is spinning when the next commands come.
            a.execute(|_: &mut Pinger, _| ()).unwrap();
        }
        let destinations = to_b.clone();
        let payload = vec![b'x', round];
        let queued = payload.clone();
        a.submit(move |p: &mut Pinger, _| {
            p.queue.push(Transmit::new(destinations, queued));
        })
        .unwrap();
        drop(a.shutdown());
        wait_for_payload(&b_seen, &payload);
    }
    drop(b);
}

#[test]
fn two_protocols_share_one_loop_and_shut_down_in_either_order() {
    let test = "two_protocols_share_one_loop_and_shut_down_in_either_order";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let domain = 47;
    let ta = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    let tb = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    let (a_meta, b_user) = (
        ta.metatraffic_unicast_locators()[0],
        tb.default_unicast_locators()[0],
    );
    let (pa, a_seen) = Pinger::new(vec![(vec![b_user], &b"A-to-B"[..])], Some(Instant::ZERO));
    let (pb, b_seen) = Pinger::new(vec![(vec![a_meta], &b"B-to-A"[..])], Some(Instant::ZERO));
    let b = Runtime::spawn(pb, tb).unwrap();
    let a = b.adopt(pa, ta).unwrap();
    // Each member's sockets reach its own protocol.
    wait_for_payload(&b_seen, b"A-to-B");
    wait_for_payload(&a_seen, b"B-to-A");
    // One thread serves both, and a command one hands the other from the loop runs there.
    let on_b = b.execute(|_: &mut Pinger, _| std::thread::current().id());
    let to_b = b.command_sender();
    let on_a = a.execute(move |_: &mut Pinger, _| {
        to_b.submit_command(7).unwrap();
        std::thread::current().id()
    });
    assert_eq!(on_a.unwrap(), on_b.unwrap());
    let logged = b.wait_for(WAIT, |p: &mut Pinger, _| {
        p.log.iter().any(|(c, _)| *c == 7).then_some(())
    });
    assert_eq!(logged, Ok(Some(())));
    // The adopter leaves first: the adopted one keeps its loop and its sockets.
    let pb = b.shutdown().expect("its protocol back");
    assert!(pb.log.iter().any(|(c, _)| *c == 7));
    while a_seen.try_recv().is_ok() {}
    let (tx, rx) = mpsc::channel();
    a.execute(move |p: &mut Pinger, _| {
        p.seen = tx;
        p.sends = vec![(vec![a_meta], b"A-to-A".to_vec())];
    })
    .unwrap();
    wait_for_payload(&rx, b"A-to-A");
    let pa = a.shutdown().expect("its protocol back");
    assert!(pa.timeouts >= 1);
}

/// Polls `future` once with a waker that counts its wake-ups.
fn poll_once<F: std::future::Future + Unpin>(
    future: &mut F,
    woken: &std::sync::Arc<WakeCount>,
) -> std::task::Poll<F::Output> {
    let waker = std::task::Waker::from(std::sync::Arc::clone(woken));
    let mut cx = std::task::Context::from_waker(&waker);
    std::pin::Pin::new(future).poll(&mut cx)
}

/// A waker that counts how often it was woken.
#[derive(Default)]
struct WakeCount(std::sync::atomic::AtomicUsize);

impl std::task::Wake for WakeCount {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn an_async_wait_wakes_its_task_once_the_check_succeeds() {
    let test = "an_async_wait_wakes_its_task_once_the_check_succeeds";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let transport = UdpTransport::open(&TransportConfig::new(147)).unwrap();
    let (pinger, _seen) = Pinger::new(Vec::new(), None);
    let handle = Runtime::spawn(pinger, transport).unwrap();
    let woken = std::sync::Arc::new(WakeCount::default());
    let mut wait = handle.wait_async(|p: &mut Pinger, _| (p.timeouts >= 3).then_some(p.timeouts));
    assert!(poll_once(&mut wait, &woken).is_pending());
    for _ in 0..3 {
        // Each command is a wakeup after which the loop runs the check again.
        handle.execute(|p: &mut Pinger, _| p.timeouts += 1).unwrap();
    }
    // Polled again from another task (its waker replaces the first), it completes.
    assert_eq!(futures::executor::block_on(&mut wait), Ok(3));
    assert!(woken.0.load(std::sync::atomic::Ordering::SeqCst) <= 1);
    handle.execute(|_: &mut Pinger, _| ()).unwrap();
    assert_eq!(handle.registered_waits_for_tests(), 0);
}

#[test]
fn a_dropped_async_wait_is_withdrawn_and_its_check_never_runs_again() {
    let test = "a_dropped_async_wait_is_withdrawn_and_its_check_never_runs_again";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let transport = UdpTransport::open(&TransportConfig::new(148)).unwrap();
    let (pinger, _seen) = Pinger::new(Vec::new(), None);
    let handle = Runtime::spawn(pinger, transport).unwrap();
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let r = std::sync::Arc::clone(&runs);
    let mut wait = handle.wait_async(move |_: &mut Pinger, _| {
        r.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        None::<()>
    });
    // Nothing is registered before the first poll.
    handle.execute(|_: &mut Pinger, _| ()).unwrap();
    assert_eq!(handle.registered_waits_for_tests(), 0);
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 0);
    let woken = std::sync::Arc::new(WakeCount::default());
    assert!(poll_once(&mut wait, &woken).is_pending());
    handle.execute(|_: &mut Pinger, _| ()).unwrap();
    assert_eq!(handle.registered_waits_for_tests(), 1);
    drop(wait);
    // The withdrawal runs before the next command: the table is empty at once.
    handle.execute(|_: &mut Pinger, _| ()).unwrap();
    assert_eq!(handle.registered_waits_for_tests(), 0);
    let after = runs.load(std::sync::atomic::Ordering::SeqCst);
    for _ in 0..20 {
        handle.execute(|_: &mut Pinger, _| ()).unwrap();
    }
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), after);
}

#[test]
fn a_pending_async_wait_is_released_when_the_loop_stops() {
    let test = "a_pending_async_wait_is_released_when_the_loop_stops";
    if may_open_sockets(test, false).is_none() {
        return;
    }
    let transport = UdpTransport::open(&TransportConfig::new(149)).unwrap();
    let (pinger, _seen) = Pinger::new(Vec::new(), None);
    let handle = Runtime::spawn(pinger, transport).unwrap();
    let woken = std::sync::Arc::new(WakeCount::default());
    let mut wait = handle.wait_async(|_: &mut Pinger, _| None::<()>);
    assert!(poll_once(&mut wait, &woken).is_pending());
    let r: Result<(), _> = handle.execute(|_: &mut Pinger, _| panic!("test panic stops the loop"));
    assert_eq!(r, Err(RuntimeStopped));
    // The loop drops the wait as it stops: the task is woken, with the news.
    assert_eq!(futures::executor::block_on(wait), Err(RuntimeStopped));
}
