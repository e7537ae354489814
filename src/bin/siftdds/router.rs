//! `siftdds router --interfaces IF1,IF2[,...] [--domain D] [--router-id N]` (one LAN site
//! per interface, every topic) and `siftdds router --config FILE` (docs/router.md): parses
//! the arguments, starts [`siftdds::router::driver`] and runs until killed (SIGINT/SIGTERM
//! end the process; the participants' leases then expire at the peers).
//!
//! Must not: hold routing logic (it is the library's `siftdds::router`).

use std::process::ExitCode;

use siftdds::router::config::{RouterConfig, TopicRules};
use siftdds::router::driver::{self, Site};

const USAGE: &str = "usage: siftdds router --interfaces IF1,IF2[,...] [--domain D] [--router-id N]\n       siftdds router --config FILE.toml";

/// Runs the subcommand with the arguments after `router`.
pub fn run(args: &[&str]) -> ExitCode {
    let mut interfaces: Option<&str> = None;
    let mut config: Option<&str> = None;
    let mut domain = 0u32;
    let mut id: Option<u64> = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let Some(value) = it.next() else {
            eprintln!("siftdds router: {flag} needs a value\n{USAGE}");
            return ExitCode::from(2);
        };
        let ok = match *flag {
            "--interfaces" => {
                interfaces = Some(value);
                true
            }
            "--config" => {
                config = Some(value);
                true
            }
            "--domain" => value.parse().map(|v| domain = v).is_ok(),
            "--router-id" => value.parse().map(|v| id = Some(v)).is_ok(),
            _ => false,
        };
        if !ok {
            eprintln!("siftdds router: bad option {flag} {value}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
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
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
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
        std::thread::park();
    }
}
