//! `siftdds idl FILE... [-I DIR]... [-o OUT.rs] [--crate PATH]`: generates Rust from IDL
//! (see `siftdds::idl::codegen`). Errors print as `file:line:col: message`; exit 0 on
//! success, 1 on an IDL error, 2 on bad usage or an unwritable output.

use std::path::PathBuf;
use std::process::ExitCode;

use siftdds::idl::codegen::{GenOptions, generate};

/// Runs the subcommand on its arguments (after `idl`).
pub fn run(args: &[&str]) -> ExitCode {
    let mut files = Vec::new();
    let mut out = None;
    let mut options = GenOptions::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "-I" | "-o" | "--crate" => {
                let Some(v) = it.next() else {
                    eprintln!("siftdds idl: {arg} needs a value");
                    return ExitCode::from(2);
                };
                match *arg {
                    "-I" => options.include_dirs.push(PathBuf::from(v)),
                    "-o" => out = Some(PathBuf::from(v)),
                    _ => options.crate_path = (*v).to_owned(),
                }
            }
            a if a.starts_with("-I") && a.len() > 2 => {
                options.include_dirs.push(PathBuf::from(&a[2..]));
            }
            a => files.push(PathBuf::from(a)),
        }
    }
    if files.is_empty() {
        eprintln!("siftdds idl: no IDL file given");
        return ExitCode::from(2);
    }
    let code = match generate(&files, &options) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    match out {
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
