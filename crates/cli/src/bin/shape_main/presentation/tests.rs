use super::*;

#[test]
fn policy_follows_the_harness() {
    let none = PresentationArgs {
        access_scope: Some('g'),
        ..PresentationArgs::default()
    };
    assert_eq!(none.policy(), None, "access scope alone is ignored");
    let p = PresentationArgs {
        access_scope: Some('t'),
        ordered: true,
        ..PresentationArgs::default()
    }
    .policy()
    .unwrap();
    assert_eq!(p.access_scope, PresentationAccessScope::Topic);
    assert!(p.ordered_access && !p.coherent_access);
    let p = PresentationArgs {
        coherent: true,
        ..PresentationArgs::default()
    };
    assert_eq!(
        p.policy().unwrap().access_scope,
        PresentationAccessScope::Instance
    );
}

#[test]
fn sets_of_three_start_and_end_every_third_iteration() {
    let p = PresentationArgs {
        coherent: true,
        coherent_sample_count: 3,
        ..PresentationArgs::default()
    };
    let starts: Vec<u64> = (0..9).filter(|n| p.starts_set(*n)).collect();
    let ends: Vec<u64> = (0..9).filter(|n| p.ends_set(*n)).collect();
    assert_eq!((starts, ends), (vec![0, 3, 6], vec![2, 5, 8]));
    let no_count = PresentationArgs {
        coherent: true,
        ..PresentationArgs::default()
    };
    assert!(!no_count.starts_set(0) && !no_count.ends_set(0));
    assert_eq!(
        p.reading_lines(4),
        vec!["Reading coherent sets, iteration 4".to_string()]
    );
}
