//! `siftdds inspect FILE`: its arguments and the call into `siftdds::inspect`.
//!
//! Must not: decode anything itself (the library does).

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `siftdds inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// The capture: a pcap or pcapng file (tcpdump -w, Wireshark, dumpcap).
    #[arg(value_name = "FILE.pcap|FILE.pcapng")]
    file: PathBuf,
}

/// Prints one line per RTPS submessage and a totals line; a capture cut short still gets
/// its totals line for what came before the cut, then exit 2.
pub fn run(a: InspectArgs) -> ExitCode {
    let file = a.file.display();
    let input = match std::fs::File::open(&a.file) {
        Ok(f) => std::io::BufReader::new(f),
        Err(e) => {
            eprintln!("siftdds inspect: {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = siftdds::inspect::run(input, &mut out);
    drop(out);
    match result {
        Ok(totals) if totals.malformed == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(e) => {
            eprintln!("siftdds inspect: {file}: {e}");
            ExitCode::from(2)
        }
    }
}
