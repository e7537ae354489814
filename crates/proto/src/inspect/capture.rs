//! Reading classic pcap and pcapng files and pulling out the UDP datagrams they hold.
//!
//! Must not: open sockets, panic on a malformed capture, or keep more than one packet's bytes
//! at a time. Link layers understood: Ethernet (with 802.1Q tags), Linux cooked (SLL, SLL2),
//! BSD loopback (NULL/LOOP), raw IPv4/IPv6. IPv4 fragments are not reassembled: they are
//! counted and skipped (loopback captures with a 64 KiB MTU have none).

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use pcap_file::DataLink;
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::{Block, PcapNgReader};

/// The most pcapng interface descriptions we accept in one section.
const MAX_INTERFACES: usize = 1024;

/// One UDP datagram found in a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datagram {
    /// 1-based frame number in the capture (as tshark numbers them).
    pub frame: u64,
    /// Source address and port.
    pub src: SocketAddr,
    /// Destination address and port.
    pub dst: SocketAddr,
    /// The UDP payload.
    pub payload: Vec<u8>,
}

/// Why a capture could not be read.
#[derive(Debug)]
pub struct CaptureError(pub String);

impl core::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CaptureError {}

/// What the walk over a capture saw besides UDP datagrams.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Frames in the file.
    pub frames: u64,
    /// Frames that were not UDP over IP (ARP, TCP, ICMP, other link types...).
    pub not_udp: u64,
    /// IPv4 fragments (not reassembled).
    pub ip_fragments: u64,
    /// Frames cut short by the capture's snap length or otherwise truncated.
    pub truncated: u64,
    /// Why the walk stopped before the end of the file (a cut-off or corrupt block or
    /// record after the header); the datagrams before it were visited.
    pub cut_short: Option<String>,
}

/// Reads every UDP datagram of a pcap or pcapng stream (the format is told by its magic),
/// calling `each` in capture order.
pub fn for_each_datagram<R: Read>(
    mut input: R,
    mut each: impl FnMut(Datagram),
) -> Result<CaptureStats, CaptureError> {
    let mut magic = [0u8; 4];
    input
        .read_exact(&mut magic)
        .map_err(|e| CaptureError(format!("cannot read magic: {e}")))?;
    let chained = std::io::Cursor::new(magic).chain(input);
    let mut stats = CaptureStats::default();
    match magic {
        [0x0a, 0x0d, 0x0d, 0x0a] => {
            let mut reader = PcapNgReader::new(chained)
                .map_err(|e| CaptureError(format!("not a valid pcapng file: {e}")))?;
            // Link types of the interfaces declared so far (a new section restarts the list).
            let mut links: Vec<DataLink> = Vec::new();
            while let Some(block) = reader.next_block() {
                let block = match block {
                    Ok(b) => b,
                    Err(e) => {
                        stats.cut_short = Some(format!("bad pcapng block: {e}"));
                        break;
                    }
                };
                let (link, data) = match &block {
                    Block::SectionHeader(_) => {
                        links.clear();
                        continue;
                    }
                    Block::InterfaceDescription(i) => {
                        if links.len() >= MAX_INTERFACES {
                            return Err(CaptureError("too many pcapng interfaces".into()));
                        }
                        links.push(i.linktype);
                        continue;
                    }
                    Block::EnhancedPacket(p) => {
                        let id = usize::try_from(p.interface_id).unwrap_or(usize::MAX);
                        (links.get(id).copied(), p.data.as_ref())
                    }
                    Block::SimplePacket(p) => (links.first().copied(), p.data.as_ref()),
                    _ => continue,
                };
                stats.frames = stats.frames.saturating_add(1);
                let Some(link) = link else {
                    return Err(CaptureError(
                        "packet refers to an undeclared interface".into(),
                    ));
                };
                visit_frame(link, data, stats.frames, &mut stats, &mut each);
            }
        }
        [0xa1, 0xb2, 0xc3, 0xd4]
        | [0xd4, 0xc3, 0xb2, 0xa1]
        | [0xa1, 0xb2, 0x3c, 0x4d]
        | [0x4d, 0x3c, 0xb2, 0xa1] => {
            let mut reader = PcapReader::new(chained)
                .map_err(|e| CaptureError(format!("not a valid pcap file: {e}")))?;
            let link = reader.header().datalink;
            while let Some(packet) = reader.next_packet() {
                let packet = match packet {
                    Ok(p) => p,
                    Err(e) => {
                        stats.cut_short = Some(format!("bad pcap record: {e}"));
                        break;
                    }
                };
                stats.frames = stats.frames.saturating_add(1);
                visit_frame(link, &packet.data, stats.frames, &mut stats, &mut each);
            }
        }
        _ => {
            return Err(CaptureError(
                "not a pcap or pcapng file (unknown magic number)".into(),
            ));
        }
    }
    Ok(stats)
}

fn visit_frame(
    link: DataLink,
    frame: &[u8],
    number: u64,
    stats: &mut CaptureStats,
    each: &mut impl FnMut(Datagram),
) {
    match ip_packet(link, frame).map(|ip| udp_in_ip(ip, stats)) {
        Some(Some((src, dst, payload))) => each(Datagram {
            frame: number,
            src,
            dst,
            payload: payload.to_vec(),
        }),
        _ => stats.not_udp = stats.not_udp.saturating_add(1),
    }
}

/// Strips the link layer; `None` when the frame carries no IP.
fn ip_packet(link: DataLink, frame: &[u8]) -> Option<&[u8]> {
    match link {
        DataLink::ETHERNET => {
            let mut ethertype = u16::from_be_bytes([*frame.get(12)?, *frame.get(13)?]);
            let mut rest = frame.get(14..)?;
            while ethertype == 0x8100 || ethertype == 0x88a8 {
                ethertype = u16::from_be_bytes([*rest.get(2)?, *rest.get(3)?]);
                rest = rest.get(4..)?;
            }
            matches!(ethertype, 0x0800 | 0x86dd).then_some(rest)
        }
        DataLink::LINUX_SLL => frame.get(16..),
        DataLink::LINUX_SLL2 => frame.get(20..),
        DataLink::NULL | DataLink::LOOP => frame.get(4..),
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => Some(frame),
        _ => None,
    }
}

/// Finds the UDP payload in an IPv4 or IPv6 packet.
fn udp_in_ip<'a>(
    ip: &'a [u8],
    stats: &mut CaptureStats,
) -> Option<(SocketAddr, SocketAddr, &'a [u8])> {
    let version = ip.first()? >> 4;
    let (src, dst, udp) = match version {
        4 => {
            let ihl = usize::from(ip.first()? & 0x0f).checked_mul(4)?;
            let proto = *ip.get(9)?;
            let frag = u16::from_be_bytes([*ip.get(6)?, *ip.get(7)?]);
            if proto != 17 {
                return None;
            }
            if frag & 0x3fff != 0 {
                stats.ip_fragments = stats.ip_fragments.saturating_add(1);
                return None;
            }
            let total = usize::from(u16::from_be_bytes([*ip.get(2)?, *ip.get(3)?]));
            let src: [u8; 4] = ip.get(12..16)?.try_into().ok()?;
            let dst: [u8; 4] = ip.get(16..20)?.try_into().ok()?;
            let Some(udp) = ip.get(ihl..total) else {
                stats.truncated = stats.truncated.saturating_add(1);
                return None;
            };
            (
                IpAddr::V4(Ipv4Addr::from(src)),
                IpAddr::V4(Ipv4Addr::from(dst)),
                udp,
            )
        }
        6 => {
            // Extension headers are not followed: RTPS over IPv6 on loopback has none.
            if *ip.get(6)? != 17 {
                return None;
            }
            let src: [u8; 16] = ip.get(8..24)?.try_into().ok()?;
            let dst: [u8; 16] = ip.get(24..40)?.try_into().ok()?;
            (
                IpAddr::V6(Ipv6Addr::from(src)),
                IpAddr::V6(Ipv6Addr::from(dst)),
                ip.get(40..)?,
            )
        }
        _ => return None,
    };
    let sport = u16::from_be_bytes([*udp.first()?, *udp.get(1)?]);
    let dport = u16::from_be_bytes([*udp.get(2)?, *udp.get(3)?]);
    let ulen = usize::from(u16::from_be_bytes([*udp.get(4)?, *udp.get(5)?]));
    let Some(payload) = udp.get(8..ulen) else {
        stats.truncated = stats.truncated.saturating_add(1);
        return None;
    };
    Some((
        SocketAddr::new(src, sport),
        SocketAddr::new(dst, dport),
        payload,
    ))
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // builds small, fixed test frames
mod tests;
