//! Profile selection: inheritance chains across libraries and files (and the data directory's
//! files), topic filters in document order, and the default profile.
#![allow(clippy::arithmetic_side_effects)]

use super::*;

#[test]
fn inheritance_chains_cross_libraries_and_files() {
    let mut p = QosProvider::new();
    // The derived file first: references are resolved at lookup, so order does not matter.
    p.load_str("derived.xml", DERIVED_FILE).unwrap();
    p.load_str("base.xml", BASE_FILE).unwrap();
    let w = p.datawriter_qos("App::Sensor", "T").unwrap();
    assert_eq!(w.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(w.durability, Durability::TransientLocal);
    assert_eq!(w.history, History::KeepLast(3));
    // Same-library unqualified base, then the chain continues: Mixed -> Sensor -> Durable.
    let w = p.datawriter_qos("App::Mixed", "T").unwrap();
    assert_eq!(
        (w.durability, w.history),
        (Durability::TransientLocal, History::KeepLast(3))
    );
    // An entity-level base_name replaces the profile's base for that kind only.
    let r = p.datareader_qos("App::Mixed", "T").unwrap();
    assert_eq!(r.deadline.period, dur(4, 0));
    assert_eq!(r.reliability.kind, ReliabilityKind::BestEffort);
    // Through Sensor's base, the reader is reliable.
    assert_eq!(
        p.datareader_qos("App::Sensor", "T")
            .unwrap()
            .reliability
            .kind,
        ReliabilityKind::Reliable
    );
    // A unique unqualified name also works in the API.
    assert_eq!(
        p.datawriter_qos("Durable", "T").unwrap().history,
        History::KeepLast(10)
    );
    let names: Vec<&str> = p.profile_names().collect();
    assert_eq!(
        names,
        [
            "App::Sensor",
            "App::Mixed",
            "Other::Reader",
            "Base::Reliable",
            "Base::Durable"
        ]
    );
}

#[test]
fn inheritance_from_the_data_directory_files() {
    let mut p = QosProvider::new();
    p.load_sources(
        Some(&format!("{DATA}/base.xml; file://{DATA}/derived.xml;")),
        DATA.as_ref(),
    )
    .unwrap();
    let w = p.datawriter_qos("App::Fast", "Anything").unwrap();
    assert_eq!(w.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(w.history, History::KeepLast(20));
    assert_eq!(p.default_profile(), Some("App::Fast"));
    assert_eq!(p.datawriter_qos("", "x").unwrap(), w);
    // USER_QOS_PROFILES.xml in the directory is loaded after the list; its default wins.
    let dir = std::env::temp_dir().join(format!("siftdds-qos-xml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let user = r#"<dds><qos_library name="User"><qos_profile name="U" is_default_qos="true"/></qos_library></dds>"#;
    std::fs::write(dir.join(crate::qos::xml::USER_QOS_PROFILES_FILE), user).unwrap();
    p.load_sources(None, &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(p.default_profile(), Some("User::U"));
    let err = p.load_file(format!("{DATA}/missing.xml")).unwrap_err();
    assert!(
        err.to_string().contains("missing.xml: cannot open"),
        "{err}"
    );
}

#[test]
fn topic_filter_prefers_filtered_entries_in_document_order() {
    let p = load(
        r#"<dds><qos_library name="L">
  <qos_profile name="Base"><datawriter_qos><ownership_strength><value>1</value></ownership_strength></datawriter_qos></qos_profile>
  <qos_profile name="P" base_name="Base">
    <datawriter_qos><ownership_strength><value>2</value></ownership_strength></datawriter_qos>
    <datawriter_qos topic_filter="Sensor*"><ownership_strength><value>3</value></ownership_strength></datawriter_qos>
    <datawriter_qos topic_filter="Sensor_[0-9]"><ownership_strength><value>4</value></ownership_strength></datawriter_qos>
    <datawriter_qos topic_filter="Exact"><ownership_strength><value>5</value></ownership_strength></datawriter_qos>
    <datawriter_qos topic_filter="*"><ownership_strength><value>6</value></ownership_strength></datawriter_qos>
  </qos_profile>
  <qos_profile name="OnlyFiltered" base_name="Base">
    <datawriter_qos topic_filter="A"><ownership_strength><value>7</value></ownership_strength></datawriter_qos>
  </qos_profile>
</qos_library></dds>"#,
    );
    let s = |prof: &str, t: &str| p.datawriter_qos(prof, t).unwrap().ownership_strength.value;
    assert_eq!(
        s("L::P", "Sensor_1"),
        3,
        "first matching filter wins, not the most specific"
    );
    assert_eq!(s("L::P", "Exact"), 5);
    assert_eq!(
        s("L::P", "Other"),
        2,
        "the first unfiltered entry ('*' counts as none)"
    );
    assert_eq!(s("L::OnlyFiltered", "A"), 7);
    assert_eq!(s("L::OnlyFiltered", "B"), 1, "no entry selected: inherited");
}

#[test]
fn default_profile_is_used_for_the_empty_name_and_last_one_wins() {
    let mut p = QosProvider::new();
    assert_eq!(p.default_profile(), None);
    assert_eq!(p.datawriter_qos("", "T").unwrap(), DataWriterQos::default());
    p.load_str(
        "a.xml",
        r#"<dds><qos_library name="A"><qos_profile name="D" is_default_qos="true">
             <datawriter_qos><durability><kind>TRANSIENT_LOCAL_DURABILITY_QOS</kind></durability></datawriter_qos>
           </qos_profile></qos_library></dds>"#,
    )
    .unwrap();
    assert_eq!(p.default_profile(), Some("A::D"));
    assert_eq!(
        p.datawriter_qos("", "T").unwrap().durability,
        Durability::TransientLocal
    );
    assert_eq!(p.publisher_qos("").unwrap(), PublisherQos::default());
    p.load_str(
        "b.xml",
        r#"<qos_library name="B"><qos_profile name="E" is_default_qos="1"/></qos_library>"#,
    )
    .unwrap();
    assert_eq!(p.default_profile(), Some("B::E"));
    assert_eq!(p.datawriter_qos("", "T").unwrap(), DataWriterQos::default());
}
