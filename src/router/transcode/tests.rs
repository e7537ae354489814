use super::*;
use crate::router::keys::KeyTypes;
use crate::types::{ShapeType, TopicType};
use proptest::prelude::*;

const XCDR: i16 = 0;
const XCDR2: i16 = 2;

fn shape(color: &str) -> ShapeType {
    ShapeType {
        color: color.into(),
        x: 3,
        y: 4,
        shapesize: 30,
        ..ShapeType::default()
    }
}

fn change<'a>(
    ty: Option<&'a KeyType>,
    kind: ChangeKind,
    h: [u8; 16],
    data: &'a Bytes,
) -> Change<'a> {
    Change {
        topic: "Square",
        ty,
        keyed: true,
        kind,
        key_hash: Some(h),
        data,
    }
}

#[test]
fn a_sample_in_the_writers_representation_goes_on_as_received() {
    let t = KeyTypes::new().resolve("Square", "ShapeType").unwrap();
    let s = shape("RED");
    let x1 = Bytes::from(
        s.serialize_as(XcdrVersion::Xcdr1, Endianness::Little)
            .unwrap(),
    );
    let mut tr = Transcoder::new();
    let out = tr.payload(change(Some(&t), ChangeKind::Alive, [0; 16], &x1), XCDR);
    assert_eq!(out.as_ptr(), x1.as_ptr(), "the same bytes, not a copy");
    // XML (1) and unknown ids: as received, not counted as transcoding.
    assert_eq!(
        tr.payload(change(Some(&t), ChangeKind::Alive, [0; 16], &x1), 1),
        x1
    );
    assert_eq!(tr.counters(), TranscodeCounters::default());
}

#[test]
fn an_xcdr1_sample_reaches_an_xcdr2_writer_as_xcdr2() {
    let t = KeyTypes::new().resolve("Square", "ShapeType").unwrap();
    let s = shape("RED");
    let x1 = Bytes::from(
        s.serialize_as(XcdrVersion::Xcdr1, Endianness::Little)
            .unwrap(),
    );
    let mut tr = Transcoder::new();
    let out = tr.payload(change(Some(&t), ChangeKind::Alive, [0; 16], &x1), XCDR2);
    assert_eq!(
        &out[..],
        &s.serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
            .unwrap()[..]
    );
    assert_eq!(ShapeType::deserialize(&out).unwrap(), s);
    assert_eq!(tr.counters().transcoded, 1);
}

#[test]
fn converted_says_which_payloads_took_work_so_only_those_are_kept() {
    let t = KeyTypes::new().resolve("Square", "ShapeType").unwrap();
    let x1 = Bytes::from(
        shape("RED")
            .serialize_as(XcdrVersion::Xcdr1, Endianness::Little)
            .unwrap(),
    );
    let mut tr = Transcoder::new();
    let alive = change(Some(&t), ChangeKind::Alive, [0; 16], &x1);
    // Already in the writer's representation, or not XCDR: nothing to keep, nothing counted.
    assert_eq!(tr.converted(alive, XCDR), None);
    assert_eq!(tr.converted(alive, 1), None);
    assert_eq!(tr.counters(), TranscodeCounters::default());
    // Re-serialized, or left as is because it could not be: kept (counted once).
    assert!(tr.converted(alive, XCDR2).is_some());
    let unknown = change(None, ChangeKind::Alive, [0; 16], &x1);
    assert_eq!(tr.converted(unknown, XCDR2), Some(x1.clone()));
    assert_eq!((tr.counters().transcoded, tr.counters().as_is), (1, 1));
}

#[test]
fn an_unknown_type_or_an_undecodable_payload_goes_on_as_received_and_is_counted() {
    let t = KeyTypes::new().resolve("Square", "ShapeType").unwrap();
    let x1 = Bytes::from(
        shape("RED")
            .serialize_as(XcdrVersion::Xcdr1, Endianness::Big)
            .unwrap(),
    );
    let mut tr = Transcoder::new();
    assert_eq!(
        tr.payload(change(None, ChangeKind::Alive, [0; 16], &x1), XCDR2),
        x1
    );
    let cut = x1.slice(..7);
    assert_eq!(
        tr.payload(change(Some(&t), ChangeKind::Alive, [0; 16], &cut), XCDR2),
        cut
    );
    assert_eq!(tr.counters().as_is, 2);
    assert_eq!(tr.counters().transcoded, 0);
}

#[test]
fn a_dispose_with_the_key_hash_only_gets_the_key_of_its_instances_last_sample() {
    let t = KeyTypes::new().resolve("Square", "ShapeType").unwrap();
    let (blue, red) = (shape("BLUE"), shape("RED"));
    let mut tr = Transcoder::new();
    for s in [&blue, &red] {
        let d = Bytes::from(
            s.serialize_as(XcdrVersion::Xcdr1, Endianness::Little)
                .unwrap(),
        );
        tr.learn(change(
            Some(&t),
            ChangeKind::Alive,
            s.key_hash().unwrap(),
            &d,
        ));
    }
    assert_eq!(tr.stored_keys(), 2);
    let empty = Bytes::new();
    let h = blue.key_hash().unwrap();
    for (rep, version) in [(XCDR2, XcdrVersion::Xcdr2), (XCDR, XcdrVersion::Xcdr1)] {
        let key = tr.payload(
            change(Some(&t), ChangeKind::NotAliveDisposed, h, &empty),
            rep,
        );
        assert_eq!(
            &key[..],
            &blue.serialize_key_as(version, Endianness::Little).unwrap()[..]
        );
    }
    assert_eq!(tr.counters().keys_built, 2);
    // An instance never seen: the key hash only, counted.
    let h = shape("GREEN").key_hash().unwrap();
    let key = tr.payload(
        change(Some(&t), ChangeKind::NotAliveUnregistered, h, &empty),
        XCDR2,
    );
    assert!(key.is_empty());
    assert_eq!(tr.counters().key_unknown, 1);
}

#[test]
fn an_xcdr1_serialized_key_reaches_an_xcdr2_writer_in_cyclones_form() {
    let t = KeyTypes::new().resolve("Square", "ShapeType").unwrap();
    let s = shape("BLUE");
    let x1 = Bytes::from(
        s.serialize_key_as(XcdrVersion::Xcdr1, Endianness::Little)
            .unwrap(),
    );
    let mut tr = Transcoder::new();
    let h = s.key_hash().unwrap();
    let key = tr.payload(
        change(Some(&t), ChangeKind::NotAliveDisposed, h, &x1),
        XCDR2,
    );
    // docs/interop-facts.md §5.10: `0009 0003 05000000 424c5545 00000000`.
    let want = [&[0u8, 9, 0, 3][..], &5u32.to_le_bytes(), b"BLUE\0\0\0\0"].concat();
    assert_eq!(&key[..], &want[..]);
    assert_eq!(tr.counters().keys_transcoded, 1);
}

#[test]
fn the_key_store_is_bounded() {
    let t = KeyTypes::new().resolve("Square", "ShapeType").unwrap();
    let mut tr = Transcoder::new();
    for i in 0..MAX_STORED_KEYS + 10 {
        let s = shape(&format!("C{i}"));
        let d = Bytes::from(
            s.serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
                .unwrap(),
        );
        tr.learn(change(
            Some(&t),
            ChangeKind::Alive,
            s.key_hash().unwrap(),
            &d,
        ));
    }
    assert_eq!(tr.stored_keys(), MAX_STORED_KEYS);
    // The oldest went first.
    let empty = Bytes::new();
    let first = shape("C0").key_hash().unwrap();
    let last = shape(&format!("C{}", MAX_STORED_KEYS + 9))
        .key_hash()
        .unwrap();
    assert!(
        tr.payload(
            change(Some(&t), ChangeKind::NotAliveDisposed, first, &empty),
            XCDR
        )
        .is_empty()
    );
    assert!(
        !tr.payload(
            change(Some(&t), ChangeKind::NotAliveDisposed, last, &empty),
            XCDR
        )
        .is_empty()
    );
}

proptest! {
    /// Hostile payloads of every kind to every representation: forwarded (transcoded or as
    /// they came), never a panic.
    #[test]
    fn hostile_payloads_never_panic(
        id in 0u8..12, body in proptest::collection::vec(any::<u8>(), 0..120),
        kind in 0usize..3, rep in prop_oneof![Just(XCDR), Just(XCDR2)]
    ) {
        let t = KeyTypes::new().resolve("Square", "ShapeType").unwrap();
        let data = Bytes::from([&[0, id, 0, 0][..], &body].concat());
        let kind = [ChangeKind::Alive, ChangeKind::NotAliveDisposed, ChangeKind::NotAliveUnregistered][kind];
        let mut tr = Transcoder::new();
        tr.learn(change(Some(&t), ChangeKind::Alive, [1; 16], &data));
        let _ = tr.payload(change(Some(&t), kind, [1; 16], &data), rep);
    }
}
