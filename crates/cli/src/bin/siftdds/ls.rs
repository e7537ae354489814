//! `siftdds ls`: joins a domain for a few seconds and lists what discovery found —
//! participants (vendor, name, GUID prefix, addresses), then per topic its types, writers and
//! readers with their main QoS and each reader's content filter — as a tree a person reads,
//! or as one JSON document (`--json`). Exit 0 (also when the domain is empty), 2 on a set-up
//! error.
//!
//! Must not: create writers or readers (it only listens to SPDP/SEDP), or format QoS itself
//! (`observe.rs` does, for `spy` too).

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::json;
use siftdds::api::DiscoverySnapshot;
use siftdds::core::discovery::{PublicationData, SubscriptionData};

use crate::observe::{self, NetworkArgs};

/// `siftdds ls`: list the participants, topics, writers and readers of a domain.
#[derive(clap::Args, Clone, Debug)]
pub struct LsArgs {
    #[command(flatten)]
    pub net: NetworkArgs,
    /// Seconds to listen before listing (SPDP announces every few seconds).
    #[arg(short, long, default_value = "3", value_parser = observe::seconds, value_name = "SECS", allow_negative_numbers = true)]
    pub wait: f64,
    /// One JSON document on stdout instead of the tree.
    #[arg(long)]
    pub json: bool,
}

/// Runs `siftdds ls`.
pub fn run(args: LsArgs) -> ExitCode {
    let participant = match observe::participant(&args.net, "siftdds ls") {
        Ok(p) => p,
        Err(e) => {
            eprintln!("siftdds ls: {e}");
            return ExitCode::from(2);
        }
    };
    std::thread::sleep(Duration::from_secs_f64(args.wait));
    let snapshot = match participant.discovery_snapshot() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("siftdds ls: {e}");
            return ExitCode::from(2);
        }
    };
    let out = if args.json {
        json_document(&args, &snapshot)
    } else {
        tree(&args, &snapshot)
    };
    // A closed stdout (`ls | head`) is not an error worth a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes());
    ExitCode::SUCCESS
}

/// The tree: a participants table, then topics with their writers and readers.
pub fn tree(args: &LsArgs, s: &DiscoverySnapshot) -> String {
    let topics = by_topic(s);
    let mut out = format!(
        "domain {}: {} participant(s), {} topic(s), {} writer(s), {} reader(s) after {} s\n",
        args.net.domain,
        s.participants.len(),
        topics.len(),
        s.writers.len(),
        s.readers.len(),
        args.wait
    );
    if !s.participants.is_empty() {
        out.push_str("\nPARTICIPANT                     VENDOR        NAME / ADDRESSES\n");
    }
    for p in &s.participants {
        out.push_str(&format!(
            "{:<31} {:<13} {}\n{:<46}{}\n",
            p.guid_prefix.to_string(),
            observe::vendor(p.vendor_id),
            observe::participant_name(p),
            "",
            observe::locators(&observe::participant_locators(p))
        ));
    }
    let vendor_of = |prefix| {
        s.participants
            .iter()
            .find(|p| p.guid_prefix == prefix)
            .map_or("?".to_string(), |p| observe::vendor(p.vendor_id))
    };
    for (topic, (writers, readers)) in &topics {
        let types = types_of(writers, readers);
        out.push_str(&format!("\ntopic {topic:?}  type {}\n", types.join(", ")));
        for w in writers {
            out.push_str(&format!(
                "  writer {}  {}\n         {}\n",
                observe::guid(w.guid),
                vendor_of(w.guid.prefix),
                observe::writer_qos_text(w)
            ));
        }
        for r in readers {
            out.push_str(&format!(
                "  reader {}  {}\n         {}\n",
                observe::guid(r.guid),
                vendor_of(r.guid.prefix),
                observe::reader_qos_text(r)
            ));
            if let Some(f) = &r.content_filter {
                out.push_str(&format!("         filter {}\n", observe::filter_text(f)));
            }
        }
    }
    out
}

type TopicEntry<'a> = (Vec<&'a PublicationData>, Vec<&'a SubscriptionData>);

/// The type names a topic's writers and readers announce, sorted, each once.
fn types_of<'a>(writers: &[&'a PublicationData], readers: &[&'a SubscriptionData]) -> Vec<&'a str> {
    let mut types: Vec<&str> = writers
        .iter()
        .map(|w| w.type_name.as_str())
        .chain(readers.iter().map(|r| r.type_name.as_str()))
        .collect();
    types.sort_unstable();
    types.dedup();
    types
}

/// Writers and readers grouped by topic name, in name order.
fn by_topic(s: &DiscoverySnapshot) -> BTreeMap<&str, TopicEntry<'_>> {
    let mut topics: BTreeMap<&str, TopicEntry<'_>> = BTreeMap::new();
    for w in &s.writers {
        topics.entry(&w.topic_name).or_default().0.push(w);
    }
    for r in &s.readers {
        topics.entry(&r.topic_name).or_default().1.push(r);
    }
    topics
}

/// `{"domain", "participants": [...], "topics": [{"name", "types", "writers", "readers"}]}`.
pub fn json_document(args: &LsArgs, s: &DiscoverySnapshot) -> String {
    let topics: Vec<_> = by_topic(s)
        .into_iter()
        .map(|(name, (writers, readers))| {
            let types = types_of(&writers, &readers);
            json!({
                "name": name,
                "types": types,
                "writers": writers.iter().map(|w| observe::writer_json(w)).collect::<Vec<_>>(),
                "readers": readers.iter().map(|r| observe::reader_json(r)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({
        "domain": args.net.domain,
        "waited_seconds": args.wait,
        "participants": s.participants.iter().map(observe::participant_json).collect::<Vec<_>>(),
        "topics": topics,
    });
    format!("{doc:#}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use siftdds::core::discovery::{ContentFilter, EndpointData, ParticipantProxyData};
    use siftdds::qos::{
        DataReaderQos, DataRepresentation, DataWriterQos, Durability, GroupData, History,
        Ownership, OwnershipStrength, Partition, Presentation, TopicData,
    };
    use siftdds::wire::{EntityId, Guid, GuidPrefix, Locator, VendorId};

    fn endpoint(prefix: GuidPrefix, id: [u8; 4]) -> EndpointData {
        EndpointData {
            guid: Guid::new(prefix, EntityId(id)),
            participant_guid: Guid::new(prefix, EntityId::PARTICIPANT),
            topic_name: "Square".into(),
            type_name: "ShapeType".into(),
            unicast_locators: Vec::new(),
            multicast_locators: Vec::new(),
            presentation: Presentation::default(),
            partition: Partition::new(["A*"]),
            group_data: GroupData::default(),
            topic_data: TopicData::default(),
            group_guid: None,
            type_information: None,
            router_path: Vec::new(),
            vendor_id: VendorId::RTI_CONNEXT,
        }
    }

    fn snapshot() -> DiscoverySnapshot {
        let prefix = GuidPrefix([1, 1, 0xaa, 0xbb, 0, 0, 0, 1, 0, 0, 0, 2]);
        let mut p = ParticipantProxyData::new(prefix, 3);
        p.vendor_id = VendorId::RTI_CONNEXT;
        p.entity_name = Some("shapes".into());
        p.metatraffic_unicast_locators = vec![Locator::udpv4([127, 0, 0, 1], 7410)];
        let writer = PublicationData {
            endpoint: endpoint(prefix, [0, 0, 1, 2]),
            qos: DataWriterQos {
                durability: Durability::TransientLocal,
                history: History::KeepLast(5),
                ownership: Ownership::Exclusive,
                ownership_strength: OwnershipStrength { value: 7 },
                data_representation: DataRepresentation::new([DataRepresentation::XCDR2]),
                ..DataWriterQos::default()
            },
            pgcache: None,
        };
        let reader = SubscriptionData {
            endpoint: endpoint(prefix, [0, 0, 2, 7]),
            expects_inline_qos: false,
            qos: DataReaderQos {
                history: History::KeepAll,
                ..DataReaderQos::default()
            },
            content_filter: Some(ContentFilter {
                content_filtered_topic_name: "Big".into(),
                related_topic_name: "Square".into(),
                filter_class_name: "DDSSQL".into(),
                filter_expression: "shapesize > %0".into(),
                expression_parameters: vec!["20".into()],
            }),
        };
        DiscoverySnapshot {
            participants: vec![p],
            writers: vec![writer],
            readers: vec![reader],
        }
    }

    fn args(json: bool) -> LsArgs {
        LsArgs {
            net: NetworkArgs {
                domain: 3,
                interface: None,
            },
            wait: 1.5,
            json,
        }
    }

    #[test]
    fn the_tree_shows_vendor_name_qos_and_filter() {
        let text = tree(&args(false), &snapshot());
        let want = [
            "domain 3: 1 participant(s), 1 topic(s), 1 writer(s), 1 reader(s) after 1.5 s",
            "0101aabb.00000001.00000002      RTI Connext   \"shapes\"",
            "udp/127.0.0.1:7410",
            "topic \"Square\"  type ShapeType",
            "  writer 0101aabb.00000001.00000002|00000102  RTI Connext",
            "reliable transient-local keep-last(5) exclusive(7) xcdr2 partitions [\"A*\"]",
            "best-effort volatile keep-all shared xcdr1 partitions [\"A*\"]",
            "filter DDSSQL \"shapesize > %0\" [%0=20] (content-filtered topic \"Big\" on \"Square\")",
        ];
        for line in want {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
    }

    #[test]
    fn the_json_document_parses_and_has_every_field() {
        let doc: serde_json::Value =
            serde_json::from_str(&json_document(&args(true), &snapshot())).unwrap();
        assert_eq!(doc["domain"], 3);
        assert_eq!(doc["participants"][0]["vendor"], "RTI Connext");
        assert_eq!(doc["participants"][0]["vendor_id"], "01.01");
        assert_eq!(doc["participants"][0]["domain_id"], 3);
        let topic = &doc["topics"][0];
        let w = &topic["writers"][0]["qos"];
        assert_eq!(w["ownership"], "exclusive");
        assert_eq!(w["ownership_strength"], 7);
        assert_eq!(
            w["history"],
            serde_json::json!({"kind": "keep-last", "depth": 5})
        );
        assert_eq!(w["data_representation"], serde_json::json!(["xcdr2"]));
        let r = &topic["readers"][0];
        assert_eq!(r["qos"]["history"]["depth"], serde_json::Value::Null);
        assert_eq!(r["content_filter"]["content_filtered_topic"], "Big");
        assert_eq!(r["content_filter"]["parameters"], serde_json::json!(["20"]));
        assert_eq!(r["keyed"], true);
    }
}
