//! The `siftdds` command line: CLI parsing and wiring only.
//!
//! Subcommands:
//! * `siftdds inspect FILE` — decode the RTPS traffic in a pcap/pcapng capture
//!   (exit 0: clean, 1: malformed messages found, 2: the file cannot be read).

use std::process::ExitCode;

const USAGE: &str = "usage: siftdds inspect FILE.pcap|FILE.pcapng";

fn main() -> ExitCode {
    env_logger::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["inspect", file] => inspect(file),
        ["-h" | "--help" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn inspect(file: &str) -> ExitCode {
    let input = match std::fs::File::open(file) {
        Ok(f) => std::io::BufReader::new(f),
        Err(e) => {
            eprintln!("siftdds inspect: {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match siftdds::inspect::run(input, &mut out) {
        Ok(totals) if totals.malformed == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(e) => {
            drop(out);
            eprintln!("siftdds inspect: {file}: {e}");
            ExitCode::from(2)
        }
    }
}
