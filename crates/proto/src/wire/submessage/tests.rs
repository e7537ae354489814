//! Golden bytes (both byte orders) for every submessage kind, validation rules, truncation at
//! every offset, the iterator's three outcomes, and a proptest round trip.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::cdr::Endianness::{self, Big, Little};
use crate::time::Timestamp;
use crate::wire::plist::ParameterListView;
use crate::wire::{
    EntityId, FragmentNumber, FragmentNumberSet, GuidPrefix, Header, Locator, Message,
    ProtocolVersion, SequenceNumber, SequenceNumberSet, VendorId, emit_message,
};
use proptest::prelude::*;

// ---------- hand assembly from the spec layout (independent of cdr::CdrWriter) ----------

#[derive(Clone, Copy)]
enum F<'s> {
    B(&'s [u8]),
    U16(u16),
    U32(u32),
    I32(i32),
    /// SequenceNumber_t {int32 high, uint32 low}.
    Sn(i32, u32),
}

fn body(e: Endianness, fields: &[F<'_>]) -> Vec<u8> {
    let mut v = Vec::new();
    for f in fields {
        match (*f, e) {
            (F::B(b), _) => v.extend_from_slice(b),
            (F::U16(x), Big) => v.extend_from_slice(&x.to_be_bytes()),
            (F::U16(x), Little) => v.extend_from_slice(&x.to_le_bytes()),
            (F::U32(x), Big) => v.extend_from_slice(&x.to_be_bytes()),
            (F::U32(x), Little) => v.extend_from_slice(&x.to_le_bytes()),
            (F::I32(x), Big) => v.extend_from_slice(&x.to_be_bytes()),
            (F::I32(x), Little) => v.extend_from_slice(&x.to_le_bytes()),
            (F::Sn(h, l), Big) => {
                v.extend_from_slice(&h.to_be_bytes());
                v.extend_from_slice(&l.to_be_bytes());
            }
            (F::Sn(h, l), Little) => {
                v.extend_from_slice(&h.to_le_bytes());
                v.extend_from_slice(&l.to_le_bytes());
            }
        }
    }
    v
}

/// A complete submessage: {id, flags | E, octetsToNextHeader} + body.
fn sub(id: u8, flags: u8, e: Endianness, fields: &[F<'_>]) -> Vec<u8> {
    let b = body(e, fields);
    let len = u16::try_from(b.len()).unwrap();
    let mut v = vec![id, flags | e.e_flag()];
    v.extend_from_slice(&match e {
        Big => len.to_be_bytes(),
        Little => len.to_le_bytes(),
    });
    v.extend_from_slice(&b);
    v
}

fn outcomes(bytes: &[u8]) -> Vec<SubmessageOutcome<'_>> {
    SubmessageIter::new(bytes).collect()
}

fn accept_one(bytes: &[u8]) -> Submessage<'_> {
    match outcomes(bytes).as_slice() {
        [SubmessageOutcome::Accept(s)] => s.clone(),
        other => panic!("expected one Accept, got {other:?}"),
    }
}

fn malformed_one(bytes: &[u8]) -> WireError {
    match outcomes(bytes).as_slice() {
        [SubmessageOutcome::Malformed(e)] => *e,
        other => panic!("expected one Malformed, got {other:?}"),
    }
}

/// Parses `bytes`, compares with `expected`, re-emits, and truncates at every offset.
/// `fixed_layout`: the body has no open-ended tail, so cutting the body alone must fail too.
fn check_golden(bytes: &[u8], expected: &Submessage<'_>, fixed_layout: bool) {
    assert_eq!(&accept_one(bytes), expected);
    let mut v = Vec::new();
    expected.emit(&mut v);
    assert_eq!(v, bytes, "emit reproduces the golden bytes");
    assert_eq!(expected.buffer_len(), bytes.len());
    for cut in 1..bytes.len() {
        malformed_one(&bytes[..cut]);
    }
    if fixed_layout {
        let hdr = SubmessageHeader::parse(&mut CdrReader::new(bytes, Big)).unwrap();
        let b = &bytes[SubmessageHeader::LEN..];
        for cut in 0..b.len() {
            assert!(
                Submessage::parse(hdr, &b[..cut]).is_err(),
                "body cut at {cut}"
            );
        }
    }
}

const RID: EntityId = EntityId([0, 0, 0x12, 0x07]);
const WID: EntityId = EntityId([0, 0, 0x12, 0x02]);
const PREFIX: GuidPrefix = GuidPrefix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
const BOTH: [Endianness; 2] = [Big, Little];

fn sn(n: i64) -> SequenceNumber {
    SequenceNumber(n)
}

fn heartbeat_bytes(first: (i32, u32), last: (i32, u32)) -> Vec<u8> {
    sub(
        HEARTBEAT,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(first.0, first.1),
            F::Sn(last.0, last.1),
            F::I32(1),
        ],
    )
}

fn data_bytes(flags: u8, to_qos: u16, sn: (i32, u32), extra: &[u8]) -> Vec<u8> {
    sub(
        DATA,
        flags,
        Big,
        &[
            F::U16(0),
            F::U16(to_qos),
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(sn.0, sn.1),
            F::B(extra),
            F::B(&[0, 0, 0, 0]),
        ],
    )
}

mod golden;
mod outcomes;
mod roundtrip;
mod validation;
