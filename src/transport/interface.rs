//! Network interfaces: enumerating this host's IPv4 interfaces (`getifaddrs` through `nix`),
//! parsing an interface selection (`SIFTDDS_INTERFACES`, `ParticipantBuilder::interfaces`,
//! the QoS XML property `siftdds.transport.interfaces`, `--interface`) and matching it
//! against the enumerated list.
//!
//! Must not: open sockets. [`InterfaceSelection::select`] is a pure function of the selection
//! and the list, so every rule is unit-tested with a fake list.
//!
//! # Overview
//! A selection is `auto`, or a comma-separated list whose items are interface names (`eth0`),
//! IPv4 addresses (`198.18.1.1`) or CIDR prefixes (`198.18.1.0/24`), as Cyclone DDS's
//! `General/Interfaces`, Fast DDS's `interfaceWhiteList` and RTI's `allow_interfaces` take
//! them. Each selected interface contributes one address (the first IPv4 address of a named
//! interface, or the matched one); an interface selected twice counts once, so a multicast is
//! never sent twice on one interface. `auto` is every up, non-loopback, multicast-capable IPv4
//! interface, and the up loopback interfaces when there is none.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

/// One IPv4 address of one interface of this host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// The interface name (`eth0`, `lo`).
    pub name: String,
    /// The address.
    pub address: Ipv4Addr,
    /// Length of the network prefix (from the netmask).
    pub prefix_len: u8,
    /// IFF_UP.
    pub up: bool,
    /// IFF_LOOPBACK.
    pub loopback: bool,
    /// IFF_MULTICAST: the interface can join and send multicast.
    pub multicast: bool,
}

impl Interface {
    /// The address with its prefix length (what core's locator selection is given).
    pub fn network(&self) -> Ipv4Net {
        // invariant: `prefix_len` is at most 32 (from a netmask or a literal below 33).
        Ipv4Net::new(self.address, self.prefix_len.min(32))
            .unwrap_or_else(|_| Ipv4Net::from(self.address))
    }

    /// The loopback interface as the loopback-only scope uses it: 127.0.0.1/8, no multicast.
    pub fn loopback() -> Self {
        Interface {
            name: "lo".to_string(),
            address: Ipv4Addr::LOCALHOST,
            prefix_len: 8,
            up: true,
            loopback: true,
            multicast: false,
        }
    }
}

/// The IPv4 addresses of this host's interfaces, in the order `getifaddrs` gives them.
pub fn enumerate() -> std::io::Result<Vec<Interface>> {
    use nix::net::if_::InterfaceFlags;
    let addrs = nix::ifaddrs::getifaddrs().map_err(std::io::Error::from)?;
    let mut out = Vec::new();
    for a in addrs {
        let Some(address) = a.address.as_ref().and_then(|s| s.as_sockaddr_in()) else {
            continue;
        };
        let prefix_len = a
            .netmask
            .as_ref()
            .and_then(|m| m.as_sockaddr_in())
            .map_or(32, |m| prefix_len_of(m.ip()));
        out.push(Interface {
            name: a.interface_name.clone(),
            address: address.ip(),
            prefix_len,
            up: a.flags.contains(InterfaceFlags::IFF_UP),
            loopback: a.flags.contains(InterfaceFlags::IFF_LOOPBACK),
            multicast: a.flags.contains(InterfaceFlags::IFF_MULTICAST),
        });
    }
    Ok(out)
}

/// The prefix length of a netmask (its leading one bits).
fn prefix_len_of(mask: Ipv4Addr) -> u8 {
    // At most 32, so the cast is exact.
    u32::from(mask).leading_ones() as u8
}

/// One item of an interface list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterfaceItem {
    /// An interface name.
    Name(String),
    /// One of the host's IPv4 addresses.
    Address(Ipv4Addr),
    /// Every interface with an address in this prefix (host bits cleared).
    Prefix(Ipv4Net),
}

impl core::fmt::Display for InterfaceItem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            InterfaceItem::Name(n) => f.write_str(n),
            InterfaceItem::Address(a) => write!(f, "{a}"),
            InterfaceItem::Prefix(net) => write!(f, "{net}"),
        }
    }
}

/// Which interfaces a participant uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterfaceSelection {
    /// Every up, non-loopback, multicast-capable IPv4 interface; loopback when none.
    Auto,
    /// Exactly these (non-empty).
    List(Vec<InterfaceItem>),
}

/// Why an interface selection cannot be used: names the offending item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterfaceError {
    /// The item as written.
    pub item: String,
    /// What is wrong with it.
    pub reason: InterfaceErrorReason,
}

/// What is wrong with an item of an interface selection.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InterfaceErrorReason {
    /// The list or one of its items is empty.
    Empty,
    /// No interface of that name has an IPv4 address; the names that do.
    NoSuchInterface(Vec<String>),
    /// Not a valid `a.b.c.d/len` prefix.
    BadCidr(&'static str),
    /// An address or prefix that no interface address matches; the addresses there are.
    NoMatch(Vec<String>),
    /// The interface exists but is down.
    Down,
    /// `auto` together with other items.
    AutoNotAlone,
    /// `auto` found no usable interface at all.
    NothingUsable,
    /// The interface list could not be read.
    Enumeration(String),
}

impl core::fmt::Display for InterfaceError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "interface \"{}\": ", self.item)?;
        match &self.reason {
            InterfaceErrorReason::Empty => f.write_str("empty interface name"),
            InterfaceErrorReason::NoSuchInterface(have) => {
                write!(f, "no such interface (have: {})", have.join(", "))
            }
            InterfaceErrorReason::BadCidr(why) => write!(f, "bad CIDR prefix ({why})"),
            InterfaceErrorReason::NoMatch(have) => write!(
                f,
                "matches no interface address (have: {})",
                have.join(", ")
            ),
            InterfaceErrorReason::Down => f.write_str("interface is down"),
            InterfaceErrorReason::AutoNotAlone => {
                f.write_str("\"auto\" cannot be combined with other interfaces")
            }
            InterfaceErrorReason::NothingUsable => f.write_str("no usable IPv4 interface is up"),
            InterfaceErrorReason::Enumeration(e) => write!(f, "cannot list interfaces: {e}"),
        }
    }
}

impl std::error::Error for InterfaceError {}

fn error(item: &str, reason: InterfaceErrorReason) -> InterfaceError {
    InterfaceError {
        item: item.to_string(),
        reason,
    }
}

/// Parses one list item: an IPv4 address, a CIDR prefix, or else an interface name.
fn parse_item(s: &str) -> Result<InterfaceItem, InterfaceError> {
    if s.is_empty() {
        return Err(error(s, InterfaceErrorReason::Empty));
    }
    if let Some((addr, len)) = s.split_once('/') {
        let bad = |why| error(s, InterfaceErrorReason::BadCidr(why));
        let addr: Ipv4Addr = addr.parse().map_err(|_| bad("not an IPv4 address"))?;
        let len: u8 = len
            .parse()
            .map_err(|_| bad("prefix length is not a number"))?;
        let net = Ipv4Net::new(addr, len).map_err(|_| bad("prefix length above 32"))?;
        return Ok(InterfaceItem::Prefix(net.trunc()));
    }
    if let Ok(addr) = s.parse::<Ipv4Addr>() {
        return Ok(InterfaceItem::Address(addr));
    }
    Ok(InterfaceItem::Name(s.to_string()))
}

impl InterfaceSelection {
    /// Parses `auto` or a comma-separated list (spaces around items are ignored).
    pub fn parse(s: &str) -> Result<Self, InterfaceError> {
        Self::from_items(s.split(','))
    }

    /// A selection from separate items (each an item of the list syntax, or `auto` alone).
    pub fn from_items<I, S>(items: I) -> Result<Self, InterfaceError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let items: Vec<String> = items
            .into_iter()
            .map(|s| s.as_ref().trim().to_string())
            .collect();
        if items.iter().any(|s| s.eq_ignore_ascii_case("auto")) {
            return match items.as_slice() {
                [_] => Ok(InterfaceSelection::Auto),
                _ => Err(error("auto", InterfaceErrorReason::AutoNotAlone)),
            };
        }
        if items.is_empty() {
            return Err(error("", InterfaceErrorReason::Empty));
        }
        let list = items
            .iter()
            .map(|s| parse_item(s))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(InterfaceSelection::List(list))
    }

    /// The interfaces of `have` this selection picks, one address per interface, in the order
    /// of the selection (for `auto`: of `have`). `Err` names the first item that matches
    /// nothing usable.
    pub fn select(&self, have: &[Interface]) -> Result<Vec<Interface>, InterfaceError> {
        let mut out: Vec<Interface> = Vec::new();
        let add = |out: &mut Vec<Interface>, i: &Interface| {
            if !out.iter().any(|o| o.name == i.name) {
                out.push(i.clone());
            }
        };
        match self {
            InterfaceSelection::Auto => {
                let network = |i: &&Interface| i.up && !i.loopback && i.multicast;
                have.iter().filter(network).for_each(|i| add(&mut out, i));
                if out.is_empty() {
                    let lo = |i: &&Interface| i.up && i.loopback;
                    have.iter().filter(lo).for_each(|i| add(&mut out, i));
                }
                if out.is_empty() {
                    return Err(error("auto", InterfaceErrorReason::NothingUsable));
                }
            }
            InterfaceSelection::List(items) => {
                for item in items {
                    for i in matching(item, have)? {
                        add(&mut out, i);
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The up interfaces `item` names; an error when there is none.
fn matching<'a>(
    item: &InterfaceItem,
    have: &'a [Interface],
) -> Result<Vec<&'a Interface>, InterfaceError> {
    let shown = item.to_string();
    let found: Vec<&Interface> = have
        .iter()
        .filter(|i| match item {
            InterfaceItem::Name(n) => i.name == *n,
            InterfaceItem::Address(a) => i.address == *a,
            InterfaceItem::Prefix(net) => net.contains(&i.address),
        })
        .collect();
    if found.is_empty() {
        return Err(match item {
            InterfaceItem::Name(_) => {
                let mut names: Vec<String> = Vec::new();
                for i in have {
                    if !names.contains(&i.name) {
                        names.push(i.name.clone());
                    }
                }
                error(&shown, InterfaceErrorReason::NoSuchInterface(names))
            }
            _ => {
                let addrs = have
                    .iter()
                    .map(|i| format!("{}/{} ({})", i.address, i.prefix_len, i.name))
                    .collect();
                error(&shown, InterfaceErrorReason::NoMatch(addrs))
            }
        });
    }
    let up: Vec<&Interface> = found.into_iter().filter(|i| i.up).collect();
    if up.is_empty() {
        return Err(error(&shown, InterfaceErrorReason::Down));
    }
    Ok(up)
}

#[cfg(test)]
mod tests;
