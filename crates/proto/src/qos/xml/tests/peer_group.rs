//! Tests of the `<siftdds_peer_group>` extension: a group read with every item, scoped to its
//! profile, and each configuration error placed at its element.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use crate::qos::peer_group::ParticipantMatch;
use crate::qos::xml::QosProvider;

fn doc(group: &str) -> String {
    format!(
        r#"<dds>
  <qos_library name="L">
    <qos_profile name="P">
      <datawriter_qos><reliability><kind>RELIABLE_RELIABILITY_QOS</kind></reliability></datawriter_qos>
{group}
    </qos_profile>
    <qos_profile name="Q" base_name="P"/>
  </qos_library>
</dds>"#
    )
}

const GROUP: &str = r#"      <siftdds_peer_group name="fleet" topic="Vehicle">
        <member>pub-*</member>
        <member>01.0f.aa.bb.00.00.00.01.00.00.00.02</member>
        <common>model</common>
        <common>route</common>
        <sensitive>owner</sensitive>
        <intermediary>siftdds-router-*</intermediary>
        <capacity>2</capacity>
      </siftdds_peer_group>"#;

fn load_err(text: &str) -> (u32, String) {
    let mut p = QosProvider::new();
    let e = p.load_str("t.xml", text).expect_err("load should fail");
    (e.line, e.message)
}

#[test]
fn a_peer_group_is_read_with_every_item_and_scoped_to_its_profile() {
    let mut p = QosProvider::new();
    p.load_str("t.xml", &doc(GROUP)).unwrap();
    let groups = p.peer_groups("L::P").unwrap();
    assert_eq!(groups.len(), 1);
    let g = &groups[0];
    assert_eq!((g.name.as_str(), g.topic.as_str()), ("fleet", "Vehicle"));
    assert_eq!(
        g.members,
        vec![
            ParticipantMatch::Name("pub-*".into()),
            ParticipantMatch::Prefix([0x01, 0x0f, 0xaa, 0xbb, 0, 0, 0, 1, 0, 0, 0, 2]),
        ]
    );
    assert_eq!(g.common, vec!["model".to_string(), "route".to_string()]);
    assert_eq!(g.sensitive, vec!["owner".to_string()]);
    assert_eq!(
        g.intermediary,
        ParticipantMatch::Name("siftdds-router-*".into())
    );
    assert_eq!(g.capacity, 2);
    assert!(g.is_member("Vehicle", Some("pub-7"), [9; 12]));
    assert!(!g.is_member("Other", Some("pub-7"), [9; 12]));
    assert!(!g.is_member("Vehicle", Some("sub-7"), [9; 12]));
    assert!(g.is_intermediary(Some("siftdds-router-a"), [9; 12]));
    // Profile-scoped: not inherited; the profile's QoS still loads.
    assert!(p.peer_groups("L::Q").unwrap().is_empty());
    assert!(p.datawriter_qos("L::P", "Vehicle").is_ok());
    assert!(p.peer_groups("L::Nope").is_err());
}

#[test]
fn peer_group_errors_are_placed_at_their_element() {
    let sensitive = GROUP.replace(
        "<sensitive>owner</sensitive>",
        "<sensitive>route</sensitive>",
    );
    let (line, msg) = load_err(&doc(&sensitive));
    assert_eq!(line, 5, "{msg}");
    assert!(msg.contains("sensitive"), "{msg}");

    let unknown = GROUP.replace("<capacity>2</capacity>", "<capasity>2</capasity>");
    let (line, msg) = load_err(&doc(&unknown));
    assert_eq!(line, 12, "{msg}");
    assert!(msg.contains("capacity"), "{msg}");

    let no_router = GROUP.replace("<intermediary>siftdds-router-*</intermediary>", "");
    let (line, msg) = load_err(&doc(&no_router));
    assert_eq!(line, 5, "{msg}");
    assert!(msg.contains("intermediary"), "{msg}");

    let no_member = GROUP
        .replace("<member>pub-*</member>", "")
        .replace("<member>01.0f.aa.bb.00.00.00.01.00.00.00.02</member>", "");
    let (_, msg) = load_err(&doc(&no_member));
    assert!(msg.contains("members"), "{msg}");

    let zero = GROUP.replace("<capacity>2</capacity>", "<capacity>0</capacity>");
    let (line, msg) = load_err(&doc(&zero));
    assert_eq!(line, 5, "{msg}");
    assert!(msg.contains("capacity"), "{msg}");

    let twice = format!("{GROUP}\n{GROUP}");
    let (line, msg) = load_err(&doc(&twice));
    assert_eq!(line, 3, "{msg}");
    assert!(msg.contains("same wire id"), "{msg}");

    let attr = GROUP.replace("topic=\"Vehicle\"", "topic=\"Vehicle\" colour=\"red\"");
    let (line, msg) = load_err(&doc(&attr));
    assert_eq!(line, 5, "{msg}");
    assert!(msg.contains("colour"), "{msg}");
}
