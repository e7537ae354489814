//! What `siftdds ls` and `siftdds spy` share: the observing participant, and the text and
//! JSON forms of discovered participants, writers and readers (vendor, name, addresses, main
//! QoS, content filter).
//!
//! Must not: decide what is listed or when (the commands do), or parse wire data (discovery
//! did: `siftdds::api::DiscoverySnapshot`).

use serde_json::{Value, json};
use siftdds::api::{DomainParticipant, Error};
use siftdds::core::discovery::{
    ContentFilter, ParticipantProxyData, PublicationData, SubscriptionData,
};
use siftdds::qos::{DataRepresentation, Durability, History, Ownership, ReliabilityKind};
use siftdds::types::xtypes::{TypeIdentifier, TypeInformation};
use siftdds::wire::{Guid, Locator, VendorId};

/// The options every observing command takes.
#[derive(clap::Args, Clone, Debug)]
pub struct NetworkArgs {
    /// DDS domain id.
    #[arg(short, long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=232))]
    pub domain: u32,
    /// Interfaces to use: `auto`, names, IPv4 addresses or CIDR prefixes, comma-separated
    /// (default: as SIFTDDS_INTERFACES / the sandbox decide).
    #[arg(long, value_name = "LIST")]
    pub interface: Option<String>,
}

/// A participant named `name` that only observes (it creates readers, never writers).
pub fn participant(net: &NetworkArgs, name: &str) -> Result<DomainParticipant, Error> {
    let mut b = DomainParticipant::builder(net.domain).entity_name(name);
    if let Some(list) = &net.interface {
        b = b.interfaces([list.as_str()]);
    }
    b.build()
}

/// A finite, positive number of seconds (clap value parser).
pub fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if !v.is_finite() || v <= 0.0 || v > 86_400.0 * 365.0 {
        return Err("must be a finite number of seconds above 0 (at most a year)".into());
    }
    Ok(v)
}

/// `Fast DDS`, `Cyclone DDS`, ... or the vendor id in hex.
pub fn vendor(v: VendorId) -> String {
    match v.name() {
        Some(n) => n.to_string(),
        None => format!("vendor {:02x}.{:02x}", v.0[0], v.0[1]),
    }
}

/// Locators, space-separated (`-` for none).
pub fn locators(ls: &[Locator]) -> String {
    if ls.is_empty() {
        return "-".into();
    }
    ls.iter()
        .map(Locator::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn reliability(k: ReliabilityKind) -> &'static str {
    match k {
        ReliabilityKind::Reliable => "reliable",
        ReliabilityKind::BestEffort => "best-effort",
    }
}

fn durability(d: Durability) -> &'static str {
    match d {
        Durability::Volatile => "volatile",
        Durability::TransientLocal => "transient-local",
        Durability::Transient => "transient",
        Durability::Persistent => "persistent",
    }
}

fn history(h: History) -> String {
    match h {
        History::KeepLast(n) => format!("keep-last({n})"),
        History::KeepAll => "keep-all".into(),
    }
}

fn representation(id: i16) -> String {
    match id {
        DataRepresentation::XCDR => "xcdr1".into(),
        DataRepresentation::XML => "xml".into(),
        DataRepresentation::XCDR2 => "xcdr2".into(),
        n => format!("repr{n}"),
    }
}

/// Data representations as announced; an empty list means XCDR1 (XTypes §7.6.3.1.2).
fn representations(d: &DataRepresentation) -> Vec<String> {
    if d.value.is_empty() {
        return vec![representation(DataRepresentation::XCDR)];
    }
    d.value.iter().map(|id| representation(*id)).collect()
}

/// The main QoS of an endpoint, one line.
struct MainQos {
    reliability: ReliabilityKind,
    durability: Durability,
    history: History,
    ownership: Ownership,
    strength: Option<i32>,
    partitions: Vec<String>,
    representations: Vec<String>,
}

impl MainQos {
    fn of_writer(w: &PublicationData) -> Self {
        MainQos {
            reliability: w.qos.reliability.kind,
            durability: w.qos.durability,
            history: w.qos.history,
            ownership: w.qos.ownership,
            strength: Some(w.qos.ownership_strength.value),
            partitions: w.partition.names.clone(),
            representations: representations(&w.qos.data_representation),
        }
    }

    fn of_reader(r: &SubscriptionData) -> Self {
        MainQos {
            reliability: r.qos.reliability.kind,
            durability: r.qos.durability,
            history: r.qos.history,
            ownership: r.qos.ownership,
            strength: None,
            partitions: r.partition.names.clone(),
            representations: representations(&r.qos.data_representation),
        }
    }

    fn text(&self) -> String {
        let mut s = format!(
            "{} {} {} ",
            reliability(self.reliability),
            durability(self.durability),
            history(self.history)
        );
        match (self.ownership, self.strength) {
            (Ownership::Exclusive, Some(n)) => s.push_str(&format!("exclusive({n})")),
            (Ownership::Exclusive, None) => s.push_str("exclusive"),
            (Ownership::Shared, _) => s.push_str("shared"),
        }
        s.push(' ');
        s.push_str(&self.representations.join(","));
        if !self.partitions.is_empty() {
            let quoted: Vec<String> = self.partitions.iter().map(|p| format!("{p:?}")).collect();
            s.push_str(&format!(" partitions [{}]", quoted.join(", ")));
        }
        s
    }

    fn json(&self) -> Value {
        let (kind, depth) = match self.history {
            History::KeepLast(n) => ("keep-last", Some(n)),
            History::KeepAll => ("keep-all", None),
        };
        json!({
            "reliability": reliability(self.reliability),
            "durability": durability(self.durability),
            "history": { "kind": kind, "depth": depth },
            "ownership": match self.ownership {
                Ownership::Shared => "shared",
                Ownership::Exclusive => "exclusive",
            },
            "ownership_strength": self.strength,
            "partitions": self.partitions,
            "data_representation": self.representations,
        })
    }
}

/// A participant's name, if it announced one (PID_ENTITY_NAME).
pub fn participant_name(p: &ParticipantProxyData) -> String {
    match &p.entity_name {
        Some(n) => format!("{n:?}"),
        None => "-".into(),
    }
}

/// Every address a participant announced (unicast, then multicast), each once.
pub fn participant_locators(p: &ParticipantProxyData) -> Vec<Locator> {
    let mut all = Vec::new();
    for l in p
        .metatraffic_unicast_locators
        .iter()
        .chain(&p.default_unicast_locators)
        .chain(&p.metatraffic_multicast_locators)
        .chain(&p.default_multicast_locators)
    {
        if !all.contains(l) {
            all.push(*l);
        }
    }
    all
}

/// `Fast DDS "name" udp/127.0.0.1:7412 ...`.
pub fn participant_text(p: &ParticipantProxyData) -> String {
    format!(
        "{} {} {}",
        vendor(p.vendor_id),
        participant_name(p),
        locators(&participant_locators(p))
    )
}

/// A participant as JSON.
pub fn participant_json(p: &ParticipantProxyData) -> Value {
    json!({
        "guid_prefix": p.guid_prefix.to_string(),
        "vendor_id": format!("{:02x}.{:02x}", p.vendor_id.0[0], p.vendor_id.0[1]),
        "vendor": p.vendor_id.name(),
        "name": p.entity_name,
        "domain_id": p.domain_id,
        "lease_seconds": p.lease_duration.to_std().map(|d| d.as_secs_f64()),
        "metatraffic_unicast": p.metatraffic_unicast_locators.iter().map(Locator::to_string).collect::<Vec<_>>(),
        "metatraffic_multicast": p.metatraffic_multicast_locators.iter().map(Locator::to_string).collect::<Vec<_>>(),
        "default_unicast": p.default_unicast_locators.iter().map(Locator::to_string).collect::<Vec<_>>(),
        "default_multicast": p.default_multicast_locators.iter().map(Locator::to_string).collect::<Vec<_>>(),
    })
}

/// A GUID as `prefix|entity`.
pub fn guid(g: Guid) -> String {
    format!("{}|{}", g.prefix, g.entity_id)
}

/// A writer's main QoS, one line.
pub fn writer_qos_text(w: &PublicationData) -> String {
    MainQos::of_writer(w).text()
}

/// A reader's main QoS, one line.
pub fn reader_qos_text(r: &SubscriptionData) -> String {
    MainQos::of_reader(r).text()
}

/// `DDSSQL "color = %0" ['RED'] (SquareFiltered on Square)`.
pub fn filter_text(f: &ContentFilter) -> String {
    let params: Vec<String> = f
        .expression_parameters
        .iter()
        .enumerate()
        .map(|(i, p)| format!("%{i}={p}"))
        .collect();
    let mut s = format!("{} {:?}", f.filter_class_name, f.filter_expression);
    if !params.is_empty() {
        s.push_str(&format!(" [{}]", params.join(", ")));
    }
    s.push_str(&format!(
        " (content-filtered topic {:?} on {:?})",
        f.content_filtered_topic_name, f.related_topic_name
    ));
    s
}

fn filter_json(f: &ContentFilter) -> Value {
    json!({
        "filter_class": f.filter_class_name,
        "content_filtered_topic": f.content_filtered_topic_name,
        "related_topic": f.related_topic_name,
        "expression": f.filter_expression,
        "parameters": f.expression_parameters,
    })
}

/// An identifier of a TypeInformation: `minimal <hash>` / `complete <hash>` (28 hex digits),
/// else its debug form.
fn type_id_text(id: &TypeIdentifier) -> String {
    let hex = |h: &[u8]| h.iter().map(|b| format!("{b:02x}")).collect::<String>();
    match id {
        TypeIdentifier::Minimal(h) => format!("minimal {}", hex(h)),
        TypeIdentifier::Complete(h) => format!("complete {}", hex(h)),
        other => format!("{other:?}"),
    }
}

/// What an endpoint's PID_TYPE_INFORMATION says (DDS-XTypes 1.3 §7.6.3.2.2): its minimal and
/// complete type identifiers and their dependency counts; `Null` when it announced none.
pub fn type_information_json(bytes: &Option<Vec<u8>>) -> Value {
    let Some(bytes) = bytes else {
        return Value::Null;
    };
    match TypeInformation::from_bytes(bytes, siftdds::cdr::Endianness::Little) {
        Ok(t) => json!({
            "minimal": type_id_text(&t.minimal.typeid_with_size.type_id),
            "complete": type_id_text(&t.complete.typeid_with_size.type_id),
            "dependencies": t.minimal.dependent_typeid_count,
        }),
        Err(e) => json!({ "error": e.to_string() }),
    }
}

/// One line for the tree: `types minimal … complete … (N dependencies)`, `None` without
/// PID_TYPE_INFORMATION.
pub fn type_information_text(bytes: &Option<Vec<u8>>) -> Option<String> {
    let bytes = bytes.as_ref()?;
    Some(
        match TypeInformation::from_bytes(bytes, siftdds::cdr::Endianness::Little) {
            Ok(t) => format!(
                "types {}, {} ({} dependencies)",
                type_id_text(&t.minimal.typeid_with_size.type_id),
                type_id_text(&t.complete.typeid_with_size.type_id),
                t.minimal.dependent_typeid_count
            ),
            Err(e) => format!("types: undecodable TypeInformation ({e})"),
        },
    )
}

/// A writer as JSON.
pub fn writer_json(w: &PublicationData) -> Value {
    json!({
        "guid": guid(w.guid),
        "participant": w.guid.prefix.to_string(),
        "topic": w.topic_name,
        "type": w.type_name,
        "keyed": w.guid.entity_id.kind() == siftdds::wire::EntityId::KIND_WRITER_WITH_KEY,
        "qos": MainQos::of_writer(w).json(),
        "type_information": type_information_json(&w.type_information),
        "unicast": w.unicast_locators.iter().map(Locator::to_string).collect::<Vec<_>>(),
        "multicast": w.multicast_locators.iter().map(Locator::to_string).collect::<Vec<_>>(),
    })
}

/// A reader as JSON, with its content filter (`null` when it has none).
pub fn reader_json(r: &SubscriptionData) -> Value {
    json!({
        "guid": guid(r.guid),
        "participant": r.guid.prefix.to_string(),
        "topic": r.topic_name,
        "type": r.type_name,
        "keyed": r.guid.entity_id.kind() == siftdds::wire::EntityId::KIND_READER_WITH_KEY,
        "qos": MainQos::of_reader(r).json(),
        "type_information": type_information_json(&r.type_information),
        "content_filter": r.content_filter.as_ref().map(filter_json),
        "unicast": r.unicast_locators.iter().map(Locator::to_string).collect::<Vec<_>>(),
        "multicast": r.multicast_locators.iter().map(Locator::to_string).collect::<Vec<_>>(),
    })
}
