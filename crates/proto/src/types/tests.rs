use super::*;

/// RTPS 2.5 §9.6.4.8 examples (docs/interop-facts.md §5.6).
#[test]
fn spec_key_hash_examples() {
    assert_eq!(
        key_hash_from_key_bytes(&0x1234_5678u32.to_be_bytes(), 4),
        [0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    let mut key = Vec::new();
    key.extend_from_slice(&5u32.to_be_bytes());
    key.extend_from_slice(b"BLUE\0");
    key.extend_from_slice(&[0, 0, 0]);
    key.extend_from_slice(&0x1234_5678_9abc_def0u64.to_be_bytes());
    assert_eq!(
        key_hash_from_key_bytes(&key, 4 + 13 + 3 + 8),
        [
            0xf9, 0x1a, 0x59, 0xe3, 0x2e, 0x45, 0x35, 0xd9, 0xa6, 0x9c, 0xd5, 0xd9, 0xf5, 0xb6,
            0xe3, 0x6e
        ]
    );
}
