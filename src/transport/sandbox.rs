//! The network-safety gate: RTPS discovery multicasts, and the machines we develop on sit on
//! networks that must never see our traffic.
//!
//! Must not: open sockets itself, or be bypassed by any code path that does.
//!
//! A process may open sockets only when one of these holds:
//! * it runs inside a private network namespace made by `netns-run` (the environment variable
//!   `NETNS_RUN_INSIDE=1`, which that tool sets after creating the namespace), or
//! * the user configured loopback-only operation (`SIFTDDS_LOOPBACK_ONLY=1`, or
//!   `TransportConfig::loopback_only` / `ParticipantBuilder::loopback_only` in code), in which
//!   case the transport binds to 127.0.0.1 only, uses unicast discovery and sends no multicast.

/// How this process is allowed to use the network.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NetworkScope {
    /// Inside a private network namespace: multicast and every address are safe.
    PrivateNamespace,
    /// Outside one, but restricted to 127.0.0.1 unicast by configuration.
    LoopbackOnly,
}

/// The process is neither sandboxed nor configured loopback-only.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NotSandboxed;

impl core::fmt::Display for NotSandboxed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(
            "refusing to open sockets: not inside a private network namespace \
             (run under scripts/netns-run) and SIFTDDS_LOOPBACK_ONLY=1 is not set",
        )
    }
}

impl std::error::Error for NotSandboxed {}

/// Decides the network scope from the environment.
pub fn check() -> Result<NetworkScope, NotSandboxed> {
    scope_from(|name| std::env::var(name).ok())
}

/// [`check`] with the environment supplied by the caller (for tests).
pub fn scope_from(var: impl Fn(&str) -> Option<String>) -> Result<NetworkScope, NotSandboxed> {
    if var("NETNS_RUN_INSIDE").as_deref() == Some("1") {
        Ok(NetworkScope::PrivateNamespace)
    } else if var("SIFTDDS_LOOPBACK_ONLY").as_deref() == Some("1") {
        Ok(NetworkScope::LoopbackOnly)
    } else {
        Err(NotSandboxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_variables_means_no_sockets() {
        assert_eq!(scope_from(|_| None), Err(NotSandboxed));
    }

    #[test]
    fn namespace_wins_over_loopback_only() {
        let scope = scope_from(|_| Some("1".to_string()));
        assert_eq!(scope, Ok(NetworkScope::PrivateNamespace));
    }

    #[test]
    fn loopback_only_needs_exactly_one() {
        let env = |n: &str| (n == "SIFTDDS_LOOPBACK_ONLY").then(|| "yes".to_string());
        assert_eq!(scope_from(env), Err(NotSandboxed));
        let env = |n: &str| (n == "SIFTDDS_LOOPBACK_ONLY").then(|| "1".to_string());
        assert_eq!(scope_from(env), Ok(NetworkScope::LoopbackOnly));
    }
}
