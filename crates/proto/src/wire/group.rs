//! The writer-group identifiers of RTPS 2.5 §8.7.6 (group ordered access and group coherent
//! sets): [`GroupDigest`] (GroupDigest_t) and the value of PID_WRITER_GROUP_INFO
//! ([`WriterGroupInfo`], WriterGroupInfo_t).
//!
//! Must not: compute a digest (core does, from the writers it names), or panic on any input.
//!
//! RTPS 2.5 §9.3.2 (GroupDigest_t: `octet value[4]`), §9.6.3 (PID_WRITER_GROUP_INFO
//! 0x0065: `struct WriterGroupInfo_t { GroupDigest_t writerSet; }`).

use crate::cdr::{CdrError, CdrReader, CdrWriter};

/// GroupDigest_t: a 4-octet digest naming a set of entities of one participant.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupDigest(pub [u8; 4]);

/// WriterGroupInfo_t, the value of PID_WRITER_GROUP_INFO: which writers of the group take
/// part in a group coherent set.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct WriterGroupInfo {
    /// writerSet.
    pub writer_set: GroupDigest,
}

impl WriterGroupInfo {
    /// Encoded length (4 octets).
    pub const LEN: usize = 4;

    /// Reads a WriterGroupInfo_t (a longer value is read up to its first 4 octets: the type
    /// may grow, RTPS 2.5 §9.6.2.2.1).
    pub fn parse(value: &[u8]) -> Result<Self, CdrError> {
        let mut r = CdrReader::new(value, crate::cdr::Endianness::Little);
        Ok(WriterGroupInfo {
            writer_set: GroupDigest(r.take_array::<4>("WriterGroupInfo.writerSet")?),
        })
    }

    /// Writes the value.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.bytes(&self.writer_set.0);
    }
}

#[cfg(test)]
mod tests;
