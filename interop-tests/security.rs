//! DDS Security authentication (DDS:Auth:PKI-DH) against Cyclone DDS 0.10.2 (`ddsperf` with
//! the Debian security plugins) and Fast DDS 2.9.1 (`shapes_fastdds` with security
//! properties), with each side as the handshake initiator: the PKI from `scripts/test-pki`
//! gives alice the smaller GUID prefix, so whoever holds alice's certificate initiates.
//! Checks: the handshake completes on our side (`Event::ParticipantAuthenticated`) and the
//! vendor's log shows no authentication failure; a certificate of another CA and an expired
//! one are refused with the reason. Skipped, with the reason, outside the sandbox or without
//! the peer.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use siftdds::api::DomainParticipant;
use siftdds::core::Event;
use siftdds::wire::GuidPrefix;

use crate::sandbox::may_open_sockets;
use crate::skip::skip;

/// How long a handshake may take (both vendors resend every second or so).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(20);

/// The test PKI, made once per build tree by `scripts/test-pki`.
fn pki() -> PathBuf {
    let dir = PathBuf::from(repo_path!("target/test-pki"));
    let status = Command::new(repo_path!("scripts/test-pki"))
        .arg(&dir)
        .status()
        .expect("scripts/test-pki runs");
    assert!(status.success(), "scripts/test-pki failed");
    dir
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// Our identity: `cert` is `ec/alice` etc. (a path under the PKI without extension).
struct Identity<'a> {
    ca: &'a str,
    cert: &'a str,
}

fn siftdds_participant(
    pki: &Path,
    domain: u32,
    id: &Identity<'_>,
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
            uri(&pki.join("perm/governance_none.p7s")),
        )
        .property(
            "dds.sec.access.permissions",
            uri(&pki.join("perm/permissions.p7s")),
        )
        .build()
}

/// Waits for the outcome of the handshake with any peer: `Ok(prefix)` or `Err(reason)`.
fn handshake_outcome(p: &DomainParticipant) -> Result<GuidPrefix, String> {
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

fn cyclone_config(pki: &Path, id: &Identity<'_>, log: &Path) -> String {
    format!(
        r#"<CycloneDDS><Domain id="any">
<General><Interfaces><NetworkInterface name="lo"/></Interfaces></General>
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
        gov = uri(&pki.join("perm/governance_none.p7s")),
        perm = uri(&pki.join("perm/permissions.p7s")),
    )
}

/// A vendor process, killed (by its own handle) when dropped.
struct Peer(Child);

impl Peer {
    /// Asks the process to end (SIGTERM to its own PID, so that it flushes its trace) and
    /// waits up to 5 s for it.
    fn stop(&mut self) {
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

fn ddsperf_ready(test: &str) -> bool {
    if !may_open_sockets(test) {
        return false;
    }
    let found = Command::new("ddsperf")
        .arg("-h")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found {
        skip(test, "ddsperf not on PATH (apt install cyclonedds-tools)");
    }
    found
}

fn cyclone_peer(pki: &Path, domain: u32, id: &Identity<'_>, log: &Path) -> Peer {
    let _ = std::fs::remove_file(log);
    let child = Command::new("ddsperf")
        .args(["-i", &domain.to_string(), "-D", "12", "sub"])
        .env("CYCLONEDDS_URI", cyclone_config(pki, id, log))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("ddsperf starts");
    Peer(child)
}

fn read_log(log: &Path) -> String {
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
    if !ddsperf_ready(test) {
        return;
    }
    let pki = pki();
    let log = PathBuf::from(repo_path!("target")).join(format!("security-{test}.log"));
    let p = siftdds_participant(&pki, domain, &ours).unwrap();
    let mut peer = cyclone_peer(&pki, domain, &theirs, &log);
    let outcome = handshake_outcome(&p);
    eprintln!("{test}: {outcome:?}, {:?}", p.stats());
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
