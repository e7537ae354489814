use super::*;

#[test]
fn the_harness_sample_round_trips_in_every_encoding() {
    let s = Sample {
        id: 1,
        name: "n".into(),
        values: vec![-1, 2],
        words: vec!["a".into(), "".into()],
        inner: Inner {
            tag: 3,
            note: Some("x".into()),
        },
        grid: [[1, 2], [3, 4]],
        wide: "wΩ".into(),
        wc: 'é',
    };
    for version in [XcdrVersion::Xcdr1, XcdrVersion::Xcdr2] {
        for endian in [Endianness::Big, Endianness::Little] {
            let bytes = serialize(&s, Extensibility::Mutable, version, endian).unwrap();
            assert_eq!(super::super::deserialize::<Sample>(&bytes), Ok(s.clone()));
            round_trip(&bytes);
            for cut in 0..bytes.len() {
                round_trip(&bytes[..cut]);
            }
        }
    }
}
