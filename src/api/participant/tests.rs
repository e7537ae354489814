use super::*;
use crate::api::ConfigError;
use crate::runtime::InterfaceError;

fn interface_error(r: Result<DomainParticipant, Error>) -> InterfaceError {
    match r {
        Err(Error::Config(ConfigError::Interface(e))) => e,
        Err(e) => panic!("expected an interface error, got {e}"),
        Ok(_) => panic!("expected an interface error, got a participant"),
    }
}

// Both fail while parsing the selection, before the runtime is asked to open anything.
#[test]
fn a_bad_cidr_from_the_builder_fails_the_build_naming_it() {
    let r = DomainParticipant::builder(0)
        .interfaces(["lo", "198.18.1.0/33"])
        .build();
    let e = interface_error(r);
    assert_eq!(
        e.to_string(),
        "interface \"198.18.1.0/33\": bad CIDR prefix (prefix length above 32)"
    );
}

#[test]
fn a_bad_store_bound_property_fails_the_build_naming_it() {
    let mut qos = DomainParticipantQos::default();
    qos.property.set(PERSISTENCE_MAX_BYTES_PROPERTY, "lots");
    match DomainParticipant::builder(0).qos(qos).build() {
        Err(e @ Error::Config(ConfigError::StoreProperty(StoreError::BadProperty { .. }))) => {
            assert_eq!(
                e.to_string(),
                "durability store: property siftdds.durability.persistent.max_bytes: \
                 cannot use \"lots\""
            )
        }
        Err(e) => panic!("expected a store property error, got {e}"),
        Ok(_) => panic!("expected a store property error, got a participant"),
    }
}

#[test]
fn a_bad_cidr_from_the_qos_property_fails_the_build_naming_it() {
    let mut qos = DomainParticipantQos::default();
    qos.property.set(INTERFACES_PROPERTY, "B,198.18.2.0/x");
    let e = interface_error(DomainParticipant::builder(0).qos(qos).build());
    assert_eq!(e.item, "198.18.2.0/x");
    let shown = Error::from(StartError::Interface(e)).to_string();
    assert!(
        shown.starts_with("interface \"198.18.2.0/x\": bad CIDR"),
        "{shown}"
    );
}
