//! `siftdds ls`: joins a domain for a few seconds and lists what discovery found —
//! participants (vendor, name, GUID prefix, addresses), then per topic its types, writers and
//! readers with their main QoS and each reader's content filter — as a tree a person reads,
//! or as one JSON document (`--json`). A writer that announces TypeInformation gets its type
//! fetched through the TypeLookup service (DDS-XTypes 1.3 §7.6.3.3) and printed as IDL.
//! Exit 0 (also when the domain is empty), 2 on a set-up error.
//!
//! Must not: create writers or readers (it only listens to SPDP/SEDP and asks TypeLookup
//! servers), or format QoS itself (`observe.rs` does, for `spy` too).

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::json;
use siftdds::api::{DiscoverySnapshot, DomainParticipant};
use siftdds::core::discovery::{PublicationData, SubscriptionData};
use siftdds::types::idl_text::to_idl;
use siftdds::wire::Guid;

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
    let idl = fetched_types(&participant, &snapshot);
    let out = if args.json {
        json_document(&args, &snapshot, &idl)
    } else {
        tree(&args, &snapshot, &idl)
    };
    // A closed stdout (`ls | head`) is not an error worth a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes());
    ExitCode::SUCCESS
}

/// How long `ls` waits for the types it asked TypeLookup servers for.
const TYPE_WAIT: Duration = Duration::from_secs(2);

/// The IDL of each writer's type that its participant's TypeLookup service gave within
/// [`TYPE_WAIT`], by writer.
fn fetched_types(p: &DomainParticipant, s: &DiscoverySnapshot) -> BTreeMap<Guid, String> {
    let mut asked = Vec::new();
    for w in &s.writers {
        let announced = w.type_information.is_some() || w.type_object_v1.is_some();
        if announced && p.request_writer_type(w.guid).unwrap_or(false) {
            asked.push(w.guid);
        }
    }
    let mut idl = BTreeMap::new();
    let start = std::time::Instant::now();
    while !asked.is_empty() && start.elapsed() < TYPE_WAIT {
        asked.retain(|guid| match p.remote_endpoint_type(*guid) {
            Ok(Some(d)) => {
                idl.insert(*guid, to_idl(&d));
                false
            }
            _ => true,
        });
        std::thread::sleep(Duration::from_millis(50));
    }
    idl
}

/// The tree: a participants table, then topics with their writers (and the IDL of the types
/// fetched, `idl`) and readers.
pub fn tree(args: &LsArgs, s: &DiscoverySnapshot, idl: &BTreeMap<Guid, String>) -> String {
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
            if let Some(t) = observe::type_information_text(&w.type_information) {
                out.push_str(&format!("         {t}\n"));
            }
            for line in idl.get(&w.guid).into_iter().flat_map(|t| t.lines()) {
                out.push_str(&format!("           {line}\n"));
            }
        }
        for r in readers {
            out.push_str(&format!(
                "  reader {}  {}\n         {}\n",
                observe::guid(r.guid),
                vendor_of(r.guid.prefix),
                observe::reader_qos_text(r)
            ));
            if let Some(t) = observe::type_information_text(&r.type_information) {
                out.push_str(&format!("         {t}\n"));
            }
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

/// `{"domain", "participants": [...], "topics": [{"name", "types", "writers", "readers"}]}`;
/// a writer whose type was fetched has it as IDL in `type_idl`.
pub fn json_document(args: &LsArgs, s: &DiscoverySnapshot, idl: &BTreeMap<Guid, String>) -> String {
    let topics: Vec<_> = by_topic(s)
        .into_iter()
        .map(|(name, (writers, readers))| {
            let types = types_of(&writers, &readers);
            json!({
                "name": name,
                "types": types,
                "writers": writers.iter().map(|w| {
                    let mut j = observe::writer_json(w);
                    if let (Some(t), Some(o)) = (idl.get(&w.guid), j.as_object_mut()) {
                        o.insert("type_idl".into(), t.clone().into());
                    }
                    j
                }).collect::<Vec<_>>(),
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
mod tests;
