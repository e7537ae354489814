//! The README's main job, `siftdds demo`, in a small configuration: every subscriber must get
//! exactly the samples its filter passes, and the writer must report its table working; the
//! same over multicast (`--multicast --plan multicast`).

use std::process::Command;

use crate::sandbox::may_open_sockets;

#[test]
fn demo_delivers_exactly_the_filtered_samples() {
    if !may_open_sockets("demo_delivers_exactly_the_filtered_samples") {
        return;
    }
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
    let hits = stdout
        .lines()
        .find(|l| l.contains("table lookups / hits / misses"))
        .and_then(|l| l.split('/').nth(3))
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    assert!(hits > 0, "the writer's table never hit:\n{stdout}");
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
        .find(|l| l.contains("samples multicast / unicast"))
        .and_then(|l| l.split_whitespace().nth(4))
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    assert!(multicast > 0, "no sample went by multicast:\n{stdout}");
}
