use super::*;

#[test]
fn signature_matches_the_fast_dds_capture() {
    // tests/data/captures/README.md: the signature Fast DDS 2.9 sent for its CFT reader.
    let f = ContentFilter {
        content_filtered_topic_name: "SquareFiltered".into(),
        related_topic_name: "Square".into(),
        filter_class_name: "DDSSQL".into(),
        filter_expression: "color = %0".into(),
        expression_parameters: vec!["'RED'".into()],
    };
    assert_eq!(
        f.signature(),
        [
            0x47, 0xbb, 0x7e, 0x53, 0x66, 0x2f, 0xda, 0x80, 0x91, 0xcb, 0x7f, 0x1a, 0x47, 0xdb,
            0x53, 0xb7
        ]
    );
    assert_eq!(ContentFilter::from_property(&f.as_property()), f);
    assert!(f.validate().is_ok());
    let empty = ContentFilter {
        filter_expression: String::new(),
        ..f
    };
    assert!(empty.validate().is_err());
}
