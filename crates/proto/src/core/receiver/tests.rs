use super::*;
use crate::cdr::Endianness;
use crate::wire::submessage::Heartbeat;
use crate::wire::{EntityId, Header, SequenceNumber};

fn heartbeat(first: i64, last: i64) -> Heartbeat {
    Heartbeat {
        endian: Endianness::Little,
        final_flag: false,
        liveliness: false,
        reader_id: EntityId::UNKNOWN,
        writer_id: EntityId([0, 0, 1, 0x02]),
        first_sn: SequenceNumber(first),
        last_sn: SequenceNumber(last),
        count: 1,
        group_info: None,
    }
}

/// Header from participant 2, then HEARTBEATs with these (firstSN, lastSN).
fn datagram(hbs: &[(i64, i64)]) -> Vec<u8> {
    let mut buf = Vec::new();
    Header::new(GuidPrefix([2; 12])).emit(&mut buf);
    for (first, last) in hbs {
        heartbeat(*first, *last).emit(&mut buf);
    }
    buf
}

fn run(datagram: &[u8]) -> (ReceiveOutcome, Vec<(i64, i64)>) {
    let mut got = Vec::new();
    let outcome = receive(
        datagram,
        GuidPrefix([1; 12]),
        |_| false,
        |_, sm| {
            if let Submessage::Heartbeat(h) = sm {
                got.push((h.first_sn.0, h.last_sn.0));
            }
        },
    );
    (outcome, got)
}

/// docs/interop-facts.md §5.8, §5.11: what RTI Connext 6.1 sends is neither dropped nor
/// counted as malformed; what is really malformed still drops the rest of the datagram.
#[test]
fn rti_heartbeats_and_pings_are_accepted_real_garbage_is_not() {
    let (o, got) = run(&datagram(&[(90, 86), (1, 5)]));
    assert!(!o.malformed && !o.ping);
    assert_eq!(got, vec![(90, 89), (1, 5)], "RTI's range, then the rest");
    let (o, got) = run(b"RTPS\x02\x05\x01\x01NDDSPING");
    assert!(o.ping && !o.malformed);
    assert!(got.is_empty());
    let (o, got) = run(&datagram(&[(0, 5), (1, 5)]));
    assert!(o.malformed && !o.ping);
    assert!(got.is_empty(), "firstSN 0 drops the rest");
    let (o, _) = run(b"RTPS\x02\x05\x01\x01NDDSPONG");
    assert!(o.malformed && !o.ping, "16 bytes that are not the ping");
}
