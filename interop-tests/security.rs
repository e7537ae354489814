//! DDS Security authentication (DDS:Auth:PKI-DH) against Cyclone DDS 0.10.2 (`shapes_cyclone`
//! with the Debian security plugins) and Fast DDS 2.9.1 (`shapes_fastdds` with security
//! properties), with each side as the handshake initiator: the PKI from `scripts/test-pki`
//! gives alice the smaller GUID prefix, so whoever holds alice's certificate initiates.
//! Checks: the handshake completes on our side (`Event::ParticipantAuthenticated`), the
//! vendor's log shows no authentication failure (and Cyclone's trace its handshake completing),
//! and the vendor then matches our writer and receives plain samples (governance NONE); a
//! certificate of another CA and an expired one are refused with the reason. Access control
//! (DDS:Access:Permissions) with the same vendors, both ways: permissions that do not let a
//! side join, a writer on a topic its permissions deny, a governance of another CA, documents
//! signed without `-text` and permissions without a grant for the subject (the side holding
//! them does not start); the matrix is in `docs/security.md` §8.3. Under governance with
//! RTPS protection ENCRYPT or SIGN (`docs/security.md` §8.5): the key exchange runs, samples
//! flow both ways with each vendor protected end to end, and between two siftdds
//! participants a capture of the loopback never shows a sample in clear (under governance
//! `encrypt` too, where `siftdds inspect` decodes the capture's SEC_PREFIX / SEC_BODY /
//! SEC_POSTFIX and the handshake tokens' class ids). The RTPS-protection
//! matrix: siftdds ↔ siftdds under rtps ENCRYPT with 10,000 reliable samples, content-filtered
//! readers, 100 KB fragmented samples and a TRANSIENT_LOCAL late joiner; each vendor ×
//! direction × handshake initiator × rtps ENCRYPT/SIGN with payloads of 1 to 65,536 octets, and
//! RSA-2048 identities. Skipped, with the reason, outside the sandbox or without the peer.

// Real processes over real sockets: wall-clock deadlines and short waits for the peers.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use siftdds::api::{DataWriter, DomainParticipant};
use siftdds::core::Event;
use siftdds::qos::{DataWriterQos, PublisherQos, TopicQos};
use siftdds::types::ShapeType;
use siftdds::wire::GuidPrefix;

use crate::sandbox::may_open_sockets;
use crate::skip::skip;

/// How long a handshake may take (both vendors resend every second or so).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(20);

/// The test PKI, made once per build tree by `scripts/test-pki`.
pub(crate) fn pki() -> PathBuf {
    static MADE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let dir = PathBuf::from(repo_path!("target/test-pki"));
    let made = MADE.get_or_init(|| {
        Command::new(repo_path!("scripts/test-pki"))
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success())
    });
    assert!(*made, "scripts/test-pki failed");
    dir
}

pub(crate) fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// Our identity: `cert` is `ec/alice` etc. (a path under the PKI without extension).
pub(crate) struct Identity<'a> {
    pub(crate) ca: &'a str,
    pub(crate) cert: &'a str,
}

/// The access-control documents of one side: file names under the PKI's `perm/`.
#[derive(Clone, Copy)]
pub(crate) struct Docs<'a> {
    pub(crate) governance: &'a str,
    pub(crate) permissions: &'a str,
}

/// Governance NONE with join, read and write access control, and permissions granting alice
/// and bob every topic.
const GRANT_ALL: Docs<'static> = Docs {
    governance: "governance_none.p7s",
    permissions: "permissions.p7s",
};

fn siftdds_participant(
    pki: &Path,
    domain: u32,
    id: &Identity<'_>,
) -> Result<DomainParticipant, siftdds::api::Error> {
    siftdds_participant_with(pki, domain, id, GRANT_ALL)
}

pub(crate) fn siftdds_participant_with(
    pki: &Path,
    domain: u32,
    id: &Identity<'_>,
    docs: Docs<'_>,
) -> Result<DomainParticipant, siftdds::api::Error> {
    DomainParticipant::builder(domain)
        .property("dds.sec.auth.identity_ca", uri(&pki.join(id.ca)))
        .property(
            "dds.sec.auth.identity_certificate",
            uri(&pki.join(format!("{}.pem", id.cert))),
        )
        .property(
            "dds.sec.auth.private_key",
            uri(&pki.join(format!("{}.key", id.cert))),
        )
        .property(
            "dds.sec.access.permissions_ca",
            uri(&pki.join("perm/ca.pem")),
        )
        .property(
            "dds.sec.access.governance",
            uri(&pki.join("perm").join(docs.governance)),
        )
        .property(
            "dds.sec.access.permissions",
            uri(&pki.join("perm").join(docs.permissions)),
        )
        .build()
}

/// Waits for the outcome of the handshake with any peer: `Ok(prefix)` or `Err(reason)`.
pub(crate) fn handshake_outcome(p: &DomainParticipant) -> Result<GuidPrefix, String> {
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    while Instant::now() < deadline {
        match p.wait_event(Duration::from_millis(200)).unwrap() {
            Some(Event::ParticipantAuthenticated(prefix)) => return Ok(prefix),
            Some(Event::AuthenticationFailed { reason, .. }) => return Err(reason),
            _ => {}
        }
    }
    Err("no handshake outcome".into())
}

fn cyclone_config(pki: &Path, id: &Identity<'_>, docs: Docs<'_>, log: &Path) -> String {
    cyclone_config_on(pki, id, docs, log, "lo")
}

/// Cyclone's configuration (`CYCLONEDDS_URI`) for identity `id` with `docs`, on network
/// interface `interface`, its trace to `log`.
pub(crate) fn cyclone_config_on(
    pki: &Path,
    id: &Identity<'_>,
    docs: Docs<'_>,
    log: &Path,
    interface: &str,
) -> String {
    format!(
        r#"<CycloneDDS><Domain id="any">
<General><Interfaces><NetworkInterface name="{interface}"/></Interfaces></General>
<Tracing><Category>trace</Category><OutputFile>{log}</OutputFile></Tracing>
<Security>
<Authentication>
<Library initFunction="init_authentication" finalizeFunction="finalize_authentication" path="dds_security_auth"/>
<IdentityCA>{ca}</IdentityCA><IdentityCertificate>{cert}</IdentityCertificate><PrivateKey>{key}</PrivateKey>
</Authentication>
<AccessControl>
<Library initFunction="init_access_control" finalizeFunction="finalize_access_control" path="dds_security_ac"/>
<PermissionsCA>{pca}</PermissionsCA><Governance>{gov}</Governance><Permissions>{perm}</Permissions>
</AccessControl>
<Cryptographic>
<Library initFunction="init_crypto" finalizeFunction="finalize_crypto" path="dds_security_crypto"/>
</Cryptographic>
</Security>
</Domain></CycloneDDS>"#,
        log = log.display(),
        ca = uri(&pki.join(id.ca)),
        cert = uri(&pki.join(format!("{}.pem", id.cert))),
        key = uri(&pki.join(format!("{}.key", id.cert))),
        pca = uri(&pki.join("perm/ca.pem")),
        gov = uri(&pki.join("perm").join(docs.governance)),
        perm = uri(&pki.join("perm").join(docs.permissions)),
    )
}

/// A vendor process, killed (by its own handle) when dropped.
pub(crate) struct Peer(Child);

impl Peer {
    /// Asks the process to end (SIGTERM to its own PID, so that it flushes its trace) and
    /// waits up to 5 s for it.
    pub(crate) fn stop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn cyclone_ready(test: &str) -> Option<PathBuf> {
    if !may_open_sockets(test) {
        return None;
    }
    let bin = crate::vendor_peer("cyclone/shapes_cyclone");
    if !bin.exists() {
        skip(test, "shapes_cyclone not built (scripts/build-peers)");
        return None;
    }
    Some(bin)
}

/// `shapes_cyclone sub` with Cyclone's security configuration; its trace goes to `log`, its
/// output to `out`.
fn cyclone_peer(
    bin: &Path,
    pki: &Path,
    domain: u32,
    id: &Identity<'_>,
    log: &Path,
    out: &Path,
) -> Peer {
    let args = ["sub", "-d", &domain.to_string(), "-t", "15"].map(String::from);
    cyclone_peer_with(bin, pki, id, GRANT_ALL, &args, (log, out))
}

/// `shapes_cyclone ARGS` with `docs` for access control; trace to `files.0`, output to
/// `files.1`.
pub(crate) fn cyclone_peer_with(
    bin: &Path,
    pki: &Path,
    id: &Identity<'_>,
    docs: Docs<'_>,
    args: &[String],
    files: (&Path, &Path),
) -> Peer {
    let (log, out) = files;
    let _ = std::fs::remove_file(log);
    let out = std::fs::File::create(out).unwrap();
    let child = Command::new(bin)
        .args(args)
        .env("CYCLONEDDS_URI", cyclone_config(pki, id, docs, log))
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .expect("shapes_cyclone starts");
    Peer(child)
}

pub(crate) fn read_log(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// Whether Cyclone's handshake state machine completed: `process_handshake` returned
/// VALIDATION_OK (0, the replier taking our Final) or VALIDATION_OK_FINAL_MESSAGE (5, the
/// initiator taking our Reply).
fn cyclone_completed(log: &str) -> bool {
    log.lines().any(|l| {
        l.contains("FSM: process_handshake") && (l.ends_with("ret=0") || l.ends_with("ret=5"))
    })
}

/// The lines of a Cyclone trace that report an authentication failure.
fn cyclone_failures(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            (l.contains("handshake") || l.contains("authenticat"))
                && (l.contains("fail") || l.contains("error") || l.contains("invalid"))
        })
        .collect()
}

fn cyclone_case(test: &str, domain: u32, ours: Identity<'_>, theirs: Identity<'_>) {
    let Some(bin) = cyclone_ready(test) else {
        return;
    };
    let pki = pki();
    let log = PathBuf::from(repo_path!("target")).join(format!("security-{test}.log"));
    let out_file = PathBuf::from(repo_path!("target")).join(format!("security-{test}.out"));
    let p = siftdds_participant(&pki, domain, &ours).unwrap();
    let w = square_writer(&p);
    let mut peer = cyclone_peer(&bin, &pki, domain, &theirs, &log, &out_file);
    let outcome = handshake_outcome(&p);
    eprintln!("{test}: {outcome:?}, {:?}", p.stats());
    let matched = write_samples(&w);
    // Let our Final (or Cyclone's) arrive, then have Cyclone flush its trace.
    std::thread::sleep(Duration::from_secs(1));
    peer.stop();
    let trace = read_log(&log);
    let failures = cyclone_failures(&trace);
    assert!(
        outcome.is_ok(),
        "handshake: {outcome:?}; Cyclone: {failures:#?}"
    );
    assert!(failures.is_empty(), "Cyclone logged: {failures:#?}");
    assert!(
        cyclone_completed(&trace),
        "Cyclone's handshake did not complete (trace {log:?})"
    );
    // Governance NONE everywhere and allow_unauthenticated_participants false: Cyclone
    // matches (it refuses an unauthenticated one) and takes plain data without the volatile
    // secure key exchange.
    let out = read_log(&out_file);
    assert!(matched, "Cyclone did not match our writer: {out}");
    assert!(
        out.contains("sub: 1 BLUE"),
        "Cyclone received nothing: {out}"
    );
}

#[test]
fn cyclone_handshake_with_siftdds_initiating() {
    // alice (ours) has the smaller GUID prefix: we send the Request.
    cyclone_case(
        "cyclone_handshake_with_siftdds_initiating",
        171,
        Identity {
            ca: "ec/ca.pem",
            cert: "ec/alice",
        },
        Identity {
            ca: "ec/ca.pem",
            cert: "ec/bob",
        },
    );
}

#[test]
fn cyclone_handshake_with_cyclone_initiating() {
    cyclone_case(
        "cyclone_handshake_with_cyclone_initiating",
        172,
        Identity {
            ca: "ec/ca.pem",
            cert: "ec/bob",
        },
        Identity {
            ca: "ec/ca.pem",
            cert: "ec/alice",
        },
    );
}

/// A writer of `Square` on our participant (default QoS), to see whether the vendor matches
/// and receives plain data once authentication completed.
fn square_writer(p: &DomainParticipant) -> DataWriter<ShapeType> {
    let t = p.create_topic::<ShapeType>("Square", TopicQos::default());
    p.create_publisher(PublisherQos::default())
        .create_datawriter(&t, DataWriterQos::default())
        .unwrap()
}

/// Waits for the vendor's reader to match, then writes 20 samples.
fn write_samples(w: &DataWriter<ShapeType>) -> bool {
    if w.wait_for_matched(1, Duration::from_secs(5)).is_err() {
        return false;
    }
    for i in 0..20 {
        let s = ShapeType {
            color: "BLUE".into(),
            x: i,
            y: i,
            shapesize: 30,
            additional_payload_size: vec![],
        };
        w.write(&s).unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

pub(crate) fn fastdds_ready(test: &str) -> Option<PathBuf> {
    if !may_open_sockets(test) {
        return None;
    }
    let bin = crate::vendor_peer("fastdds/shapes_fastdds");
    if !bin.exists() {
        skip(test, "shapes_fastdds not built (scripts/build-peers)");
        return None;
    }
    Some(bin)
}

/// `shapes_fastdds sub` with Fast DDS's security properties; its output goes to `log`.
fn fastdds_peer(bin: &Path, pki: &Path, domain: u32, id: &Identity<'_>, log: &Path) -> Peer {
    let args = ["sub", "-d", &domain.to_string(), "-t", "15"].map(String::from);
    fastdds_peer_with(bin, pki, id, GRANT_ALL, &args, log)
}

/// The `--property NAME=VALUE` arguments of `shapes_fastdds` that give it identity `id` and
/// `docs` (Fast DDS's property names, its builtin plugins).
pub(crate) fn fastdds_security_args(pki: &Path, id: &Identity<'_>, docs: Docs<'_>) -> Vec<String> {
    let props = [
        ("dds.sec.auth.plugin", "builtin.PKI-DH".to_owned()),
        (
            "dds.sec.auth.builtin.PKI-DH.identity_ca",
            uri(&pki.join(id.ca)),
        ),
        (
            "dds.sec.auth.builtin.PKI-DH.identity_certificate",
            uri(&pki.join(format!("{}.pem", id.cert))),
        ),
        (
            "dds.sec.auth.builtin.PKI-DH.private_key",
            uri(&pki.join(format!("{}.key", id.cert))),
        ),
        (
            "dds.sec.access.plugin",
            "builtin.Access-Permissions".to_owned(),
        ),
        (
            "dds.sec.access.builtin.Access-Permissions.permissions_ca",
            uri(&pki.join("perm/ca.pem")),
        ),
        (
            "dds.sec.access.builtin.Access-Permissions.governance",
            uri(&pki.join("perm").join(docs.governance)),
        ),
        (
            "dds.sec.access.builtin.Access-Permissions.permissions",
            uri(&pki.join("perm").join(docs.permissions)),
        ),
        ("dds.sec.crypto.plugin", "builtin.AES-GCM-GMAC".to_owned()),
    ];
    props
        .into_iter()
        .flat_map(|(n, v)| ["--property".to_owned(), format!("{n}={v}")])
        .collect()
}

/// `shapes_fastdds ARGS` with `docs` for access control; its output goes to `log`.
pub(crate) fn fastdds_peer_with(
    bin: &Path,
    pki: &Path,
    id: &Identity<'_>,
    docs: Docs<'_>,
    args: &[String],
    log: &Path,
) -> Peer {
    let out = std::fs::File::create(log).unwrap();
    let mut cmd = Command::new(bin);
    cmd.args(args).args(fastdds_security_args(pki, id, docs));
    let child = cmd
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .expect("shapes_fastdds starts");
    Peer(child)
}

/// The lines of Fast DDS's output that report a security error.
fn fastdds_failures(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains("SECURITY") || l.to_ascii_lowercase().contains("handshake"))
        .collect()
}

fn fastdds_case(test: &str, domain: u32, ours: Identity<'_>, theirs: Identity<'_>) {
    let Some(bin) = fastdds_ready(test) else {
        return;
    };
    let pki = pki();
    let log = PathBuf::from(repo_path!("target")).join(format!("security-{test}.log"));
    let p = siftdds_participant(&pki, domain, &ours).unwrap();
    let w = square_writer(&p);
    let mut peer = fastdds_peer(&bin, &pki, domain, &theirs, &log);
    let outcome = handshake_outcome(&p);
    eprintln!("{test}: {outcome:?}, {:?}", p.stats());
    let matched = write_samples(&w);
    std::thread::sleep(Duration::from_secs(1));
    peer.stop();
    let out = read_log(&log);
    let failures = fastdds_failures(&out);
    assert!(
        outcome.is_ok(),
        "handshake: {outcome:?}; Fast DDS: {failures:#?}"
    );
    assert!(failures.is_empty(), "Fast DDS logged: {failures:#?}");
    // Governance NONE everywhere: Fast DDS 2.9 matches and takes plain data without the
    // volatile secure key exchange.
    assert!(matched, "Fast DDS did not match our writer");
    assert!(
        out.contains("sub: 1 BLUE"),
        "Fast DDS received nothing: {out}"
    );
}

#[test]
fn fastdds_handshake_with_siftdds_initiating() {
    fastdds_case(
        "fastdds_handshake_with_siftdds_initiating",
        173,
        Identity {
            ca: "ec/ca.pem",
            cert: "ec/alice",
        },
        Identity {
            ca: "ec/ca.pem",
            cert: "ec/bob",
        },
    );
}

#[test]
fn fastdds_handshake_with_fastdds_initiating() {
    // Fast DDS 2.9 proposes DH+MODP-2048-256 with a raw public key: we answer in kind.
    fastdds_case(
        "fastdds_handshake_with_fastdds_initiating",
        174,
        Identity {
            ca: "ec/ca.pem",
            cert: "ec/bob",
        },
        Identity {
            ca: "ec/ca.pem",
            cert: "ec/alice",
        },
    );
}

/// Ours is bob's certificate from another CA, so the vendor (alice) initiates and we refuse
/// its certificate, with OpenSSL's reason; nothing is matched.
fn refuse_other_ca(test: &str, domain: u32, vendor: &str) {
    let bin = match vendor {
        "cyclone" => cyclone_ready(test),
        _ => fastdds_ready(test),
    };
    let Some(bin) = bin else {
        return;
    };
    let pki = pki();
    let log = PathBuf::from(repo_path!("target")).join(format!("security-{test}.log"));
    let out_file = PathBuf::from(repo_path!("target")).join(format!("security-{test}.out"));
    let ours = Identity {
        ca: "other/ca.pem",
        cert: "other/bob",
    };
    let theirs = Identity {
        ca: "ec/ca.pem",
        cert: "ec/alice",
    };
    let p = siftdds_participant(&pki, domain, &ours).unwrap();
    let w = square_writer(&p);
    let _peer = match vendor {
        "cyclone" => cyclone_peer(&bin, &pki, domain, &theirs, &log, &out_file),
        _ => fastdds_peer(&bin, &pki, domain, &theirs, &log),
    };
    let outcome = handshake_outcome(&p);
    assert!(
        matches!(&outcome, Err(reason) if reason.contains("unable to get local issuer certificate")),
        "{outcome:?}"
    );
    assert!(
        w.wait_for_matched(1, Duration::from_secs(2)).is_err(),
        "matched anyway"
    );
}

#[test]
fn cyclone_certificate_of_another_ca_is_refused() {
    refuse_other_ca(
        "cyclone_certificate_of_another_ca_is_refused",
        175,
        "cyclone",
    );
}

#[test]
fn fastdds_certificate_of_another_ca_is_refused() {
    refuse_other_ca(
        "fastdds_certificate_of_another_ca_is_refused",
        176,
        "fastdds",
    );
}

/// An expired certificate of ours: the participant does not start, and says why.
#[test]
fn expired_certificate_is_refused_when_the_participant_is_built() {
    let pki = pki();
    let ours = Identity {
        ca: "ec/ca.pem",
        cert: "expired/alice",
    };
    match siftdds_participant(&pki, 177, &ours) {
        Err(siftdds::api::Error::Config(siftdds::api::ConfigError::Security(reason))) => {
            assert!(reason.contains("certificate has expired"), "{reason}");
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("an expired certificate was accepted"),
    }
}

// RSA-2048 identities: RSASSA-PSS signatures (we sign with a 32-byte salt; Cyclone signs with
// the maximum, which we verify).

#[test]
fn cyclone_rsa_handshake_with_siftdds_initiating() {
    cyclone_case(
        "cyclone_rsa_handshake_with_siftdds_initiating",
        178,
        Identity {
            ca: "rsa/ca.pem",
            cert: "rsa/alice",
        },
        Identity {
            ca: "rsa/ca.pem",
            cert: "rsa/bob",
        },
    );
}

#[test]
fn cyclone_rsa_handshake_with_cyclone_initiating() {
    cyclone_case(
        "cyclone_rsa_handshake_with_cyclone_initiating",
        179,
        Identity {
            ca: "rsa/ca.pem",
            cert: "rsa/bob",
        },
        Identity {
            ca: "rsa/ca.pem",
            cert: "rsa/alice",
        },
    );
}

#[test]
fn fastdds_rsa_handshake_with_siftdds_initiating() {
    fastdds_case(
        "fastdds_rsa_handshake_with_siftdds_initiating",
        180,
        Identity {
            ca: "rsa/ca.pem",
            cert: "rsa/alice",
        },
        Identity {
            ca: "rsa/ca.pem",
            cert: "rsa/bob",
        },
    );
}

#[test]
fn fastdds_rsa_handshake_with_fastdds_initiating() {
    fastdds_case(
        "fastdds_rsa_handshake_with_fastdds_initiating",
        181,
        Identity {
            ca: "rsa/ca.pem",
            cert: "rsa/bob",
        },
        Identity {
            ca: "rsa/ca.pem",
            cert: "rsa/alice",
        },
    );
}

/// The security properties from a QoS XML participant profile, in Fast DDS's spellings: the
/// participant takes alice's identity, and with it the GUID prefix her subject gives.
#[test]
fn qos_xml_profile_configures_security_with_fastdds_aliases() {
    let test = "qos_xml_profile_configures_security_with_fastdds_aliases";
    if !may_open_sockets(test) {
        return;
    }
    let pki = pki();
    let element = |name: &str, path: &str| {
        format!(
            "<element><name>{name}</name><value>{}</value></element>",
            uri(&pki.join(path))
        )
    };
    let xml = format!(
        r#"<dds><qos_library name="Sec"><qos_profile name="Alice"><domain_participant_qos>
<property><value>{}{}{}</value></property>
</domain_participant_qos></qos_profile></qos_library></dds>"#,
        element("dds.sec.auth.builtin.PKI-DH.identity_ca", "ec/ca.pem"),
        element(
            "dds.sec.auth.builtin.PKI-DH.identity_certificate",
            "ec/alice.pem"
        ),
        element("dds.sec.auth.builtin.PKI-DH.private_key", "ec/alice.key"),
    );
    let mut provider = siftdds::qos::xml::QosProvider::new();
    provider.load_str("security.xml", &xml).unwrap();
    let p = DomainParticipant::with_profile(182, &provider, "Sec::Alice").unwrap();
    assert_eq!(p.guid_prefix().0[..6], [0x86, 0x18, 0x5a, 0x8c, 0xd1, 0x51]);
}

// ---- Access control (DDS:Access:Permissions): the negative cases, both vendors, both ways.
// Governance protection NONE with join, read and write access control (both vendors match
// without the secure key exchange then). A side whose own documents would forbid what the
// case needs uses a governance that leaves it uncontrolled (`governance_nojoin`,
// `governance_opencircle`), so only the other side's check can refuse it.

pub(crate) const ALICE: Identity<'static> = Identity {
    ca: "ec/ca.pem",
    cert: "ec/alice",
};
pub(crate) const BOB: Identity<'static> = Identity {
    ca: "ec/ca.pem",
    cert: "ec/bob",
};
/// No join, read or write access control; permissions for domains 0-9 only.
const NO_JOIN: Docs<'static> = Docs {
    governance: "governance_nojoin.p7s",
    permissions: "permissions_otherdomain.p7s",
};
/// Circle not access controlled here; permissions that deny Circle.
const CIRCLE_DENIED: Docs<'static> = Docs {
    governance: "governance_opencircle.p7s",
    permissions: "permissions_nocircle.p7s",
};

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Vendor {
    Cyclone,
    FastDds,
}

/// A running vendor process and where its trace and output go.
struct VendorRun {
    peer: Peer,
    vendor: Vendor,
    trace: PathBuf,
    out: PathBuf,
}

impl VendorRun {
    fn start(
        test: &str,
        vendor: Vendor,
        id: &Identity<'_>,
        docs: Docs<'_>,
        args: Vec<String>,
    ) -> Option<Self> {
        let bin = match vendor {
            Vendor::Cyclone => cyclone_ready(test),
            Vendor::FastDds => fastdds_ready(test),
        }?;
        let pki = pki();
        let trace = PathBuf::from(repo_path!("target")).join(format!("security-{test}.log"));
        let out = PathBuf::from(repo_path!("target")).join(format!("security-{test}.out"));
        let peer = match vendor {
            Vendor::Cyclone => cyclone_peer_with(&bin, &pki, id, docs, &args, (&trace, &out)),
            Vendor::FastDds => fastdds_peer_with(&bin, &pki, id, docs, &args, &out),
        };
        Some(VendorRun {
            peer,
            vendor,
            trace,
            out,
        })
    }

    /// Stops the process and returns its output and (Cyclone) trace.
    fn finish(mut self) -> (String, String) {
        self.peer.stop();
        let trace = match self.vendor {
            Vendor::Cyclone => read_log(&self.trace),
            Vendor::FastDds => String::new(),
        };
        (read_log(&self.out), trace)
    }

    /// Waits up to 10 s for the process to exit by itself; its exit status, output and trace.
    fn exit(mut self) -> (Option<std::process::ExitStatus>, String, String) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut status = None;
        while Instant::now() < deadline && status.is_none() {
            status = self.peer.0.try_wait().ok().flatten();
            std::thread::sleep(Duration::from_millis(50));
        }
        let (out, trace) = self.finish();
        (status, out, trace)
    }
}

fn args(role: &str, domain: u32, topic: &str) -> Vec<String> {
    ["-d", &domain.to_string(), "-T", topic, "-t", "15"]
        .iter()
        .fold(vec![role.to_string()], |mut v, a| {
            v.push(a.to_string());
            v
        })
}

/// The lines of a vendor's output or trace that report an access-control refusal.
fn refusals(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            (l.contains("permission")
                || l.contains("access")
                || l.contains("not allowed")
                || l.contains("does not allow"))
                && (l.contains("fail")
                    || l.contains("denied")
                    || l.contains("not allowed")
                    || l.contains("error")
                    || l.contains("invalid"))
        })
        .collect()
}

/// Waits for our first `Event::AccessDenied`: its topic and reason.
fn access_denied(p: &DomainParticipant) -> Result<(Option<String>, String), String> {
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        match p.wait_event(Duration::from_millis(200)).unwrap() {
            Some(Event::AccessDenied { topic, reason, .. }) => return Ok((topic, reason)),
            Some(Event::AuthenticationFailed { reason, .. }) => seen.push(reason),
            _ => {}
        }
    }
    Err(format!(
        "no AccessDenied (authentication failures: {seen:?})"
    ))
}

fn shape_reader(p: &DomainParticipant, topic: &str) -> siftdds::api::DataReader<ShapeType> {
    let t = p.create_topic::<ShapeType>(topic, TopicQos::default());
    p.create_subscriber(siftdds::qos::SubscriberQos::default())
        .create_datareader(&t, siftdds::qos::DataReaderQos::default())
        .unwrap()
}

fn shape_writer(
    p: &DomainParticipant,
    topic: &str,
) -> Result<DataWriter<ShapeType>, siftdds::api::Error> {
    let t = p.create_topic::<ShapeType>(topic, TopicQos::default());
    p.create_publisher(PublisherQos::default())
        .create_datawriter(&t, DataWriterQos::default())
}

/// Writes 20 samples whether matched or not (a vendor that refused us must not take them).
fn write_anyway(w: &DataWriter<ShapeType>) {
    let _ = w.wait_for_matched(1, Duration::from_secs(3));
    for i in 0..20 {
        let s = ShapeType {
            color: "BLUE".into(),
            x: i,
            y: i,
            shapesize: 30,
            additional_payload_size: vec![],
        };
        w.write(&s).unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a vendor subscriber printed a received sample.
fn received(out: &str) -> bool {
    out.lines()
        .any(|l| l.starts_with("sub: ") && l.contains(" BLUE"))
}

/// (a) The vendor's permissions do not let it join our domain (its own governance does not
/// control joining, so it starts): we refuse it after authentication, with the reason.
fn siftdds_refuses_vendor_join(test: &str, domain: u32, vendor: Vendor) {
    if !may_open_sockets(test) {
        return;
    }
    let pki = pki();
    let p = siftdds_participant(&pki, domain, &ALICE).unwrap();
    let w = square_writer(&p);
    let Some(run) = VendorRun::start(test, vendor, &BOB, NO_JOIN, args("sub", domain, "Square"))
    else {
        return;
    };
    let denied = access_denied(&p);
    let matched = w.wait_for_matched(1, Duration::from_secs(3)).is_ok();
    let (out, _) = run.finish();
    eprintln!("{test}: {denied:?}, matched {matched}, {:?}", p.stats());
    assert!(
        matches!(&denied, Ok((None, reason)) if reason.contains("allows nothing in domain")),
        "{denied:?}; vendor: {out}"
    );
    assert!(!matched, "matched a refused participant");
}

/// (a) Our permissions do not let us join (our governance does not control joining, so we
/// start): the vendor's access control refuses us, and its log says why. Fast DDS then
/// matches nothing of ours; Cyclone 0.10.2 logs the refusal but, with protection NONE,
/// still matches and takes plain data (it checks a remote endpoint's permissions only when
/// its PID_ENDPOINT_SECURITY_INFO marks it protected, which we do not announce yet), so
/// for Cyclone the refusal in its trace is what is checked.
fn vendor_refuses_siftdds_join(test: &str, domain: u32, vendor: Vendor) {
    if !may_open_sockets(test) {
        return;
    }
    let pki = pki();
    let p = siftdds_participant_with(&pki, domain, &ALICE, NO_JOIN).unwrap();
    let w = square_writer(&p);
    let Some(run) = VendorRun::start(test, vendor, &BOB, GRANT_ALL, args("sub", domain, "Square"))
    else {
        return;
    };
    let outcome = handshake_outcome(&p);
    write_anyway(&w);
    let matched = w.wait_for_matched(1, Duration::from_millis(100)).is_ok();
    std::thread::sleep(Duration::from_secs(1));
    let (out, trace) = run.finish();
    let why = [refusals(&out), refusals(&trace)].concat();
    let took = received(&out);
    eprintln!("{test}: {outcome:?}, matched {matched}, took samples {took}; vendor: {why:#?}");
    assert!(outcome.is_ok(), "handshake: {outcome:?}");
    let ours = p.guid_prefix().0;
    match vendor {
        Vendor::FastDds => {
            assert!(!took, "the vendor took our samples: {out}");
            assert!(!matched, "the vendor's reader matched our writer");
            assert!(
                why.iter().any(
                    |l| l.contains("Not found a rule allowing to use the domain_id")
                        && l.contains("check_remote_participant")
                ),
                "Fast DDS logged no refusal: {out}"
            );
        }
        Vendor::Cyclone => {
            let prefix = format!(
                "{:02x}{:02x}{:02x}{:02x}:",
                ours[0], ours[1], ours[2], ours[3]
            );
            assert!(
                why.iter()
                    .any(|l| l.contains("does not allow remote participant")
                        && l.contains(&prefix)
                        && l.contains("participant denied by default rule")),
                "Cyclone logged no refusal of {prefix}: {why:#?}"
            );
        }
    }
}

/// (b) The vendor writes Circle, which its permissions deny (its governance leaves Circle
/// uncontrolled, so it may create the writer): we refuse that writer, with the rule.
fn siftdds_refuses_vendor_topic(test: &str, domain: u32, vendor: Vendor) {
    if !may_open_sockets(test) {
        return;
    }
    let pki = pki();
    let p = siftdds_participant(&pki, domain, &ALICE).unwrap();
    let r = shape_reader(&p, "Circle");
    let Some(run) = VendorRun::start(
        test,
        vendor,
        &BOB,
        CIRCLE_DENIED,
        args("pub", domain, "Circle"),
    ) else {
        return;
    };
    let denied = access_denied(&p);
    let matched = r.wait_for_matched(1, Duration::from_secs(3)).is_ok();
    let (out, _) = run.finish();
    eprintln!("{test}: {denied:?}, matched {matched}, {:?}", p.stats());
    assert!(
        matches!(&denied, Ok((Some(topic), reason)) if topic == "Circle"
            && reason == "grant \"bob\" deny_rule #1 applies"),
        "{denied:?}; vendor: {out}"
    );
    assert!(!matched, "our reader matched a refused writer");
}

/// (b) We write Circle, which our permissions deny (our governance leaves Circle
/// uncontrolled): Fast DDS's reader refuses our writer, with the rule, and takes none of its
/// samples. (Cyclone 0.10.2 does not check: see `vendor_refuses_siftdds_join`.)
fn vendor_refuses_siftdds_topic(test: &str, domain: u32, vendor: Vendor) {
    if !may_open_sockets(test) {
        return;
    }
    let pki = pki();
    let p = siftdds_participant_with(&pki, domain, &ALICE, CIRCLE_DENIED).unwrap();
    let w = shape_writer(&p, "Circle").unwrap();
    let Some(run) = VendorRun::start(test, vendor, &BOB, GRANT_ALL, args("sub", domain, "Circle"))
    else {
        return;
    };
    let outcome = handshake_outcome(&p);
    write_anyway(&w);
    std::thread::sleep(Duration::from_secs(1));
    let (out, trace) = run.finish();
    let why = [refusals(&out), refusals(&trace)].concat();
    eprintln!("{test}: {outcome:?}; vendor refusals: {why:#?}");
    assert!(outcome.is_ok(), "handshake: {outcome:?}");
    assert!(
        !received(&out),
        "the vendor took samples of a denied topic: {out}"
    );
    assert!(
        why.iter()
            .any(|l| l.contains("Circle topic denied by deny rule")
                && l.contains("check_remote_datawriter")),
        "the vendor logged no refusal: {out}"
    );
}

/// (a, c, d) The vendor with `docs` does not start: its participant is not created. Cyclone
/// says why (`cyclone_reason`); Fast DDS 2.9.1 logs only "Cannot create participant due to
/// initialization error".
fn vendor_does_not_start(
    test: &str,
    domain: u32,
    vendor: Vendor,
    docs: Docs<'_>,
    cyclone_reason: &str,
) {
    if !may_open_sockets(test) {
        return;
    }
    let Some(run) = VendorRun::start(test, vendor, &BOB, docs, args("sub", domain, "Square"))
    else {
        return;
    };
    let (status, out, trace) = run.exit();
    let why = [refusals(&out), refusals(&trace)].concat();
    eprintln!("{test}: exit {status:?}; {out}; trace refusals: {why:#?}");
    assert!(
        status.is_some_and(|s| !s.success()),
        "the vendor started: {out}"
    );
    let failed = match vendor {
        Vendor::Cyclone => "dds_create_participant",
        Vendor::FastDds => "create_participant failed",
    };
    assert!(out.contains(failed), "{out}");
    if vendor == Vendor::Cyclone {
        assert!(
            why.iter()
                .any(|l| l.contains("validating local permissions") && l.contains(cyclone_reason)),
            "{why:#?}"
        );
    }
}

/// (a, c, d) Our participant with `docs` is not built, and says why.
fn siftdds_not_built(docs: Docs<'_>, domain: u32, expected: &str) {
    let pki = pki();
    match siftdds_participant_with(&pki, domain, &ALICE, docs) {
        Err(siftdds::api::Error::Config(siftdds::api::ConfigError::Security(reason))) => {
            eprintln!("not built: {reason}");
            assert!(reason.contains(expected), "{reason}");
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("built with {}/{}", docs.governance, docs.permissions),
    }
}

/// One `#[test]` named NAME that runs CASE(NAME, ARGS...).
macro_rules! access_test {
    ($name:ident, $case:ident($($arg:expr),*)) => {
        #[test]
        fn $name() {
            $case(stringify!($name), $($arg),*);
        }
    };
}

access_test!(
    siftdds_refuses_cyclone_permissions_that_do_not_let_it_join,
    siftdds_refuses_vendor_join(190, Vendor::Cyclone)
);

access_test!(
    siftdds_refuses_fastdds_permissions_that_do_not_let_it_join,
    siftdds_refuses_vendor_join(191, Vendor::FastDds)
);

access_test!(
    cyclone_refuses_siftdds_permissions_that_do_not_let_it_join,
    vendor_refuses_siftdds_join(192, Vendor::Cyclone)
);

access_test!(
    fastdds_refuses_siftdds_permissions_that_do_not_let_it_join,
    vendor_refuses_siftdds_join(193, Vendor::FastDds)
);

access_test!(
    siftdds_refuses_a_cyclone_writer_on_a_denied_topic,
    siftdds_refuses_vendor_topic(194, Vendor::Cyclone)
);

access_test!(
    siftdds_refuses_a_fastdds_writer_on_a_denied_topic,
    siftdds_refuses_vendor_topic(195, Vendor::FastDds)
);

access_test!(
    fastdds_refuses_a_siftdds_writer_on_a_denied_topic,
    vendor_refuses_siftdds_topic(197, Vendor::FastDds)
);

const NO_GRANT: Docs<'static> = Docs {
    governance: "governance_none.p7s",
    permissions: "permissions_nogrant.p7s",
};
const GOVERNANCE_OTHER_CA: Docs<'static> = Docs {
    governance: "governance_otherca.p7s",
    permissions: "permissions.p7s",
};
const GOVERNANCE_NO_TEXT: Docs<'static> = Docs {
    governance: "governance_notext.p7s",
    permissions: "permissions.p7s",
};
const PERMISSIONS_NO_TEXT: Docs<'static> = Docs {
    governance: "governance_none.p7s",
    permissions: "permissions_notext.p7s",
};

access_test!(
    cyclone_does_not_start_without_a_grant_for_its_subject,
    vendor_does_not_start(198, Vendor::Cyclone, NO_GRANT, "Subject name is invalid")
);

access_test!(
    fastdds_does_not_start_without_a_grant_for_its_subject,
    vendor_does_not_start(199, Vendor::FastDds, NO_GRANT, "Subject name is invalid")
);

access_test!(
    cyclone_does_not_start_with_a_governance_of_another_ca,
    vendor_does_not_start(
        200,
        Vendor::Cyclone,
        GOVERNANCE_OTHER_CA,
        "certificate verify error"
    )
);

access_test!(
    fastdds_does_not_start_with_a_governance_of_another_ca,
    vendor_does_not_start(
        201,
        Vendor::FastDds,
        GOVERNANCE_OTHER_CA,
        "certificate verify error"
    )
);

#[test]
fn cyclone_does_not_start_with_documents_signed_without_text() {
    let test = "cyclone_does_not_start_with_documents_signed_without_text";
    vendor_does_not_start(
        test,
        202,
        Vendor::Cyclone,
        GOVERNANCE_NO_TEXT,
        "mime no content type",
    );
    vendor_does_not_start(
        test,
        202,
        Vendor::Cyclone,
        PERMISSIONS_NO_TEXT,
        "mime no content type",
    );
}

#[test]
fn fastdds_does_not_start_with_documents_signed_without_text() {
    let test = "fastdds_does_not_start_with_documents_signed_without_text";
    vendor_does_not_start(
        test,
        203,
        Vendor::FastDds,
        GOVERNANCE_NO_TEXT,
        "mime no content type",
    );
    vendor_does_not_start(
        test,
        203,
        Vendor::FastDds,
        PERMISSIONS_NO_TEXT,
        "mime no content type",
    );
}

#[test]
fn siftdds_is_not_built_without_a_grant_for_its_subject() {
    siftdds_not_built(NO_GRANT, 204, "no grant for our subject name");
}

#[test]
fn siftdds_is_not_built_with_a_governance_of_another_ca() {
    siftdds_not_built(
        GOVERNANCE_OTHER_CA,
        204,
        "dds.sec.access.governance: signature:",
    );
}

#[test]
fn siftdds_is_not_built_with_documents_signed_without_text() {
    siftdds_not_built(
        GOVERNANCE_NO_TEXT,
        204,
        "dds.sec.access.governance: signature:",
    );
    siftdds_not_built(
        PERMISSIONS_NO_TEXT,
        204,
        "dds.sec.access.permissions: signature:",
    );
}

#[test]
fn siftdds_is_not_built_when_its_permissions_do_not_let_it_join() {
    let docs = Docs {
        governance: "governance_none.p7s",
        permissions: "permissions_otherdomain.p7s",
    };
    siftdds_not_built(
        docs,
        204,
        "joining domain 204 is denied: grant \"alice\" allows nothing",
    );
}

/// check_create_datawriter / datareader: our own permissions deny Circle, so creating a
/// writer or reader of it fails with the rule; Square is allowed.
#[test]
fn siftdds_refuses_to_create_endpoints_on_a_denied_topic() {
    let test = "siftdds_refuses_to_create_endpoints_on_a_denied_topic";
    if !may_open_sockets(test) {
        return;
    }
    let pki = pki();
    let docs = Docs {
        governance: "governance_none.p7s",
        permissions: "permissions_nocircle.p7s",
    };
    let p = siftdds_participant_with(&pki, 205, &ALICE, docs).unwrap();
    match shape_writer(&p, "Circle") {
        Err(siftdds::api::Error::Config(siftdds::api::ConfigError::Security(reason))) => {
            assert_eq!(
                reason,
                "access control: creating a DataWriter is denied: grant \"alice\" deny_rule #1 applies"
            );
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a writer of a denied topic was created"),
    }
    let t = p.create_topic::<ShapeType>("Circle", TopicQos::default());
    let r = p
        .create_subscriber(siftdds::qos::SubscriberQos::default())
        .create_datareader(&t, siftdds::qos::DataReaderQos::default());
    assert!(
        matches!(r, Err(siftdds::api::Error::Config(_))),
        "a reader of a denied topic was created"
    );
    assert!(shape_writer(&p, "Square").is_ok());
}

/// Governance with RTPS protection ENCRYPT, permissions granting every topic.
pub(crate) const RTPS_ENCRYPT: Docs<'static> = Docs {
    governance: "governance_rtps.p7s",
    permissions: "permissions.p7s",
};
/// Governance with RTPS protection SIGN, permissions granting every topic.
const RTPS_SIGN: Docs<'static> = Docs {
    governance: "governance_rtps_sign.p7s",
    permissions: "permissions.p7s",
};
/// Metadata and data protection ENCRYPT, permissions granting every topic.
pub(crate) const META_ENCRYPT: Docs<'static> = Docs {
    governance: "governance_meta_encrypt.p7s",
    permissions: "permissions.p7s",
};
/// Metadata and data protection SIGN, permissions granting every topic.
pub(crate) const META_SIGN: Docs<'static> = Docs {
    governance: "governance_meta_sign.p7s",
    permissions: "permissions.p7s",
};
/// Discovery, liveliness, metadata and data protection ENCRYPT (the vendors' stock
/// `encrypt` governance).
pub(crate) const DISCOVERY_ENCRYPT: Docs<'static> = Docs {
    governance: "governance_encrypt.p7s",
    permissions: "permissions.p7s",
};
/// RTPS, discovery, liveliness, metadata and data protection ENCRYPT, the topic rule without
/// liveliness protection (as Fast DDS's stock "all enable" governance).
pub(crate) const ALL_ENCRYPT: Docs<'static> = Docs {
    governance: "governance_all_encrypt.p7s",
    permissions: "permissions.p7s",
};
/// Discovery, liveliness, metadata and data protection SIGN (the stock `sign` governance).
pub(crate) const DISCOVERY_SIGN: Docs<'static> = Docs {
    governance: "governance_sign.p7s",
    permissions: "permissions.p7s",
};
/// RTPS protection ENCRYPT, then metadata and data protection ENCRYPT: the matrix runs each.
const ENCRYPT_KINDS: &[Docs<'static>] = &[RTPS_ENCRYPT, META_ENCRYPT];
/// RTPS protection SIGN, then metadata and data protection SIGN.
const SIGN_KINDS: &[Docs<'static>] = &[RTPS_SIGN, META_SIGN];
/// Governance with RTPS protection SIGN_WITH_ORIGIN_AUTHENTICATION.
const RTPS_SIGN_ORIGIN: Docs<'static> = Docs {
    governance: "governance_rtps_sign_origin.p7s",
    permissions: "permissions.p7s",
};

/// A marker in every sample's color: it must never be seen in clear on the wire.
const MARKER: &str = "MARKER-e2c1-plaintext";

/// Sample `i`, its color carrying [`MARKER`].
fn marked(i: i32) -> ShapeType {
    ShapeType {
        color: format!("{MARKER}-{i}"),
        x: i,
        y: i,
        shapesize: 30,
        additional_payload_size: vec![],
    }
}

/// A reliable KEEP_ALL reader of `Square` on our participant.
fn square_reader(p: &DomainParticipant) -> siftdds::api::DataReader<ShapeType> {
    use siftdds::qos::{DataReaderQos, History, Reliability, SubscriberQos};
    let t = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataReaderQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        ..DataReaderQos::default()
    };
    p.create_subscriber(SubscriberQos::default())
        .create_datareader(&t, qos)
        .unwrap()
}

/// Takes samples from `r` for up to `timeout` until `n` arrived; returns their colors.
fn take_colors(
    r: &siftdds::api::DataReader<ShapeType>,
    n: usize,
    timeout: Duration,
) -> Vec<String> {
    let mut colors = Vec::new();
    let deadline = Instant::now() + timeout;
    while colors.len() < n && Instant::now() < deadline {
        for s in r.wait_take(Duration::from_millis(200)).unwrap() {
            if let Some(v) = s.value {
                colors.push(v.color);
            }
        }
    }
    colors
}

/// `dumpcap` on the namespace's loopback into `file` (UDP only), or `None` when it cannot
/// run here.
fn start_capture(file: &Path) -> Option<Peer> {
    start_capture_filtered(file, "udp")
}

/// [`start_capture`] with the capture filter `filter`.
fn start_capture_filtered(file: &Path, filter: &str) -> Option<Peer> {
    let _ = std::fs::remove_file(file);
    let child = Command::new("dumpcap")
        .args(["-q", "-i", "lo", "-f", filter, "-w"])
        .arg(file)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut peer = Peer(child);
    // dumpcap creates the file once it captures.
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if file.exists() {
            return Some(peer);
        }
        if matches!(peer.0.try_wait(), Ok(Some(_))) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    peer.stop();
    None
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Two siftdds participants under governance rtps (RTPS protection ENCRYPT): they
/// authenticate, exchange keys and deliver every sample, and a capture of the loopback holds
/// the marker of the samples nowhere, but the SRTPS_PREFIX of protected messages.
#[test]
fn siftdds_to_siftdds_under_rtps_encrypt_never_shows_the_sample_in_clear() {
    let test = "siftdds_to_siftdds_under_rtps_encrypt_never_shows_the_sample_in_clear";
    if !may_open_sockets(test) {
        return;
    }
    let pcap = PathBuf::from(repo_path!("target")).join(format!("security-{test}.pcapng"));
    let Some(mut capture) = start_capture(&pcap) else {
        skip(test, "dumpcap cannot capture here");
        return;
    };
    let pki = pki();
    let alice = Identity {
        ca: "ec/ca.pem",
        cert: "ec/alice",
    };
    let bob = Identity {
        ca: "ec/ca.pem",
        cert: "ec/bob",
    };
    let a = siftdds_participant_with(&pki, 221, &alice, RTPS_ENCRYPT).unwrap();
    let b = siftdds_participant_with(&pki, 221, &bob, RTPS_ENCRYPT).unwrap();
    let w = square_writer(&a);
    let r = square_reader(&b);
    assert!(handshake_outcome(&a).is_ok());
    w.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    let n = 50;
    for i in 0..n {
        w.write(&marked(i)).unwrap();
        std::thread::sleep(Duration::from_millis(10));
    }
    let colors = take_colors(&r, n as usize, Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(500));
    capture.stop();
    let bytes = std::fs::read(&pcap).unwrap();
    eprintln!(
        "{test}: {} samples, capture {} bytes, {:?} / {:?}",
        colors.len(),
        bytes.len(),
        a.stats(),
        b.stats()
    );
    assert_eq!(colors.len(), n as usize, "received {colors:?}");
    assert!(colors.iter().all(|c| c.starts_with(MARKER)));
    assert!(
        !contains(&bytes, MARKER.as_bytes()),
        "the marker is in the capture {pcap:?}"
    );
    // An SRTPS_PREFIX (0x33) with the AES256_GCM kind {0,0,0,4} right behind its header.
    assert!(
        bytes
            .windows(8)
            .any(|x| x[0] == 0x33 && x[4..8] == [0, 0, 0, 4]),
        "no protected message in the capture {pcap:?}"
    );
    assert_eq!(b.stats().unwrap().unprotected, 0);
}

/// Governance `encrypt`: discovery, liveliness, metadata and data protection ENCRYPT, RTPS
/// protection NONE; permissions granting every topic.
const DATA_ENCRYPT: Docs<'static> = Docs {
    governance: "governance_encrypt.p7s",
    permissions: "permissions.p7s",
};

/// `siftdds inspect FILE`: its exit status and output.
fn inspect(pcap: &Path) -> (std::process::ExitStatus, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_siftdds"))
        .arg("inspect")
        .arg(pcap)
        .output()
        .expect("siftdds inspect runs");
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Two siftdds participants under governance `encrypt` (submessage and payload protection
/// ENCRYPT, DDS-Security 1.1 §8.4.2.4): a capture of the loopback holds the marker of the
/// samples nowhere, and `siftdds inspect` decodes it cleanly: the handshake's stateless
/// messages with their tokens' class ids (Req, Reply, Final: §9.3.2.5) in clear, then
/// SEC_PREFIX / SEC_BODY / SEC_POSTFIX, and no SRTPS_PREFIX (RTPS protection NONE). Prints
/// the wall-clock time from the participants' creation to the handshake, the match and the
/// first sample delivered (a figure, not a limit).
#[test]
fn siftdds_to_siftdds_under_data_encrypt_capture_holds_no_marker_and_inspect_decodes_it() {
    let test =
        "siftdds_to_siftdds_under_data_encrypt_capture_holds_no_marker_and_inspect_decodes_it";
    if !may_open_sockets(test) {
        return;
    }
    let pcap = PathBuf::from(repo_path!("target")).join(format!("security-{test}.pcapng"));
    // Domain 75's ports only (RTPS 2.5 §9.6.1.1: 7400 + 250 × 75 and the 250 above): the
    // participants' RTPS traffic and nothing else.
    let Some(mut capture) = start_capture_filtered(&pcap, "udp portrange 26150-26399") else {
        skip(test, "dumpcap cannot capture here");
        return;
    };
    let pki = pki();
    let start = Instant::now();
    let a = siftdds_participant_with(&pki, 75, &ALICE, DATA_ENCRYPT).unwrap();
    let b = siftdds_participant_with(&pki, 75, &BOB, DATA_ENCRYPT).unwrap();
    let built = start.elapsed();
    let w = square_writer(&a);
    let r = square_reader(&b);
    let outcome = handshake_outcome(&a);
    let authenticated = start.elapsed();
    assert!(outcome.is_ok(), "handshake: {outcome:?}");
    w.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    let matched = start.elapsed();
    let n = 50;
    let mut first = None;
    let mut colors = Vec::new();
    for i in 0..n {
        w.write(&marked(i)).unwrap();
        if first.is_none() {
            colors.extend(take_colors(&r, 1, Duration::from_secs(10)));
            first = Some(start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    colors.extend(take_colors(
        &r,
        n as usize - colors.len(),
        Duration::from_secs(20),
    ));
    std::thread::sleep(Duration::from_millis(500));
    capture.stop();
    eprintln!(
        "{test}: participants built {built:?}, authenticated {authenticated:?}, writer \
         matched {matched:?}, first sample taken {first:?} after the start"
    );
    assert_eq!(colors.len(), n as usize, "received {colors:?}");
    assert!(colors.iter().all(|c| c.starts_with(MARKER)));
    let bytes = std::fs::read(&pcap).unwrap();
    assert!(
        !contains(&bytes, MARKER.as_bytes()),
        "the marker is in the capture {pcap:?}"
    );
    assert_eq!(b.stats().unwrap().unprotected, 0);
    let (status, text) = inspect(&pcap);
    let lines = |needle: &str| text.lines().filter(|l| l.contains(needle)).count();
    eprintln!(
        "{test}: inspect: {} lines, {} SEC_PREFIX, {} SEC_BODY, {} SEC_POSTFIX, {} DATA(stateless); {}",
        text.lines().count(),
        lines(" SEC_PREFIX "),
        lines(" SEC_BODY "),
        lines(" SEC_POSTFIX "),
        lines(" DATA(stateless) "),
        text.lines().last().unwrap_or_default()
    );
    assert!(status.success(), "siftdds inspect: {status}\n{text}");
    assert_eq!(lines("NOT-UNDERSTOOD") + lines("MALFORMED"), 0, "{text}");
    assert!(!text.contains(MARKER), "inspect shows the marker");
    // Each of our user samples went as SEC_PREFIX, SEC_BODY, SEC_POSTFIX (AES-256-GCM: the
    // builtin plugin's ENCRYPT for submessages).
    for part in [" SEC_PREFIX ", " SEC_BODY ", " SEC_POSTFIX "] {
        assert!(lines(part) >= n as usize, "{part}: {}\n{text}", lines(part));
    }
    assert!(text.contains("SEC_PREFIX     kind=AES256_GCM"), "{text}");
    assert_eq!(lines("SRTPS_PREFIX"), 0, "RTPS protection is NONE: {text}");
    for class in ["+Req]", "+Reply]", "+Final]"] {
        let token = format!("class=dds.sec.auth tokens=[DDS:Auth:PKI-DH:1.0{class}");
        assert!(text.contains(&token), "no {token}:\n{text}");
    }
}

/// siftdds and a vendor under governance `governance`: authenticated, keys exchanged, and
/// samples flow from `writer` ("siftdds" or the vendor's name) to the other.
fn cyclone_protected_case(test: &str, domain: u32, docs: Docs<'static>, writer: &str) {
    let _ = protected_case(test, domain, docs, writer, Vendor::Cyclone);
}

/// [`cyclone_protected_case`] with `vendor`; our participant's counters at the end (`None`
/// when the vendor is missing and the skip was recorded). siftdds holds alice's certificate,
/// so it initiates the handshake.
pub(crate) fn protected_case(
    test: &str,
    domain: u32,
    docs: Docs<'static>,
    writer: &str,
    vendor: Vendor,
) -> Option<siftdds::core::participant::ParticipantStats> {
    protected_case_initiated(test, domain, docs, writer, vendor, true)
}

/// [`protected_case`], with siftdds holding alice's certificate when `siftdds_initiates`, else
/// bob's (the vendor, holding alice's, initiates).
pub(crate) fn protected_case_initiated(
    test: &str,
    domain: u32,
    docs: Docs<'static>,
    writer: &str,
    vendor: Vendor,
    siftdds_initiates: bool,
) -> Option<siftdds::core::participant::ParticipantStats> {
    let ready = match vendor {
        Vendor::Cyclone => cyclone_ready(test),
        Vendor::FastDds => fastdds_ready(test),
    };
    let bin = ready?;
    let pki = pki();
    let log = PathBuf::from(repo_path!("target")).join(format!("security-{test}.log"));
    let out_file = PathBuf::from(repo_path!("target")).join(format!("security-{test}.out"));
    let (ours, theirs) = match siftdds_initiates {
        true => (ALICE, BOB),
        false => (BOB, ALICE),
    };
    let p = siftdds_participant_with(&pki, domain, &ours, docs).unwrap();
    let spawn = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        match vendor {
            Vendor::Cyclone => {
                cyclone_peer_with(&bin, &pki, &theirs, docs, &args, (&log, &out_file))
            }
            Vendor::FastDds => fastdds_peer_with(&bin, &pki, &theirs, docs, &args, &out_file),
        }
    };
    let d = domain.to_string();
    let n = 20;
    if writer == "siftdds" {
        // Reliable KEEP_ALL: what Cyclone could not decode before it registered our tokens is
        // repaired.
        let t = p.create_topic::<ShapeType>("Square", TopicQos::default());
        let qos = DataWriterQos {
            history: siftdds::qos::History::KeepAll,
            reliability: siftdds::qos::Reliability::reliable(),
            ..DataWriterQos::default()
        };
        let w = p
            .create_publisher(PublisherQos::default())
            .create_datawriter(&t, qos)
            .unwrap();
        let mut peer = spawn(&["sub", "-d", &d, "-t", "20"]);
        let outcome = handshake_outcome(&p);
        // Cyclone matches our writer before it registered our tokens, and its reader starts
        // at the first sample it could decode (volatile): give the key exchange its few
        // milliseconds before the first write.
        if w.wait_for_matched(1, Duration::from_secs(10)).is_ok() {
            std::thread::sleep(Duration::from_millis(500));
        }
        let matched = write_samples(&w);
        let all = format!("sub: {n} BLUE");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !read_log(&out_file).contains(&all) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        peer.stop();
        let out = read_log(&out_file);
        let trace = read_log(&log);
        eprintln!("{test}: {outcome:?}, {:?}", p.stats());
        assert!(outcome.is_ok(), "handshake: {outcome:?}");
        assert!(matched, "the vendor did not match our writer: {out}");
        assert!(
            out.contains(&all),
            "the vendor did not receive all {n}: {out}\n{}",
            security_lines(&trace)
        );
    } else {
        let r = square_reader(&p);
        let count = n.to_string();
        let args = [
            "pub", "-d", &d, "-n", &count, "-i", "50", "-c", "GREEN", "-t", "30", "-k", "0",
        ];
        let mut peer = spawn(&args);
        let outcome = handshake_outcome(&p);
        let colors = take_colors(&r, n, Duration::from_secs(25));
        peer.stop();
        let trace = read_log(&log);
        eprintln!(
            "{test}: {outcome:?}, {} samples, {:?}",
            colors.len(),
            p.stats()
        );
        assert!(outcome.is_ok(), "handshake: {outcome:?}");
        assert!(
            !colors.is_empty(),
            "nothing received from the vendor; {:?}\n{}",
            p.stats(),
            security_lines(&trace)
        );
        assert!(colors.iter().all(|c| c == "GREEN"));
    }
    // What we took came SRTPS-protected: user data in clear from an authenticated peer is
    // dropped and counted under RTPS protection.
    let stats = p.stats().unwrap();
    assert_eq!(stats.unprotected, 0, "the vendor sent user data in clear");
    // The RTPS-protection check below; per-endpoint protection is checked by its caller.
    if vendor != Vendor::Cyclone || !docs.governance.starts_with("governance_rtps") {
        return Some(stats);
    }
    // And Cyclone decoded our protected messages (its trace names each attempt, and each
    // failure; one sent before it registered our tokens fails and is repaired).
    let trace = read_log(&log);
    let attempts = trace.matches("decode_rtps_message from").count();
    let failures = trace
        .matches("decoding rtps message from remote participant")
        .count();
    eprintln!("{test}: Cyclone decoded {attempts} protected messages of ours, {failures} failed");
    assert!(
        attempts > failures,
        "Cyclone decoded none of our protected messages"
    );
    Some(stats)
}

/// The lines of a Cyclone trace about crypto and key exchange (for a failure message).
pub(crate) fn security_lines(trace: &str) -> String {
    trace
        .lines()
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("crypto")
                || l.contains("token")
                || l.contains("decode")
                || l.contains("encode")
        })
        .take(40)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn cyclone_under_rtps_encrypt_receives_from_siftdds() {
    cyclone_protected_case(
        "cyclone_under_rtps_encrypt_receives_from_siftdds",
        222,
        RTPS_ENCRYPT,
        "siftdds",
    );
}

#[test]
fn cyclone_under_rtps_encrypt_sends_to_siftdds() {
    cyclone_protected_case(
        "cyclone_under_rtps_encrypt_sends_to_siftdds",
        223,
        RTPS_ENCRYPT,
        "cyclone",
    );
}

#[test]
fn cyclone_under_rtps_sign_receives_from_siftdds() {
    cyclone_protected_case(
        "cyclone_under_rtps_sign_receives_from_siftdds",
        224,
        RTPS_SIGN,
        "siftdds",
    );
}

#[test]
fn cyclone_under_rtps_sign_sends_to_siftdds() {
    cyclone_protected_case(
        "cyclone_under_rtps_sign_sends_to_siftdds",
        225,
        RTPS_SIGN,
        "cyclone",
    );
}

/// [`cyclone_protected_case`] under RTPS SIGN_WITH_ORIGIN_AUTHENTICATION, then Cyclone's
/// trace: both participants' CryptoTokens carried a receiver-specific key (key material of
/// 120 octets: kind, salt, sender key id and key, receiver-specific key id and key, against 88
/// without one), Cyclone's sent and ours received. With it each side requires its own MAC
/// on every protected message of the other (DDS-Security 1.1 §9.5.3.3.4.4), so the samples
/// that got through were checked that way.
fn cyclone_origin_case(test: &str, domain: u32, writer: &str) {
    let log = PathBuf::from(repo_path!("target")).join(format!("security-{test}.log"));
    let _ = std::fs::remove_file(&log);
    cyclone_protected_case(test, domain, RTPS_SIGN_ORIGIN, writer);
    // No trace: Cyclone is missing and the case recorded its skip.
    let Ok(trace) = std::fs::read_to_string(&log) else {
        return;
    };
    let token = "\"dds.sec.participant_crypto_tokens\":{\"DDS:Crypto:AES_GCM_GMAC\":{}:{1:\"dds.cryp.keymat\":120<";
    let theirs = trace
        .lines()
        .filter(|l| l.contains("write_sample") && l.contains(token))
        .count();
    let ours = trace
        .lines()
        .filter(|l| l.contains("vendor 1.240") && l.contains(token))
        .count();
    eprintln!(
        "{test}: Cyclone sent {theirs} and received {ours} participant tokens with a receiver-specific key"
    );
    assert!(theirs >= 1, "Cyclone sent no receiver-specific key");
    assert!(
        ours >= 1,
        "Cyclone received no receiver-specific key of ours"
    );
}

/// Cyclone, then Fast DDS 2.9, each reading what siftdds writes, in one domain one after the
/// other.
#[test]
fn vendors_under_rtps_sign_with_origin_authentication_receive_from_siftdds() {
    let test = "vendors_under_rtps_sign_with_origin_authentication_receive_from_siftdds";
    cyclone_origin_case(&format!("{test}_cyclone"), 97, "siftdds");
    let fastdds = format!("{test}_fastdds");
    protected_case(&fastdds, 97, RTPS_SIGN_ORIGIN, "siftdds", Vendor::FastDds);
}

/// Cyclone, then Fast DDS 2.9, each writing to siftdds, in one domain one after the other.
#[test]
fn vendors_under_rtps_sign_with_origin_authentication_send_to_siftdds() {
    let test = "vendors_under_rtps_sign_with_origin_authentication_send_to_siftdds";
    cyclone_origin_case(&format!("{test}_cyclone"), 98, "cyclone");
    let fastdds = format!("{test}_fastdds");
    protected_case(&fastdds, 98, RTPS_SIGN_ORIGIN, "fastdds", Vendor::FastDds);
}

#[test]
fn fastdds_under_rtps_encrypt_receives_from_siftdds() {
    protected_case(
        "fastdds_under_rtps_encrypt_receives_from_siftdds",
        226,
        RTPS_ENCRYPT,
        "siftdds",
        Vendor::FastDds,
    );
}

#[test]
fn fastdds_under_rtps_encrypt_sends_to_siftdds() {
    protected_case(
        "fastdds_under_rtps_encrypt_sends_to_siftdds",
        227,
        RTPS_ENCRYPT,
        "fastdds",
        Vendor::FastDds,
    );
}

#[test]
fn fastdds_under_rtps_sign_receives_from_siftdds() {
    protected_case(
        "fastdds_under_rtps_sign_receives_from_siftdds",
        228,
        RTPS_SIGN,
        "siftdds",
        Vendor::FastDds,
    );
}

#[test]
fn fastdds_under_rtps_sign_sends_to_siftdds() {
    protected_case(
        "fastdds_under_rtps_sign_sends_to_siftdds",
        229,
        RTPS_SIGN,
        "fastdds",
        Vendor::FastDds,
    );
}

// The RTPS-protection matrix (`docs/security.md` §8.5): siftdds ↔ siftdds under rtps ENCRYPT
// with volume, content filters, fragments and a late joiner; and each vendor × direction ×
// handshake initiator × governance, with the payload sizes the issue names.

/// Alice's and bob's RSA-2048 identities.
const ALICE_RSA: Identity<'static> = Identity {
    ca: "rsa/ca.pem",
    cert: "rsa/alice",
};
const BOB_RSA: Identity<'static> = Identity {
    ca: "rsa/ca.pem",
    cert: "rsa/bob",
};

/// A sample of `color` with `x` and an `additional_payload_size` of `size` octets (a pattern
/// the reader checks).
fn sized_shape(color: &str, x: i32, size: usize) -> ShapeType {
    ShapeType {
        color: color.into(),
        x,
        y: x,
        shapesize: 30,
        additional_payload_size: (0..size).map(|k| (k % 251) as u8).collect(),
    }
}

/// Whether `payload` is the pattern [`sized_shape`] writes.
fn pattern_ok(payload: &[u8]) -> bool {
    payload
        .iter()
        .enumerate()
        .all(|(k, b)| *b == (k % 251) as u8)
}

/// Two siftdds participants (alice, bob) under rtps ENCRYPT in `domain`, authenticated.
fn siftdds_pair(domain: u32, docs: Docs<'static>) -> (DomainParticipant, DomainParticipant) {
    let pki = pki();
    let a = siftdds_participant_with(&pki, domain, &ALICE, docs).unwrap();
    let b = siftdds_participant_with(&pki, domain, &BOB, docs).unwrap();
    (a, b)
}

/// The governances the siftdds ↔ siftdds tests run under, one after the other on the test's
/// domain: none (authentication only), the stock sign and encrypt (discovery, liveliness,
/// metadata and data protection), and RTPS protection ENCRYPT.
const SIFTDDS_GOVERNANCES: &[Docs<'static>] =
    &[GRANT_ALL, DISCOVERY_SIGN, DISCOVERY_ENCRYPT, RTPS_ENCRYPT];

pub(crate) fn reliable_writer(
    p: &DomainParticipant,
    durability: siftdds::qos::Durability,
) -> DataWriter<ShapeType> {
    let t = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataWriterQos {
        history: siftdds::qos::History::KeepAll,
        reliability: siftdds::qos::Reliability::reliable(),
        durability,
        ..DataWriterQos::default()
    };
    p.create_publisher(PublisherQos::default())
        .create_datawriter(&t, qos)
        .unwrap()
}

fn reliable_reader_qos(durability: siftdds::qos::Durability) -> siftdds::qos::DataReaderQos {
    siftdds::qos::DataReaderQos {
        history: siftdds::qos::History::KeepAll,
        reliability: siftdds::qos::Reliability::reliable(),
        durability,
        ..siftdds::qos::DataReaderQos::default()
    }
}

/// Takes from `r` until `n` samples arrived or `timeout`: (color, x, payload length, pattern
/// intact) of each.
fn take_shapes(
    r: &siftdds::api::DataReader<ShapeType>,
    n: usize,
    timeout: Duration,
) -> Vec<(String, i32, usize, bool)> {
    let mut got = Vec::new();
    let deadline = Instant::now() + timeout;
    while got.len() < n && Instant::now() < deadline {
        for s in r.wait_take(Duration::from_millis(200)).unwrap() {
            if let Some(v) = s.value {
                let ok = pattern_ok(&v.additional_payload_size);
                got.push((v.color, v.x, v.additional_payload_size.len(), ok));
            }
        }
    }
    got
}

/// Both participants saw only protected user traffic from each other and decoded it all.
fn assert_clean(test: &str, a: &DomainParticipant, b: &DomainParticipant) {
    let (sa, sb) = (a.stats().unwrap(), b.stats().unwrap());
    eprintln!("{test}: {sa:?} / {sb:?}");
    assert_eq!(sa.unprotected + sb.unprotected, 0, "user data in clear");
}

/// Under `docs` on `domain`, alice writes `n` reliable KEEP_ALL samples of `size` payload
/// octets to bob once matched; what bob took, after checking nothing came in clear.
fn secured_stream(
    test: &str,
    domain: u32,
    docs: Docs<'static>,
    n: i32,
    size: usize,
) -> Vec<(String, i32, usize, bool)> {
    let (a, b) = siftdds_pair(domain, docs);
    let w = reliable_writer(&a, siftdds::qos::Durability::Volatile);
    let r = square_reader(&b);
    assert!(handshake_outcome(&a).is_ok());
    w.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    for i in 0..n {
        w.write(&sized_shape("BLUE", i, size)).unwrap();
    }
    let got = take_shapes(&r, n as usize, Duration::from_secs(25));
    assert_clean(test, &a, &b);
    got
}

/// 10,000 reliable KEEP_ALL samples under each governance, all delivered in order.
#[test]
fn siftdds_secured_delivers_10000_reliable_keep_all_samples() {
    let test = "siftdds_secured_delivers_10000_reliable_keep_all_samples";
    if !may_open_sockets(test) {
        return;
    }
    for docs in SIFTDDS_GOVERNANCES {
        eprintln!("{test}: {}", docs.governance);
        let n = 10_000;
        let got = secured_stream(test, 101, *docs, n, 0);
        assert_eq!(got.len(), n as usize);
        assert!(
            got.iter().enumerate().all(|(i, s)| s.1 == i as i32),
            "out of order"
        );
    }
}

/// Two content-filtered readers under each governance each get exactly their samples.
#[test]
fn siftdds_secured_content_filtered_readers_get_exactly_their_samples() {
    let test = "siftdds_secured_content_filtered_readers_get_exactly_their_samples";
    if !may_open_sockets(test) {
        return;
    }
    for docs in SIFTDDS_GOVERNANCES {
        eprintln!("{test}: {}", docs.governance);
        let (a, b) = siftdds_pair(102, *docs);
        let w = reliable_writer(&a, siftdds::qos::Durability::Volatile);
        let t = b.create_topic::<ShapeType>("Square", TopicQos::default());
        let sub = b.create_subscriber(siftdds::qos::SubscriberQos::default());
        let qos = || reliable_reader_qos(siftdds::qos::Durability::Volatile);
        let red = sub
            .create_filtered_datareader(&t, "SquareRed", "color = %0", &["'RED'"], qos())
            .unwrap();
        let high_blue = sub
            .create_filtered_datareader(
                &t,
                "SquareHighBlue",
                "color = 'BLUE' AND x >= %0",
                &["60"],
                qos(),
            )
            .unwrap();
        assert!(handshake_outcome(&a).is_ok());
        w.wait_for_matched(2, Duration::from_secs(10)).unwrap();
        let colors = ["RED", "BLUE", "GREEN"];
        for i in 0..90 {
            w.write(&sized_shape(colors[i % 3], i as i32, 8)).unwrap();
        }
        w.wait_for_acknowledgments(Duration::from_secs(15)).unwrap();
        let want_red: Vec<i32> = (0..90).filter(|i| i % 3 == 0).collect();
        let want_blue: Vec<i32> = (60..90).filter(|i| i % 3 == 1).collect();
        let got_red = take_shapes(&red, want_red.len() + 1, Duration::from_secs(2));
        let got_blue = take_shapes(&high_blue, want_blue.len() + 1, Duration::from_secs(2));
        assert_clean(test, &a, &b);
        let xs = |g: &[(String, i32, usize, bool)]| g.iter().map(|s| s.1).collect::<Vec<_>>();
        assert_eq!(xs(&got_red), want_red);
        assert_eq!(xs(&got_blue), want_blue);
    }
}

/// 100 KB samples (fragmented, each fragment protected) under each governance.
#[test]
fn siftdds_secured_delivers_100kb_fragmented_samples() {
    let test = "siftdds_secured_delivers_100kb_fragmented_samples";
    if !may_open_sockets(test) {
        return;
    }
    for docs in SIFTDDS_GOVERNANCES {
        eprintln!("{test}: {}", docs.governance);
        let n = 20;
        let got = secured_stream(test, 103, *docs, n, 100_000);
        assert_eq!(got.len(), n as usize);
        assert!(
            got.iter().all(|s| s.2 == 100_000 && s.3),
            "a payload is wrong"
        );
    }
}

/// A TRANSIENT_LOCAL reader that joins (a new participant, a new handshake) after the writer
/// wrote gets the history under each governance.
#[test]
fn siftdds_secured_transient_local_late_joiner_gets_the_history() {
    let test = "siftdds_secured_transient_local_late_joiner_gets_the_history";
    if !may_open_sockets(test) {
        return;
    }
    let pki = pki();
    for docs in SIFTDDS_GOVERNANCES {
        eprintln!("{test}: {}", docs.governance);
        let a = siftdds_participant_with(&pki, 104, &ALICE, *docs).unwrap();
        let w = reliable_writer(&a, siftdds::qos::Durability::TransientLocal);
        for i in 0..30 {
            w.write(&sized_shape("BLUE", i, 1024)).unwrap();
        }
        let b = siftdds_participant_with(&pki, 104, &BOB, *docs).unwrap();
        let t = b.create_topic::<ShapeType>("Square", TopicQos::default());
        let r = b
            .create_subscriber(siftdds::qos::SubscriberQos::default())
            .create_datareader(
                &t,
                reliable_reader_qos(siftdds::qos::Durability::TransientLocal),
            )
            .unwrap();
        assert!(handshake_outcome(&a).is_ok());
        let got = take_shapes(&r, 30, Duration::from_secs(20));
        assert_clean(test, &a, &b);
        let xs: Vec<i32> = got.iter().map(|s| s.1).collect();
        assert_eq!(xs, (0..30).collect::<Vec<_>>());
        assert!(got.iter().all(|s| s.2 == 1024 && s.3));
    }
}

/// One case of the vendor matrix: siftdds holds `ours`, the vendor `theirs` (whoever holds
/// alice's certificate initiates the handshake); under `docs`, samples of each of `sizes`
/// octets of `additional_payload_size` go from siftdds to the vendor (`siftdds_writes`, 4 of
/// each size in one run) or from the vendor to siftdds (10 of `sizes[0]`). All must arrive
/// with their size, SRTPS-protected.
#[allow(clippy::too_many_arguments)]
pub(crate) fn matrix_case(
    test: &str,
    domain: u32,
    vendor: Vendor,
    docs: Docs<'static>,
    ours: Identity<'static>,
    theirs: Identity<'static>,
    siftdds_writes: bool,
    sizes: &[usize],
) {
    let ready = match vendor {
        Vendor::Cyclone => cyclone_ready(test),
        Vendor::FastDds => fastdds_ready(test),
    };
    let Some(bin) = ready else {
        return;
    };
    let pki = pki();
    let log = PathBuf::from(repo_path!("target")).join(format!("security-{test}.log"));
    let out_file = PathBuf::from(repo_path!("target")).join(format!("security-{test}.out"));
    let p = siftdds_participant_with(&pki, domain, &ours, docs).unwrap();
    let spawn = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        match vendor {
            Vendor::Cyclone => {
                cyclone_peer_with(&bin, &pki, &theirs, docs, &args, (&log, &out_file))
            }
            Vendor::FastDds => fastdds_peer_with(&bin, &pki, &theirs, docs, &args, &out_file),
        }
    };
    let d = domain.to_string();
    if siftdds_writes {
        let w = reliable_writer(&p, siftdds::qos::Durability::Volatile);
        let mut peer = spawn(&["sub", "-d", &d, "-t", "25", "-k", "0"]);
        let outcome = handshake_outcome(&p);
        // The vendor's volatile reader starts at the first sample it could decode: give the
        // key exchange its moment before the first write (as `protected_case`).
        let matched = w.wait_for_matched(1, Duration::from_secs(10)).is_ok();
        if matched {
            std::thread::sleep(Duration::from_millis(500));
        }
        let mut want: Vec<usize> = Vec::new();
        for (i, size) in sizes.iter().cycle().take(4 * sizes.len()).enumerate() {
            w.write(&sized_shape("BLUE", i as i32, *size)).unwrap();
            want.push(*size);
            std::thread::sleep(Duration::from_millis(20));
        }
        let all = format!("sub: {} BLUE", want.len());
        let deadline = Instant::now() + Duration::from_secs(15);
        while !read_log(&out_file).contains(&all) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        peer.stop();
        let out = read_log(&out_file);
        eprintln!("{test}: {outcome:?}, {:?}", p.stats());
        assert!(outcome.is_ok(), "handshake: {outcome:?}");
        assert!(matched, "the vendor did not match our writer: {out}");
        let mut got: Vec<usize> = out
            .lines()
            .filter(|l| l.starts_with("sub: ") && l.contains(" BLUE "))
            .filter_map(|l| l.rsplit_once("payload=")?.1.trim().parse().ok())
            .collect();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(
            got,
            want,
            "payload sizes the vendor received; its trace:\n{}",
            security_lines(&read_log(&log))
        );
    } else {
        let r = square_reader(&p);
        let size = sizes[0].to_string();
        let n = 10;
        let args = [
            "pub", "-d", &d, "-n", "10", "-i", "50", "-c", "GREEN", "-t", "30", "-k", "0", "-z",
            &size,
        ];
        let mut peer = spawn(&args);
        let outcome = handshake_outcome(&p);
        let got = take_shapes(&r, n, Duration::from_secs(25));
        peer.stop();
        eprintln!(
            "{test}: {outcome:?}, {} samples, {:?}",
            got.len(),
            p.stats()
        );
        assert!(outcome.is_ok(), "handshake: {outcome:?}");
        assert_eq!(
            got.len(),
            n,
            "from the vendor: {got:?}; {:?}\n{}\n{:?}",
            p.stats(),
            security_lines(&read_log(&log)),
            fastdds_failures(&read_log(&out_file)),
        );
        assert!(got.iter().all(|s| s.0 == "GREEN" && s.2 == sizes[0]));
    }
    let stats = p.stats().unwrap();
    assert_eq!(stats.unprotected, 0, "the vendor sent user data in clear");
}

/// The payload sizes of the issue, in one siftdds → vendor run.
const SIZES: &[usize] = &[1, 3, 1021, 1024, 65_536];

/// `name, domain, vendor, governances, ours, theirs, siftdds writes, sizes`: one run per
/// governance, one after the other on the test's domain.
macro_rules! matrix_test {
    ($name:ident, $domain:expr, $vendor:expr, $docs:expr, $ours:expr, $theirs:expr, $sw:expr, $sizes:expr) => {
        #[test]
        fn $name() {
            for docs in $docs {
                matrix_case(
                    stringify!($name),
                    $domain,
                    $vendor,
                    *docs,
                    $ours,
                    $theirs,
                    $sw,
                    $sizes,
                );
            }
        }
    };
}

// siftdds = alice initiates; siftdds = bob lets the vendor initiate.
matrix_test!(
    matrix_cyclone_encrypt_siftdds_initiates_siftdds_writes_sizes,
    105,
    Vendor::Cyclone,
    ENCRYPT_KINDS,
    ALICE,
    BOB,
    true,
    SIZES
);
matrix_test!(
    matrix_cyclone_encrypt_cyclone_initiates_siftdds_writes_sizes,
    106,
    Vendor::Cyclone,
    ENCRYPT_KINDS,
    BOB,
    ALICE,
    true,
    SIZES
);
matrix_test!(
    matrix_cyclone_sign_siftdds_initiates_siftdds_writes_sizes,
    107,
    Vendor::Cyclone,
    SIGN_KINDS,
    ALICE,
    BOB,
    true,
    SIZES
);
matrix_test!(
    matrix_cyclone_sign_cyclone_initiates_siftdds_writes_sizes,
    108,
    Vendor::Cyclone,
    SIGN_KINDS,
    BOB,
    ALICE,
    true,
    SIZES
);
matrix_test!(
    matrix_cyclone_encrypt_siftdds_initiates_cyclone_writes_65536,
    109,
    Vendor::Cyclone,
    ENCRYPT_KINDS,
    ALICE,
    BOB,
    false,
    &[65_536]
);
matrix_test!(
    matrix_cyclone_encrypt_cyclone_initiates_cyclone_writes_1021,
    122,
    Vendor::Cyclone,
    ENCRYPT_KINDS,
    BOB,
    ALICE,
    false,
    &[1021]
);
matrix_test!(
    matrix_cyclone_sign_siftdds_initiates_cyclone_writes_1,
    123,
    Vendor::Cyclone,
    SIGN_KINDS,
    ALICE,
    BOB,
    false,
    &[1]
);
matrix_test!(
    matrix_cyclone_sign_cyclone_initiates_cyclone_writes_65536,
    125,
    Vendor::Cyclone,
    SIGN_KINDS,
    BOB,
    ALICE,
    false,
    &[65_536]
);
matrix_test!(
    matrix_fastdds_encrypt_siftdds_initiates_siftdds_writes_sizes,
    126,
    Vendor::FastDds,
    ENCRYPT_KINDS,
    ALICE,
    BOB,
    true,
    SIZES
);
matrix_test!(
    matrix_fastdds_encrypt_fastdds_initiates_siftdds_writes_sizes,
    129,
    Vendor::FastDds,
    ENCRYPT_KINDS,
    BOB,
    ALICE,
    true,
    SIZES
);
matrix_test!(
    matrix_fastdds_sign_siftdds_initiates_siftdds_writes_sizes,
    131,
    Vendor::FastDds,
    SIGN_KINDS,
    ALICE,
    BOB,
    true,
    SIZES
);
matrix_test!(
    matrix_fastdds_sign_fastdds_initiates_siftdds_writes_sizes,
    132,
    Vendor::FastDds,
    SIGN_KINDS,
    BOB,
    ALICE,
    true,
    SIZES
);
matrix_test!(
    matrix_fastdds_encrypt_siftdds_initiates_fastdds_writes_65536,
    133,
    Vendor::FastDds,
    ENCRYPT_KINDS,
    ALICE,
    BOB,
    false,
    &[65_536]
);
matrix_test!(
    matrix_fastdds_encrypt_fastdds_initiates_fastdds_writes_3,
    134,
    Vendor::FastDds,
    ENCRYPT_KINDS,
    BOB,
    ALICE,
    false,
    &[3]
);
matrix_test!(
    matrix_fastdds_sign_siftdds_initiates_fastdds_writes_1024,
    135,
    Vendor::FastDds,
    SIGN_KINDS,
    ALICE,
    BOB,
    false,
    &[1024]
);
matrix_test!(
    matrix_fastdds_sign_fastdds_initiates_fastdds_writes_65536,
    154,
    Vendor::FastDds,
    SIGN_KINDS,
    BOB,
    ALICE,
    false,
    &[65_536]
);
// RSA-2048 identities under rtps ENCRYPT.
matrix_test!(
    matrix_cyclone_rsa_encrypt_siftdds_initiates_siftdds_writes_sizes,
    155,
    Vendor::Cyclone,
    ENCRYPT_KINDS,
    ALICE_RSA,
    BOB_RSA,
    true,
    SIZES
);
matrix_test!(
    matrix_fastdds_rsa_encrypt_fastdds_initiates_siftdds_writes_sizes,
    156,
    Vendor::FastDds,
    ENCRYPT_KINDS,
    BOB_RSA,
    ALICE_RSA,
    true,
    SIZES
);
matrix_test!(
    matrix_cyclone_rsa_encrypt_cyclone_initiates_cyclone_writes_1021,
    157,
    Vendor::Cyclone,
    ENCRYPT_KINDS,
    BOB_RSA,
    ALICE_RSA,
    false,
    &[1021]
);
matrix_test!(
    matrix_fastdds_rsa_encrypt_siftdds_initiates_fastdds_writes_1021,
    158,
    Vendor::FastDds,
    ENCRYPT_KINDS,
    ALICE_RSA,
    BOB_RSA,
    false,
    &[1021]
);
matrix_test!(
    matrix_cyclone_encrypt_cyclone_initiates_cyclone_writes_3,
    168,
    Vendor::Cyclone,
    ENCRYPT_KINDS,
    BOB,
    ALICE,
    false,
    &[3]
);
matrix_test!(
    matrix_fastdds_sign_fastdds_initiates_fastdds_writes_1,
    169,
    Vendor::FastDds,
    SIGN_KINDS,
    BOB,
    ALICE,
    false,
    &[1]
);
