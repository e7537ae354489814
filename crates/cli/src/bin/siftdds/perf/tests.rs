use super::*;

#[test]
fn user_data_is_what_ddsperf_parses() {
    // ddsperf: sscanf(udata, "DDSPerf:%d:%ld%n", …) == 2, then ':' and the hostname up to
    // the end of the USER_DATA (no NUL inside).
    let text = String::from_utf8(ddsperf_user_data()).unwrap();
    let mut fields = text.splitn(4, ':');
    assert_eq!(fields.next(), Some("DDSPerf"));
    assert_eq!(fields.next(), Some("0"), "no Data reader");
    assert_eq!(fields.next(), Some(std::process::id().to_string().as_str()));
    let host = fields.next().unwrap();
    assert!(
        !host.is_empty() && !host.contains('\0') && !host.contains('\n'),
        "{host:?}"
    );
}

fn parse(args: &[&str]) -> Result<PerfOptions, clap::Error> {
    use clap::Parser;
    #[derive(clap::Parser)]
    struct Cli {
        #[command(subcommand)]
        perf: PerfCommand,
    }
    let argv = std::iter::once("perf").chain(args.iter().copied());
    Cli::try_parse_from(argv).map(|c| PerfOptions::from_command(c.perf).unwrap())
}

#[test]
fn parses_ddsperf_style_sizes_and_every_option() {
    assert_eq!(parse_size("16"), Ok(16));
    assert_eq!(parse_size("1k"), Ok(1024));
    assert_eq!(parse_size("64KiB"), Ok(65536));
    assert!(parse_size("1x").is_err());
    let o = parse(&[
        "pub",
        "--size",
        "16k",
        "--best-effort",
        "--history",
        "5",
        "--batch",
        "off",
        "--rate",
        "100",
        "--duration",
        "2.5",
        "--count",
        "7",
        "--domain",
        "3",
    ])
    .unwrap();
    assert_eq!(
        (o.mode, o.size, o.reliable, o.history, o.batch),
        (Mode::Pub, 16384, false, Some(5), false)
    );
    assert_eq!(
        (o.rate, o.duration, o.count, o.domain),
        (Some(100.0), Some(2.5), Some(7), 3)
    );
    assert_eq!(o.topic_name("Data"), "DDSPerfUDataKS");
    assert_eq!(o.qos_summary(), "BEST_EFFORT KEEP_LAST 5");
    for bad in [
        &["sub", "--size", "4"][..],
        &["sub", "--bogus", "1"],
        &["nope"],
        &["pub", "--rate", "inf"],
        &["pub", "--rate", "0"],
        &["pub", "--duration", "-1"],
        &["pub", "--count", "0"],
        &["pub", "--history", "0"],
        &["pub", "--reliable", "--best-effort"],
        &["pub", "--durability", "transient"],
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
    assert_eq!(parse(&["sub"]).unwrap().qos_summary(), "RELIABLE KEEP_ALL");
    let durable = parse(&["sub", "--durability", "transient-local"]).unwrap();
    assert_eq!(durable.qos_summary(), "RELIABLE KEEP_ALL TRANSIENT_LOCAL");
    assert_eq!(
        durable.data_reader_qos().durability,
        Durability::TransientLocal
    );
}

#[test]
fn peer_group_options_select_pgseq_samples() {
    let o = parse(&[
        "pub",
        "--common-bytes",
        "4k",
        "--size",
        "64",
        "--peer-group",
        "G",
    ])
    .unwrap();
    assert_eq!(o.topic_name("Data"), "DDSPerfRDataPG");
    assert_eq!(o.peer_group.as_deref(), Some("G"));
    let shape = o.peer_group_shape.unwrap();
    assert_eq!((shape.common.len(), shape.varying_len), (4092, 52));
    assert!(parse(&["sub"]).unwrap().peer_group_shape.is_none());
    for bad in [
        &["pub", "--peer-group", "G"][..],
        &["sub", "--common-set", "2"],
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
    use clap::Parser;
    #[derive(clap::Parser)]
    struct Cli {
        #[command(subcommand)]
        perf: PerfCommand,
    }
    let c = Cli::try_parse_from(["perf", "pub", "--common-bytes", "190"]).unwrap();
    assert!(
        PerfOptions::from_command(c.perf).is_err(),
        "not a multiple of 4"
    );
}

/// `--qos-file` / `--qos-profile`: the participant QoS (a DDS Security property here) comes
/// from the named profile, or the files' default profile; a missing profile is an error.
#[test]
fn participant_qos_comes_from_the_named_or_default_profile() {
    let dir = std::env::temp_dir().join(format!("siftdds-perf-qos-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sec.xml");
    std::fs::write(
        &file,
        r#"<dds><qos_library name="Sec">
<qos_profile name="Alice" is_default_qos="true"><domain_participant_qos><property><value>
<element><name>dds.sec.auth.identity_ca</name><value>file:/pki/ca.pem</value></element>
</value></property></domain_participant_qos></qos_profile>
<qos_profile name="Plain"/>
</qos_library></dds>"#,
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let default = parse(&["sub", "--qos-file", f]).unwrap();
    let qos = default.profile_participant_qos().unwrap();
    assert_eq!(
        qos.property.get("dds.sec.auth.identity_ca"),
        Some("file:/pki/ca.pem")
    );
    let plain = parse(&["sub", "--qos-file", f, "--qos-profile", "Sec::Plain"]).unwrap();
    let qos = plain.profile_participant_qos().unwrap();
    assert_eq!(qos.property.get("dds.sec.auth.identity_ca"), None);
    let missing = parse(&["sub", "--qos-file", f, "--qos-profile", "Sec::Nope"]).unwrap();
    assert!(missing.profile_participant_qos().is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
