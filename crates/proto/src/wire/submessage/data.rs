//! DATA and DATA_FRAG: a sample (or its key, or a fragment of either) from a writer.
//!
//! Must not: copy the payload or inline QoS (both stay borrowed), interpret inline QoS values,
//! reassemble fragments (core does that), or panic on any input.
//!
//! RTPS 2.5 §8.3.7.2 (Data), §8.3.7.3 (DataFrag), §9.4.5.3 and §9.4.5.4 (mapping). Validation
//! follows Cyclone's `validate_Data`/`validate_DataFrag` (docs/interop-facts.md §5.8).

use super::{DATA, DATA_FRAG, SubmessageHeader, body_reader, emit_submessage};
use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::wire::plist::{PID_SENTINEL, ParameterListView};
use crate::wire::{EntityId, FragmentNumber, SequenceNumber, WireError};

/// DATA flag Q: inline QoS present. RTPS 2.5 §9.4.5.3.1.
pub const DATA_FLAG_Q: u8 = 0x02;
/// DATA flag D: serialized data present.
pub const DATA_FLAG_D: u8 = 0x04;
/// DATA flag K: serialized key present.
pub const DATA_FLAG_K: u8 = 0x08;
/// DATA_FRAG flag Q: inline QoS present. RTPS 2.5 §9.4.5.4.1.
pub const DATA_FRAG_FLAG_Q: u8 = 0x02;
/// DATA_FRAG flag K: the fragments are of the serialized key (a different bit than DATA's).
pub const DATA_FRAG_FLAG_K: u8 = 0x04;

/// octetsToInlineQos we write for DATA: readerId + writerId + writerSN. RTPS 2.5 §9.4.5.3.
const DATA_OCTETS_TO_INLINE_QOS: u16 = 16;
/// ... and for DATA_FRAG, which adds 12 octets of fragment fields. RTPS 2.5 §9.4.5.4.
const DATA_FRAG_OCTETS_TO_INLINE_QOS: u16 = 28;
/// extraFlags + octetsToInlineQos.
const PREFIX_LEN: usize = 4;

/// What a DATA carries after its inline QoS (flags D and K). RTPS 2.5 §8.3.7.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DataPayload<'a> {
    /// Neither D nor K: no serializedPayload (e.g. a dispose carried in inline QoS).
    None,
    /// D: the serialized sample, encapsulation header included.
    Data(&'a [u8]),
    /// K: the serialized key, encapsulation header included.
    Key(&'a [u8]),
}

impl<'a> DataPayload<'a> {
    /// The payload bytes, if any.
    pub fn bytes(&self) -> Option<&'a [u8]> {
        match *self {
            DataPayload::None => None,
            DataPayload::Data(b) | DataPayload::Key(b) => Some(b),
        }
    }

    fn len(&self) -> usize {
        self.bytes().map_or(0, <[u8]>::len)
    }
}

/// DATA. RTPS 2.5 §8.3.7.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Data<'a> {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// extraFlags, kept as received (reserved; RTPS 2.5 §9.4.5.3).
    pub extra_flags: u16,
    /// readerId (ENTITYID_UNKNOWN for all matched readers).
    pub reader_id: EntityId,
    /// writerId.
    pub writer_id: EntityId,
    /// writerSN (≥ 1).
    pub writer_sn: SequenceNumber,
    /// inlineQos, when the Q flag is set.
    pub inline_qos: Option<ParameterListView<'a>>,
    /// serializedPayload (D or K flag).
    pub payload: DataPayload<'a>,
}

/// Reads readerId and writerId, the start of every DATA/DATA_FRAG/HEARTBEAT/... body.
pub(crate) fn parse_ids(r: &mut CdrReader<'_>) -> Result<(EntityId, EntityId), WireError> {
    Ok((EntityId::parse(r)?, EntityId::parse(r)?))
}

/// Skips to the inline QoS as octetsToInlineQos says. `fixed` is the number of octets after the
/// octetsToInlineQos field that the caller has already read. RTPS 2.5 §9.4.5.3: a receiver
/// must honour the field and skip octets it does not know about.
fn skip_to_inline_qos(
    r: &mut CdrReader<'_>,
    to_inline_qos: u16,
    fixed: u16,
) -> Result<(), WireError> {
    let extra = to_inline_qos
        .checked_sub(fixed)
        .ok_or(WireError::Invalid("octetsToInlineQos"))?;
    r.skip(usize::from(extra), "octetsToInlineQos")?;
    Ok(())
}

fn parse_inline_qos<'a>(
    r: &mut CdrReader<'a>,
    q: bool,
) -> Result<Option<ParameterListView<'a>>, WireError> {
    if q {
        ParameterListView::new_checked(r).map(Some)
    } else {
        Ok(None)
    }
}

/// The inline QoS as written: parameters plus the 4-byte sentinel.
fn inline_qos_len(q: &Option<ParameterListView<'_>>) -> usize {
    q.as_ref()
        .map_or(0, |q| q.as_bytes().len().saturating_add(4))
}

fn emit_inline_qos(w: &mut CdrWriter<'_>, q: &Option<ParameterListView<'_>>) {
    if let Some(q) = q {
        w.bytes(q.as_bytes());
        // RTPS 2.5 §9.4.2.11: the list ends with PID_SENTINEL, length 0.
        w.u16(PID_SENTINEL);
        w.u16(0);
    }
}

/// RTPS 2.5 §8.3.7.2.3 / §8.3.7.3.3: writerSN must be ≥ 1.
fn check_writer_sn(sn: SequenceNumber) -> Result<(), WireError> {
    if sn.0 <= 0 {
        return Err(WireError::Invalid("writerSN"));
    }
    Ok(())
}

impl<'a> Data<'a> {
    /// Parses a DATA body.
    pub fn parse(flags: u8, body: &'a [u8]) -> Result<Self, WireError> {
        // RTPS 2.5 §8.3.7.2.3: D and K together are invalid (Cyclone rejects it too).
        let (d, k) = (flags & DATA_FLAG_D != 0, flags & DATA_FLAG_K != 0);
        if d && k {
            return Err(WireError::Invalid("DATA flags D and K"));
        }
        let mut r = body_reader(flags, body);
        let extra_flags = r.u16("DATA.extraFlags")?;
        let to_inline_qos = r.u16("DATA.octetsToInlineQos")?;
        let (reader_id, writer_id) = parse_ids(&mut r)?;
        let writer_sn = SequenceNumber::parse(&mut r)?;
        check_writer_sn(writer_sn)?;
        skip_to_inline_qos(&mut r, to_inline_qos, DATA_OCTETS_TO_INLINE_QOS)?;
        let inline_qos = parse_inline_qos(&mut r, flags & DATA_FLAG_Q != 0)?;
        // RTPS 2.5 §9.4.5.3: the serializedPayload is the rest of the submessage.
        let payload = match (d, k) {
            (true, _) => DataPayload::Data(r.take_rest()),
            (_, true) => DataPayload::Key(r.take_rest()),
            _ => DataPayload::None,
        };
        Ok(Data {
            endian: r.endian(),
            extra_flags,
            reader_id,
            writer_id,
            writer_sn,
            inline_qos,
            payload,
        })
    }

    fn flags(&self) -> u8 {
        let q = if self.inline_qos.is_some() {
            DATA_FLAG_Q
        } else {
            0
        };
        let dk = match self.payload {
            DataPayload::None => 0,
            DataPayload::Data(_) => DATA_FLAG_D,
            DataPayload::Key(_) => DATA_FLAG_K,
        };
        q | dk
    }

    fn body_len(&self) -> usize {
        PREFIX_LEN
            .saturating_add(usize::from(DATA_OCTETS_TO_INLINE_QOS))
            .saturating_add(inline_qos_len(&self.inline_qos))
            .saturating_add(self.payload.len())
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        self.body_len().saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        self.emit_parts(buf, true);
    }

    /// Appends the submessage without its serializedPayload bytes (flags and
    /// octetsToNextHeader still announce them), for a sender that puts them on the wire right
    /// after (gather I/O). `emit_head` followed by the payload is byte for byte what
    /// [`emit`](Self::emit) writes.
    pub fn emit_head(&self, buf: &mut Vec<u8>) {
        let start = buf.len();
        self.emit_parts(buf, false);
        set_octets_to_next_header(buf, start, self.endian, self.body_len());
    }

    /// Appends the submessage, its payload bytes only `with_payload`.
    fn emit_parts(&self, buf: &mut Vec<u8>, with_payload: bool) {
        let payload = self.payload.bytes().filter(|_| with_payload);
        let body_len = self
            .body_len()
            .saturating_sub(self.payload.len())
            .saturating_add(payload.map_or(0, <[u8]>::len));
        emit_submessage(buf, DATA, self.flags(), self.endian, body_len, |w| {
            w.u16(self.extra_flags);
            w.u16(DATA_OCTETS_TO_INLINE_QOS);
            self.reader_id.emit(w);
            self.writer_id.emit(w);
            self.writer_sn.emit(w);
            emit_inline_qos(w, &self.inline_qos);
            if let Some(p) = payload {
                w.bytes(p);
            }
        });
    }
}

/// Overwrites octetsToNextHeader of the submessage written at `buf[start..]` with
/// `body_len`: a head emitted without its trailing payload bytes announces them.
/// RTPS 2.5 §9.4.5.1: octetsToNextHeader follows submessageId and flags.
fn set_octets_to_next_header(buf: &mut [u8], start: usize, endian: Endianness, body_len: usize) {
    let len = u16::try_from(body_len).unwrap_or(0);
    let len = match endian {
        Endianness::Little => len.to_le_bytes(),
        Endianness::Big => len.to_be_bytes(),
    };
    let at = start.saturating_add(2)..start.saturating_add(4);
    if let Some(dst) = buf.get_mut(at) {
        dst.copy_from_slice(&len);
    }
}

/// DATA_FRAG. RTPS 2.5 §8.3.7.3.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DataFrag<'a> {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// extraFlags, kept as received.
    pub extra_flags: u16,
    /// readerId.
    pub reader_id: EntityId,
    /// writerId.
    pub writer_id: EntityId,
    /// writerSN (≥ 1).
    pub writer_sn: SequenceNumber,
    /// fragmentStartingNum (1-based).
    pub fragment_starting_num: FragmentNumber,
    /// fragmentsInSubmessage.
    pub fragments_in_submessage: u16,
    /// fragmentSize (> 0).
    pub fragment_size: u16,
    /// sampleSize: the size of the whole serialized sample.
    pub sample_size: u32,
    /// inlineQos, when the Q flag is set.
    pub inline_qos: Option<ParameterListView<'a>>,
    /// K flag: the fragments are of the serialized key rather than the data.
    pub key: bool,
    /// The fragments' bytes (rest of the submessage).
    pub fragments: &'a [u8],
}

impl<'a> DataFrag<'a> {
    /// Parses a DATA_FRAG body.
    pub fn parse(flags: u8, body: &'a [u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let extra_flags = r.u16("DATA_FRAG.extraFlags")?;
        let to_inline_qos = r.u16("DATA_FRAG.octetsToInlineQos")?;
        let (reader_id, writer_id) = parse_ids(&mut r)?;
        let writer_sn = SequenceNumber::parse(&mut r)?;
        let fragment_starting_num = FragmentNumber::parse(&mut r)?;
        let fragments_in_submessage = r.u16("DATA_FRAG.fragmentsInSubmessage")?;
        let fragment_size = r.u16("DATA_FRAG.fragmentSize")?;
        let sample_size = r.u32("DATA_FRAG.sampleSize")?;
        check_writer_sn(writer_sn)?;
        check_fragments(
            fragment_starting_num,
            fragments_in_submessage,
            fragment_size,
            sample_size,
        )?;
        skip_to_inline_qos(&mut r, to_inline_qos, DATA_FRAG_OCTETS_TO_INLINE_QOS)?;
        let inline_qos = parse_inline_qos(&mut r, flags & DATA_FRAG_FLAG_Q != 0)?;
        Ok(DataFrag {
            endian: r.endian(),
            extra_flags,
            reader_id,
            writer_id,
            writer_sn,
            fragment_starting_num,
            fragments_in_submessage,
            fragment_size,
            sample_size,
            inline_qos,
            key: flags & DATA_FRAG_FLAG_K != 0,
            fragments: r.take_rest(),
        })
    }

    fn body_len(&self) -> usize {
        PREFIX_LEN
            .saturating_add(usize::from(DATA_FRAG_OCTETS_TO_INLINE_QOS))
            .saturating_add(inline_qos_len(&self.inline_qos))
            .saturating_add(self.fragments.len())
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        self.body_len().saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let q = if self.inline_qos.is_some() {
            DATA_FRAG_FLAG_Q
        } else {
            0
        };
        let k = if self.key { DATA_FRAG_FLAG_K } else { 0 };
        emit_submessage(buf, DATA_FRAG, q | k, self.endian, self.body_len(), |w| {
            w.u16(self.extra_flags);
            w.u16(DATA_FRAG_OCTETS_TO_INLINE_QOS);
            self.reader_id.emit(w);
            self.writer_id.emit(w);
            self.writer_sn.emit(w);
            self.fragment_starting_num.emit(w);
            w.u16(self.fragments_in_submessage);
            w.u16(self.fragment_size);
            w.u32(self.sample_size);
            emit_inline_qos(w, &self.inline_qos);
            w.bytes(self.fragments);
        });
    }

    /// Appends the submessage without its fragment bytes, for a sender that puts them on
    /// the wire right after (gather I/O): octetsToNextHeader counts them. `emit_head`
    /// followed by `fragments` is byte for byte what [`emit`](Self::emit) writes.
    pub fn emit_head(&self, buf: &mut Vec<u8>) {
        let start = buf.len();
        DataFrag {
            fragments: &[],
            ..*self
        }
        .emit(buf);
        set_octets_to_next_header(buf, start, self.endian, self.body_len());
    }
}

/// RTPS 2.5 §8.3.7.3.3 (as Cyclone's `validate_DataFrag` applies it): fragmentSize > 0,
/// fragmentStartingNum ≥ 1, fragmentsInSubmessage ≥ 1, and every fragment in the submessage
/// starts inside the sample.
fn check_fragments(
    start: FragmentNumber,
    count: u16,
    size: u16,
    sample: u32,
) -> Result<(), WireError> {
    if size == 0 {
        return Err(WireError::Invalid("DATA_FRAG.fragmentSize"));
    }
    if start.0 == 0 {
        return Err(WireError::Invalid("DATA_FRAG.fragmentStartingNum"));
    }
    if count == 0 {
        return Err(WireError::Invalid("DATA_FRAG.fragmentsInSubmessage"));
    }
    // Offset of the last fragment: (start - 1 + count - 1) * size, in u64 (cannot overflow:
    // < 2^33 * 2^16).
    let last_index = u64::from(start.0)
        .saturating_sub(1)
        .saturating_add(u64::from(count))
        .saturating_sub(1);
    let last_offset = last_index.saturating_mul(u64::from(size));
    if last_offset >= u64::from(sample) {
        return Err(WireError::Invalid("DATA_FRAG fragment beyond sampleSize"));
    }
    Ok(())
}
