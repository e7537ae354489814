//! The sites a router opens: a LAN (multicast discovery on its interfaces) or a link to a
//! peer router (unicast initial peers), from the command line or the configuration file.
//!
//! Must not: open anything (the driver does); it only describes and parses.

use super::super::config::{RouterConfig, SecurityProperty, SiteKind};
use crate::wire::Locator;

/// Participant indices probed at a link's peer when it is given without a port.
pub const PEER_INDICES: u32 = 4;

/// One site to open.
#[derive(Clone, Debug)]
pub struct Site {
    /// Name for logs.
    pub name: String,
    /// DDS domain.
    pub domain: u32,
    /// Interface selection (empty: the environment's default).
    pub interfaces: Vec<String>,
    /// A link: these initial peers and no multicast; `None`: a LAN.
    pub peers: Option<Vec<Locator>>,
    /// A link's cost in the shortest paths between routers (`router::paths`).
    pub cost: u32,
    /// The DDS Security properties of the site's participant (`[site.security]`; empty: an
    /// open site), paths resolved by [`Site::resolve_security`].
    pub security: Vec<SecurityProperty>,
}

/// Parses a link peer: `IP` (its first [`PEER_INDICES`] metatraffic ports in `domain`) or
/// `IP:PORT`.
pub fn parse_peer(text: &str, domain: u32) -> Result<Vec<Locator>, String> {
    if let Ok(sa) = text.parse::<std::net::SocketAddrV4>() {
        return Ok(vec![Locator::udpv4(sa.ip().octets(), sa.port())]);
    }
    let ip: std::net::Ipv4Addr = text
        .parse()
        .map_err(|_| format!("peer \"{text}\": not an IPv4 address or IPv4:port"))?;
    Ok((0..PEER_INDICES)
        .filter_map(|i| crate::core::discovery::metatraffic_unicast_port(domain, i))
        .map(|port| Locator::udpv4(ip.octets(), port))
        .collect())
}

impl Site {
    /// The sites of a configuration file.
    pub fn from_config(config: &RouterConfig) -> Result<Vec<Site>, String> {
        config
            .sites
            .iter()
            .map(|s| {
                let domain = s.domain.unwrap_or(config.domain);
                let peers = match s.kind {
                    SiteKind::Lan => None,
                    SiteKind::Link => {
                        let mut out = Vec::new();
                        for p in &s.peers {
                            out.extend(parse_peer(p, domain)?);
                        }
                        Some(out)
                    }
                };
                Ok(Site {
                    name: s.name.clone(),
                    domain,
                    interfaces: s.interfaces.clone(),
                    peers,
                    cost: s.cost.unwrap_or(1),
                    security: s.security_properties.clone(),
                })
            })
            .collect()
    }

    /// Makes every plain path of [`Self::security`] a `file:` URI relative to `dir` (the
    /// configuration file's directory); URIs and the password stay as written.
    pub fn resolve_security(&mut self, dir: &std::path::Path) {
        for p in &mut self.security {
            if p.is_path() {
                p.value = format!("file:{}", dir.join(&p.value).display());
            }
        }
    }

    /// A site that is not secured (an open one, or a site from `--interfaces`).
    pub fn open(name: &str, domain: u32, interfaces: Vec<String>) -> Site {
        Site {
            name: name.to_string(),
            domain,
            interfaces,
            peers: None,
            cost: 1,
            security: Vec::new(),
        }
    }
}
