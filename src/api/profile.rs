//! Entities created "with profile": their QoS comes from a named profile of a [`QosProvider`]
//! (OMG DDS-XML 1.0 §7.3.2.4), with the semantics of RTI Connext's `create_*_with_profile`.
//!
//! Must not: read files or the environment (the application builds the provider, e.g. with
//! [`QosProvider::from_environment`]), or merge QoS in any other way than the provider's
//! lookup does.
//!
//! # Overview
//! * `profile` is `"Library::Profile"`, or `""` for the provider's default profile
//!   (`is_default_qos="true"`), which is the DDS defaults when there is none.
//! * The profile's QoS of the entity's kind replaces the entity's whole QoS: policies the
//!   profile (and its `base_name` chain) does not set have their DDS default values.
//! * Topic, DataWriter and DataReader QoS are looked up for the topic's name, so a profile's
//!   `topic_filter` entries apply. As in RTI Connext, a topic's QoS is not copied into the
//!   writers and readers of that topic.
//! * Errors: an unknown profile or a profile giving an inconsistent QoS is
//!   [`ConfigError::Profile`](super::ConfigError::Profile) (displayed `file:line:col: message` when it has a place in a file);
//!   the rest is as for the plain `create_*` methods.

use super::endpoint::{DataReader, DataWriter, Publisher, Subscriber, Topic};
use super::{DomainParticipant, Error, ParticipantBuilder};
use crate::qos::xml::QosProvider;
use crate::types::TopicType;

impl ParticipantBuilder {
    /// Uses the DomainParticipant QoS of `profile` (see [`ParticipantBuilder::qos`]).
    pub fn qos_profile(self, provider: &QosProvider, profile: &str) -> Result<Self, Error> {
        let qos = provider.participant_qos(profile).map_err(Error::from)?;
        Ok(self.qos(qos))
    }
}

impl DomainParticipant {
    /// A participant in `domain_id` with the DomainParticipant QoS of `profile` and default
    /// settings otherwise (RTI `create_participant_with_profile`).
    pub fn with_profile(
        domain_id: u32,
        provider: &QosProvider,
        profile: &str,
    ) -> Result<Self, Error> {
        Self::builder(domain_id)
            .qos_profile(provider, profile)?
            .build()
    }

    /// A topic `name` of type `T` with the Topic QoS that `profile` gives `name`.
    pub fn create_topic_with_profile<T: TopicType>(
        &self,
        name: &str,
        provider: &QosProvider,
        profile: &str,
    ) -> Result<Topic<T>, Error> {
        let qos = provider.topic_qos(profile, name).map_err(Error::from)?;
        Ok(self.create_topic(name, qos))
    }

    /// A publisher with the Publisher QoS of `profile`.
    pub fn create_publisher_with_profile(
        &self,
        provider: &QosProvider,
        profile: &str,
    ) -> Result<Publisher, Error> {
        let qos = provider.publisher_qos(profile).map_err(Error::from)?;
        Ok(self.create_publisher(qos))
    }

    /// A subscriber with the Subscriber QoS of `profile`.
    pub fn create_subscriber_with_profile(
        &self,
        provider: &QosProvider,
        profile: &str,
    ) -> Result<Subscriber, Error> {
        let qos = provider.subscriber_qos(profile).map_err(Error::from)?;
        Ok(self.create_subscriber(qos))
    }
}

impl Publisher {
    /// A DataWriter on `topic` with the DataWriter QoS that `profile` gives the topic's name
    /// (RTI `create_datawriter_with_profile`).
    pub fn create_datawriter_with_profile<T: TopicType>(
        &self,
        topic: &Topic<T>,
        provider: &QosProvider,
        profile: &str,
    ) -> Result<DataWriter<T>, Error> {
        let qos = provider
            .datawriter_qos(profile, topic.name())
            .map_err(Error::from)?;
        self.create_datawriter(topic, qos)
    }
}

impl Subscriber {
    /// A DataReader on `topic` with the DataReader QoS that `profile` gives the topic's name
    /// (RTI `create_datareader_with_profile`).
    pub fn create_datareader_with_profile<T: TopicType>(
        &self,
        topic: &Topic<T>,
        provider: &QosProvider,
        profile: &str,
    ) -> Result<DataReader<T>, Error> {
        let qos = provider
            .datareader_qos(profile, topic.name())
            .map_err(Error::from)?;
        self.create_datareader(topic, qos)
    }
}
