//! Seeds the fuzz corpora from captures: every UDP datagram of each capture becomes one input
//! of `rtps_message`; the same bytes seed `plist` and `cdr`, whose harnesses skip the RTPS
//! framing they do not need. Usage: seed CORPUS_DIR CAPTURE...
use std::path::Path;

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
            for target in ["rtps_message", "plist", "cdr"] {
                let t = Path::new(dir).join(target);
                std::fs::create_dir_all(&t).unwrap_or_else(|e| panic!("{}: {e}", t.display()));
                let name = t.join(format!("{}-{}", Path::new(cap).file_stem().and_then(|s| s.to_str()).unwrap_or("cap"), d.frame));
                std::fs::write(&name, &d.payload).unwrap_or_else(|e| panic!("{}: {e}", name.display()));
            }
            n += 1;
        })
        .unwrap_or_else(|e| panic!("{cap}: {e}"));
    }
    println!("seeded {n} inputs per target into {dir}");
}
