use super::*;
use crate::cdr::Endianness;

#[test]
fn udpv4_round_trips_and_prints() {
    let l = Locator::udpv4([239, 255, 0, 1], 7400);
    let mut v = Vec::new();
    l.emit(&mut CdrWriter::new(&mut v, Endianness::Big));
    assert_eq!(v.len(), Locator::LEN);
    assert_eq!(
        Locator::parse(&mut CdrReader::new(&v, Endianness::Big)),
        Ok(l)
    );
    assert_eq!(l.to_string(), "udp/239.255.0.1:7400");
}
