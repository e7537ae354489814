//! The `xcdr` fuzz harness: a @mutable type written the way the generator writes them (every
//! runtime helper: EMHEADER/PL_CDR members, a nested @appendable with an @optional, bounded
//! strings and sequences, a sequence of strings with its DHEADER, a 2-D array, wide types),
//! decoded from arbitrary payloads of either version; whatever decodes must encode back to a
//! payload that decodes to the same value.
//!
//! Must not: perform I/O or keep state; it panics only to report a broken round trip.
#![allow(clippy::panic)] // invariant: the harness reports a broken round trip by panicking.

use super::{
    CdrError, CdrReader, CdrWriter, Endianness, Extensibility, LengthCode, XcdrCodec, XcdrVersion,
    read_appendable, read_array, read_mutable, read_optional, read_seq, read_string, read_wchar,
    read_wstring, serialize, try_array, write_appendable, write_array, write_mutable,
    write_optional, write_seq, write_string, write_wchar, write_wstring,
};
use crate::cdr::{EncapsulationHeader, EncapsulationKind};

/// `@appendable struct Inner { octet tag; @optional string<8> note; };`
#[derive(Clone, Debug, Default, PartialEq)]
struct Inner {
    tag: u8,
    note: Option<String>,
}

impl XcdrCodec for Inner {
    const MIN_SIZE: usize = 2;

    fn xcdr_write(&self, w: &mut CdrWriter<'_>) -> Result<(), CdrError> {
        write_appendable(w, |w| {
            self.tag.xcdr_write(w)?;
            write_optional(w, 1, self.note.as_ref(), |w, v| {
                write_string(w, v, Some(8), "note")
            })
        })
    }

    fn xcdr_read(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        read_appendable(r, |r| {
            Ok(Inner {
                tag: if r.is_empty() { 0 } else { u8::xcdr_read(r)? },
                note: if r.is_empty() {
                    None
                } else {
                    read_optional(r, |r| read_string(r, Some(8), "note"))?
                },
            })
        })
    }
}

/// `@mutable struct Sample { @key long id; string<16> name; sequence<long long, 8> values;
/// sequence<string> words; Inner inner; short grid[2][2]; wstring<4> wide; wchar wc; };`
#[derive(Clone, Debug, Default, PartialEq)]
struct Sample {
    id: i32,
    name: String,
    values: Vec<i64>,
    words: Vec<String>,
    inner: Inner,
    grid: [[i16; 2]; 2],
    wide: String,
    wc: char,
}

impl XcdrCodec for Sample {
    const MIN_SIZE: usize = 4;

    fn xcdr_write(&self, w: &mut CdrWriter<'_>) -> Result<(), CdrError> {
        write_mutable(w, |m| {
            m.member(0, false, LengthCode::Size4, |w| self.id.xcdr_write(w))?;
            m.member(1, false, LengthCode::DualUse1, |w| {
                write_string(w, &self.name, Some(16), "name")
            })?;
            m.member(2, false, LengthCode::DualUse8, |w| {
                write_seq(w, &self.values, Some(8), false, "values", |w, e| {
                    e.xcdr_write(w)
                })
            })?;
            m.member(3, false, LengthCode::DualUse1, |w| {
                write_seq(w, &self.words, None, true, "words", |w, e| {
                    write_string(w, e, None, "word")
                })
            })?;
            m.member(4, false, LengthCode::NextInt, |w| self.inner.xcdr_write(w))?;
            m.member(5, false, LengthCode::NextInt, |w| {
                write_array(w, false, |w| {
                    self.grid.iter().flatten().try_for_each(|e| e.xcdr_write(w))
                })
            })?;
            m.member(6, false, LengthCode::NextInt, |w| {
                write_wstring(w, &self.wide, Some(4), "wide")
            })?;
            m.member(7, false, LengthCode::Size2, |w| write_wchar(w, self.wc))
        })
    }

    fn xcdr_read(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        let mut s = Sample::default();
        read_mutable(r, |id, r| {
            match id {
                0 => s.id = i32::xcdr_read(r)?,
                1 => s.name = read_string(r, Some(16), "name")?,
                2 => s.values = read_seq(r, Some(8), false, 8, "values", i64::xcdr_read)?,
                3 => {
                    s.words =
                        read_seq(r, None, true, 4, "words", |r| read_string(r, None, "word"))?;
                }
                4 => s.inner = Inner::xcdr_read(r)?,
                5 => {
                    s.grid =
                        read_array(r, false, |r| try_array(|| try_array(|| i16::xcdr_read(r))))?;
                }
                6 => s.wide = read_wstring(r, Some(4), "wide")?,
                7 => s.wc = read_wchar(r)?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(s)
    }
}

/// The harness: `data` is a payload with its encapsulation header.
pub fn round_trip(data: &[u8]) {
    let Ok(sample) = super::deserialize::<Sample>(data) else {
        return;
    };
    let Ok(header) = EncapsulationHeader::parse(&mut CdrReader::new(data, Endianness::Big)) else {
        return;
    };
    let version = match header.kind {
        EncapsulationKind::Cdr | EncapsulationKind::PlCdr => XcdrVersion::Xcdr1,
        _ => XcdrVersion::Xcdr2,
    };
    let bytes = serialize(&sample, Extensibility::Mutable, version, header.endian)
        .unwrap_or_else(|e| panic!("a decoded sample must encode: {e}"));
    let again = super::deserialize::<Sample>(&bytes)
        .unwrap_or_else(|e| panic!("re-encoded sample does not decode: {e}"));
    assert_eq!(again, sample);
}

#[cfg(test)]
mod tests;
