//! Every error class of the loader and its lookups, each with the position (line:col of the
//! offending element or attribute) it names.
#![allow(clippy::arithmetic_side_effects)]

use super::*;

/// Every error class, with its position (line:col of the offending element or attribute).
#[test]
fn errors_name_the_position() {
    let wrap = |body: &str| {
        format!(
            "<dds>\n<qos_library name=\"L\">\n<qos_profile name=\"P\">\n{body}\n</qos_profile>\n</qos_library>\n</dds>"
        )
    };
    let cases: &[(&str, &str)] = &[
        (
            "<datawriter_qos><reliabilty/></datawriter_qos>",
            "4:17: unknown element <reliabilty> in <datawriter_qos> (did you mean <reliability>?)",
        ),
        (
            "<datawriter_qos><reliability><kind>RELIABEL</kind></reliability></datawriter_qos>",
            "4:30: bad reliability kind `RELIABEL` (did you mean RELIABLE_RELIABILITY_QOS?)",
        ),
        (
            "<datawriter_qos><history><depth>ten</depth></history></datawriter_qos>",
            "4:26: bad integer `ten`",
        ),
        (
            "<datawriter_qos><history><depth>-1</depth></history></datawriter_qos>",
            "4:26: -1 is negative",
        ),
        (
            "<datawriter_qos><resource_limits><max_samples>-2</max_samples></resource_limits></datawriter_qos>",
            "4:34: -2 is negative (use LENGTH_UNLIMITED for no limit)",
        ),
        (
            "<datawriter_qos><deadline><period><sec>1</sec><nanosec>1000000000</nanosec></period></deadline></datawriter_qos>",
            "4:47: bad nanoseconds `1000000000`",
        ),
        (
            "<datawriter_qos><deadline><period><secs>1</secs></period></deadline></datawriter_qos>",
            "4:35: unknown element <secs> in <period> (did you mean <sec>?)",
        ),
        (
            "<datawriter_qos><entity_factory/></datawriter_qos>",
            "4:17: policy <entity_factory> does not apply to <datawriter_qos>",
        ),
        (
            "<datawriter_qos><writer_data_lifecycle><autodispose_unregistered_instances>yes</autodispose_unregistered_instances></writer_data_lifecycle></datawriter_qos>",
            "4:40: bad boolean `yes`",
        ),
        (
            "<datawriter_qos topic_filtre=\"x\"/>",
            "4:17: unknown attribute `topic_filtre` on <datawriter_qos> (did you mean `topic_filter`?)",
        ),
        (
            "<publisher_qos topic_filter=\"x\"/>",
            "4:16: unknown attribute `topic_filter` on <publisher_qos>",
        ),
        (
            "<writer_qos/>",
            "4:1: unknown element <writer_qos> in <qos_profile>",
        ),
        (
            "<user_data><value>1,300</value></user_data>",
            "4:1: unknown element <user_data> in <qos_profile>",
        ),
        (
            "<domain_participant_qos><user_data><value>1,300</value></user_data></domain_participant_qos>",
            "4:36: bad octet `300`",
        ),
        (
            "<datawriter_qos><reliability><kind><x/></kind></reliability></datawriter_qos>",
            "4:36: <kind> takes text, not <x>",
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(&load_err(&wrap(body)), expected, "for {body}");
    }
}

#[test]
fn structural_errors_name_the_position() {
    assert_eq!(
        load_err("<dds><qos_library/></dds>"),
        "1:6: <qos_library> needs a `name` attribute"
    );
    assert_eq!(
        load_err("<qos>\n</qos>"),
        "1:1: root element is <qos>, expected <dds>, <qos_library> or <profiles>"
    );
    assert_eq!(
        load_err("<dds>\n  <qos_libary name=\"x\"/></dds>"),
        "2:3: unknown element <qos_libary> in <dds> (did you mean <qos_library>?)"
    );
    assert_eq!(
        load_err("<dds>\n<qos_library name=\"L\">\n</dds>")
            .split(':')
            .take(2)
            .collect::<Vec<_>>(),
        ["3", "1"]
    );
    assert!(load_err("<dds><qos_library name=\"L\">").contains("XML error"));
    assert_eq!(
        load_err(""),
        "1:1: XML error: the document does not have a root node"
    );
    let dtd = "<?xml version=\"1.0\"?>\n<!DOCTYPE dds [<!ENTITY a \"aaaa\">]>\n<dds>&a;</dds>";
    assert!(load_err(dtd).contains("DTD"), "{}", load_err(dtd));
    let dup = "<dds>\n<qos_library name=\"L\"><qos_profile name=\"P\"/></qos_library>\n<qos_library name=\"L\">\n  <qos_profile name=\"P\"/></qos_library></dds>";
    assert_eq!(
        load_err(dup),
        "4:3: duplicate profile `L::P` (first defined at t.xml:2:23)"
    );
    let mut p = QosProvider::new();
    p.load_str(
        "a.xml",
        "<qos_library name=\"L\"><qos_profile name=\"P\"/></qos_library>",
    )
    .unwrap();
    let e = p
        .load_str(
            "b.xml",
            "<qos_library name=\"L\">\n<qos_profile name=\"P\"/></qos_library>",
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "b.xml:2:1: duplicate profile `L::P` (first defined at a.xml:1:23)"
    );
    // A failed load keeps nothing.
    let e = p
        .load_str(
            "c.xml",
            "<qos_library name=\"M\"><qos_profile name=\"Q\"/><bad/></qos_library>",
        )
        .unwrap_err();
    assert_eq!(e.line, 1);
    assert_eq!(p.profile_names().count(), 1);
}

#[test]
fn lookup_errors_name_the_position() {
    let p = load(
        r#"<dds>
<qos_library name="L">
  <qos_profile name="A" base_name="B"/>
  <qos_profile name="B" base_name="L::C"/>
  <qos_profile name="C" base_name="A"/>
  <qos_profile name="Lost" base_name="Nowhere"/>
  <qos_profile name="Self"><datawriter_qos base_name="Self"/></qos_profile>
  <qos_profile name="Bad">
    <datawriter_qos>
      <history><depth>10</depth></history>
      <resource_limits><max_samples_per_instance>5</max_samples_per_instance></resource_limits>
    </datawriter_qos>
    <datareader_qos><deadline><period><sec>-1</sec></period></deadline></datareader_qos>
  </qos_profile>
</qos_library>
</dds>"#,
    );
    let e = p.datawriter_qos("L::A", "T").unwrap_err();
    assert_eq!(
        at(&e),
        "5:25: base_name cycle: L::A -> L::B -> L::C -> L::A"
    );
    // The cycle is also found when the profile has no entry of the wanted kind.
    assert!(
        p.participant_qos("L::B")
            .unwrap_err()
            .message
            .contains("cycle")
    );
    let e = p.topic_qos("L::Lost", "T").unwrap_err();
    assert_eq!(
        at(&e),
        "6:28: unknown base profile `Nowhere` (in `L::Lost`)"
    );
    let e = p.datawriter_qos("L::Self", "T").unwrap_err();
    assert_eq!(at(&e), "7:44: base_name cycle: L::Self -> L::Self");
    assert_eq!(
        p.datareader_qos("L::Self", "T").unwrap(),
        DataReaderQos::default()
    );
    let e = p.datawriter_qos("L::Bad", "T").unwrap_err();
    assert_eq!(e.file, "t.xml");
    assert_eq!(
        at(&e),
        "8:3: profile `L::Bad` gives an inconsistent <datawriter_qos> for topic `T`: \
         History QoS inconsistent with ResourceLimits: history depth exceeds max_samples_per_instance"
    );
    let e = p.datareader_qos("L::Bad", "T").unwrap_err();
    assert!(
        e.message
            .ends_with("invalid Deadline QoS: period is negative"),
        "{e}"
    );
    let e = p.datawriter_qos("L::Missing", "T").unwrap_err();
    assert_eq!(e.to_string(), "unknown QoS profile `L::Missing`");
}
