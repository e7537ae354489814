use super::*;

fn datagram(frame: u64, payload: &[u8]) -> Datagram {
    Datagram {
        frame,
        src: "127.0.0.1:7400".parse().unwrap(),
        dst: "127.0.0.1:7410".parse().unwrap(),
        payload: payload.to_vec(),
    }
}

/// RTI's 16-byte ping is a ping, not a malformed message (docs/interop-facts.md §5.11).
#[test]
fn rtis_ping_counts_as_a_ping() {
    let mut totals = Totals::default();
    let mut out = Vec::new();
    summarize(
        &datagram(1, b"RTPS\x02\x05\x01\x01NDDSPING"),
        &mut out,
        &mut totals,
    )
    .unwrap();
    summarize(
        &datagram(2, b"RTPS\x02\x05\x01\x01NDDSPONG"),
        &mut out,
        &mut totals,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("     1 127.0.0.1:7400 > 127.0.0.1:7410 PING NDDSPING (RTI"),
        "{text}"
    );
    assert_eq!((totals.pings, totals.messages, totals.malformed), (1, 1, 1));
    assert!(totals.to_string().ends_with(", pings: 1"));
}
