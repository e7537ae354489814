//! Typed parameters and whole parameter lists: decoding a [`ParameterListView`] through the PID
//! table into [`Parameter`]s, and emitting parameters back as a list or a PL_CDR payload.
//!
//! Must not: panic, allocate from a wire count before checking the bytes are there, or drop
//! bytes it does not understand (unknown and vendor parameters are kept raw so that a parsed
//! list re-emits to the same bytes).
//!
//! # Overview
//! RTPS 2.5 §9.4.2.11 (list layout), §9.6.2.2.1 (unknown PIDs: skipped unless the 0x4000
//! must-understand bit is set, then the list is not understood; vendor PIDs only with the
//! matching VendorId), §10.2 (PL_CDR_BE/LE encapsulation of discovery data).

use super::pid::{PID_FLAG_MUST_UNDERSTAND, PID_SENTINEL};
use super::table::{OnInvalid, describe};
use super::value::Value;
use super::{MAX_PARAMS, ParameterListView, RawParameter};
use crate::cdr::{CdrReader, CdrWriter, EncapsulationHeader, EncapsulationKind, Endianness};
use crate::wire::{VendorId, WireError};

/// One parameter of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parameter<'a> {
    /// A PID from the table, decoded and validated.
    Known {
        /// The parameter id.
        pid: u16,
        /// Its decoded value.
        value: Value<'a>,
    },
    /// Not interpreted (unknown PID, another vendor's PID, or an invalid value the table says
    /// to ignore); kept raw so it can be printed and re-emitted unchanged.
    Unknown(RawParameter<'a>),
}

/// The outcome of decoding one parameter. RTPS 2.5 §9.6.2.2.1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamOutcome<'a> {
    /// Known PID, valid value.
    Accepted(Parameter<'a>),
    /// Unknown PID without the must-understand bit, or an ignorable invalid value: skipped,
    /// carried as [`Parameter::Unknown`].
    Skipped(Parameter<'a>),
    /// Unknown PID with the must-understand bit: the list (and the entity) is not understood.
    MustUnderstandUnknown(u16),
    /// A known PID with a malformed value: the list is malformed.
    Malformed(u16, WireError),
}

impl<'a> Parameter<'a> {
    /// The parameter id.
    pub fn pid(&self) -> u16 {
        match self {
            Parameter::Known { pid, .. } => *pid,
            Parameter::Unknown(raw) => raw.pid,
        }
    }

    /// The decoded value, if known.
    pub fn value(&self) -> Option<&Value<'a>> {
        match self {
            Parameter::Known { value, .. } => Some(value),
            Parameter::Unknown(_) => None,
        }
    }

    /// Decodes one raw parameter sent by `vendor` in byte order `endian` via the PID table.
    pub fn parse(raw: RawParameter<'a>, endian: Endianness, vendor: VendorId) -> ParamOutcome<'a> {
        let Some(row) = describe(raw.pid, vendor) else {
            if raw.pid & PID_FLAG_MUST_UNDERSTAND != 0 {
                return ParamOutcome::MustUnderstandUnknown(raw.pid);
            }
            return ParamOutcome::Skipped(Parameter::Unknown(raw));
        };
        let mut r = CdrReader::new(raw.value, endian);
        let parsed = Value::parse(row.kind, &mut r).and_then(|value| match row.validate {
            Some(valid) if !valid(&value) => Err(WireError::Invalid(row.name)),
            _ => Ok(value),
        });
        match (parsed, row.on_invalid) {
            (Ok(value), _) => ParamOutcome::Accepted(Parameter::Known {
                pid: raw.pid,
                value,
            }),
            (Err(_), OnInvalid::Ignore) => ParamOutcome::Skipped(Parameter::Unknown(raw)),
            (Err(e), OnInvalid::Reject) => ParamOutcome::Malformed(raw.pid, e),
        }
    }

    fn value_len(&self) -> usize {
        match self {
            Parameter::Known { value, .. } => value.buffer_len(),
            Parameter::Unknown(raw) => raw.value.len(),
        }
    }

    /// Bytes [`Parameter::emit`] writes: the 4-byte header and the value padded to 4.
    pub fn buffer_len(&self) -> usize {
        (self.value_len().saturating_add(3) & !3).saturating_add(4)
    }

    /// Writes the header, the value and zero padding to a multiple of 4 (RTPS 2.5 §9.4.2.11).
    /// The value's alignment origin is its first byte. A value longer than 65532 bytes cannot
    /// be represented; [`emit_parameter_list`] refuses it before writing.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        let body_len = self.buffer_len().saturating_sub(4);
        debug_assert!(
            body_len <= usize::from(u16::MAX),
            "parameter value too long"
        );
        w.u16(self.pid());
        w.u16(u16::try_from(body_len).unwrap_or(u16::MAX));
        let start = w.position();
        {
            let mut body = w.nested();
            match self {
                Parameter::Known { value, .. } => value.emit(&mut body),
                Parameter::Unknown(raw) => body.bytes(raw.value),
            }
            body.align(4);
        }
        debug_assert_eq!(w.position().saturating_sub(start), body_len);
    }
}

/// The outcome of decoding a whole list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListOutcome<'a> {
    /// Every parameter was understood or safely skipped.
    Accept(Vec<Parameter<'a>>),
    /// A must-understand PID we do not know: treat the submessage/entity as not understood.
    NotUnderstood(u16),
}

/// Decodes every parameter of `view` (sent by `vendor`). The view already bounds the count
/// by [`MAX_PARAMS`]. A malformed known parameter makes the whole list malformed.
pub fn decode_parameter_list<'a>(
    view: &ParameterListView<'a>,
    vendor: VendorId,
) -> Result<ListOutcome<'a>, WireError> {
    let mut out = Vec::new();
    for raw in view.iter() {
        if out.len() >= MAX_PARAMS {
            return Err(WireError::TooLarge("parameter count"));
        }
        match Parameter::parse(raw, view.endian(), vendor) {
            ParamOutcome::Accepted(p) | ParamOutcome::Skipped(p) => out.push(p),
            ParamOutcome::MustUnderstandUnknown(pid) => return Ok(ListOutcome::NotUnderstood(pid)),
            ParamOutcome::Malformed(_, e) => return Err(e),
        }
    }
    Ok(ListOutcome::Accept(out))
}

/// Bytes [`emit_parameter_list`] writes, sentinel included.
pub fn parameter_list_len(params: &[Parameter<'_>]) -> usize {
    params
        .iter()
        .fold(4, |n, p| n.saturating_add(p.buffer_len()))
}

/// Writes the parameters and PID_SENTINEL. Refuses, before writing anything, a list with more
/// than [`MAX_PARAMS`] entries or a value that does not fit the 16-bit length.
pub fn emit_parameter_list<'p, 'a: 'p, I>(params: I, w: &mut CdrWriter<'_>) -> Result<(), WireError>
where
    I: IntoIterator<Item = &'p Parameter<'a>>,
    I::IntoIter: Clone,
{
    let params = params.into_iter();
    if params.clone().count() > MAX_PARAMS {
        return Err(WireError::TooLarge("parameter count"));
    }
    if params
        .clone()
        .any(|p| p.buffer_len().saturating_sub(4) > usize::from(u16::MAX))
    {
        return Err(WireError::TooLarge("parameter value"));
    }
    for p in params {
        p.emit(w);
    }
    // RTPS 2.5 §9.4.2.11: the sentinel's length is ignored; we write 0.
    w.u16(PID_SENTINEL);
    w.u16(0);
    Ok(())
}

/// A discovery payload: PL_CDR_BE/LE encapsulation header and the parameter list (RTPS 2.5
/// §10.2, docs/interop-facts.md §5.5).
pub fn serialize_pl_cdr_payload(
    params: &[Parameter<'_>],
    endian: Endianness,
) -> Result<Vec<u8>, WireError> {
    let mut out = Vec::with_capacity(parameter_list_len(params).saturating_add(4));
    let mut w = CdrWriter::new(&mut out, endian);
    EncapsulationHeader::new(EncapsulationKind::PlCdr, endian).emit(&mut w);
    emit_parameter_list(params, &mut w.nested())?;
    Ok(out)
}

/// Checks the PL_CDR_BE/LE header of a discovery payload and validates its parameter list.
pub fn parse_pl_cdr_payload(payload: &[u8]) -> Result<ParameterListView<'_>, WireError> {
    let mut r = CdrReader::new(payload, Endianness::Big);
    let header = EncapsulationHeader::parse(&mut r)?;
    if header.kind != EncapsulationKind::PlCdr {
        return Err(WireError::Invalid("encapsulation (expected PL_CDR)"));
    }
    let mut body = CdrReader::new(r.rest(), header.endian);
    ParameterListView::new_checked(&mut body)
}

#[cfg(test)]
mod tests;
