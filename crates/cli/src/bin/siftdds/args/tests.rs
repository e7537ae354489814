use super::*;

#[test]
fn refuses_nonsense_with_a_reason() {
    for bad in ["inf", "-inf", "nan", "0", "-1", "x", ""] {
        assert!(rate(bad).is_err(), "{bad}");
        assert!(seconds(bad).is_err(), "{bad}");
    }
    assert_eq!(rate("500"), Ok(500.0));
    assert_eq!(seconds("0.5"), Ok(0.5));
    assert!(rate("2e6").unwrap_err().contains("above"));
    assert!(seconds("1e9").unwrap_err().contains("one day"));
    assert_eq!(domain("232"), Ok(232));
    assert!(domain("233").unwrap_err().contains("16 bits"));
}
