//! What the builtin crypto transforms cost (`security::crypto`, DDS-Security 1.1 §9.5): encode
//! and decode of a serialized payload of 1 KiB and 64 KiB, and of a submessage of 1 KiB and
//! 60 KiB (a submessage's length is 16 bits, so 64 KiB does not fit in one), each with
//! AES-128-GCM (encrypt) and AES-128-GMAC (sign), the submessage with 1 and with 100
//! receiver-specific MACs (one encode serves all readers; a reader verifies only its own).
//!
//! Must not: fail (it reports numbers only, docs/conventions.md §5), touch sockets or clocks
//! (criterion keeps time), or use crate internals: only the public API.
//!
//! Run: `cargo bench --bench crypto -- --warm-up-time 1 --measurement-time 2`.

// A benchmark: it indexes and counts what it built itself and unwraps what must work; the
// parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::hint::black_box;

use criterion::{Criterion, Throughput};
use siftdds::cdr::Endianness;
use siftdds::security::crypto::{
    KeyMaterial, OsRandom, ReceiverSpecific, RemoteSender, SenderSession, TransformationKind,
    decode_serialized_payload, decode_submessage, encode_serialized_payload, encode_submessage,
};

const KINDS: [(&str, TransformationKind); 2] = [
    ("gcm128", TransformationKind::Aes128Gcm),
    ("gmac128", TransformationKind::Aes128Gmac),
];

fn bench_payload(c: &mut Criterion) {
    let mut g = c.benchmark_group("crypto_payload");
    for (kname, kind) in KINDS {
        for (sname, size) in [("1k", 1024usize), ("64k", 64 * 1024)] {
            let key = KeyMaterial::generate(kind, false, &mut OsRandom).unwrap();
            let mut session = SenderSession::new(key.clone(), &mut OsRandom).unwrap();
            let mut remote = RemoteSender::new(key).unwrap();
            let plain = vec![0x5au8; size];
            let mut enc = Vec::new();
            encode_serialized_payload(&mut session, &plain, &mut enc).unwrap();
            g.throughput(Throughput::Bytes(size as u64));
            let mut out = Vec::with_capacity(size + 64);
            g.bench_function(format!("{kname}/{sname}/encode"), |b| {
                b.iter(|| {
                    out.clear();
                    encode_serialized_payload(&mut session, black_box(&plain), &mut out).unwrap()
                })
            });
            g.bench_function(format!("{kname}/{sname}/decode"), |b| {
                b.iter(|| {
                    out.clear();
                    decode_serialized_payload(&mut remote, black_box(&enc), &mut out).unwrap()
                })
            });
        }
    }
    g.finish();
}

fn submessage(len: usize) -> Vec<u8> {
    let mut s = vec![0x15, 0x01];
    s.extend(((len - 4) as u16).to_le_bytes());
    s.resize(len, 0x5a);
    s
}

fn bench_submessage(c: &mut Criterion) {
    let mut g = c.benchmark_group("crypto_submessage");
    for (kname, kind) in KINDS {
        for (sname, size) in [("1k", 1024usize), ("60k", 60 * 1024)] {
            for readers in [1usize, 100] {
                let writer = KeyMaterial::generate(kind, false, &mut OsRandom).unwrap();
                let per_reader: Vec<KeyMaterial> = (0..readers)
                    .map(|i| {
                        let mut k = writer.clone();
                        k.receiver_specific_key_id = (i as u32 + 1).to_be_bytes();
                        k.master_receiver_specific_key = vec![i as u8; kind.key_len()];
                        k
                    })
                    .collect();
                let mut receivers: Vec<ReceiverSpecific> = per_reader
                    .iter()
                    .map(|k| ReceiverSpecific::new(k.clone()).unwrap())
                    .collect();
                let mut session = SenderSession::new(writer, &mut OsRandom).unwrap();
                // The last reader: its MAC is the last one in the footer.
                let mut remote = RemoteSender::new(per_reader[readers - 1].clone()).unwrap();
                let plain = submessage(size);
                let mut enc = Vec::new();
                encode_submessage(
                    &mut session,
                    &plain,
                    &mut receivers,
                    Endianness::Little,
                    &mut enc,
                )
                .unwrap();
                g.throughput(Throughput::Bytes(size as u64));
                let mut out = Vec::with_capacity(size + 64 + 20 * readers);
                g.bench_function(format!("{kname}/{sname}/{readers}_readers/encode"), |b| {
                    b.iter(|| {
                        out.clear();
                        encode_submessage(
                            &mut session,
                            black_box(&plain),
                            &mut receivers,
                            Endianness::Little,
                            &mut out,
                        )
                        .unwrap()
                    })
                });
                g.bench_function(format!("{kname}/{sname}/{readers}_readers/decode"), |b| {
                    b.iter(|| {
                        out.clear();
                        decode_submessage(&mut remote, black_box(&enc), &mut out).unwrap()
                    })
                });
            }
        }
    }
    g.finish();
}

/// Runs every group, then prints criterion's summary.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_payload(&mut c);
    bench_submessage(&mut c);
    Criterion::default().configure_from_args().final_summary();
}
