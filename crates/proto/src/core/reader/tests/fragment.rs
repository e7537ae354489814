//! Fragment reassembly tests: shuffled DATA_FRAGs, inconsistent or oversized samples, the
//! in-flight cap and NACK_FRAG.
//!
//! Must not: sleep, open sockets or read clocks.
//!
//! RTPS 2.5 §8.3.7.3 (DataFrag), §8.3.7.8 (NackFrag), §8.4.14.1 (large data).
#![allow(clippy::arithmetic_side_effects)]

use super::*;

fn sample_bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 31 % 251) as u8).collect()
}

#[test]
fn reassembles_a_100_kb_sample_from_shuffled_fragments() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    let sample = sample_bytes(100_000);
    let size = 1_000usize;
    // Fragments in pairs (the last pair holds fragments 99 and 100), in a scrambled order,
    // with some sent twice.
    let mut order: Vec<u32> = (0..50).map(|i| (i * 17) % 50).collect();
    order.extend([3, 7, 49]);
    for pair in order {
        let start = pair * 2 + 1;
        let off = (start as usize - 1) * size;
        let end = (off + 2 * size).min(sample.len());
        r.handle_data_frag(
            at(1),
            w,
            None,
            &frag(1, start, 2, size as u16, 100_000, &sample[off..end]),
        );
    }
    let got = r.poll_sample().unwrap();
    assert_eq!(got.sequence_number, SequenceNumber(1));
    assert_eq!(got.data.as_ref(), &sample[..]);
    assert_eq!(r.poll_sample(), None);
    assert_eq!(r.counters().samples_received, 1);
    assert_eq!(r.writers[&w].reassembly.len(), 0);
}

#[test]
fn fragment_with_inconsistent_sample_size_drops_the_partial() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    let b = sample_bytes(4_000);
    r.handle_data_frag(at(1), w, None, &frag(1, 1, 1, 1_000, 3_000, &b[..1_000]));
    assert_eq!(r.writers[&w].reassembly.len(), 1);
    r.handle_data_frag(
        at(1),
        w,
        None,
        &frag(1, 2, 1, 1_000, 4_000, &b[1_000..2_000]),
    );
    assert_eq!(r.writers[&w].reassembly.len(), 0);
    assert_eq!(r.counters().malformed_fragments_dropped, 1);
    // A fragment past the sample, or with its bytes missing, is dropped too.
    r.handle_data_frag(at(1), w, None, &frag(1, 4, 1, 1_000, 3_000, &b[..1_000]));
    r.handle_data_frag(at(1), w, None, &frag(1, 1, 2, 1_000, 3_000, &b[..1_500]));
    assert_eq!(r.counters().malformed_fragments_dropped, 3);
    assert_eq!(r.poll_sample(), None);
}

#[test]
fn sample_size_above_the_limit_is_refused_without_allocating() {
    let mut c = config(true);
    c.max_sample_size = 64 * 1024;
    let mut r = matched(c, true);
    let w = writer_guid();
    r.handle_data_frag(at(1), w, None, &frag(1, 1, 1, 1_000, u32::MAX, &[0; 1_000]));
    r.handle_data_frag(
        at(1),
        w,
        None,
        &frag(2, 1, 1, 1_000, 64 * 1024 + 1, &[0; 1_000]),
    );
    assert_eq!(r.counters().oversized_samples_refused, 2);
    assert_eq!(r.writers[&w].reassembly.len(), 0, "no buffer was created");
}

#[test]
fn in_flight_cap_evicts_the_oldest_partial_sample() {
    let mut c = config(true);
    c.max_fragmented_samples_in_flight = 2;
    let mut r = matched(c, true);
    let w = writer_guid();
    for sn in 1..=3 {
        r.handle_data_frag(at(1), w, None, &frag(sn, 1, 1, 100, 200, &[0; 100]));
    }
    let p = &r.writers[&w].reassembly;
    assert_eq!(p.len(), 2);
    assert!(!p.contains(SequenceNumber(1)) && p.contains(SequenceNumber(3)));
}

#[test]
fn reassembly_budget_spans_writers_and_refuses_samples_beyond_it() {
    let mut c = config(true);
    c.max_reassembly_bytes = 10_000;
    let mut r = matched(c, true);
    // Three more writers: an attacker announcing writers to get more reassembly buffers.
    let others: Vec<Guid> = (3u8..6)
        .map(|i| Guid::new(GuidPrefix([i; 12]), EntityId([0, 0, 1, 0x02])))
        .collect();
    for g in &others {
        r.matched_writer_add(
            at(0),
            RemoteWriter {
                guid: *g,
                ..remote(true)
            },
        );
    }
    // Each first fragment claims a 4,000-octet sample: two fit the 10,000-octet budget.
    let mut first = frag(1, 1, 1, 1_000, 4_000, &[0; 1_000]);
    for g in std::iter::once(writer_guid()).chain(others.iter().copied()) {
        first.writer_id = g.entity_id;
        r.handle_data_frag(at(1), g, None, &first);
    }
    let reserved: usize = r.writers.values().map(|p| p.reassembly.bytes()).sum();
    assert_eq!(reserved, 8_000);
    assert_eq!(r.counters().reassembly_budget_refusals, 2);
    // Fragments of a sample already started are still taken.
    let mut second = frag(1, 2, 1, 1_000, 4_000, &[0; 1_000]);
    second.writer_id = writer_guid().entity_id;
    r.handle_data_frag(at(1), writer_guid(), None, &second);
    assert_eq!(r.counters().reassembly_budget_refusals, 2);
}

#[test]
fn heartbeat_shows_partial_sample_so_missing_fragments_get_a_nack_frag() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    let b = sample_bytes(400);
    r.handle_data_frag(at(1), w, None, &frag(1, 1, 1, 100, 400, &b[..100]));
    r.handle_data_frag(at(1), w, None, &frag(1, 3, 1, 100, 400, &b[200..300]));
    r.handle_heartbeat(at(2), w, &heartbeat(1, 2, 1, true));
    let (ack, nacks) = parse_ack(&r.poll_transmit(at(10)).unwrap());
    assert_eq!(ack.reader_sn_state.bitmap_base(), SequenceNumber(1));
    assert_eq!(
        missing(&ack),
        [2],
        "SN 1 is asked for by NACK_FRAG, not ACKNACK"
    );
    assert!(!ack.final_flag);
    assert_eq!(nacks.len(), 1);
    assert_eq!(nacks[0].writer_sn, SequenceNumber(1));
    let frags: Vec<u32> = nacks[0].fragment_number_state.iter().map(|f| f.0).collect();
    assert_eq!(frags, [2, 4]);
    assert_eq!(r.counters().nackfrags_sent, 1);
}

#[test]
fn fragments_in_reverse_order_reassemble_over_the_zero_filled_gap() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    let sample = sample_bytes(2_500);
    // The short last fragment first (the buffer is zero-filled up to it), then the others.
    for n in [3u32, 1, 2] {
        let off = (n as usize - 1) * 1_000;
        let end = (off + 1_000).min(sample.len());
        r.handle_data_frag(
            at(1),
            w,
            None,
            &frag(1, n, 1, 1_000, 2_500, &sample[off..end]),
        );
    }
    assert_eq!(r.poll_sample().unwrap().data.as_ref(), &sample[..]);
}

#[test]
fn next_sample_reuses_the_buffer_the_application_dropped_and_not_one_it_holds() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    let deliver = |r: &mut Reader, sn: i64, fill: u8| {
        let b = vec![fill; 3_000];
        for n in 1..=3u32 {
            let off = (n as usize - 1) * 1_000;
            r.handle_data_frag(
                at(1),
                w,
                None,
                &frag(sn, n, 1, 1_000, 3_000, &b[off..off + 1_000]),
            );
        }
        r.poll_sample().unwrap().data
    };
    let first = deliver(&mut r, 1, 1);
    let first_ptr = first.as_ptr();
    // Held by the application: not reclaimable, so not counted as ours either.
    assert_eq!(r.writers[&w].reassembly.bytes(), 0);
    let second = deliver(&mut r, 2, 2);
    assert_ne!(
        second.as_ptr(),
        first_ptr,
        "a buffer still in use is never reused"
    );
    assert!(first.iter().all(|b| *b == 1));
    drop(first);
    // Dropped by the application: the writer's spare is now only ours, and it counts.
    drop(second);
    assert_eq!(r.writers[&w].reassembly.bytes(), 6_000);
    let third = deliver(&mut r, 3, 3);
    assert_eq!(
        third.as_ptr(),
        first_ptr,
        "the oldest dropped buffer is reassembled into again"
    );
    assert!(third.iter().all(|b| *b == 3));
    assert_eq!(
        r.writers[&w].reassembly.bytes(),
        3_000,
        "the second sample's buffer is spare"
    );
}
