//! `siftdds inspect`: decode the RTPS traffic in a pcap/pcapng capture and summarise it, one
//! line per submessage, in the spirit of tshark's summary view.
//!
//! Must not: open sockets or stop at the first bad datagram; a malformed message is counted
//! and reported, and the walk goes on.

pub mod capture;
pub mod summary;

use std::io::{Read, Write};

pub use summary::Totals;

/// Why `siftdds inspect` could not finish.
#[derive(Debug)]
pub enum InspectError {
    /// The capture could not be opened or is not a pcap/pcapng file.
    Capture(capture::CaptureError),
    /// Writing the summary failed (e.g. a closed pipe).
    Output(std::io::Error),
    /// The capture ends in a cut-off or corrupt block; the summary of what came before it
    /// was written.
    CutShort(String),
}

impl core::fmt::Display for InspectError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            InspectError::Capture(e) => write!(f, "{e}"),
            InspectError::Output(e) => write!(f, "cannot write output: {e}"),
            InspectError::CutShort(e) => write!(f, "capture cut short: {e}"),
        }
    }
}

impl std::error::Error for InspectError {}

/// Decodes every RTPS message in the capture `input`, writing one line per submessage and a
/// final totals line to `out`. A capture that ends in a cut-off block still gets its totals
/// line (for what came before), then [`InspectError::CutShort`].
pub fn run(input: impl Read, out: &mut impl Write) -> Result<Totals, InspectError> {
    let mut totals = Totals::default();
    let mut io_error = None;
    let stats = capture::for_each_datagram(input, |d| {
        if io_error.is_none() {
            if let Err(e) = summary::summarize(&d, out, &mut totals) {
                io_error = Some(e);
            }
        }
    })
    .map_err(InspectError::Capture)?;
    if let Some(e) = io_error {
        return Err(InspectError::Output(e));
    }
    let mut notes = Vec::new();
    if totals.not_rtps > 0 {
        notes.push(format!("{} UDP datagrams not RTPS", totals.not_rtps));
    }
    if stats.ip_fragments > 0 {
        notes.push(format!(
            "{} IP fragments not reassembled",
            stats.ip_fragments
        ));
    }
    if stats.truncated > 0 {
        notes.push(format!("{} frames truncated", stats.truncated));
    }
    if let Some(e) = &stats.cut_short {
        notes.push(format!("cut short after that: {e}"));
    }
    if !notes.is_empty() {
        writeln!(out, "({} frames; {})", stats.frames, notes.join(", "))
            .map_err(InspectError::Output)?;
    }
    writeln!(out, "{totals}").map_err(InspectError::Output)?;
    match stats.cut_short {
        Some(e) => Err(InspectError::CutShort(e)),
        None => Ok(totals),
    }
}
