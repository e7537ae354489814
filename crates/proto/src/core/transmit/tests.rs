use super::*;

#[test]
fn a_splice_goes_between_the_two_halves_of_the_payload() {
    let mut t = Transmit::new(Vec::new(), b"headtail".to_vec());
    assert_eq!(t.datagram().as_ref(), b"headtail");
    assert_eq!(t.parts(), [&b"headtail"[..], &[], &[]]);
    t.splice = Some(Splice {
        at: 4,
        bytes: Bytes::from_static(b"-body-"),
    });
    assert_eq!(t.len(), 14);
    assert_eq!(t.parts(), [&b"head"[..], &b"-body-"[..], &b"tail"[..]]);
    assert_eq!(t.datagram().as_ref(), b"head-body-tail");
}
