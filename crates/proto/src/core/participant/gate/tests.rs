use super::*;

const VICTIM: [u8; 4] = [10, 0, 0, 66];

fn transmit(to: Vec<Locator>, len: usize) -> Transmit {
    Transmit::new(to, vec![0; len])
}

fn at(secs: u64) -> Instant {
    Instant::from_nanos(secs * 1_000_000_000)
}

#[test]
fn unverified_host_gets_only_its_budget_across_ports() {
    let mut gate = OutboundGate::new(GateConfig::default(), &[]);
    let mut sent = 0;
    for port in 0..1000u16 {
        let mut t = transmit(vec![Locator::udpv4(VICTIM, 7000 + port)], 100);
        if gate.admit(at(0), &mut t) {
            sent += 1;
        }
    }
    assert_eq!(sent, UNVERIFIED_DATAGRAM_BUDGET);
    assert_eq!(
        gate.stats().blocked,
        1000 - u64::from(UNVERIFIED_DATAGRAM_BUDGET)
    );
}

#[test]
fn byte_budget_caps_large_datagrams() {
    let mut gate = OutboundGate::new(GateConfig::default(), &[]);
    let mut bytes = 0;
    for _ in 0..10 {
        let mut t = transmit(vec![Locator::udpv4(VICTIM, 7400)], 6000);
        if gate.admit(at(0), &mut t) {
            bytes += t.payload.len();
        }
    }
    assert_eq!(bytes, 12_000);
}

#[test]
fn budget_refills_after_the_window() {
    let mut gate = OutboundGate::new(GateConfig::default(), &[]);
    let dst = Locator::udpv4(VICTIM, 7400);
    let count = |gate: &mut OutboundGate, t: Instant| {
        (0..100)
            .filter(|_| gate.admit(t, &mut transmit(vec![dst], 10)))
            .count()
    };
    assert_eq!(count(&mut gate, at(0)), 16);
    assert_eq!(count(&mut gate, at(9)), 0);
    assert_eq!(count(&mut gate, at(10)), 16);
}

#[test]
fn heard_from_host_is_unlimited_on_any_port() {
    let mut gate = OutboundGate::new(GateConfig::default(), &[]);
    gate.heard_from(at(0), &Locator::udpv4([127, 0, 0, 1], 50_000));
    let dst = Locator::udpv4([127, 0, 0, 1], 7411);
    assert!((0..1000).all(|_| gate.admit(at(0), &mut transmit(vec![dst], 1000))));
    assert_eq!(gate.stats(), GateStats::default());
}

#[test]
fn multicast_allow_list_and_spdp_destinations_pass() {
    let allowed = Locator::udpv4([10, 0, 0, 7], 7400);
    let peer = Locator::udpv4([10, 0, 0, 8], 7400);
    let config = GateConfig {
        allow_list: vec![allowed],
        ..GateConfig::default()
    };
    let mut gate = OutboundGate::new(config, &[peer]);
    let group = Locator::udpv4([239, 255, 0, 1], 7400);
    for _ in 0..100 {
        let mut t = transmit(vec![group, allowed, peer, Locator::udpv4(VICTIM, 1)], 10);
        assert!(gate.admit(at(0), &mut t));
    }
    assert_eq!(gate.stats().unverified_sends, 16);
    assert_eq!(gate.stats().blocked, 84);
}

#[test]
fn mixed_transmit_keeps_verified_destinations_only_when_budget_spent() {
    let mut gate = OutboundGate::new(GateConfig::default(), &[]);
    let real = Locator::udpv4([127, 0, 0, 1], 7411);
    gate.heard_from(at(0), &real);
    let victim = Locator::udpv4(VICTIM, 7411);
    for _ in 0..UNVERIFIED_DATAGRAM_BUDGET {
        let mut t = transmit(vec![real, victim], 10);
        assert!(gate.admit(at(0), &mut t));
        assert_eq!(t.destinations, vec![real, victim]);
    }
    let mut t = transmit(vec![real, victim], 10);
    assert!(gate.admit(at(0), &mut t));
    assert_eq!(t.destinations, vec![real]);
    let mut only_victim = transmit(vec![victim], 10);
    assert!(!gate.admit(at(0), &mut only_victim));
}

#[test]
fn full_budget_table_refuses_new_hosts_instead_of_evicting_live_budgets() {
    let config = GateConfig {
        max_tracked_hosts: 4,
        ..GateConfig::default()
    };
    let mut gate = OutboundGate::new(config, &[]);
    let host = |i: u8| Locator::udpv4([10, 0, 1, i], 7400);
    for i in 0..4 {
        assert!(gate.admit(at(0), &mut transmit(vec![host(i)], 10)));
    }
    assert!(!gate.admit(at(0), &mut transmit(vec![host(4)], 10)));
    assert!(gate.admit(at(10), &mut transmit(vec![host(4)], 10)));
    assert!(gate.budgets.len() <= 4);
}

#[test]
fn heard_table_is_capped_and_evicts_the_oldest() {
    let config = GateConfig {
        max_tracked_hosts: 3,
        ..GateConfig::default()
    };
    let mut gate = OutboundGate::new(config, &[]);
    for i in 0..10u8 {
        gate.heard_from(at(u64::from(i)), &Locator::udpv4([10, 0, 2, i], 1));
    }
    assert_eq!(gate.heard.len(), 3);
    assert!(
        gate.heard
            .contains_key(&Host::of(&Locator::udpv4([10, 0, 2, 9], 1)))
    );
    assert!(
        !gate
            .heard
            .contains_key(&Host::of(&Locator::udpv4([10, 0, 2, 0], 1)))
    );
}
