//! Each kind of [`Error`] comes out of the call that should produce it. The calls that need a
//! participant open loopback sockets, so they run only inside `scripts/netns-run` (or with
//! loopback-only allowed) and record a skip otherwise.

use std::error::Error as _;
use std::time::Duration;

use super::*;
use crate::api::DomainParticipant;
use crate::qos::xml::QosProvider;
use crate::qos::{
    DataRepresentation, DataWriterQos, History, Length, PublisherQos, ResourceLimits,
    SubscriberQos, TopicQos,
};
use crate::transport::NetworkScope;
use crate::transport::tests::may_open_sockets;
use crate::types::ShapeType;

/// A participant on loopback in `domain`, or `None` after recording `test` as skipped.
fn participant(test: &str, domain: u32) -> Option<DomainParticipant> {
    let scope = may_open_sockets(test, false)?;
    let mut builder = DomainParticipant::builder(domain);
    if scope == NetworkScope::LoopbackOnly {
        builder = builder.loopback_only();
    }
    Some(builder.build().expect("participant"))
}

fn source_is<E: std::error::Error + 'static>(e: &Error) -> bool {
    e.source().is_some_and(|s| s.downcast_ref::<E>().is_some())
}

#[test]
fn an_inconsistent_writer_qos_is_a_configuration_error_with_the_qos_error_as_source() {
    let Some(p) = participant("inconsistent_writer_qos", 171) else {
        return;
    };
    let topic = p.create_topic::<ShapeType>("ErrSquare", TopicQos::default());
    // DDS 1.4 §2.2.3.19: KEEP_LAST depth above max_samples_per_instance is inconsistent.
    let qos = DataWriterQos {
        history: History::KeepLast(10),
        resource_limits: ResourceLimits {
            max_samples: Length::Limited(5),
            max_instances: Length::Unlimited,
            max_samples_per_instance: Length::Limited(5),
        },
        ..DataWriterQos::default()
    };
    let publisher = p.create_publisher(PublisherQos::default());
    match publisher.create_datawriter(&topic, qos) {
        Err(e @ Error::Config(ConfigError::Qos(_))) => assert!(source_is::<QosError>(&e), "{e}"),
        Err(e) => panic!("expected a QoS configuration error, got {e:?}"),
        Ok(_) => panic!("an inconsistent QoS created a writer"),
    }
}

#[test]
fn a_representation_the_type_cannot_write_is_a_configuration_error() {
    let Some(p) = participant("unsupported_representation", 172) else {
        return;
    };
    let topic = p.create_topic::<ShapeType>("ErrSquare", TopicQos::default());
    let qos = DataWriterQos {
        // DDS-XTypes 1.3 §7.6.3.1.1: id 1 is XML, which ShapeType cannot write.
        data_representation: DataRepresentation { value: vec![1] },
        ..DataWriterQos::default()
    };
    let publisher = p.create_publisher(PublisherQos::default());
    match publisher.create_datawriter(&topic, qos) {
        Err(Error::Config(ConfigError::UnsupportedDataRepresentation { id: 1, .. })) => {}
        Err(e) => panic!("expected an unsupported representation, got {e:?}"),
        Ok(_) => panic!("a writer was created for a representation its type cannot write"),
    }
}

#[test]
fn a_filter_that_does_not_type_check_is_misuse_with_the_reason_as_source() {
    let Some(p) = participant("filter_not_type_checking", 174) else {
        return;
    };
    let topic = p.create_topic::<ShapeType>("ErrSquare", TopicQos::default());
    let subscriber = p.create_subscriber(SubscriberQos::default());
    let created = subscriber.create_filtered_datareader(
        &topic,
        "ErrFiltered",
        "x = 'abc'",
        &[],
        crate::qos::DataReaderQos::default(),
    );
    match created {
        Err(e @ Error::Usage(UsageError::ContentFilter(_))) => {
            assert!(source_is::<NotFiltering>(&e), "{e}");
        }
        Err(e) => panic!("expected a content filter error, got {e:?}"),
        Ok(_) => panic!("a filter comparing an integer with a string was accepted"),
    }
}

#[test]
fn waiting_for_a_match_that_never_comes_is_a_timeout() {
    let Some(p) = participant("match_never_comes", 175) else {
        return;
    };
    let topic = p.create_topic::<ShapeType>("ErrLonelySquare", TopicQos::default());
    let publisher = p.create_publisher(PublisherQos::default());
    let writer = publisher
        .create_datawriter(&topic, DataWriterQos::default())
        .expect("writer");
    match writer.wait_for_matched(1, Duration::ZERO) {
        Err(e @ Error::Timeout) => assert!(e.source().is_none()),
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[test]
fn an_unknown_profile_is_a_configuration_error() {
    let provider = QosProvider::new();
    match DomainParticipant::builder(0).qos_profile(&provider, "NoLib::NoProfile") {
        Err(e @ Error::Config(ConfigError::Profile(_))) => {
            assert!(source_is::<QosXmlError>(&e), "{e}");
            assert!(e.to_string().contains("NoLib::NoProfile"), "{e}");
        }
        Err(e) => panic!("expected a profile error, got {e:?}"),
        Ok(_) => panic!("an unknown profile was used"),
    }
}

#[test]
fn a_missing_profile_file_is_a_configuration_error_naming_the_file() {
    let path = std::env::temp_dir().join("siftdds-no-such-profile-file.xml");
    let mut provider = QosProvider::new();
    let e = Error::from(provider.load_file(&path).expect_err("a missing file loads"));
    assert!(matches!(e, Error::Config(ConfigError::Profile(_))), "{e:?}");
    let shown = e.to_string();
    assert!(
        shown.contains("siftdds-no-such-profile-file.xml"),
        "{shown}"
    );
}

#[test]
fn a_bad_interface_selection_is_a_configuration_error_before_any_socket() {
    match DomainParticipant::builder(0)
        .interfaces(["198.18.1.0/33"])
        .build()
    {
        Err(e @ Error::Config(ConfigError::Interface(_))) => {
            assert!(source_is::<InterfaceError>(&e), "{e}");
        }
        Err(e) => panic!("expected an interface configuration error, got {e:?}"),
        Ok(_) => panic!("a malformed interface selection started a participant"),
    }
}

#[test]
fn a_full_history_is_a_peer_error_and_every_other_write_refusal_misuse() {
    let e = Error::from(WriteError::HistoryFull);
    assert!(
        matches!(e, Error::Peer(PeerError::Unacknowledged(_))),
        "{e:?}"
    );
    assert!(source_is::<WriteError>(&e));
    for refusal in [
        WriteError::TooManyInstances,
        WriteError::SampleTooLarge,
        WriteError::SequenceNumbersExhausted,
        WriteError::UnknownWriter,
        WriteError::NotInCoherentSet,
    ] {
        let e = Error::from(refusal);
        assert!(matches!(e, Error::Usage(UsageError::Write(_))), "{e:?}");
        assert!(source_is::<WriteError>(&e));
    }
}

#[test]
fn a_stopped_runtime_or_store_is_stopped_and_other_store_trouble_local_io() {
    assert!(matches!(Error::from(RuntimeStopped), Error::Stopped));
    let stopped = PersistentWriteError::Store(StoreError::Stopped);
    assert!(matches!(Error::from(stopped), Error::Stopped));
    let e = Error::from(PersistentWriteError::Store(StoreError::Range(
        "sequence number",
    )));
    assert!(matches!(e, Error::Io(IoError::Store(_))), "{e:?}");
    assert!(source_is::<StoreError>(&e));
    let e = Error::from(StoreError::BadProperty {
        name: "p",
        value: "v".into(),
    });
    assert!(
        matches!(e, Error::Config(ConfigError::StoreProperty(_))),
        "{e:?}"
    );
}

#[test]
fn a_loop_thread_that_cannot_start_is_local_io_with_the_os_error_as_source() {
    let os = std::io::Error::from(std::io::ErrorKind::OutOfMemory);
    let e = Error::from(StartError::Io(os));
    assert!(matches!(e, Error::Io(IoError::Thread(_))), "{e:?}");
    assert!(source_is::<std::io::Error>(&e));
}
