//! Generates Rust for every `idl/*.idl` of the workspace root at build time.

use std::path::PathBuf;

use siftdds::idl::codegen::{GenOptions, generate_to_out_dir};

fn main() {
    let idl = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../idl");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&idl)
        .expect("idl/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "idl"))
        .collect();
    files.sort();
    let options = GenOptions {
        include_dirs: vec![idl.clone()],
        ..GenOptions::default()
    };
    println!("cargo:rerun-if-changed={}", idl.display());
    if let Err(e) = generate_to_out_dir(&files, &options, "idl_types.rs") {
        panic!("{e}");
    }
}
