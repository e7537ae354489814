//! `siftdds router --interfaces IF1,IF2[,...] [--domain D] [--router-id N]` (one LAN site
//! per interface, every topic) and `siftdds router --config FILE` (docs/router.md): parses
//! the arguments, starts [`siftdds::router::driver`] and runs until killed (SIGINT/SIGTERM
//! end the process; the participants' leases then expire at the peers).
//!
//! Must not: hold routing logic (it is the library's `siftdds::router`).

use std::process::ExitCode;

use siftdds::router::config::{RouterConfig, TopicRules};
use siftdds::router::driver::{self, Site};

use crate::args;

/// `siftdds router`: bridge the LANs of several interfaces, or run the sites of a config file
/// (docs/router.md). Runs until killed.
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

/// Runs the subcommand.
pub fn run(a: RouterArgs) -> ExitCode {
    let (interfaces, config, domain) = (a.interfaces.as_deref(), a.config.as_deref(), a.domain);
    let mut id = a.router_id;
    let (sites, rules) = match (interfaces, config) {
        (Some(list), None) => {
            let sites: Vec<Site> = list
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|name| Site {
                    name: name.to_string(),
                    domain,
                    interfaces: vec![name.to_string()],
                    peers: None,
                })
                .collect();
            if sites.len() < 2 {
                eprintln!("siftdds router: --interfaces needs at least two interfaces");
                return ExitCode::from(2);
            }
            (sites, TopicRules::all())
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
                    c.router_id,
                ))
            });
            match parsed {
                Ok((sites, rules, cid)) => {
                    id = id.or(cid);
                    (sites, rules)
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
    let handle = match driver::start(sites, rules, id) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("siftdds router: {e}");
            return ExitCode::from(2);
        }
    };
    for line in &handle.summary {
        eprintln!("siftdds: {line}");
    }
    eprintln!("siftdds: router running");
    loop {
        if !caching {
            std::thread::park();
            continue;
        }
        // docs/peer-group-cache.md: the intermediary's counters, every 2 s.
        std::thread::sleep(std::time::Duration::from_secs(2));
        for (site, p) in handle.summary.iter().zip(&handle.sites) {
            if let Ok(s) = p.peer_group_stats() {
                let c = s.cache;
                let name = site.split(':').next().unwrap_or(site);
                eprintln!(
                    "siftdds: peer-group {name}: hits={} defines={} evictions={} misses={} \
                     refused_non_member={} refused_bad={} collisions={} entries={}",
                    c.hits,
                    c.defines,
                    c.evictions,
                    c.misses,
                    c.refused_non_member,
                    c.refused_bad,
                    c.collisions,
                    s.entries
                );
            }
        }
    }
}
