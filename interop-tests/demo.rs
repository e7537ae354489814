//! The README's main job, `siftdds demo`, in a small configuration: every subscriber must get
//! exactly the samples its filter passes, and the writer must report its table working; the
//! same over multicast (`--multicast --plan multicast`). The first also checks the new
//! report (the measured no-filtering baseline, the multicast line), the picture
//! (`--plot`), and that progress piped into a file has no carriage return.

use std::process::Command;

use crate::sandbox::may_open_sockets;

#[test]
fn demo_delivers_exactly_the_filtered_samples() {
    if !may_open_sockets("demo_delivers_exactly_the_filtered_samples") {
        return;
    }
    let plot = std::env::temp_dir().join(format!("siftdds-demo-{}.svg", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_siftdds"))
        .args([
            "demo",
            "--subscribers",
            "12",
            "--seconds",
            "1",
            "--rate",
            "400",
            "--domain",
            "114",
        ])
        .arg("--plot")
        .arg(&plot)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("every subscriber received exactly the samples its filter passes"),
        "{stdout}"
    );
    // The writer's table answered repeats: "<n> more answered by its table".
    let answered = stdout
        .lines()
        .find(|l| l.contains("filter evaluations at the writer"))
        .and_then(|l| l.split("  ").filter(|f| !f.is_empty()).last())
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    assert!(answered > 0, "the writer's table never hit:\n{stdout}");
    // The baseline phase ran and was dearer: filtering saved datagrams.
    let saved = stdout
        .lines()
        .find_map(|l| l.strip_prefix("saved by filtering at the writer: "))
        .and_then(|l| l.split('%').next())
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(0.0);
    assert!(saved > 0.0, "no saving against the baseline:\n{stdout}");
    assert!(
        stdout.contains("multicast: off: no subscriber listens"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stdout.contains('\r') && !stderr.contains('\r'),
        "carriage returns in piped output:\n{stderr}"
    );
    assert!(
        stderr.contains("publishing: 400 samples written"),
        "{stderr}"
    );
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("received (blue)"),
        "{svg:.200}"
    );
    let _ = std::fs::remove_file(&plot);
}

/// `siftdds demo --multicast --plan multicast`: the subscribers also listen on the user
/// multicast group and the writer sends every sample once to it (each subscriber drops the
/// ones its filter bit rejects); every subscriber still gets exactly its samples.
#[test]
fn demo_over_multicast_delivers_exactly_the_filtered_samples() {
    let test = "demo_over_multicast_delivers_exactly_the_filtered_samples";
    if !may_open_sockets(test) {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_siftdds"))
        .args([
            "demo",
            "--subscribers",
            "8",
            "--seconds",
            "1",
            "--rate",
            "400",
            "--domain",
            "121",
        ])
        .args(["--multicast", "--plan", "multicast"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("every subscriber received exactly the samples its filter passes"),
        "{stdout}"
    );
    let multicast = stdout
        .lines()
        .find_map(|l| l.strip_prefix("multicast: forced by --plan multicast: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    assert!(multicast > 0, "no sample went by multicast:\n{stdout}");
}
