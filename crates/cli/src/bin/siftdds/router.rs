//! `siftdds router --interfaces IF1,IF2[,...] [--domain D] [--router-id N]` (one LAN site
//! per interface, every topic) and `siftdds router --config FILE` (docs/router.md): parses
//! the arguments, starts [`siftdds::router::driver`] and runs until SIGINT/SIGTERM, on which
//! it leaves gracefully (the participants' goodbye; docs/router.md "Redundant routers").
//!
//! Must not: hold routing logic (it is the library's `siftdds::router`).

use std::path::Path;
use std::process::ExitCode;

use siftdds::router::config::{ConfigError, RouterConfig, TopicRules};
use siftdds::router::driver::{self, Site};
use siftdds::router::keys::KeyTypes;
use siftdds::router::paths::Detection;

use crate::args;

/// `siftdds router`: bridge the LANs of several interfaces, or run the sites of a config file
/// (docs/router.md). Runs until SIGINT/SIGTERM.
#[derive(clap::Args, Clone, Debug)]
#[command(group(clap::ArgGroup::new("sites").required(true).args(["interfaces", "config"])))]
pub struct RouterArgs {
    /// One LAN site per interface (at least two, comma-separated), every topic
    #[arg(long, value_name = "IF1,IF2[,...]")]
    interfaces: Option<String>,
    /// The sites, links and topic rules of a TOML file (docs/router.md)
    #[arg(long, value_name = "FILE.toml")]
    config: Option<String>,
    /// DDS domain of the --interfaces sites (0..=232)
    #[arg(long, default_value = "0", value_parser = args::domain)]
    domain: u32,
    /// This router's id in the path vector (default: from the config file, else random)
    #[arg(long, value_name = "N")]
    router_id: Option<u64>,
}

/// The types of the topics whose override names an IDL file (relative to the configuration
/// file's directory), so the router computes the key hash of samples sent without one.
fn key_types(rules: &TopicRules, config: &Path) -> Result<KeyTypes, ConfigError> {
    let dir = config.parent().unwrap_or(Path::new("."));
    let mut keys = KeyTypes::new();
    for (pattern, file, type_name) in rules.idl_files() {
        let path = dir.join(file);
        let spec = siftdds::idl::parse_file(&path, &[dir.to_path_buf()])
            .map_err(|e| ConfigError(format!("topic {}: idl: {e}", pattern.as_str())))?;
        let descs = siftdds::idl::descriptors(&spec);
        if let Some(t) = type_name
            && !descs
                .iter()
                .any(|d| d.name.trim_start_matches("::") == t.trim_start_matches("::"))
        {
            return Err(ConfigError(format!(
                "topic {}: {} defines no struct {t}",
                pattern.as_str(),
                path.display()
            )));
        }
        keys.add(pattern.clone(), type_name.map(str::to_string), descs);
    }
    Ok(keys)
}

/// Resolves the `[site.security]` file paths against the configuration file's directory
/// and checks that each file can be read, naming its place in the file if not (the
/// participant checks what is in them when the router starts).
fn security_files(sites: &mut [Site], config: &Path) -> Result<(), ConfigError> {
    let dir = config.parent().unwrap_or(Path::new("."));
    for site in sites {
        site.resolve_security(dir);
        for p in &site.security {
            // The `file:` forms the participant reads (`file:///abs`, `file:/abs`, `file:rel`).
            let path = match p.value.strip_prefix("file://") {
                Some(rest) => rest.strip_prefix("localhost").unwrap_or(rest),
                None => match p.value.strip_prefix("file:") {
                    Some(rest) => rest,
                    None => continue,
                },
            };
            if let Err(e) = std::fs::metadata(path) {
                return Err(ConfigError(format!(
                    "{}: site \"{}\": security: {}: cannot read {path}: {e}",
                    p.at, site.name, p.property
                )));
            }
        }
    }
    Ok(())
}

/// Runs the subcommand.
pub fn run(a: RouterArgs) -> ExitCode {
    let (interfaces, config, domain) = (a.interfaces.as_deref(), a.config.as_deref(), a.domain);
    let mut id = a.router_id;
    let (sites, rules, detection) = match (interfaces, config) {
        (Some(list), None) => {
            let sites: Vec<Site> = list
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|name| Site::open(name, domain, vec![name.to_string()]))
                .collect();
            if sites.len() < 2 {
                eprintln!("siftdds router: --interfaces needs at least two interfaces");
                return ExitCode::from(2);
            }
            (sites, TopicRules::all(), Some(Detection::default()))
        }
        (None, Some(file)) => {
            let text = match std::fs::read_to_string(file) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("siftdds router: {file}: {e}");
                    return ExitCode::from(2);
                }
            };
            let parsed = RouterConfig::from_toml(&text).and_then(|c| {
                Ok((
                    Site::from_config(&c).map_err(siftdds::router::config::ConfigError)?,
                    c.rules()?,
                    (c.router_id, c.paths.detection()),
                ))
            });
            let parsed = parsed.and_then(|(mut sites, rules, cid)| {
                let keys = key_types(&rules, std::path::Path::new(file))?;
                security_files(&mut sites, std::path::Path::new(file))?;
                Ok((sites, rules.with_key_types(keys), cid))
            });
            match parsed {
                Ok((sites, rules, (cid, detection))) => {
                    id = id.or(cid);
                    (sites, rules, detection)
                }
                Err(e) => {
                    eprintln!("siftdds router: {file}: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        // clap's group admits exactly one of the two.
        _ => {
            eprintln!("siftdds router: give --interfaces or --config");
            return ExitCode::from(2);
        }
    };
    let caching = !rules.peer_groups.is_empty();
    let handle = match driver::start_with(sites, rules, id, detection) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("siftdds router: {e}");
            return ExitCode::from(2);
        }
    };
    for line in &handle.summary {
        eprintln!("siftdds: {line}");
    }
    // SIGINT/SIGTERM: leave gracefully (`RouterHandle::stop`: no more input, what was
    // taken written and acknowledged, then the participants' goodbye), so a standby of
    // redundant routers takes over at once. Another signal a second or more later ends the
    // process at once; one sooner is the same stop (GNU `timeout` sends its signal to the
    // command and again to its process group, so the router often gets it twice).
    let (tx, rx) = std::sync::mpsc::channel();
    let mut first: Option<std::time::Instant> = None;
    if let Err(e) = ctrlc::set_handler(move || match first {
        None => {
            first = Some(std::time::Instant::now());
            let _ = tx.send(());
        }
        Some(t) if t.elapsed() >= std::time::Duration::from_secs(1) => std::process::exit(130),
        Some(_) => {}
    }) {
        eprintln!("siftdds router: cannot catch SIGINT/SIGTERM ({e}); they end it at once");
    }
    eprintln!("siftdds: router running");
    loop {
        // docs/peer-group-cache.md: an intermediary prints its cache counters every 2 s.
        let tick = std::time::Duration::from_secs(if caching { 2 } else { 3600 });
        match rx.recv_timeout(tick) {
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if caching => {
                print_peer_group_stats(&handle)
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            _ => break,
        }
    }
    eprintln!("siftdds: router leaving");
    if caching {
        print_peer_group_stats(&handle);
    }
    let refusals = handle.refusals();
    // Read before the participants leave.
    let lookups: Vec<String> = handle
        .summary
        .iter()
        .zip(&handle.sites)
        .filter_map(|(site, p)| {
            let s = p.type_lookup_stats().ok()?;
            let name = site.split(':').next().unwrap_or(site);
            Some(format!(
                "{name}: requests sent {}, replies matched {}, bad replies {}, objects refused {}, given up {}, dropped {}",
                s.requests_sent, s.replies_matched, s.bad_replies, s.objects_refused, s.given_up, s.dropped
            ))
        })
        .collect();
    let c = handle.stop();
    for line in refusals {
        eprintln!("siftdds: router refused: {line}");
    }
    eprintln!(
        "siftdds: router left: received {} (all routes), forwarded {} and duplicates {} (routes still live only; docs/router.md \"Leaving\"), learnt from other routers {}",
        c.received, c.repository.forwarded, c.repository.duplicates, c.standby.learnt
    );
    let f = c.route_filter;
    eprintln!(
        "siftdds: router next hops by filter: lookups {}, memo hits {}, misses {}, evaluations {}, undecodable {}, (sample, route) pairs skipped {}",
        f.lookups, f.hits, f.misses, f.evaluations, f.undecodable, f.skipped
    );
    let p = c.paths;
    eprintln!(
        "siftdds: router paths: heartbeats {}, bad {}, links down {}, recomputations {}, reverse-path rejected {}, link forwards pruned {}, replays {}, written again {}, replay evicted {}",
        p.heartbeats,
        p.bad_heartbeats,
        p.links_down,
        p.recomputations,
        p.rpf_rejected,
        p.pruned,
        c.replay.replays,
        c.replay.replayed,
        c.replay.evicted
    );
    let t = c.transcode;
    eprintln!(
        "siftdds: router transcoding: samples {}, keys transcoded {}, keys built {}, as is {}, key unknown {}",
        t.transcoded, t.keys_transcoded, t.keys_built, t.as_is, t.key_unknown
    );
    eprintln!(
        "siftdds: router access control: endpoints refused by our permissions {} (each (site, read or write, topic) once; the warnings name them)",
        c.access_denied
    );
    let w = c.wire_type;
    eprintln!(
        "siftdds: router types from the wire: requests {}, learnt {}, unanswered {}, failed {}, untracked {}",
        w.requests, w.learnt, w.unanswered, w.failed, w.untracked
    );
    for line in lookups {
        eprintln!("siftdds: router TypeLookup client, {line}");
    }
    ExitCode::SUCCESS
}

/// One line per site of the intermediary's peer-group cache counters (`hits`: abbreviated
/// samples restored; `misses`: unknown keys, NACKed for a full repair).
fn print_peer_group_stats(handle: &siftdds::router::driver::RouterHandle) {
    for (site, p) in handle.summary.iter().zip(&handle.sites) {
        if let Ok(s) = p.peer_group_stats() {
            let c = s.cache;
            let name = site.split(':').next().unwrap_or(site);
            eprintln!(
                "siftdds: peer-group {name}: hits={} defines={} evictions={} misses={} \
                 unbound_aliases={} refused_non_member={} refused_bad={} collisions={} \
                 entries={}",
                c.hits,
                c.defines,
                c.evictions,
                c.misses,
                c.unbound_aliases,
                c.refused_non_member,
                c.refused_bad,
                c.collisions,
                s.entries
            );
        }
    }
}
