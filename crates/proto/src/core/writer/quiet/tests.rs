use super::*;
use crate::core::writer::tests::{acknack, at, config, drain, reader_guid, remote, write};
use crate::qos::History;

/// Drains the quiet writer as `drain` drains a bare one.
fn drain_quiet(w: &mut QuietWriter, now: Now) -> Vec<Transmit> {
    let mut out = Vec::new();
    while let Some(t) = w.poll_transmit(now) {
        out.push(t);
        assert!(out.len() < 100_000, "poll_transmit does not terminate");
    }
    out
}

/// The same inputs to a bare writer and to a quiet one, polled after each input and at
/// times with no input in between (timers come due without `handle_timeout`, as a caller
/// that polls before firing timers sees them): the same datagrams, the same timeouts.
#[test]
fn a_quiet_writer_sends_what_the_writer_sends() {
    for (reliable, history) in [
        (true, History::KeepLast(4)),
        (true, History::KeepAll),
        (false, History::KeepLast(1)),
    ] {
        let mut cfg = config();
        cfg.history = history;
        let mut bare = Writer::new(cfg.clone());
        let mut quiet = QuietWriter::new(Writer::new(cfg));
        for n in [2, 3] {
            bare.matched_reader_add(at(0), remote(n, reliable, false));
            quiet.matched_reader_add(at(0), remote(n, reliable, false));
        }
        let mut count = 0;
        for ms in 0..3_000u64 {
            let now = at(ms);
            if ms % 97 == 0 {
                let i = u32::try_from(ms).unwrap();
                write(&mut bare, now, i);
                write(&mut quiet, now, i);
            }
            // Reader 2 NACKs the lowest SN it was sent now and then: repairs come due later.
            if ms % 211 == 5 {
                count += 1;
                let last = bare.last_sn();
                let a = acknack(last.0.max(1), &[last.0.max(1)], count);
                bare.handle_acknack(now, reader_guid(2), &a);
                quiet.handle_acknack(now, reader_guid(2), &a);
            }
            assert_eq!(
                drain(&mut bare, now),
                drain_quiet(&mut quiet, now),
                "at {ms} ms"
            );
            assert_eq!(bare.poll_timeout(), quiet.poll_timeout(), "at {ms} ms");
            if bare.poll_timeout().is_some_and(|t| t <= now.mono) {
                bare.handle_timeout(now);
                quiet.handle_timeout(now);
                assert_eq!(
                    drain(&mut bare, now),
                    drain_quiet(&mut quiet, now),
                    "at {ms} ms"
                );
            }
        }
        assert_eq!(bare.counters(), quiet.counters());
    }
}

/// Quiet, the writer is skipped; any mutable access clears the mark.
#[test]
fn a_mutable_access_clears_the_mark() {
    let mut w = QuietWriter::new(Writer::new(config()));
    w.matched_reader_add(at(0), remote(2, false, false));
    drain_quiet(&mut w, at(0));
    assert!(w.quiet.is_some(), "nothing left to send: quiet");
    assert!(w.poll_transmit(at(1)).is_none());
    write(&mut w, at(1), 1);
    assert!(w.quiet.is_none(), "a write clears the mark");
    assert_eq!(drain_quiet(&mut w, at(1)).len(), 1);
    assert!(w.quiet.is_some());
}
