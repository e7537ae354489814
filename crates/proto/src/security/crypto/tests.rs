//! Known-answer vectors (session keys computed with the openssl CLI, the NIST GCM vector),
//! the byte layouts of each transform, round trips for the four kinds, receiver-specific MACs,
//! session rotation, and tampered and truncated input at every offset.
#![allow(clippy::arithmetic_side_effects)]

use super::aead::KeyedCipher;
use super::*;
use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::wire::security::{CryptoHeader, SEC_BODY, SEC_POSTFIX, SEC_PREFIX};

/// A deterministic random source: a counter.
struct Counter(u8);

impl RandomSource for Counter {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), CryptoError> {
        for b in buf {
            self.0 = self.0.wrapping_add(1);
            *b = self.0;
        }
        Ok(())
    }
}

const KINDS: [TransformationKind; 4] = [
    TransformationKind::Aes128Gmac,
    TransformationKind::Aes128Gcm,
    TransformationKind::Aes256Gmac,
    TransformationKind::Aes256Gcm,
];

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn fixed_keymat(kind: TransformationKind) -> KeyMaterial {
    let n = kind.key_len();
    KeyMaterial {
        transformation_kind: kind,
        master_salt: (0x10..0x10 + n as u8).collect(),
        sender_key_id: [0, 0, 0, 7],
        master_sender_key: (0..n as u8).collect(),
        receiver_specific_key_id: [0, 0, 0, 9],
        master_receiver_specific_key: (0x40..0x40 + n as u8).collect(),
    }
}

/// DDS-Security 1.1 §9.5.3.3.3, checked against `openssl dgst -sha256 -mac HMAC` over
/// "SessionKey" ‖ salt ‖ session id (the octets Cyclone and Fast DDS feed the HMAC).
#[test]
fn session_keys_match_the_hmac_computed_by_the_openssl_cli() {
    let k = fixed_keymat(TransformationKind::Aes128Gcm);
    let key = derive_session_key(&k, KeyUse::Sender, [0, 0, 0, 1]).unwrap();
    assert_eq!(
        key.as_bytes(),
        &unhex("99df278664ea626cc35d17bd22ead23e")[..]
    );
    let k = fixed_keymat(TransformationKind::Aes256Gmac);
    let key = derive_session_key(&k, KeyUse::ReceiverSpecific, [0xde, 0xad, 0xbe, 0xef]).unwrap();
    assert_eq!(
        key.as_bytes(),
        &unhex("94a6927cb6ac9e908416e5e6d7d4d6fb38dfc2b3e2b912aefb39ca08a85f9a5c")[..]
    );
}

/// NIST GCM test case 2 (AES-128, zero key and IV, one zero block).
#[test]
fn gcm_matches_the_nist_vector_and_gmac_is_gcm_over_aad() {
    let mut c = KeyedCipher::new(&[0; 16]).unwrap();
    let mut out = Vec::new();
    let tag = c.gcm_encrypt(&[0; 12], &[&[0; 16]], &mut out).unwrap();
    assert_eq!(out, unhex("0388dace60b6a392f328c2b971b2fe78"));
    assert_eq!(tag.to_vec(), unhex("ab6e47d42cec13bdf53a67b21257bddf"));
    let mut plain = Vec::new();
    c.gcm_decrypt(&[0; 12], &out, &tag, &mut plain).unwrap();
    assert_eq!(plain, [0; 16]);
    let mut bad = tag;
    bad[0] ^= 1;
    assert_eq!(
        c.gcm_decrypt(&[0; 12], &out, &bad, &mut plain),
        Err(CryptoError::MacMismatch)
    );
    // NIST test case 1: no plaintext, no AAD.
    let t = c.gmac(&[0; 12], &[]).unwrap();
    // The context keeps working after a failed decrypt and across operations.
    let tag2 = c
        .gcm_encrypt(&[0; 12], &[&[0; 8], &[0; 8]], &mut Vec::new())
        .unwrap();
    assert_eq!(
        tag2, tag,
        "the same plaintext in two parts gives the same tag"
    );
    assert_eq!(t.to_vec(), unhex("58e2fccefa7e3061367f1d57a4e7455a"));
}

/// The CDR of the key material: big-endian u32 lengths (Fast DDS writes "0 0 0 n").
#[test]
fn key_material_cdr_layout_and_token_round_trip() {
    let k = fixed_keymat(TransformationKind::Aes128Gcm);
    let cdr = k.to_cdr();
    let mut expect = vec![0, 0, 0, 2, 0, 0, 0, 16];
    expect.extend(0x10..0x20u8);
    expect.extend([0, 0, 0, 7, 0, 0, 0, 16]);
    expect.extend(0..16u8);
    expect.extend([0, 0, 0, 9, 0, 0, 0, 16]);
    expect.extend(0x40..0x50u8);
    assert_eq!(cdr, expect);
    assert_eq!(KeyMaterial::from_cdr(&cdr).unwrap(), k);
    // Without origin authentication the receiver key is an empty sequence.
    let mut plain = k.clone();
    plain.receiver_specific_key_id = [0; 4];
    plain.master_receiver_specific_key.clear();
    let cdr = plain.to_cdr();
    assert_eq!(&cdr[cdr.len() - 8..], &[0; 8]);
    assert_eq!(KeyMaterial::from_cdr(&cdr).unwrap(), plain);
    // Fast DDS's key material of kind NONE: the kind and 40 zeros.
    let none = KeyMaterial::from_cdr(&[0; 44]).unwrap();
    assert_eq!(none.transformation_kind, TransformationKind::None);
    // Cyclone's: the kind, empty salt, a key id, empty key, no receiver key id.
    let cyclone = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    let none = KeyMaterial::from_cdr(&cyclone).unwrap();
    assert_eq!(none.transformation_kind, TransformationKind::None);

    for endian in [Endianness::Little, Endianness::Big] {
        let mut buf = Vec::new();
        emit_crypto_tokens(
            &[k.clone(), plain.clone()],
            &mut CdrWriter::new(&mut buf, endian),
        );
        let back = parse_crypto_tokens(&mut CdrReader::new(&buf, endian)).unwrap();
        assert_eq!(back, vec![k.clone(), plain.clone()]);
        // Every truncation is an error.
        for n in 0..buf.len() {
            assert!(parse_crypto_tokens(&mut CdrReader::new(&buf[..n], endian)).is_err());
        }
    }
    let mut buf = Vec::new();
    emit_crypto_token(&k, &mut CdrWriter::new(&mut buf, Endianness::Little));
    assert_eq!(&buf[4..27], b"DDS:Crypto:AES_GCM_GMAC");
}

#[test]
fn malformed_key_material_is_refused() {
    let k = fixed_keymat(TransformationKind::Aes256Gcm);
    let cdr = k.to_cdr();
    // A key length that is not the kind's.
    let mut bad = cdr.clone();
    bad[7] = 16;
    assert!(KeyMaterial::from_cdr(&bad).is_err());
    let mut bad = cdr.clone();
    bad[3] = 9;
    assert_eq!(
        KeyMaterial::from_cdr(&bad),
        Err(CryptoError::Invalid("transformation_kind"))
    );
    let mut long = cdr.clone();
    long.push(0);
    assert!(KeyMaterial::from_cdr(&long).is_err());
    for n in 0..cdr.len() {
        assert!(KeyMaterial::from_cdr(&cdr[..n]).is_err(), "{n}");
    }
}

#[test]
fn generated_key_material_has_the_kinds_lengths_and_nonzero_ids() {
    for kind in KINDS {
        let k = KeyMaterial::generate(kind, true, &mut OsRandom).unwrap();
        k.validate().unwrap();
        assert_eq!(k.master_sender_key.len(), kind.key_len());
        assert_ne!(k.sender_key_id, [0; 4]);
        assert!(k.has_receiver_specific_key());
        let k = KeyMaterial::generate(kind, false, &mut Counter(0)).unwrap();
        assert!(!k.has_receiver_specific_key());
        assert!(k.master_receiver_specific_key.is_empty());
    }
}

fn pair(kind: TransformationKind, origin: bool) -> (SenderSession, RemoteSender, KeyMaterial) {
    let k = KeyMaterial::generate(kind, origin, &mut Counter(0)).unwrap();
    (
        SenderSession::new(k.clone(), &mut Counter(100)).unwrap(),
        RemoteSender::new(k.clone()).unwrap(),
        k,
    )
}

/// §9.5.3.3.4.1 built again from its parts with the openssl crate directly: the session key by
/// HMAC, the IV from the header, AES-GCM without AAD; the output must be those bytes.
#[test]
fn encoded_payload_is_header_content_footer_byte_for_byte() {
    use openssl::symm::{Cipher, encrypt_aead};
    let k = fixed_keymat(TransformationKind::Aes128Gcm);
    let mut s = SenderSession::new(k.clone(), &mut Counter(0)).unwrap();
    let plain = b"\x00\x01\x00\x00hello world!";
    let mut out = Vec::new();
    encode_serialized_payload(&mut s, plain, &mut out).unwrap();

    let header = CryptoHeader::parse(&mut CdrReader::new(&out, Endianness::Big)).unwrap();
    assert_eq!(
        header.transform_identifier.transformation_kind,
        [0, 0, 0, 2]
    );
    assert_eq!(
        header.transform_identifier.transformation_key_id,
        [0, 0, 0, 7]
    );
    // Counter(0) gave the session id 01020304 and IV start 05..0c; the first encode adds 1.
    assert_eq!(header.session_id, [1, 2, 3, 4]);
    assert_eq!(
        header.initialization_vector_suffix,
        [5, 6, 7, 8, 9, 10, 11, 13]
    );

    let key = derive_session_key(&k, KeyUse::Sender, [1, 2, 3, 4]).unwrap();
    let mut tag = [0u8; 16];
    let ct = encrypt_aead(
        Cipher::aes_128_gcm(),
        key.as_bytes(),
        Some(&header.initialization_vector()),
        &[],
        plain,
        &mut tag,
    )
    .unwrap();
    let mut expect = out[..20].to_vec();
    expect.extend((plain.len() as u32).to_be_bytes());
    expect.extend(&ct);
    expect.extend(tag);
    expect.extend([0, 0, 0, 0]);
    assert_eq!(out, expect);
}

#[test]
fn payloads_round_trip_for_every_kind_and_odd_lengths() {
    for kind in KINDS {
        let (mut s, mut r, _) = pair(kind, false);
        // 1, 3 and 1021 octets: Fast DDS 2.9 leaves a GMAC payload unpadded.
        for len in [1usize, 3, 4, 1021, 1024, 65536] {
            let plain: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let mut enc = Vec::new();
            encode_serialized_payload(&mut s, &plain, &mut enc).unwrap();
            let body = if kind.encrypts() { len + 4 } else { len };
            assert_eq!(enc.len(), 20 + body + 20, "{kind:?} {len}");
            if !kind.encrypts() {
                assert_eq!(
                    &enc[20..20 + len],
                    &plain[..],
                    "GMAC leaves the payload in clear"
                );
            }
            let mut dec = Vec::new();
            decode_serialized_payload(&mut r, &enc, &mut dec).unwrap();
            assert_eq!(dec, plain);
            // As a DATA carries it: followed by the submessage's padding to 4 octets.
            for pad in 1..=3 {
                let mut padded = enc.clone();
                padded.resize(enc.len() + pad, 0);
                let mut dec = Vec::new();
                decode_serialized_payload(&mut r, &padded, &mut dec).unwrap();
                assert_eq!(dec, plain, "{kind:?} {len} + {pad}");
            }
            let mut trailer = enc.clone();
            trailer.push(1);
            assert!(
                decode_serialized_payload(&mut r, &trailer, &mut Vec::new()).is_err(),
                "{kind:?} {len}: a non-zero octet after the footer"
            );
        }
    }
}

/// A DATA submessage-shaped buffer of `len` octets (header included).
fn submessage(len: usize) -> Vec<u8> {
    let mut s = vec![0x15, 0x01];
    s.extend(((len - 4) as u16).to_le_bytes());
    s.extend((4..len).map(|i| i as u8));
    s
}

#[test]
fn submessages_round_trip_with_the_vendors_layout() {
    for kind in KINDS {
        let (mut s, mut r, _) = pair(kind, false);
        let plain = submessage(64);
        let mut enc = Vec::new();
        encode_submessage(&mut s, &plain, &mut [], Endianness::Little, &mut enc).unwrap();
        assert_eq!(enc[0], SEC_PREFIX);
        assert_eq!(&enc[2..4], &[20, 0]);
        let post_at = if kind.encrypts() {
            // SEC_BODY: length 4 + 64, content length big-endian.
            assert_eq!(enc[24], SEC_BODY);
            assert_eq!(&enc[26..28], &[68, 0]);
            assert_eq!(&enc[28..32], &[0, 0, 0, 64]);
            24 + 4 + 68
        } else {
            assert_eq!(
                &enc[24..88],
                &plain[..],
                "GMAC leaves the submessage in clear"
            );
            24 + 64
        };
        assert_eq!(enc[post_at], SEC_POSTFIX);
        assert_eq!(enc.len(), post_at + 4 + 20);
        // Followed by another submessage: decode says where the three ended.
        enc.extend(submessage(8));
        let mut dec = Vec::new();
        let used = decode_submessage(&mut r, &enc, &mut dec).unwrap();
        assert_eq!(used, post_at + 24);
        assert_eq!(dec, plain);
        assert_eq!(
            peek_crypto_header(&enc, Protected::Submessage)
                .unwrap()
                .transform_identifier
                .transformation_kind,
            kind.octets()
        );
    }
}

fn rtps_message(body_len: usize) -> Vec<u8> {
    let mut m = b"RTPS\x02\x05\x01\x10".to_vec();
    m.extend([0xab; 12]);
    m.extend(submessage(body_len));
    m
}

#[test]
fn rtps_messages_round_trip_with_info_src_from_the_header() {
    for kind in KINDS {
        let (mut s, mut r, _) = pair(kind, false);
        let plain = rtps_message(100);
        let mut enc = Vec::new();
        encode_rtps_message(&mut s, &plain, &mut [], Endianness::Little, &mut enc).unwrap();
        assert_eq!(&enc[..20], &plain[..20], "the RTPS header stays in clear");
        assert_eq!(enc[20], crate::wire::security::SRTPS_PREFIX);
        if !kind.encrypts() {
            // INFO_SRC (little-endian, length 20), then the message's submessages in clear.
            assert_eq!(&enc[44..48], &[0x0c, 0x01, 20, 0]);
            assert_eq!(&enc[52..68], &plain[4..20]);
            assert_eq!(&enc[68..168], &plain[20..]);
        }
        let mut dec = Vec::new();
        decode_rtps_message(&mut r, &enc, &mut dec).unwrap();
        assert_eq!(&dec[..20], &plain[..20]);
        assert_eq!(&dec[20..24], &[0x0c, 0x01, 20, 0]);
        assert_eq!(&dec[44..], &plain[20..]);
    }
}

#[test]
fn every_flipped_bit_and_every_truncation_is_an_error() {
    for kind in KINDS {
        let (mut s, mut r, k) = pair(kind, true);
        // A payload is protected by the writer's key alone (§9.5.3.3.4.1): no receiver MACs.
        let mut plain_key = k.clone();
        plain_key.receiver_specific_key_id = [0; 4];
        plain_key.master_receiver_specific_key.clear();
        let mut r_payload = RemoteSender::new(plain_key).unwrap();
        let mut recv = vec![ReceiverSpecific::new(r.key_material().clone()).unwrap()];
        let cases: Vec<(Protected, Vec<u8>)> = {
            let mut p = Vec::new();
            encode_serialized_payload(&mut s, &[7; 32], &mut p).unwrap();
            let mut sm = Vec::new();
            encode_submessage(&mut s, &submessage(32), &mut recv, Endianness::Big, &mut sm)
                .unwrap();
            let mut m = Vec::new();
            encode_rtps_message(
                &mut s,
                &rtps_message(32),
                &mut recv,
                Endianness::Little,
                &mut m,
            )
            .unwrap();
            vec![
                (Protected::Payload, p),
                (Protected::Submessage, sm),
                (Protected::Message, m),
            ]
        };
        for (what, enc) in cases {
            let mut decode = |r: &mut RemoteSender, b: &[u8]| {
                let mut out = Vec::new();
                match what {
                    Protected::Payload => decode_serialized_payload(&mut r_payload, b, &mut out),
                    Protected::Submessage => decode_submessage(r, b, &mut out).map(|_| ()),
                    Protected::Message => decode_rtps_message(r, b, &mut out),
                }
            };
            decode(&mut r, &enc).unwrap();
            for i in 0..enc.len() {
                let mut bad = enc.clone();
                bad[i] ^= 0x01;
                assert!(decode(&mut r, &bad).is_err(), "{kind:?} {what:?} byte {i}");
            }
            for n in 0..enc.len() {
                assert!(
                    decode(&mut r, &enc[..n]).is_err(),
                    "{kind:?} {what:?} len {n}"
                );
            }
        }
    }
}

/// One encode serves N readers: each verifies only its own MAC; a reader whose MAC was damaged
/// fails while the others still pass; a reader without a MAC is refused.
#[test]
fn receiver_specific_macs_for_many_readers() {
    for kind in KINDS {
        let writer = KeyMaterial::generate(kind, false, &mut OsRandom).unwrap();
        let mut session = SenderSession::new(writer.clone(), &mut OsRandom).unwrap();
        // Per reader: the writer's key plus a receiver-specific key of its own.
        let per_reader: Vec<KeyMaterial> = (0..5)
            .map(|i| {
                let mut k = writer.clone();
                k.receiver_specific_key_id = [0, 0, 1, i];
                k.master_receiver_specific_key = vec![i; kind.key_len()];
                k
            })
            .collect();
        let mut receivers: Vec<ReceiverSpecific> = per_reader[..4]
            .iter()
            .map(|k| ReceiverSpecific::new(k.clone()).unwrap())
            .collect();
        let plain = submessage(40);
        let mut enc = Vec::new();
        encode_submessage(
            &mut session,
            &plain,
            &mut receivers,
            Endianness::Little,
            &mut enc,
        )
        .unwrap();
        for k in &per_reader[..4] {
            let mut dec = Vec::new();
            decode_submessage(&mut RemoteSender::new(k.clone()).unwrap(), &enc, &mut dec).unwrap();
            assert_eq!(dec, plain);
        }
        assert_eq!(
            decode_submessage(
                &mut RemoteSender::new(per_reader[4].clone()).unwrap(),
                &enc,
                &mut Vec::new()
            ),
            Err(CryptoError::ReceiverMacMissing)
        );
        // Damage reader 2's MAC (the footer's MACs are the last 4 × 20 octets).
        let mut bad = enc.clone();
        let at = bad.len() - 2 * 20 + 4;
        bad[at] ^= 0x80;
        for (i, k) in per_reader[..4].iter().enumerate() {
            let r = decode_submessage(
                &mut RemoteSender::new(k.clone()).unwrap(),
                &bad,
                &mut Vec::new(),
            );
            assert_eq!(r.is_ok(), i != 2, "reader {i}");
        }
        // A receiver that does not use origin authentication ignores the MACs.
        decode_submessage(
            &mut RemoteSender::new(writer.clone()).unwrap(),
            &bad,
            &mut Vec::new(),
        )
        .unwrap();
        // The whole-message transform carries them the same way.
        let mut m = Vec::new();
        encode_rtps_message(
            &mut session,
            &rtps_message(24),
            &mut receivers,
            Endianness::Big,
            &mut m,
        )
        .unwrap();
        decode_rtps_message(
            &mut RemoteSender::new(per_reader[3].clone()).unwrap(),
            &m,
            &mut Vec::new(),
        )
        .unwrap();
    }
}

#[test]
fn sessions_rotate_after_their_block_budget_and_receivers_follow() {
    let (s, mut r, _) = pair(TransformationKind::Aes128Gcm, false);
    let mut s = s.with_max_blocks_per_session(10);
    let first = s.session_id();
    let mut ids = Vec::new();
    for _ in 0..5 {
        let mut enc = Vec::new();
        // 64 octets = 4 blocks: two fit in a session of 10 blocks, the third rotates.
        encode_serialized_payload(&mut s, &[1; 64], &mut enc).unwrap();
        let h = peek_crypto_header(&enc, Protected::Payload).unwrap();
        ids.push(u32::from_be_bytes(h.session_id));
        let mut dec = Vec::new();
        decode_serialized_payload(&mut r, &enc, &mut dec).unwrap();
    }
    let f = u32::from_be_bytes(first);
    assert_eq!(ids, vec![f, f, f + 1, f + 1, f + 2]);
}

#[test]
fn a_receiver_refuses_another_key_and_oversized_submessages_are_refused() {
    let (mut s, _, _) = pair(TransformationKind::Aes256Gcm, false);
    let (_, mut other, _) = pair(TransformationKind::Aes256Gcm, false);
    // Same Counter: same key id; use a different id.
    let mut k = other.key_material().clone();
    k.sender_key_id = [9, 9, 9, 9];
    other = RemoteSender::new(k).unwrap();
    let mut enc = Vec::new();
    encode_serialized_payload(&mut s, &[1; 8], &mut enc).unwrap();
    assert_eq!(
        decode_serialized_payload(&mut other, &enc, &mut Vec::new()),
        Err(CryptoError::KeyMismatch)
    );
    let big = vec![0u8; 65536];
    assert_eq!(
        encode_submessage(&mut s, &big, &mut [], Endianness::Little, &mut Vec::new()),
        Err(CryptoError::TooLarge("SEC_BODY"))
    );
}

/// RTPS 2.5 §9.4.5.1.3: a clear (GMAC) submessage with octetsToNextHeader 0 would swallow the
/// postfix, so it is refused; encrypted, it travels inside SEC_BODY and is fine.
#[test]
fn a_submessage_to_the_end_of_the_message_is_only_encrypted() {
    let mut data = vec![0x15, 0x01, 0, 0];
    data.extend([1; 12]);
    let (mut s, _, _) = pair(TransformationKind::Aes128Gmac, false);
    assert!(matches!(
        encode_submessage(&mut s, &data, &mut [], Endianness::Little, &mut Vec::new()),
        Err(CryptoError::Invalid(_))
    ));
    let (mut s, mut r, _) = pair(TransformationKind::Aes128Gcm, false);
    let mut enc = Vec::new();
    encode_submessage(&mut s, &data, &mut [], Endianness::Little, &mut enc).unwrap();
    let mut dec = Vec::new();
    decode_submessage(&mut r, &enc, &mut dec).unwrap();
    assert_eq!(dec, data);
}

/// A sender that registered one match twice sends its tokens twice, each with another
/// receiver-specific key, and may MAC with the first: the renewed receiving side verifies a MAC
/// under either key, and still none under a key it was never given.
#[test]
fn renewed_tokens_keep_the_earlier_receiver_specific_key_of_the_same_sender() {
    for kind in KINDS {
        let writer = KeyMaterial::generate(kind, false, &mut OsRandom).unwrap();
        let with_key = |id: u8| {
            let mut k = writer.clone();
            k.receiver_specific_key_id = [0, 0, 0, id];
            k.master_receiver_specific_key = vec![id; kind.key_len()];
            k
        };
        let (first, second, other) = (with_key(3), with_key(4), with_key(5));
        let encoded_for = |k: &KeyMaterial| {
            let mut session = SenderSession::new(writer.clone(), &mut OsRandom).unwrap();
            let mut receivers = vec![ReceiverSpecific::new(k.clone()).unwrap()];
            let mut enc = Vec::new();
            encode_submessage(
                &mut session,
                &submessage(40),
                &mut receivers,
                Endianness::Little,
                &mut enc,
            )
            .unwrap();
            enc
        };
        let renewed = || {
            RemoteSender::new(first.clone())
                .unwrap()
                .renewed(RemoteSender::new(second.clone()).unwrap())
        };
        // Without the earlier key the MAC under the first is not ours.
        assert_eq!(
            decode_submessage(
                &mut RemoteSender::new(second.clone()).unwrap(),
                &encoded_for(&first),
                &mut Vec::new()
            ),
            Err(CryptoError::ReceiverMacMissing),
            "{kind:?}"
        );
        for k in [&first, &second] {
            let mut dec = Vec::new();
            decode_submessage(&mut renewed(), &encoded_for(k), &mut dec).unwrap();
            assert_eq!(dec, submessage(40), "{kind:?}");
        }
        assert_eq!(
            decode_submessage(&mut renewed(), &encoded_for(&other), &mut Vec::new()),
            Err(CryptoError::ReceiverMacMissing),
            "{kind:?}"
        );
        // Another sender key replaces everything.
        let stranger = KeyMaterial::generate(kind, false, &mut OsRandom).unwrap();
        let mut stranger_first = stranger.clone();
        stranger_first.receiver_specific_key_id = [0, 0, 0, 6];
        stranger_first.master_receiver_specific_key = vec![6; kind.key_len()];
        let mut replaced = RemoteSender::new(first.clone())
            .unwrap()
            .renewed(RemoteSender::new(stranger_first).unwrap());
        assert!(
            decode_submessage(&mut replaced, &encoded_for(&first), &mut Vec::new()).is_err(),
            "{kind:?}"
        );
        // The earlier keys are bounded.
        let mut r = RemoteSender::new(with_key(10)).unwrap();
        for id in 11..20 {
            r = r.renewed(RemoteSender::new(with_key(id)).unwrap());
        }
        assert!(decode_submessage(&mut r, &encoded_for(&with_key(19)), &mut Vec::new()).is_ok());
        assert!(decode_submessage(&mut r, &encoded_for(&with_key(16)), &mut Vec::new()).is_ok());
        assert_eq!(
            decode_submessage(&mut r, &encoded_for(&with_key(15)), &mut Vec::new()),
            Err(CryptoError::ReceiverMacMissing),
            "{kind:?}"
        );
    }
}
