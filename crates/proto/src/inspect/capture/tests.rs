use super::*;

fn ipv4_udp(payload: &[u8]) -> Vec<u8> {
    let total = u16::try_from(28 + payload.len()).unwrap();
    let mut p = vec![
        0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 239, 255, 0, 1,
    ];
    p[2..4].copy_from_slice(&total.to_be_bytes());
    p.extend_from_slice(&7410u16.to_be_bytes());
    p.extend_from_slice(&7400u16.to_be_bytes());
    p.extend_from_slice(&(total - 20).to_be_bytes());
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(payload);
    p
}

fn pcap_file(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut f = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    f.extend_from_slice(&65535u32.to_le_bytes());
    f.extend_from_slice(&101u32.to_le_bytes()); // LINKTYPE_RAW
    for fr in frames {
        f.extend_from_slice(&[0; 8]);
        let len = u32::try_from(fr.len()).unwrap().to_le_bytes();
        f.extend_from_slice(&len);
        f.extend_from_slice(&len);
        f.extend_from_slice(fr);
    }
    f
}

#[test]
fn finds_udp_payload_in_raw_ip_pcap() {
    let file = pcap_file(&[ipv4_udp(b"RTPS"), vec![0x45, 0, 0, 20, 0, 0, 0, 0, 64, 6]]);
    let mut got = Vec::new();
    let stats = for_each_datagram(&file[..], |d| got.push(d)).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].payload, b"RTPS");
    assert_eq!(got[0].dst.to_string(), "239.255.0.1:7400");
    assert_eq!(stats.frames, 2);
    assert_eq!(stats.not_udp, 1);
}

#[test]
fn unknown_magic_is_a_clear_error() {
    let err = for_each_datagram(&b"hello world"[..], |_| {}).unwrap_err();
    assert!(err.0.contains("not a pcap"), "{err}");
}

#[test]
fn truncated_capture_never_panics() {
    let file = pcap_file(&[ipv4_udp(b"RTPS-payload")]);
    for cut in 0..file.len() {
        let _ = for_each_datagram(&file[..cut], |_| {});
    }
}
