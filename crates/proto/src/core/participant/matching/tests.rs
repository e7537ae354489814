use super::*;
use crate::qos::Reliability;
use crate::types::xtypes::TypeRepresentation;

const W: Guid = Guid::new(
    crate::wire::GuidPrefix([1; 12]),
    EntityId([0, 0, 1, EntityId::KIND_WRITER_WITH_KEY]),
);
const R: Guid = Guid::new(
    crate::wire::GuidPrefix([2; 12]),
    EntityId([0, 0, 1, EntityId::KIND_READER_WITH_KEY]),
);

fn writer(topic: &str, qos: DataWriterQos) -> Side<DataWriterQos, PublisherQos> {
    Side::local_writer(&WriterSpec::new(topic, "T", true, qos))
}

fn reader(topic: &str, qos: DataReaderQos) -> Side<DataReaderQos, SubscriberQos> {
    Side::local_reader(&ReaderSpec::new(topic, "T", true, qos))
}

#[test]
fn other_topics_are_not_decided_and_equal_ones_match() {
    let (w, r) = (DataWriterQos::default(), DataReaderQos::default());
    assert!(
        decide(
            W,
            R,
            &writer("A", w.clone()),
            &reader("B", r.clone()),
            TypeMatch::ByName
        )
        .is_none()
    );
    let v = decide(W, R, &writer("A", w), &reader("A", r), TypeMatch::ByName).unwrap();
    assert!(v.compatible());
}

#[test]
fn an_rxo_failure_is_an_incompatibility_not_a_match() {
    let w = DataWriterQos {
        reliability: Reliability::best_effort(),
        ..DataWriterQos::default()
    };
    let r = DataReaderQos {
        reliability: Reliability::reliable(),
        ..DataReaderQos::default()
    };
    let v = decide(W, R, &writer("A", w), &reader("A", r), TypeMatch::ByName).unwrap();
    assert!(v.same_type_and_partitions);
    assert!(v.rxo.is_err());
    assert!(!v.compatible());
}

fn representation(idl: &str) -> TypeRepresentation {
    crate::idl::to_type_object::of_idl_text(idl, "P").0
}

/// Fast DDS 2.9.1's PID_TYPE_INFORMATION value for its ShapeType, as captured
/// (docs/types.md): an encapsulation header, then no DHEADER or EMHEADER.
const FASTDDS_TYPE_INFORMATION: &str = "00010000f19935bcd6dfad48151b700e94581d004c00000005000000\
    05000000708000000000000004000000000000000400000000000000040000000000000080020000000200\
    0000000000f2f6046f77e5f950be32cca83a593e002c010000050000000500000000000000000000000000\
    000000000000000000000000000000000000000000000000000000000000";

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    s.as_bytes()
        .chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect()
}

/// `decide_types` for a local reader of `local` and a remote writer announcing `information`,
/// no remote TypeObject known, fetching it `given_up` or not.
fn decide_reader(
    local: Option<&TypeRepresentation>,
    information: Option<&[u8]>,
    given_up: bool,
    enforcement: TypeConsistencyEnforcement,
) -> TypeMatch {
    let registry = TypeRegistry::default();
    let given_up = move |_: &TypeIdentifier| given_up;
    let local = LocalType {
        representation: local,
        is_reader: true,
    };
    let remote = RemoteType {
        information,
        registry: &registry,
        given_up: &given_up,
    };
    decide_types(&local, &remote, &enforcement)
}

#[test]
fn types_decide_by_name_wait_for_the_remote_type_or_compare_hashes() {
    let ours = representation("@appendable struct P { long x; };");
    let theirs = representation("@appendable struct P { long x; long y; };");
    let default = TypeConsistencyEnforcement::default();
    let (our_info, their_info) = (
        Some(ours.information_bytes.as_slice()),
        Some(theirs.information_bytes.as_slice()),
    );
    // No TypeInformation on one side: names decide.
    assert_eq!(
        decide_reader(None, their_info, false, default),
        TypeMatch::ByName
    );
    assert_eq!(
        decide_reader(Some(&ours), None, false, default),
        TypeMatch::ByName
    );
    let forced = TypeConsistencyEnforcement {
        force_type_validation: true,
        ..default
    };
    assert!(matches!(
        decide_reader(Some(&ours), None, false, forced),
        TypeMatch::NotAssignable(_)
    ));
    // The same type: matched without its TypeObject.
    assert_eq!(
        decide_reader(Some(&ours), our_info, false, default),
        TypeMatch::Assignable
    );
    // Another type: wait for its complete TypeObject, unless fetching it was given up.
    let complete = theirs.information.complete.typeid_with_size.type_id.clone();
    assert_eq!(
        decide_reader(Some(&ours), their_info, false, default),
        TypeMatch::Pending(complete)
    );
    assert_eq!(
        decide_reader(Some(&ours), their_info, true, default),
        TypeMatch::ByNameAfterLookupFailed
    );
    // Fast DDS 2.9.1's TypeInformation does not decode: names decide.
    let fastdds = hex(FASTDDS_TYPE_INFORMATION);
    assert_eq!(fastdds.len(), 144);
    assert_eq!(
        decide_reader(Some(&ours), Some(&fastdds), false, default),
        TypeMatch::ByName
    );
}
