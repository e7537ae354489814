//! Signed governance and permissions documents made by the openssl CLI the way the vendors'
//! documentation tells their users to make them, verified and parsed by `security::access`:
//! Cyclone DDS (an RSA-2048 CA from `openssl req -x509 -newkey rsa:2048`, documents signed with
//! `openssl smime -sign -text`) and Fast DDS (a prime256v1 CA from `openssl ecparam` and
//! `openssl req -new -x509`, the same `smime -sign -text`). Also a document written with CRLF
//! line ends, and the refusals: signed without `-text`, signed by another CA.
//!
//! Runs the `openssl` command in a temporary directory; without it the test is a counted skip.

#![cfg(feature = "security")]
// A test: it unwraps what must work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../interop-tests/skip.rs"]
mod skip;

use std::path::{Path, PathBuf};
use std::process::Command;

use siftdds::security::access::{
    AccessError, DistinguishedName, Governance, Permissions, check_create_datawriter,
    verify_smime_with_ca_pem,
};

const GOVERNANCE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<dds xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
     xsi:noNamespaceSchemaLocation="http://www.omg.org/spec/DDS-Security/20170801/omg_shared_ca_governance.xsd">
  <domain_access_rules>
    <domain_rule>
      <domains><id_range><min>0</min><max>230</max></id_range></domains>
      <allow_unauthenticated_participants>false</allow_unauthenticated_participants>
      <enable_join_access_control>true</enable_join_access_control>
      <discovery_protection_kind>ENCRYPT</discovery_protection_kind>
      <liveliness_protection_kind>ENCRYPT</liveliness_protection_kind>
      <rtps_protection_kind>NONE</rtps_protection_kind>
      <topic_access_rules>
        <topic_rule>
          <topic_expression>*</topic_expression>
          <enable_discovery_protection>true</enable_discovery_protection>
          <enable_liveliness_protection>true</enable_liveliness_protection>
          <enable_read_access_control>true</enable_read_access_control>
          <enable_write_access_control>true</enable_write_access_control>
          <metadata_protection_kind>ENCRYPT</metadata_protection_kind>
          <data_protection_kind>ENCRYPT</data_protection_kind>
        </topic_rule>
      </topic_access_rules>
    </domain_rule>
  </domain_access_rules>
</dds>
"#;

const PERMISSIONS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<dds xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
     xsi:noNamespaceSchemaLocation="http://www.omg.org/spec/DDS-Security/20170801/omg_shared_ca_permissions.xsd">
  <permissions>
    <grant name="alice">
      <subject_name>CN=alice,O=Siftdds Test,C=NL</subject_name>
      <validity><not_before>2020-01-01T00:00:00</not_before><not_after>2100-01-01T00:00:00</not_after></validity>
      <allow_rule>
        <domains><id_range><min>0</min><max>230</max></id_range></domains>
        <publish><topics><topic>Square</topic></topics><partitions><partition>*</partition></partitions></publish>
      </allow_rule>
      <default>DENY</default>
    </grant>
  </permissions>
</dds>
"#;

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("siftdds-secdocs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Seconds since the epoch. The openssl CLI stamps its certificates with the wall clock, so
/// the verification time has to come from it too.
#[allow(clippy::disallowed_methods)]
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Makes the CA the vendor's way, signs both documents with `-text` (and the governance once
/// without), and checks what `security::access` makes of them.
fn vendor_style(dir: &Path, make_ca: &[&[&str]]) {
    for args in make_ca {
        openssl(dir, args);
    }
    std::fs::write(dir.join("governance.xml"), GOVERNANCE).unwrap();
    std::fs::write(dir.join("permissions.xml"), PERMISSIONS).unwrap();
    // The same document with CRLF line ends: -text canonicalises both to CRLF.
    std::fs::write(
        dir.join("governance_crlf.xml"),
        GOVERNANCE.replace('\n', "\r\n"),
    )
    .unwrap();
    for (input, output, text) in [
        ("governance.xml", "governance.p7s", true),
        ("governance_crlf.xml", "governance_crlf.p7s", true),
        ("permissions.xml", "permissions.p7s", true),
        ("governance.xml", "governance_binary.p7s", false),
    ] {
        let mut args = vec!["smime", "-sign", "-in", input];
        if text {
            args.push("-text");
        }
        args.extend(["-out", output, "-signer", "ca.pem", "-inkey", "ca_key.pem"]);
        openssl(dir, &args);
    }
    let ca = std::fs::read(dir.join("ca.pem")).unwrap();
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let now = now();

    let gov = verify_smime_with_ca_pem(&read("governance.p7s"), &ca, now).unwrap();
    let gov = Governance::parse(&gov).unwrap();
    assert_eq!(gov, Governance::parse(GOVERNANCE).unwrap());
    assert!(gov.domain_rule(0).unwrap().enable_join_access_control);
    let crlf = verify_smime_with_ca_pem(&read("governance_crlf.p7s"), &ca, now).unwrap();
    assert_eq!(Governance::parse(&crlf).unwrap(), gov);

    let perms = verify_smime_with_ca_pem(&read("permissions.p7s"), &ca, now).unwrap();
    let perms = Permissions::parse(&perms).unwrap();
    let alice = DistinguishedName::parse("/C=NL/O=Siftdds Test/CN=alice").unwrap();
    let d = check_create_datawriter(&gov, &perms, &alice, 0, "Square", &["P"], now);
    assert!(d.allowed, "{d:?}");
    let d = check_create_datawriter(&gov, &perms, &alice, 0, "Circle", &[], now);
    assert!(!d.allowed, "{d:?}");

    // The vendors verify with PKCS7_TEXT: a document signed without -text is refused.
    assert!(matches!(
        verify_smime_with_ca_pem(&read("governance_binary.p7s"), &ca, now),
        Err(AccessError::Signature(_))
    ));
}

fn have_openssl() -> bool {
    Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
}

const SUBJ: &str = "/C=NL/O=Siftdds Test/CN=Permissions CA";

#[test]
fn cyclone_style_rsa_ca_documents_verify() {
    if !have_openssl() {
        skip::skip(
            "cyclone_style_rsa_ca_documents_verify",
            "no openssl command",
        );
        return;
    }
    let dir = temp_dir("cyclone");
    vendor_style(
        &dir,
        &[&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-keyout",
            "ca_key.pem",
            "-out",
            "ca.pem",
            "-days",
            "3650",
            "-nodes",
            "-subj",
            SUBJ,
        ]],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fast_dds_style_ec_ca_documents_verify() {
    if !have_openssl() {
        skip::skip(
            "fast_dds_style_ec_ca_documents_verify",
            "no openssl command",
        );
        return;
    }
    let dir = temp_dir("fastdds");
    vendor_style(
        &dir,
        &[
            &[
                "ecparam",
                "-name",
                "prime256v1",
                "-genkey",
                "-noout",
                "-out",
                "ca_key.pem",
            ],
            &[
                "req",
                "-new",
                "-x509",
                "-sha256",
                "-key",
                "ca_key.pem",
                "-out",
                "ca.pem",
                "-days",
                "3650",
                "-subj",
                SUBJ,
            ],
        ],
    );
    // Another CA of the same name does not verify the documents.
    let other = temp_dir("fastdds-other");
    openssl(
        &other,
        &[
            "ecparam",
            "-name",
            "prime256v1",
            "-genkey",
            "-noout",
            "-out",
            "ca_key.pem",
        ],
    );
    openssl(
        &other,
        &[
            "req",
            "-new",
            "-x509",
            "-key",
            "ca_key.pem",
            "-out",
            "ca.pem",
            "-days",
            "30",
            "-subj",
            SUBJ,
        ],
    );
    let signed = std::fs::read(dir.join("governance.p7s")).unwrap();
    let other_ca = std::fs::read(other.join("ca.pem")).unwrap();
    assert!(verify_smime_with_ca_pem(&signed, &other_ca, now()).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&other).unwrap();
}
