//! Untrusted-input tests: size, depth and count limits give errors, and random or mutated
//! documents never panic the loader or the lookups.
#![allow(clippy::arithmetic_side_effects)]

use super::{BASE_FILE, DATA, DERIVED_FILE, load_err};
use crate::qos::xml::{MAX_DEPTH, MAX_ELEMENTS, MAX_FILE_SIZE, QosProvider};
use crate::test_rng::Rng;

#[test]
fn limits_give_errors_not_crashes() {
    let mut big = String::from("<dds><!--");
    big.push_str(&"x".repeat(MAX_FILE_SIZE));
    big.push_str("--></dds>");
    assert_eq!(
        load_err(&big),
        format!("1:1: file is larger than {MAX_FILE_SIZE} bytes")
    );

    let deep = format!(
        "{}{}",
        "<a>".repeat(MAX_DEPTH + 1),
        "</a>".repeat(MAX_DEPTH + 1)
    );
    let col = MAX_DEPTH * 3 + 1;
    assert_eq!(
        load_err(&deep),
        format!("1:{col}: elements nested deeper than {MAX_DEPTH}")
    );
    let very_deep = format!("{}{}", "<a>".repeat(200_000), "</a>".repeat(200_000));
    assert!(load_err(&very_deep).contains("nested deeper"));

    let many = format!("<dds>{}</dds>", "<types/>".repeat(MAX_ELEMENTS));
    assert!(load_err(&many).contains(&format!("more than {MAX_ELEMENTS} elements")));

    let long_name = format!("<qos_library name=\"{}\"/>", "n".repeat(300));
    assert_eq!(
        load_err(&long_name),
        "1:14: attribute `name` must be 1 to 256 bytes long"
    );
    let long_text = format!(
        "<qos_library name=\"L\"><topic_qos name=\"T\"><topic_data><value>{}</value></topic_data></topic_qos></qos_library>",
        "1,".repeat(40_000)
    );
    assert!(load_err(&long_text).contains("text longer than 65536 bytes"));
    let billion = "<!DOCTYPE d [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><d>&b;</d>";
    assert!(load_err(billion).contains("DTD"));
}

/// Loads `text` and, if it loads, runs every lookup on every profile; nothing may panic.
fn exercise(text: &str) {
    let mut p = QosProvider::new();
    if p.load_str("fuzz.xml", text).is_ok() {
        let names: Vec<String> = p
            .profile_names()
            .map(str::to_string)
            .chain([String::new()])
            .collect();
        for n in &names {
            let _ = p.participant_qos(n);
            let _ = p.topic_qos(n, "Sensor_1");
            let _ = p.publisher_qos(n);
            let _ = p.subscriber_qos(n);
            let _ = p.datawriter_qos(n, "Sensor_1");
            let _ = p.datareader_qos(n, "x");
        }
    }
}

#[test]
fn random_and_mutated_input_never_panics() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        exercise(&String::from_utf8_lossy(&bytes));
    }
    let seeds = [
        std::fs::read_to_string(format!("{DATA}/all_policies.xml")).unwrap(),
        std::fs::read_to_string(format!("{DATA}/fastdds.xml")).unwrap(),
        BASE_FILE.to_string(),
        DERIVED_FILE.to_string(),
    ];
    const ALPHABET: &[u8] = b"<>/=\"' -x0123456789_:*[]!&;AZ";
    for seed in &seeds {
        for _ in 0..150 {
            let mut bytes = seed.clone().into_bytes();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(bytes.len());
                match rng.below(3) {
                    0 => bytes[i] = ALPHABET[rng.below(ALPHABET.len())],
                    1 => {
                        bytes.remove(i);
                    }
                    _ => bytes.truncate(i),
                }
                if bytes.is_empty() {
                    break;
                }
            }
            exercise(&String::from_utf8_lossy(&bytes));
        }
    }
}

/// `libs` libraries of 10 profiles each, each library a `base_name` chain P0 ← P1 ← … ← P9
/// with unqualified names (the same short names in every library), all on one line (so a
/// position costs a walk along that line unless positions are indexed).
fn chained_libraries(libs: usize) -> String {
    let mut xml = String::from("<dds>");
    for l in 0..libs {
        xml.push_str(&format!("<qos_library name=\"L{l}\">"));
        for p in 0..10 {
            let base = if p == 0 {
                String::new()
            } else {
                format!(" base_name=\"P{}\"", p - 1)
            };
            let rel = if p == 0 {
                "<reliability><kind>RELIABLE_RELIABILITY_QOS</kind></reliability>"
            } else {
                ""
            };
            xml.push_str(&format!(
                "<qos_profile name=\"P{p}\"{base}><datawriter_qos>{rel}<history>\
                 <kind>KEEP_LAST_HISTORY_QOS</kind><depth>{}</depth></history>\
                 </datawriter_qos></qos_profile>",
                l * 10 + p + 1
            ));
        }
        xml.push_str("</qos_library>");
    }
    xml.push_str("</dds>");
    xml
}

/// Issue 15: loading n profiles and resolving each library's deepest profile does work linear
/// in n. The loader counts its size-dependent steps (`qos::xml::work`: bytes walked to find
/// positions, name-table probes); 8 times the profiles must cost at most 12 times the work
/// (linear gives 8; the former per-position rescan of the text and pairwise duplicate check
/// gave about 64).
#[test]
fn loading_and_resolving_profiles_is_linear_in_their_number() {
    let mut cost = Vec::new();
    for libs in [100, 800] {
        let xml = chained_libraries(libs);
        crate::qos::xml::work::take();
        let mut provider = QosProvider::new();
        provider.load_str("many.xml", &xml).unwrap();
        for l in 0..libs {
            provider.datawriter_qos(&format!("L{l}::P9"), "T").unwrap();
        }
        cost.push(crate::qos::xml::work::take());
    }
    let (small, large) = (cost[0], cost[1]);
    eprintln!("work: 1,000 profiles {small} steps, 8,000 profiles {large} steps");
    assert!(small > 0);
    assert!(
        large <= small * 12,
        "1,000 profiles: {small} steps; 8,000: {large} ({:.1}×)",
        large as f64 / small as f64
    );
}

/// Issue 15: MAX_PROFILES profiles in 1000 libraries load and resolve by name: each
/// profile gets its own depth plus the root's reliability, and a duplicate name is refused.
#[test]
fn ten_thousand_chained_profiles_resolve_by_name() {
    use crate::qos::ReliabilityKind;
    use crate::qos::xml::MAX_PROFILES;
    let libs = MAX_PROFILES / 10;
    let xml = chained_libraries(libs);
    let mut provider = QosProvider::new();
    provider.load_str("many.xml", &xml).unwrap();
    assert_eq!(provider.profile_names().count(), MAX_PROFILES);
    for l in (0..libs).step_by(37) {
        let w = provider.datawriter_qos(&format!("L{l}::P9"), "T").unwrap();
        let depth = (l * 10 + 10) as u32;
        assert_eq!(w.history, crate::qos::History::KeepLast(depth), "L{l}::P9");
        assert_eq!(w.reliability.kind, ReliabilityKind::Reliable, "L{l}::P9");
    }
    let again = provider.load_str(
        "dup.xml",
        "<dds><qos_library name=\"L5\"><qos_profile name=\"P3\"/></qos_library></dds>",
    );
    assert!(
        again
            .unwrap_err()
            .message
            .contains("duplicate profile `L5::P3`")
    );
}
