use super::*;

#[test]
fn every_known_id_round_trips() {
    for id in [0u16, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11] {
        let b = [(id >> 8) as u8, id as u8, 0, 0];
        let h = EncapsulationHeader::parse(&mut CdrReader::new(&b, Endianness::Big));
        let h = h.unwrap_or_else(|e| panic!("{id:#x}: {e}"));
        assert_eq!(h.id(), id);
    }
}

#[test]
fn rtps_table_10_3_erratum_ids_are_refused() {
    let b = [0x00, 0x10, 0, 0];
    assert!(EncapsulationHeader::parse(&mut CdrReader::new(&b, Endianness::Big)).is_err());
}
