//! Locator_t: where to send. Conversion to socket addresses lives in `transport/`.
//!
//! Must not: open sockets or resolve names.
//!
//! RTPS 2.5 §9.3.2 (Locator_t: int32 kind, uint32 port, octet[16] address).

use crate::cdr::{CdrError, CdrReader, CdrWriter};

/// Locator_t. RTPS 2.5 §9.3.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Locator {
    /// LOCATOR_KIND_*.
    pub kind: i32,
    /// UDP port (0 = invalid).
    pub port: u32,
    /// IPv6 address, or IPv4 in the last four octets.
    pub address: [u8; 16],
}

impl Locator {
    /// LOCATOR_KIND_INVALID.
    pub const KIND_INVALID: i32 = -1;
    /// LOCATOR_KIND_RESERVED.
    pub const KIND_RESERVED: i32 = 0;
    /// LOCATOR_KIND_UDPv4.
    pub const KIND_UDPV4: i32 = 1;
    /// LOCATOR_KIND_UDPv6.
    pub const KIND_UDPV6: i32 = 2;
    /// Fast DDS shared-memory transport (vendor kind 0x01000000).
    pub const KIND_FASTDDS_SHM: i32 = 0x0100_0000;
    /// Size on the wire.
    pub const LEN: usize = 24;

    /// A UDPv4 locator.
    pub const fn udpv4(ip: [u8; 4], port: u16) -> Self {
        let mut address = [0u8; 16];
        let [a, b, c, d] = ip;
        address[12] = a;
        address[13] = b;
        address[14] = c;
        address[15] = d;
        Locator {
            kind: Self::KIND_UDPV4,
            port: port as u32,
            address,
        }
    }

    /// The IPv4 address of a UDPv4 locator.
    pub fn ipv4(&self) -> Option<[u8; 4]> {
        if self.kind != Self::KIND_UDPV4 {
            return None;
        }
        let [.., a, b, c, d] = self.address;
        Some([a, b, c, d])
    }

    /// Reads 24 octets.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        let kind = r.i32("locator.kind")?;
        let port = r.u32("locator.port")?;
        let address = r.take_array::<16>("locator.address")?;
        Ok(Locator {
            kind,
            port,
            address,
        })
    }

    /// Writes 24 octets.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.i32(self.kind);
        w.u32(self.port);
        w.bytes(&self.address);
    }
}

impl core::fmt::Display for Locator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.kind, self.ipv4()) {
            (Self::KIND_UDPV4, Some([a, b, c, d])) => {
                write!(f, "udp/{a}.{b}.{c}.{d}:{}", self.port)
            }
            (Self::KIND_UDPV6, _) => {
                f.write_str("udp6/[")?;
                for (i, pair) in self.address.chunks(2).enumerate() {
                    if i > 0 {
                        f.write_str(":")?;
                    }
                    if let [hi, lo] = pair {
                        write!(f, "{:x}", u16::from_be_bytes([*hi, *lo]))?;
                    }
                }
                write!(f, "]:{}", self.port)
            }
            _ => write!(f, "kind{}:{}", self.kind, self.port),
        }
    }
}

#[cfg(test)]
mod tests;
