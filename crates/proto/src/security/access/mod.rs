//! DDS:Access:Permissions, the builtin access-control plugin (DDS-Security 1.1 §9.4).
