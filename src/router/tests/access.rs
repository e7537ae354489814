//! The router's own permissions on a secured site (`Router::access_denied`): a route from U
//! into D only where we may read the topic on U and write it on D.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;
use crate::router::table::Access;

/// Three LANs, readers of `Sq` on LANs 1 and 2.
fn three_lans() -> Router {
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    r.update_site(at(0), SiteId(0), view(None, vec![]));
    r.update_site(
        at(0),
        SiteId(1),
        view(None, vec![reader(9, "Sq", None, &[])]),
    );
    r.update_site(
        at(0),
        SiteId(2),
        view(None, vec![reader(8, "Sq", None, &[])]),
    );
    r
}

fn proxies_on(actions: &[Action], site: SiteId) -> Vec<EndpointId> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::CreateReader { id, spec, .. } if spec.site == site => Some(*id),
            _ => None,
        })
        .collect()
}

#[test]
fn a_refused_read_deletes_the_proxy_and_is_never_tried_again() {
    let mut r = three_lans();
    let first = drain(&mut r);
    let on_0 = proxies_on(&first, SiteId(0));
    assert_eq!(on_0.len(), 1, "{first:?}");
    // Site 0's participant refused our reader of Sq: no route reads it there any more.
    assert!(r.access_denied(at(1), SiteId(0), Access::Read, &key("Sq")));
    let after = drain(&mut r);
    assert!(
        after
            .iter()
            .any(|a| matches!(a, Action::DeleteReader { id, .. } if *id == on_0[0])),
        "{after:?}"
    );
    assert!(proxies_on(&after, SiteId(0)).is_empty(), "{after:?}");
    // Known already: not counted twice; a new reader view does not bring the proxy back.
    assert!(!r.access_denied(at(2), SiteId(0), Access::Read, &key("Sq")));
    r.update_site(
        at(3),
        SiteId(1),
        view(
            None,
            vec![reader(9, "Sq", None, &[]), reader(7, "Sq", None, &[])],
        ),
    );
    assert!(proxies_on(&drain(&mut r), SiteId(0)).is_empty());
    assert_eq!(r.counters().access_denied, 1);
    // Sites 1 and 2 still route to each other.
    assert!(r.table().permitted(SiteId(1), SiteId(2), &key("Sq")));
    assert!(!r.table().permitted(SiteId(0), SiteId(2), &key("Sq")));
    // Another topic on site 0 is not concerned.
    assert!(r.table().permitted(SiteId(0), SiteId(2), &key("Ci")));
}

#[test]
fn a_refused_write_drops_the_writer_and_the_proxies_that_served_only_it() {
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    r.update_site(at(0), SiteId(0), view(None, vec![]));
    r.update_site(
        at(0),
        SiteId(1),
        view(None, vec![reader(9, "Sq", None, &[])]),
    );
    let first = drain(&mut r);
    let writer = first
        .iter()
        .find_map(|a| match a {
            Action::CreateWriter { id, spec, .. } if spec.site == SiteId(1) => Some(*id),
            _ => None,
        })
        .unwrap();
    let proxy = proxies_on(&first, SiteId(0))[0];
    // Site 1's participant refused our writer of Sq.
    assert!(r.access_denied(at(1), SiteId(1), Access::Write, &key("Sq")));
    let after = drain(&mut r);
    assert!(
        after
            .iter()
            .any(|a| matches!(a, Action::DeleteWriter { id, .. } if *id == writer)),
        "{after:?}"
    );
    assert!(
        after
            .iter()
            .any(|a| matches!(a, Action::DeleteReader { id, .. } if *id == proxy)),
        "the proxy upstream served only the refused route: {after:?}"
    );
    assert!(r.table().proxies().is_empty() && r.table().writers().is_empty());
}
