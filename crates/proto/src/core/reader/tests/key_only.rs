//! Key-only payloads (dispose/unregister with the K flag) against full samples: whatever form
//! a writer uses — XCDR1 or XCDR2, Cyclone's D_CDR2 without a DHEADER or pip `cyclonedds`'s
//! with one, little- or big-endian, padded or not, with or without PID_KEY_HASH — the reader
//! attributes the dispose to the instance of the samples (docs/interop-facts.md §5.10).
//! RTPS 2.5 §9.6.4.8, DDS-XTypes 1.3 §7.6.3.1.2.

use super::*;
use crate::cdr::{CdrWriter, EncapsulationHeader, EncapsulationKind};
use crate::types::{ShapeType, TopicType, XcdrVersion};

/// The reader's key hasher as the API installs it for ShapeType.
fn shape_key(kind: ChangeKind, data: &[u8]) -> Option<[u8; 16]> {
    match kind {
        ChangeKind::Alive => ShapeType::deserialize(data).ok()?.key_hash(),
        _ => ShapeType::key_hash_from_serialized_key(data),
    }
}

/// How a writer lays out the key-only payload.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// Ours for an XCDR1 writer (and every vendor's XCDR1): CDR, the color.
    Xcdr1,
    /// Ours for an XCDR2 writer, and Cyclone 0.10's: D_CDR2, the color, no DHEADER.
    Xcdr2,
    /// pip `cyclonedds` 11: D_CDR2, DHEADER, the color.
    Xcdr2Delimited,
    /// A @final view of the type: CDR2, the color.
    Cdr2,
}

/// The key payload of `color` in `form`, then `extra` zero bytes; `count_padding` says
/// whether the options' low bits count the padding to 4 (Cyclone's pip binding pads without).
fn key_payload(color: &str, form: Form, endian: Endianness, extra: usize, count: bool) -> Vec<u8> {
    let s = ShapeType {
        color: color.into(),
        ..ShapeType::default()
    };
    let mut out = match form {
        Form::Xcdr1 => s.serialize_key_as(XcdrVersion::Xcdr1, endian).unwrap(),
        Form::Xcdr2 => s.serialize_key_as(XcdrVersion::Xcdr2, endian).unwrap(),
        Form::Xcdr2Delimited | Form::Cdr2 => {
            let kind = match form {
                Form::Cdr2 => EncapsulationKind::Cdr2,
                _ => EncapsulationKind::DCdr2,
            };
            let mut out = Vec::new();
            EncapsulationHeader::new(kind, endian).emit(&mut CdrWriter::new(&mut out, endian));
            let mut w = CdrWriter::new(&mut out, endian);
            if matches!(form, Form::Xcdr2Delimited) {
                w.u32(u32::try_from(color.len() + 5).unwrap());
            }
            w.string(color.as_bytes());
            let before = w.position();
            w.align(4);
            out[3] = u8::try_from(w.position() - before).unwrap();
            out
        }
    };
    if !count {
        out[3] = 0;
    }
    out.resize(out.len() + extra, 0);
    out
}

fn status_info(status: u8, key: Option<[u8; 16]>) -> Vec<u8> {
    let mut b = vec![0x71, 0x00, 0x04, 0x00, 0, 0, 0, status];
    if let Some(key) = key {
        b.extend([0x70, 0x00, 0x10, 0x00]);
        b.extend(key);
    }
    b.extend([0x01, 0x00, 0x00, 0x00]);
    b
}

fn form() -> impl Strategy<Value = Form> {
    prop_oneof![
        Just(Form::Xcdr1),
        Just(Form::Xcdr2),
        Just(Form::Xcdr2Delimited),
        Just(Form::Cdr2),
    ]
}

fn endian() -> impl Strategy<Value = Endianness> {
    prop_oneof![Just(Endianness::Little), Just(Endianness::Big)]
}

proptest! {
    #[test]
    fn a_key_only_dispose_names_the_instance_of_the_full_samples(
        color in "[ -~\u{e9}\u{4e2d}]{0,40}",
        sample_xcdr2 in any::<bool>(),
        sample_endian in endian(),
        form in form(),
        key_endian in endian(),
        extra in 0usize..=8,
        count in any::<bool>(),
        with_key_hash in any::<bool>(),
        unregister in any::<bool>(),
    ) {
        let mut c = config(false);
        c.keyed = true;
        c.key_hasher = Some(KeyHasher(shape_key));
        let mut r = matched(c, false);
        let sample = ShapeType {
            color: color.clone(),
            x: 1,
            y: 2,
            shapesize: 3,
            additional_payload_size: vec![4],
        };
        let version = if sample_xcdr2 { XcdrVersion::Xcdr2 } else { XcdrVersion::Xcdr1 };
        let full = sample.serialize_as(version, sample_endian).unwrap();
        r.handle_data(at(1), writer_guid(), None, &data(1, &full));
        let key = key_payload(&color, form, key_endian, extra, count);
        let (status, kind) = if unregister {
            (0x02, ChangeKind::NotAliveUnregistered)
        } else {
            (0x01, ChangeKind::NotAliveDisposed)
        };
        let qos = status_info(status, with_key_hash.then(|| sample.key_hash().unwrap()));
        let mut d = data(2, b"");
        d.inline_qos = Some(ParameterListView::new_checked(&mut CdrReader::new(&qos, LE)).unwrap());
        d.payload = DataPayload::Key(&key);
        r.handle_data(at(1), writer_guid(), None, &d);
        let alive = r.poll_sample().unwrap();
        let gone = r.poll_sample().unwrap();
        prop_assert_eq!(alive.kind, ChangeKind::Alive);
        prop_assert_eq!(alive.key_hash, sample.key_hash());
        prop_assert_eq!(gone.kind, kind);
        prop_assert_eq!(gone.key_hash, alive.key_hash, "key payload {:02x?}", key);
    }
}

/// What the capture of issue 19 shows Cyclone 0.10.2 sending for a dispose of BLUE: D_CDR2_LE,
/// three bytes of padding, no DHEADER, no PID_KEY_HASH; and our XCDR2 writer now sends the
/// same bytes.
#[test]
fn cyclones_xcdr2_dispose_of_blue_is_blues_instance_and_is_what_we_send() {
    let cyclone = [
        0x00, 0x09, 0x00, 0x03, 0x05, 0, 0, 0, b'B', b'L', b'U', b'E', 0, 0, 0, 0,
    ];
    let blue = ShapeType {
        color: "BLUE".into(),
        ..ShapeType::default()
    };
    assert_eq!(
        ShapeType::key_hash_from_serialized_key(&cyclone),
        blue.key_hash()
    );
    assert_eq!(
        blue.serialize_key_as(XcdrVersion::Xcdr2, Endianness::Little),
        Some(cyclone.to_vec())
    );
    // Truncated or foreign encapsulations are not keys.
    assert_eq!(
        ShapeType::key_hash_from_serialized_key(&cyclone[..10]),
        None
    );
    let mut pl = cyclone;
    pl[1] = 0x03;
    assert_eq!(ShapeType::key_hash_from_serialized_key(&pl), None);
}
