use super::*;

#[test]
fn long_filters_wrap_at_spaces_and_keep_every_word() {
    let f = "color = 'ORANGE' AND shapesize BETWEEN 20 AND 40 OR y > 1000";
    let lines = wrap(f, 20);
    assert!(lines.iter().all(|l| l.chars().count() <= 20), "{lines:?}");
    assert_eq!(lines.join(" "), f);
    assert_eq!(wrap("short", 20), ["short"]);
    assert_eq!(
        wrap("averyveryverylongword x", 5),
        ["averyveryverylongword", "x"]
    );
}

#[test]
fn savings_are_a_share_of_the_baseline() {
    assert_eq!(pct_saved(25, 100), "75.0%");
    assert_eq!(pct_saved(1, 0), "-");
}
