use super::*;
use crate::cdr::Endianness;

#[test]
fn guids_order_as_their_octets() {
    // Octet patterns that differ at every position, high bit set and clear.
    let mut guids = Vec::new();
    for at in 0..16 {
        for v in [0u8, 1, 0x7f, 0x80, 0xff] {
            let mut b = [0x80u8; 16];
            b[at] = v;
            let mut prefix = [0u8; 12];
            prefix.copy_from_slice(&b[..12]);
            guids.push((
                b,
                Guid::new(GuidPrefix(prefix), EntityId([b[12], b[13], b[14], b[15]])),
            ));
        }
    }
    for (ba, a) in &guids {
        for (bb, b) in &guids {
            assert_eq!(a.cmp(b), ba.cmp(bb), "{a} vs {b}");
            assert_eq!(a.prefix.cmp(&b.prefix), ba[..12].cmp(&bb[..12]));
            assert_eq!(a.entity_id.cmp(&b.entity_id), ba[12..].cmp(&bb[12..]));
            assert_eq!(a.partial_cmp(b), Some(ba.cmp(bb)));
        }
    }
}

#[test]
fn guid_round_trips_and_prints_dotted() {
    let g = Guid::new(
        GuidPrefix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
        EntityId::PARTICIPANT,
    );
    let mut v = Vec::new();
    g.emit(&mut CdrWriter::new(&mut v, Endianness::Little));
    assert_eq!(Guid::parse(&mut CdrReader::new(&v, Endianness::Big)), Ok(g));
    assert_eq!(g.to_string(), "01020304.05060708.090a0b0c.000001c1");
}

#[test]
fn entity_kinds_classify_builtin_and_user_endpoints() {
    assert!(EntityId::SEDP_PUBLICATIONS_ANNOUNCER.is_writer());
    assert!(EntityId::SEDP_PUBLICATIONS_ANNOUNCER.is_builtin());
    assert!(EntityId([0, 0, 1, EntityId::KIND_READER_WITH_KEY]).is_reader());
    assert!(!EntityId::PARTICIPANT.is_writer());
}
