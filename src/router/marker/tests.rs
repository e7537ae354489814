use super::*;

#[test]
fn round_trips_and_rejects_others() {
    let id = RouterId(0xdead_beef_0042);
    assert_eq!(router_of(&router_user_data(id)), Some(id));
    assert_eq!(router_of(b"hello"), None);
    assert_eq!(router_of(b"siftdds.router=zz"), None);
    assert_eq!(router_of(&[0xff, 0xfe]), None);
}
