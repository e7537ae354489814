//! `shape_main`: the OMG dds-rtps interoperability harness's Shapes application.
fn main() {
    eprintln!("shape_main: not supported yet");
    std::process::exit(1);
}
