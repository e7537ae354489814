//! Peer groups in the API (issue 18, docs/peer-group-cache.md §2): [`PeerGroup`] (the
//! configuration: name, topic, member participants, common members, intermediary, capacity),
//! set on a running [`DomainParticipant`] or read from a QoS profile
//! (`<siftdds_peer_group>`, a siftdds extension, `QosProvider::peer_groups`), and the
//! counters ([`PeerGroupStats`]).
//!
//! Must not: hold protocol logic (the core participant and writer decide, `core::peer_group`).

use super::{DomainParticipant, Error};
pub use crate::core::participant::PeerGroupStats;
pub use crate::core::peer_group::config::{
    DEFAULT_CAPACITY as DEFAULT_PEER_GROUP_CAPACITY, ParticipantMatch,
    PeerGroupConfig as PeerGroup, PeerGroupError,
};

impl DomainParticipant {
    /// Replaces this participant's peer groups. Its writers of a group's topic become
    /// members when the participant matches a member rule (they then send abbreviated
    /// samples to the group's intermediary once it acknowledged their definitions); if it
    /// matches a group's intermediary rule it announces the capability and restores them.
    /// An empty list leaves every group.
    ///
    /// Errors: [`Error::Config`] ([`ConfigError::PeerGroup`](super::ConfigError::PeerGroup))
    /// for an invalid group (nothing changes).
    pub fn set_peer_groups(&self, groups: Vec<PeerGroup>) -> Result<(), Error> {
        self.runtime_handle()
            .execute(move |p, _| p.set_peer_groups(groups))?
            .map_err(Error::from)
    }

    /// The peer-group counters: the caches' (as intermediary) and the writers' (as member).
    pub fn peer_group_stats(&self) -> Result<PeerGroupStats, Error> {
        Ok(self.runtime_handle().execute(|p, _| p.peer_group_stats())?)
    }
}
