//! Seeds the fuzz corpora from captures: every UDP datagram of each capture becomes one input
//! of `rtps_message`; the same bytes seed `plist` and `cdr`, whose harnesses skip the RTPS
//! framing they do not need. Usage: seed CORPUS_DIR CAPTURE...
use std::path::Path;

/// Filter expressions as readers send them (Fast DDS examples, DDS 1.4 Annex B style).
const FILTER_SEEDS: &[&str] = &[
    "color = %0",
    "shapesize <= 20",
    "x > 10 AND y < 5 OR NOT (a.b[2] BETWEEN 1 AND 0x10)",
    "name LIKE 'A%_' AND flag = TRUE",
    "index between %0 and %1",
    "msg MATCH '^The.*' OR count NOT BETWEEN -1.5e3 AND 2.0",
    "color <> 'RED' AND (x >= y OR z != 'c')",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((dir, captures)) = args.split_first() else {
        eprintln!("usage: seed CORPUS_DIR CAPTURE...");
        std::process::exit(2);
    };
    let mut n = 0usize;
    for cap in captures {
        let file = std::fs::File::open(cap).unwrap_or_else(|e| panic!("{cap}: {e}"));
        siftdds::inspect::capture::for_each_datagram(std::io::BufReader::new(file), |d| {
            let stem = Path::new(cap).file_stem().and_then(|s| s.to_str()).unwrap_or("cap").to_string();
            let write = |target: &str, suffix: String, bytes: &[u8]| {
                let t = Path::new(dir).join(target);
                std::fs::create_dir_all(&t).unwrap_or_else(|e| panic!("{}: {e}", t.display()));
                let name = t.join(format!("{stem}-{}{suffix}", d.frame));
                std::fs::write(&name, bytes).unwrap_or_else(|e| panic!("{}: {e}", name.display()));
            };
            for target in ["rtps_message", "plist", "cdr"] {
                write(target, String::new(), &d.payload);
            }
            // participant_rx: one length-prefixed datagram.
            let len = u16::try_from(d.payload.len()).unwrap_or(u16::MAX);
            let mut framed = len.to_be_bytes().to_vec();
            framed.extend_from_slice(&d.payload);
            write("participant_rx", String::new(), &framed);
            // discovery: selector byte + each SPDP/SEDP payload in the datagram.
            if let Ok((header, iter)) = siftdds::wire::Message::parse(&d.payload) {
                for (i, o) in iter.enumerate() {
                    let siftdds::wire::submessage::SubmessageOutcome::Accept(
                        siftdds::wire::submessage::Submessage::Data(data),
                    ) = o
                    else {
                        continue;
                    };
                    let kind = match data.writer_id.0 {
                        [0, 1, 0, 0xc2] => 0u8,
                        [0, 0, 3, 0xc2] => 1,
                        [0, 0, 4, 0xc2] => 2,
                        _ => continue,
                    };
                    if let Some(p) = data.payload.bytes() {
                        let vendor = header.vendor_id;
                        let mut seed = vec![siftdds::fuzzing::discovery_selector(vendor, kind)];
                        seed.extend_from_slice(p);
                        write("discovery", format!("-{i}"), &seed);
                        // The same data as a siftdds sender's, with its vendor PIDs.
                        if let Some(ours) = siftdds::fuzzing::siftdds_discovery_seed(kind, vendor, p) {
                            write("discovery", format!("-{i}-siftdds"), &ours);
                        }
                    }
                }
            }
            n += 1;
        })
        .unwrap_or_else(|e| panic!("{cap}: {e}"));
    }
    let filters = Path::new(dir).join("filter");
    std::fs::create_dir_all(&filters).unwrap_or_else(|e| panic!("{}: {e}", filters.display()));
    for (i, expr) in FILTER_SEEDS.iter().enumerate() {
        let name = filters.join(format!("seed-{i}"));
        std::fs::write(&name, expr).unwrap_or_else(|e| panic!("{}: {e}", name.display()));
    }
    println!("seeded {n} inputs per RTPS target and {} filters into {dir}", FILTER_SEEDS.len());
}
