use super::*;

#[test]
fn router_path_round_trips_bounded() {
    let path = [1, 0xdead_beef_0042, u64::MAX];
    assert_eq!(router_path_from_octets(&router_path_octets(&path)), path);
    assert_eq!(router_path_from_octets(&[]), Vec::<u64>::new());
    assert_eq!(
        router_path_from_octets(&[0, 0, 0, 0, 0, 0, 0, 7, 9]),
        vec![7]
    );
    let long: Vec<u64> = (0..100).collect();
    let got = router_path_from_octets(&router_path_octets(&long));
    assert_eq!(got.len(), MAX_ROUTER_PATH);
    assert_eq!(got.last(), Some(&99));
    let mut too_many = router_path_octets(&long[..MAX_ROUTER_PATH]);
    too_many.extend_from_slice(&router_path_octets(&[5]));
    assert_eq!(router_path_from_octets(&too_many).len(), MAX_ROUTER_PATH);
}
