//! The QoS of `shape_main`'s entities: a base, then the QoS the command line names.
//!
//! The base is the QoS profile in effect (`--qos-profile Lib::Profile` from the files the
//! environment names and the `--qos-file` files, or their default profile,
//! `is_default_qos="true"`), looked up for each topic
//! name as `create_*_with_profile` does; without one it is the harness's defaults (DDS
//! defaults, readers RELIABLE). Then every QoS option the command line names overrides its
//! policy, whatever the base says: `-r`/`-b` (RELIABILITY kind), `-D`, `-k`, `-f`, `-s`, `-p`,
//! `-x`, `--lifespan`, `--time-filter`; explicit zeros switch the policy off (`-f 0`: no
//! deadline, `-s -1`: SHARED). Options not given leave the base alone, reliability included.
//!
//! Must not: touch the network. Its only I/O is reading the files named on the command line
//! or by the environment, before any entity exists; a file or profile that cannot be used is an `Err` with
//! `FILE:LINE:COL: what is wrong`.

use siftdds::qos::xml::QosProvider;
use siftdds::qos::{
    DataReaderQos, DataRepresentation, DataWriterQos, Deadline, DomainParticipantQos, Durability,
    History, Lifespan, Ownership, OwnershipStrength, Partition, PublisherQos, ReliabilityKind,
    SubscriberQos, TimeBasedFilter, TopicQos,
};

use crate::options::{DurabilityArg, Options};
use crate::presentation::PresentationArgs;

/// Where the base QoS comes from.
pub struct QosBase {
    /// The loaded files and the profile in effect (`""` = their default profile); `None`:
    /// the harness's defaults.
    profile: Option<(QosProvider, String)>,
}

impl QosBase {
    /// Loads, as RTI's tools do, the files the environment names (`SIFTDDS_QOS_PROFILES`,
    /// then `USER_QOS_PROFILES.xml` in the working directory), then the `--qos-file`s in
    /// order. `Err`: the first file that cannot be used, or an unknown `--qos-profile`, as
    /// `FILE:LINE:COL: message`.
    pub fn load(o: &Options) -> Result<QosBase, String> {
        let mut provider = QosProvider::from_environment().map_err(|e| e.to_string())?;
        if o.qos_profile.is_some()
            && o.qos_files.is_empty()
            && provider.profile_names().next().is_none()
        {
            return Err("error: --qos-profile needs a QoS file: --qos-file FILE, \
                        ./USER_QOS_PROFILES.xml or SIFTDDS_QOS_PROFILES"
                .into());
        }
        for file in &o.qos_files {
            provider.load_file(file).map_err(|e| e.to_string())?;
        }
        let name = match (&o.qos_profile, provider.default_profile()) {
            (Some(named), _) => named.clone(),
            (None, Some(_)) => String::new(),
            (None, None) => return Ok(QosBase { profile: None }),
        };
        // An unknown name or a broken base chain shows up on the first lookup: do it now.
        provider.participant_qos(&name).map_err(|e| e.to_string())?;
        Ok(QosBase {
            profile: Some((provider, name)),
        })
    }

    /// The peer groups (`<siftdds_peer_group>`, a siftdds extension) of the profile in
    /// effect; none without a profile.
    pub fn peer_groups(&self) -> Result<Vec<siftdds::api::PeerGroup>, String> {
        match &self.profile {
            Some((provider, name)) => provider.peer_groups(name).map_err(|e| e.to_string()),
            None => Ok(Vec::new()),
        }
    }

    /// Resolves, before any socket is opened, every QoS the run will use: each topic's, the
    /// publisher's or subscriber's, and each writer's or reader's, checked for consistency
    /// (DDS 1.4 §2.2.3). A broken entity-level `base_name` chain or an inconsistent QoS is
    /// then reported as the entity's creation would report it, with nothing on the network.
    pub fn preflight(&self, o: &Options, topics: &[String]) -> Result<(), String> {
        if o.publish {
            self.publisher(o)?;
        } else {
            self.subscriber(o)?;
        }
        for (i, name) in topics.iter().enumerate() {
            let bad = |kind: &str, e: siftdds::qos::QosError| {
                format!("failed to create {kind}[{i}] topic: {name}: inconsistent QoS: {e}")
            };
            self.topic(name)?
                .check_consistency()
                .map_err(|e| bad("topic", e))?;
            if o.publish {
                self.writer(o, name)?
                    .check_consistency()
                    .map_err(|e| bad("datawriter", e))?;
            } else {
                self.reader(o, name)?
                    .check_consistency()
                    .map_err(|e| bad("datareader", e))?;
            }
        }
        Ok(())
    }

    /// The harness's defaults (no profile).
    #[cfg(test)]
    pub fn harness() -> QosBase {
        QosBase { profile: None }
    }

    /// DomainParticipant QoS (no command-line option sets any).
    pub fn participant(&self) -> Result<DomainParticipantQos, String> {
        match &self.profile {
            Some((p, name)) => p.participant_qos(name).map_err(|e| e.to_string()),
            None => Ok(DomainParticipantQos::default()),
        }
    }

    /// Topic QoS of `topic` (no command-line option sets any).
    pub fn topic(&self, topic: &str) -> Result<TopicQos, String> {
        match &self.profile {
            Some((p, name)) => p.topic_qos(name, topic).map_err(|e| e.to_string()),
            None => Ok(TopicQos::default()),
        }
    }

    /// Publisher QoS: `-p` overrides the partition.
    pub fn publisher(&self, o: &Options) -> Result<PublisherQos, String> {
        let mut qos = match &self.profile {
            Some((p, name)) => p.publisher_qos(name).map_err(|e| e.to_string())?,
            None => PublisherQos::default(),
        };
        if let Some(name) = &o.partition {
            qos.partition = Partition::new([name.as_str()]);
        }
        if let Some(p) = PresentationArgs::from(o).policy() {
            qos.presentation = p;
        }
        Ok(qos)
    }

    /// Subscriber QoS: `-p` overrides the partition, the presentation options the
    /// presentation (`presentation.rs`).
    pub fn subscriber(&self, o: &Options) -> Result<SubscriberQos, String> {
        let mut qos = match &self.profile {
            Some((p, name)) => p.subscriber_qos(name).map_err(|e| e.to_string())?,
            None => SubscriberQos::default(),
        };
        if let Some(name) = &o.partition {
            qos.partition = Partition::new([name.as_str()]);
        }
        if let Some(p) = PresentationArgs::from(o).policy() {
            qos.presentation = p;
        }
        Ok(qos)
    }

    /// DataWriter QoS for `topic`.
    pub fn writer(&self, o: &Options, topic: &str) -> Result<DataWriterQos, String> {
        let mut qos = match &self.profile {
            Some((p, name)) => p.datawriter_qos(name, topic).map_err(|e| e.to_string())?,
            None => DataWriterQos::default(),
        };
        if let Some(reliable) = o.reliable {
            qos.reliability.kind = reliability_kind(reliable);
        }
        if let Some(d) = o.durability {
            qos.durability = durability(d);
        }
        if let Some(h) = o.history_depth.map(history) {
            qos.history = h;
        }
        if let Some(strength) = o.ownership_strength {
            (qos.ownership, qos.ownership_strength) = match u32::try_from(strength) {
                Ok(_) => (Ownership::Exclusive, OwnershipStrength { value: strength }),
                Err(_) => (Ownership::Shared, OwnershipStrength::default()),
            };
        }
        if let Some(ms) = o.deadline_ms {
            qos.deadline = Deadline {
                period: millis_or(ms, Deadline::default().period),
            };
        }
        if let Some(ms) = o.lifespan_ms {
            qos.lifespan = Lifespan {
                duration: millis_or(ms, Lifespan::default().duration),
            };
        }
        if let Some(x) = o.data_representation {
            qos.data_representation = representation(x);
        }
        Ok(qos)
    }

    /// DataReader QoS for `topic`.
    pub fn reader(&self, o: &Options, topic: &str) -> Result<DataReaderQos, String> {
        let mut qos = match &self.profile {
            Some((p, name)) => p.datareader_qos(name, topic).map_err(|e| e.to_string())?,
            None => {
                // The harness's readers are RELIABLE unless `-b`.
                let mut qos = DataReaderQos::default();
                qos.reliability.kind = ReliabilityKind::Reliable;
                qos
            }
        };
        if let Some(reliable) = o.reliable {
            qos.reliability.kind = reliability_kind(reliable);
        }
        if let Some(d) = o.durability {
            qos.durability = durability(d);
        }
        if let Some(h) = o.history_depth.map(history) {
            qos.history = h;
        }
        if let Some(strength) = o.ownership_strength {
            qos.ownership = if strength == -1 {
                Ownership::Shared
            } else {
                Ownership::Exclusive
            };
        }
        if let Some(ms) = o.deadline_ms {
            qos.deadline = Deadline {
                period: millis_or(ms, Deadline::default().period),
            };
        }
        if let Some(ms) = o.time_filter_ms {
            qos.time_based_filter = TimeBasedFilter {
                minimum_separation: millis_or(ms, zero()),
            };
        }
        if let Some(x) = o.data_representation {
            qos.data_representation = representation(x);
        }
        Ok(qos)
    }
}

fn reliability_kind(reliable: bool) -> ReliabilityKind {
    if reliable {
        ReliabilityKind::Reliable
    } else {
        ReliabilityKind::BestEffort
    }
}

fn durability(d: DurabilityArg) -> Durability {
    match d {
        DurabilityArg::Volatile => Durability::Volatile,
        DurabilityArg::TransientLocal => Durability::TransientLocal,
        // The participant's durability service (docs/durability.md).
        DurabilityArg::Transient => Durability::Transient,
        DurabilityArg::Persistent => Durability::Persistent,
    }
}

/// `-k`: 0 is KEEP_ALL, n is KEEP_LAST n.
fn history(depth: u32) -> History {
    if depth == 0 {
        History::KeepAll
    } else {
        History::KeepLast(depth)
    }
}

/// `-x 1`: XCDR, announced as the default (no PID_DATA_REPRESENTATION, so nothing changes
/// for XCDR1-only peers); `-x 2`: XCDR2 only, for writers and readers alike (as the OMG
/// harness's `shape_main` sets it).
fn representation(x: u8) -> DataRepresentation {
    if x == 2 {
        DataRepresentation::new([DataRepresentation::XCDR2])
    } else {
        DataRepresentation::default()
    }
}

fn zero() -> siftdds::time::Duration {
    siftdds::time::Duration::from_std(std::time::Duration::ZERO)
}

/// `ms` milliseconds, or `off` for 0.
fn millis_or(ms: u64, off: siftdds::time::Duration) -> siftdds::time::Duration {
    if ms == 0 {
        off
    } else {
        siftdds::time::Duration::from_std(std::time::Duration::from_millis(ms))
    }
}

#[cfg(test)]
mod tests;
