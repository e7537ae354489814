//! `siftdds inspect`: decode the RTPS traffic in a pcap/pcapng capture and summarise it, one
//! line per submessage, in the spirit of tshark's summary view.
//!
//! Must not: open sockets or stop at the first bad datagram; a malformed message is counted
//! and reported, and the walk goes on.

pub mod capture;
