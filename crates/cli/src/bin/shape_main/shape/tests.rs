use super::*;

fn shape(color: &str, x: i32, size: i32) -> ShapeType {
    ShapeType {
        color: color.into(),
        x,
        y: 5,
        shapesize: size,
        additional_payload_size: vec![],
    }
}

#[test]
fn the_shape_stays_inside_the_box_and_bounces() {
    let mut rng = Rng::new(42);
    for _ in 0..50 {
        let mut m = Motion::random(&mut rng);
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for _ in 0..500 {
            m.step();
            assert!((0..=DA_WIDTH).contains(&m.x) && (0..=DA_HEIGHT).contains(&m.y));
            xs.push(m.x);
            ys.push(m.y);
        }
        assert!(xs.iter().any(|&x| x != xs[0]) && ys.iter().any(|&y| y != ys[0]));
    }
}

#[test]
fn sizes_grow_and_cycle() {
    assert_eq!(
        (0..3).map(|n| shapesize(20, 0, n)).collect::<Vec<_>>(),
        [20, 20, 20]
    );
    assert_eq!(
        (0..3).map(|n| shapesize(0, 0, n)).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(
        (0..6).map(|n| shapesize(0, 4, n)).collect::<Vec<_>>(),
        [1, 2, 3, 4, 1, 2]
    );
}

#[test]
fn lines_use_the_harness_format() {
    assert_eq!(
        sample_line("Square", &shape("RED", 7, 30)),
        "Square     RED        007 005 [30]"
    );
    let mut big = shape("BLUE", 100, 20);
    big.additional_payload_size = vec![0, 0, 255];
    assert_eq!(
        sample_line("Circle", &big),
        "Circle     BLUE       100 005 [20] {255}"
    );
    assert_eq!(
        state_line("Square", "RED", "NOT_ALIVE_DISPOSED_INSTANCE_STATE"),
        "Square     RED        NOT_ALIVE_DISPOSED_INSTANCE_STATE"
    );
}

#[test]
fn filters_evaluate_shape_fields() {
    let f = ShapeFilter::new("color = %0", &["'RED'".to_string()]).unwrap();
    assert!(f.accepts(&shape("RED", 1, 1)) && !f.accepts(&shape("BLUE", 1, 1)));
    let f = ShapeFilter::new("x > 100 AND shapesize <= 20", &[]).unwrap();
    assert!(f.accepts(&shape("A", 101, 20)) && !f.accepts(&shape("A", 100, 20)));
    assert!(!f.accepts(&shape("A", 101, 21)));
}

#[test]
fn bad_filters_are_rejected() {
    for (expr, params) in [
        ("x >", &[][..]),
        ("color = %0", &[]),
        ("colour = 'RED'", &[]),
        ("color MATCH 'R(.*'", &[]),
        ("", &[]),
    ] {
        let params: Vec<String> = params.iter().map(|s: &&str| s.to_string()).collect();
        assert!(ShapeFilter::new(expr, &params).is_err(), "{expr}");
    }
}
