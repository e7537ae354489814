//! A topic type written in Rust with `#[derive(siftdds::TopicType)]` instead of IDL: a keyed,
//! mutable struct with an enum, a union, a bounded string, an optional and an array. Prints
//! one sample's XCDR2 payload, its key hash and its serialized key, and decodes the payload
//! back. No sockets: `cargo run --example derive_types`.
//!
//! The same type in IDL, which `siftdds idl` turns into code producing the same bytes:
//!
//! ```idl
//! enum Status { IDLE, RUNNING, @value(9) FAILED };
//! union Reading switch (long) { case 1: double celsius; case 2: case 3: long raw; };
//! @mutable struct Sensor {
//!     @key unsigned long id;
//!     @key string<16> site;
//!     Status status;
//!     Reading last;
//!     @optional string note;
//!     float window[3];
//! };
//! ```

// An example: it unwraps what must work; the parse-path lints of the workspace are
// siftdds-proto's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use siftdds::TopicType;
use siftdds::cdr::Endianness;
use siftdds::types::XcdrVersion;

/// An IDL enum: an int32 on the wire.
#[derive(TopicType, Clone, Copy, Debug, Default, PartialEq)]
enum Status {
    #[default]
    Idle,
    Running,
    Failed = 9,
}

/// An IDL union: `Raw` has two labels, so it holds the discriminator first; no `default`
/// case, so the default variant holds only a discriminator that selects no member.
#[derive(TopicType, Clone, Debug, PartialEq)]
enum Reading {
    #[dds(discriminant = 1)]
    Celsius(f64),
    #[dds(discriminant = 2, discriminant = 3)]
    Raw(i32, i32),
    #[dds(default)]
    NoMember(i32),
}

impl Default for Reading {
    fn default() -> Self {
        Reading::NoMember(0)
    }
}

/// The topic type.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "mutable", type_name = "plant::Sensor")]
struct Sensor {
    #[key]
    id: u32,
    #[key]
    #[dds(bound = 16)]
    site: String,
    status: Status,
    last: Reading,
    note: Option<String>,
    window: [f32; 3],
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .chunks(4)
        .map(|c| c.iter().map(|b| format!("{b:02x}")).collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    let sample = Sensor {
        id: 42,
        site: "north".into(),
        status: Status::Running,
        last: Reading::Celsius(21.5),
        note: Some("calibrated".into()),
        window: [20.5, 21.0, 21.5],
    };
    let payload = sample
        .serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
        .expect("the sample is within its bounds");
    println!("type name       {}", Sensor::type_name());
    println!(
        "XCDR2 payload   {} ({} bytes)",
        hex(&payload),
        payload.len()
    );
    println!("key hash        {}", hex(&sample.key_hash().unwrap()));
    let key = sample
        .serialize_key_as(XcdrVersion::Xcdr2, Endianness::Little)
        .unwrap();
    println!("serialized key  {}", hex(&key));
    assert_eq!(Sensor::deserialize(&payload), Ok(sample.clone()));
    // The site's bound is checked when the sample is written.
    let too_long = Sensor {
        site: "a site name of more than sixteen bytes".into(),
        ..sample
    };
    assert_eq!(
        too_long.serialize_as(XcdrVersion::Xcdr2, Endianness::Little),
        None
    );
    println!("decoded back    ok; a 38-byte site is refused (bound 16)");
}
