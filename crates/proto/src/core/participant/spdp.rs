//! SPDP: announcing our participant, learning remote ones, and expiring their leases.
//! RTPS 2.5 §8.5.3 (SPDP), §9.6.2.1 (SPDPdiscoveredParticipantData).
//!
//! Must not: perform I/O; remember more than `ParticipantConfig::max_remote_participants`;
//! answer a participant that only claims an address with more than one reply per new
//! participant (and the outbound gate, `gate.rs`, bounds what an unverified address gets).

use super::locator_select::{on_this_host, select_unicast};
use super::source_bind::{SourceBinding, SourceVerdict, local_hosts};
use super::{Participant, ParticipantConfig};
use crate::cdr::{Endianness, Reader, Writer};
use crate::core::discovery::{BuiltinEndpointSet, ParticipantProxyData};
use crate::core::receiver::ReceiverState;
use crate::core::{ChangeKind, Event, Transmit};
use crate::time::{Instant, Now};
use crate::wire::plist::pid::{PID_KEY_HASH, PID_STATUS_INFO};
use crate::wire::plist::{Parameter, ParameterListView, Value, emit_parameter_list};
use crate::wire::submessage::{Data, DataPayload, InfoTs, Submessage};
use crate::wire::{EntityId, Guid, GuidPrefix, Header, Locator, SequenceNumber, emit_message};

/// A participant we heard from, and when its lease runs out.
pub(super) struct RemoteParticipant {
    pub(super) data: ParticipantProxyData,
    pub(super) lease_expires: Instant,
    /// Its SPDP came from a loopback address or one of ours (`locator_select::on_this_host`).
    pub(super) on_this_host: bool,
    /// The hosts it may send HEARTBEAT, GAP, ACKNACK, ... and SPDP from (`source_bind.rs`).
    pub(super) binding: SourceBinding,
}

impl RemoteParticipant {
    /// The one unicast locator of `announced` (its own or one of its endpoints') we send to,
    /// given our interfaces. `locator_select.rs`.
    pub(super) fn unicast(&self, ours: &[ipnet::Ipv4Net], announced: &[Locator]) -> Vec<Locator> {
        select_unicast(ours, self.on_this_host, announced)
    }

    /// Where its discovery traffic goes: one of its metatraffic (else default) unicast
    /// locators.
    pub(super) fn metatraffic_destination(&self, ours: &[ipnet::Ipv4Net]) -> Vec<Locator> {
        self.unicast(ours, &super::sedp::metatraffic_locators(&self.data))
    }
}

/// Our own SPDP data from the configuration. We implement SPDP, both SEDP directions
/// (bits 0-5) and the WLP participant-message writer and reader (bits 10, 11; `liveliness.rs`).
/// RTPS 2.5 §8.5.3.2, §9.3.2 (BuiltinEndpointSet).
pub(super) fn local_participant_data(config: &ParticipantConfig) -> ParticipantProxyData {
    let mut data = ParticipantProxyData::new(config.guid_prefix, config.domain_id);
    data.metatraffic_unicast_locators = config.metatraffic_unicast_locators.clone();
    data.metatraffic_multicast_locators = config.metatraffic_multicast_locators.clone();
    data.default_unicast_locators = config.default_unicast_locators.clone();
    data.default_multicast_locators = config.default_multicast_locators.clone();
    data.available_builtin_endpoints = BuiltinEndpointSet(
        BuiltinEndpointSet::PARTICIPANT_ANNOUNCER
            | BuiltinEndpointSet::PARTICIPANT_DETECTOR
            | BuiltinEndpointSet::PUBLICATIONS_ANNOUNCER
            | BuiltinEndpointSet::PUBLICATIONS_DETECTOR
            | BuiltinEndpointSet::SUBSCRIPTIONS_ANNOUNCER
            | BuiltinEndpointSet::SUBSCRIPTIONS_DETECTOR
            | BuiltinEndpointSet::PARTICIPANT_MESSAGE_WRITER
            | BuiltinEndpointSet::PARTICIPANT_MESSAGE_READER,
    );
    data.lease_duration = crate::time::Duration::from_std(config.lease_duration);
    data.entity_name = config.entity_name.clone();
    data.user_data = config.user_data.clone();
    data
}

impl Participant {
    /// Queues our DATA(p) to the SPDP destinations, or to `only` (a newly found peer).
    pub(super) fn announce(&mut self, now: Now, only: Option<Vec<Locator>>) {
        let payload = match self.local_data.to_payload(Endianness::Little) {
            Ok(p) => p,
            Err(e) => {
                log::error!("cannot encode our SPDP data: {e}");
                return;
            }
        };
        let destinations = only.unwrap_or_else(|| self.config.spdp_destinations.clone());
        self.queue_spdp(now, None, DataPayload::Data(&payload), destinations);
    }

    /// Where the periodic SPDP announcements go (multicast group, initial peers).
    pub fn spdp_destinations(&self) -> &[Locator] {
        &self.config.spdp_destinations
    }

    /// Replaces where the periodic SPDP announcements go, e.g. a router narrowing the
    /// initial peers it probes to the one peer it found there. A newly found participant is
    /// still answered at once (at its own locators). RTPS 2.5 §8.5.3.2.
    pub fn set_spdp_destinations(&mut self, destinations: Vec<Locator>) {
        self.config.spdp_destinations = destinations;
    }

    /// The period of the SPDP announcements from the next one on (RTPS 2.5 §8.5.3.2,
    /// resendPeriod), e.g. a router's link: fast while it probes for its peer, slow once found.
    pub fn set_announce_period(&mut self, period: core::time::Duration) {
        self.config.announce_period = period;
    }

    /// Queues one SPDP DATA (after an INFO_TS) with our current SPDP sequence number.
    fn queue_spdp(
        &mut self,
        now: Now,
        inline_qos: Option<ParameterListView<'_>>,
        payload: DataPayload<'_>,
        destinations: Vec<Locator>,
    ) {
        if destinations.is_empty() {
            return;
        }
        let data = Data {
            endian: Endianness::Little,
            extra_flags: 0,
            reader_id: EntityId::SPDP_PARTICIPANT_DETECTOR,
            writer_id: EntityId::SPDP_PARTICIPANT_ANNOUNCER,
            writer_sn: SequenceNumber(self.spdp_sn),
            inline_qos,
            payload,
        };
        let ts = InfoTs {
            endian: Endianness::Little,
            timestamp: Some(now.wall),
        };
        let mut buf = Vec::with_capacity(data.buffer_len().saturating_add(64));
        emit_message(
            &Header::new(self.config.guid_prefix),
            &[Submessage::InfoTs(ts), Submessage::Data(data)],
            &mut buf,
        );
        self.pending.push_back(Transmit::new(destinations, buf));
    }

    /// Queues DATA(p[UD]): our participant is leaving. Sent to the SPDP destinations and to
    /// every known participant's metatraffic unicast locators, so that peers drop us and our
    /// endpoints at once rather than when our lease expires (Cyclone DDS and Fast DDS send
    /// the same when a participant is deleted). It carries PID_KEY_HASH and PID_STATUS_INFO
    /// (disposed | unregistered) inline and the serialized key (PL_CDR_LE:
    /// PID_PARTICIPANT_GUID, PID_SENTINEL), with a sequence number above our announcements'
    /// (stateless readers may ignore one they have seen). RTPS 2.5 §8.5.3.2, §9.6.4.8,
    /// §9.6.4.9.
    pub fn leave(&mut self, now: Now) {
        let guid = Guid::new(self.config.guid_prefix, EntityId::PARTICIPANT).to_bytes();
        let mut qos = Vec::with_capacity(40);
        let params = [
            Parameter::Known {
                pid: PID_KEY_HASH,
                value: Value::KeyHash(guid),
            },
            Parameter::Known {
                pid: PID_STATUS_INFO,
                value: Value::StatusInfo(ChangeKind::NotAliveDisposedUnregistered.status_info()),
            },
        ];
        if emit_parameter_list(
            params.iter(),
            &mut Writer::new(&mut qos, Endianness::Little),
        )
        .is_err()
        {
            return; // invariant: two fixed-size parameters always encode.
        }
        let Ok(inline_qos) =
            ParameterListView::new_checked(&mut Reader::new(&qos, Endianness::Little))
        else {
            return;
        };
        // Encapsulation PL_CDR_LE (0x0003), PID_PARTICIPANT_GUID (0x0050, 16), PID_SENTINEL.
        let mut key = vec![0x00, 0x03, 0x00, 0x00, 0x50, 0x00, 0x10, 0x00];
        key.extend_from_slice(&guid);
        key.extend_from_slice(&[0x01, 0x00, 0x00, 0x00]);
        self.spdp_sn = self.spdp_sn.saturating_add(1);
        let mut destinations = self.config.spdp_destinations.clone();
        for p in self.remote_participants.values() {
            for l in p.metatraffic_destination(&self.config.interfaces) {
                if !destinations.contains(&l) {
                    destinations.push(l);
                }
            }
        }
        self.queue_spdp(now, Some(inline_qos), DataPayload::Key(&key), destinations);
    }

    /// Handles a DATA from a remote SPDP writer. RTPS 2.5 §8.5.3.
    pub(super) fn handle_spdp(
        &mut self,
        now: Now,
        source: Locator,
        state: &ReceiverState,
        d: &Data<'_>,
    ) {
        let prefix = state.source_guid_prefix;
        let sn = d.writer_sn.0;
        let payload = match d.payload {
            DataPayload::Data(p) => p,
            // A dispose/unregister of the participant (key only or no payload): it is leaving.
            DataPayload::Key(_) | DataPayload::None => {
                if disposes(d.inline_qos.as_ref()) {
                    self.remove_participant(prefix);
                }
                return;
            }
        };
        let mut data = match ParticipantProxyData::from_payload(payload, state.source_vendor_id) {
            Ok(data) => data,
            Err(e) => {
                log::debug!("bad SPDP data from {prefix}: {e}");
                self.stats.bad_discovery_data = self.stats.bad_discovery_data.saturating_add(1);
                return;
            }
        };
        // Cyclone: drop announcements for another domain (an absent DOMAIN_ID, as Fast DDS
        // sends, means ours). RTPS 2.5 §9.6.2.2.
        if data.guid_prefix != prefix || data.domain_id.is_some_and(|d| d != self.config.domain_id)
        {
            return;
        }
        // Cyclone 0.10 falls back to the packet's source when no unicast locator is
        // announced (docs/interop-facts.md §5.3).
        if data.metatraffic_unicast_locators.is_empty() && data.default_unicast_locators.is_empty()
        {
            data.metatraffic_unicast_locators.push(source);
            data.default_unicast_locators.push(source);
        }
        let lease_expires = now.mono.saturating_add(self.capped_lease(&data));
        let announced = announced_unicast(&data);
        let interfaces = &self.config.interfaces;
        let local_for = |source: &Locator| {
            if on_this_host(interfaces, source) {
                local_hosts(interfaces)
            } else {
                Vec::new()
            }
        };
        if let Some(known) = self.remote_participants.get_mut(&prefix) {
            match known.binding.check_announcement(&source, sn) {
                SourceVerdict::Accept => known.binding.accept_announcement(&source, sn, &announced),
                SourceVerdict::Rebind => {
                    // It moved: a new host and a higher SPDP sequence number.
                    known
                        .binding
                        .rebind(&source, sn, &announced, &local_for(&source));
                    known.on_this_host = on_this_host(interfaces, &source);
                    self.stats.rebound = self.stats.rebound.saturating_add(1);
                }
                // invariant: `source_admits` already dropped it (and counted it).
                SourceVerdict::Drop => return,
            }
            known.lease_expires = lease_expires;
            if known.data != data {
                let pg_changed = (known.data.pgcache, &known.data.pgcache_evicted)
                    != (data.pgcache, &data.pgcache_evicted);
                known.data = data;
                let locators = known.metatraffic_destination(&self.config.interfaces);
                self.builtin
                    .add_remote_participant(now, &known.data, locators);
                // An intermediary's new generation or eviction notices reach our writers.
                if pg_changed {
                    self.pgcache_participant_updated(prefix);
                }
            }
            return;
        }
        if self.remote_participants.len() >= self.config.max_remote_participants {
            self.stats.over_limit = self.stats.over_limit.saturating_add(1);
            return;
        }
        let binding = SourceBinding::new(&source, sn, &announced, &local_for(&source));
        let remote = RemoteParticipant {
            data,
            lease_expires,
            on_this_host: on_this_host(&self.config.interfaces, &source),
            binding,
        };
        let reply_to = remote.metatraffic_destination(&self.config.interfaces);
        self.builtin
            .add_remote_participant(now, &remote.data, reply_to.clone());
        self.remote_participants.insert(prefix, remote);
        self.push_event(Event::ParticipantDiscovered(prefix));
        // Answer a new participant at once so it need not wait a whole announce period.
        self.announce(now, Some(reply_to));
    }

    /// Extends the lease of a known participant we just heard a submessage from. RTPS 2.5
    /// §8.5.3.3 speaks of announcements; like Cyclone (which renews a proxy participant's lease
    /// on any message from it) we count every submessage, so that on a lossy link a run of lost
    /// SPDP announcements does not drop a participant whose data and ACKNACKs keep arriving.
    pub(super) fn renew_lease(&mut self, now: Now, prefix: GuidPrefix) {
        let cap = self.config.max_lease_duration;
        if let Some(p) = self.remote_participants.get_mut(&prefix) {
            let lease = p.data.lease_duration.to_std().unwrap_or(cap).min(cap);
            p.lease_expires = p.lease_expires.max(now.mono.saturating_add(lease));
        }
    }

    /// The lease `data` announces, at most [`ParticipantConfig::max_lease_duration`] (an
    /// infinite one gets the cap). RTPS 2.5 §8.5.3.3 (leaseDuration).
    fn capped_lease(&self, data: &ParticipantProxyData) -> core::time::Duration {
        let cap = self.config.max_lease_duration;
        data.lease_duration.to_std().unwrap_or(cap).min(cap)
    }

    /// Removes participants whose lease ran out. RTPS 2.5 §8.5.3.3 (leaseDuration).
    pub(super) fn expire_leases(&mut self, now: Now) {
        let expired: Vec<GuidPrefix> = self
            .remote_participants
            .iter()
            .filter(|(_, p)| p.lease_expires <= now.mono)
            .map(|(k, _)| *k)
            .collect();
        for prefix in expired {
            self.remove_participant(prefix);
        }
    }

    fn remove_participant(&mut self, prefix: GuidPrefix) {
        if self.remote_participants.remove(&prefix).is_none() {
            return;
        }
        self.builtin.remove_remote_participant(prefix);
        let writers: Vec<Guid> = self
            .remote_writers
            .keys()
            .filter(|g| g.prefix == prefix)
            .copied()
            .collect();
        for w in writers {
            self.remove_remote_writer(w);
        }
        let readers: Vec<Guid> = self
            .remote_readers
            .keys()
            .filter(|g| g.prefix == prefix)
            .copied()
            .collect();
        for r in readers {
            self.remove_remote_reader(r);
        }
        self.push_event(Event::ParticipantLost(prefix));
    }
}

impl Participant {
    /// False when `sm` claims known participant `prefix` from a host it is not bound to and
    /// is one of the checked kinds: HEARTBEAT, HEARTBEAT_FRAG, GAP, ACKNACK, NACK_FRAG, and
    /// SPDP (a dispose from a foreign host, or an announcement from one that is not a move).
    /// `source_bind.rs`.
    pub(super) fn source_admits(
        &self,
        source: &Locator,
        prefix: GuidPrefix,
        sm: &Submessage<'_>,
    ) -> bool {
        let Some(p) = self.remote_participants.get(&prefix) else {
            return true;
        };
        let verdict = match sm {
            Submessage::Heartbeat(_)
            | Submessage::HeartbeatFrag(_)
            | Submessage::Gap(_)
            | Submessage::AckNack(_)
            | Submessage::NackFrag(_) => p.binding.check(source),
            Submessage::Data(d) if d.writer_id == EntityId::SPDP_PARTICIPANT_ANNOUNCER => {
                match d.payload {
                    DataPayload::Data(_) => p.binding.check_announcement(source, d.writer_sn.0),
                    DataPayload::Key(_) | DataPayload::None => p.binding.check(source),
                }
            }
            _ => SourceVerdict::Accept,
        };
        verdict != SourceVerdict::Drop
    }
}

/// Every unicast locator `data` announces (metatraffic and default): the hosts it is bound to
/// besides its SPDP source.
fn announced_unicast(data: &ParticipantProxyData) -> Vec<Locator> {
    data.metatraffic_unicast_locators
        .iter()
        .chain(&data.default_unicast_locators)
        .copied()
        .collect()
}

/// True when the inline QoS carries a STATUS_INFO with the disposed or unregistered flag.
fn disposes(qos: Option<&ParameterListView<'_>>) -> bool {
    let Some(qos) = qos else { return false };
    let Some(p) = qos.find(crate::wire::plist::pid::PID_STATUS_INFO) else {
        return false;
    };
    let Some(bytes) = p.value.get(..4) else {
        return false;
    };
    let mut b = [0u8; 4];
    b.copy_from_slice(bytes);
    // PID_STATUS_INFO is big-endian whatever the submessage's byte order (docs/interop-facts.md
    // §5.7).
    ChangeKind::from_status_info(u32::from_be_bytes(b)) != ChangeKind::Alive
}
