//! `siftdds idl FILE... [-I DIR]... [-o OUT.rs] [--crate PATH]`: generates Rust from IDL
//! (see `siftdds::idl::codegen`). Errors print as `file:line:col: message`; exit 0 on
//! success, 1 on an IDL error, 2 on bad usage or an unwritable output.
//!
//! Must not: parse IDL itself (the library does).

use std::path::PathBuf;
use std::process::ExitCode;

use siftdds::idl::codegen::{GenOptions, generate};

/// Arguments of `siftdds idl`.
#[derive(clap::Args, Debug)]
pub struct IdlArgs {
    /// IDL files, generated in order into one Rust module.
    #[arg(required = true, value_name = "FILE.idl")]
    files: Vec<PathBuf>,
    /// A directory `#include "..."` searches (repeatable; -IDIR works too).
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Write the Rust code here instead of standard output.
    #[arg(short = 'o', value_name = "OUT.rs")]
    out: Option<PathBuf>,
    /// The path the generated code names the siftdds crate by.
    #[arg(long = "crate", value_name = "PATH")]
    crate_path: Option<String>,
}

/// Runs the subcommand.
pub fn run(a: IdlArgs) -> ExitCode {
    let mut options = GenOptions {
        include_dirs: a.include,
        ..GenOptions::default()
    };
    if let Some(c) = a.crate_path {
        options.crate_path = c;
    }
    let code = match generate(&a.files, &options) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    match a.out {
        Some(path) => match std::fs::write(&path, code) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("siftdds idl: {}: {e}", path.display());
                ExitCode::from(2)
            }
        },
        None => {
            print!("{code}");
            ExitCode::SUCCESS
        }
    }
}
