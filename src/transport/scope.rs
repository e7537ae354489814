//! The network scope: which interfaces a participant may use, decided before any socket is
//! opened, safe by default.
//!
//! Must not: open sockets or enumerate interfaces itself ([`decide`] is a pure function of
//! the request and an environment closure, so it is unit-tested without sockets).
//!
//! # Overview
//! In this order (README, "Network safety"; docs/architecture.md, "Network scope and
//! interface selection"):
//! 1. loopback-only forced (`SIFTDDS_LOOPBACK_ONLY=1`, or `ParticipantBuilder::loopback_only`
//!    in code) → [`NetworkScope::LoopbackOnly`]: 127.0.0.1 only, no multicast;
//! 2. interfaces configured in code or in the QoS XML (`ParticipantBuilder::interfaces`,
//!    property `siftdds.transport.interfaces`; a binary's `--interface`) → exactly those;
//! 3. else `SIFTDDS_INTERFACES` → exactly those;
//! 4. else inside a private network namespace made by `netns-run`/`netns-sites`
//!    (`NETNS_RUN_INSIDE=1`) → `auto`;
//! 5. else → loopback only, with one info line saying how to enable a network.
//!
//! A selection of `auto` is reported as [`NetworkScope::Auto`], any other as
//! [`NetworkScope::Configured`].

use super::interface::{Interface, InterfaceError, InterfaceSelection};

/// Environment variable with the interface selection (`auto` or a list; see
/// [`InterfaceSelection::parse`]).
pub const INTERFACES_VAR: &str = "SIFTDDS_INTERFACES";
/// Environment variable forcing loopback-only operation when it is `1`.
pub const LOOPBACK_ONLY_VAR: &str = "SIFTDDS_LOOPBACK_ONLY";
/// Environment variable set to `1` by `netns-run` and `netns-sites` inside their namespaces.
pub const NAMESPACE_VAR: &str = "NETNS_RUN_INSIDE";

/// How a participant uses the network.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NetworkScope {
    /// 127.0.0.1 only, unicast discovery, no multicast.
    LoopbackOnly,
    /// Every up, non-loopback, multicast-capable IPv4 interface (loopback when none).
    Auto,
    /// Exactly the configured interfaces.
    Configured,
}

impl core::fmt::Display for NetworkScope {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            NetworkScope::LoopbackOnly => "loopback-only",
            NetworkScope::Auto => "auto",
            NetworkScope::Configured => "configured",
        })
    }
}

/// What the code (or the QoS XML) asked for; the environment fills in the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScopeRequest {
    /// Force loopback-only operation.
    pub loopback_only: bool,
    /// Interfaces chosen in code or configuration (wins over `SIFTDDS_INTERFACES`).
    pub interfaces: Option<InterfaceSelection>,
}

/// The decided scope and, outside loopback-only, the selection to match against the host's
/// interfaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The scope.
    pub scope: NetworkScope,
    /// The selection (`None` in [`NetworkScope::LoopbackOnly`]).
    pub selection: Option<InterfaceSelection>,
    /// Loopback-only because nothing was configured (not forced): the info line is due.
    pub by_default: bool,
}

impl Scope {
    /// The loopback-only scope.
    pub fn loopback_only(by_default: bool) -> Self {
        Scope {
            scope: NetworkScope::LoopbackOnly,
            selection: None,
            by_default,
        }
    }

    fn selected(selection: InterfaceSelection) -> Self {
        let scope = match selection {
            InterfaceSelection::Auto => NetworkScope::Auto,
            InterfaceSelection::List(_) => NetworkScope::Configured,
        };
        Scope {
            scope,
            selection: Some(selection),
            by_default: false,
        }
    }

    /// True when [`interfaces`](Self::interfaces) needs the host's interface list.
    pub fn needs_interface_list(&self) -> bool {
        self.selection.is_some()
    }

    /// The interfaces this scope uses among `have`: the loopback interface (no multicast) in
    /// loopback-only, else the selection's match.
    pub fn interfaces(&self, have: &[Interface]) -> Result<Vec<Interface>, InterfaceError> {
        match &self.selection {
            None => Ok(vec![Interface::loopback()]),
            Some(selection) => selection.select(have),
        }
    }
}

/// Decides the scope from `request` and the environment `var` (see the module overview).
/// `Err` when `SIFTDDS_INTERFACES` does not parse; it names the offending item.
pub fn decide(
    request: &ScopeRequest,
    var: impl Fn(&str) -> Option<String>,
) -> Result<Scope, InterfaceError> {
    if request.loopback_only || var(LOOPBACK_ONLY_VAR).as_deref() == Some("1") {
        return Ok(Scope::loopback_only(false));
    }
    if let Some(selection) = &request.interfaces {
        return Ok(Scope::selected(selection.clone()));
    }
    if let Some(list) = var(INTERFACES_VAR).filter(|v| !v.trim().is_empty()) {
        return InterfaceSelection::parse(&list).map(Scope::selected);
    }
    if var(NAMESPACE_VAR).as_deref() == Some("1") {
        return Ok(Scope::selected(InterfaceSelection::Auto));
    }
    Ok(Scope::loopback_only(true))
}

/// [`decide`] over the process environment; logs the loopback default once per process.
pub fn from_environment(request: &ScopeRequest) -> Result<Scope, InterfaceError> {
    let scope = decide(request, |name| std::env::var(name).ok())?;
    if scope.by_default {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            log::info!(
                "siftdds: no network configured, using loopback only (127.0.0.1, no \
                 multicast); to reach other hosts set {INTERFACES_VAR}=auto|NAME|ADDRESS|CIDR \
                 (or --interface LIST)"
            );
        });
    }
    Ok(scope)
}

/// True inside a private network namespace made by `netns-run` or `netns-sites`: where the
/// project's own socket tests may run (README, "Network safety").
pub fn inside_namespace() -> bool {
    std::env::var(NAMESPACE_VAR).as_deref() == Ok("1")
}

#[cfg(test)]
mod tests;
