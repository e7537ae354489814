//! Decoding real vendors' captures committed under `tests/data/captures/`.
