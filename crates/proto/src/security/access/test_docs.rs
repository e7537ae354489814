//! Governance and permissions documents for tests, written from a description: one domain
//! rule for domain 0 with its topic rules (DDS Security 1.1 §9.4.1.2, elements in the
//! schema's order), and grants for `CN=<name>,O=Siftdds Test,C=NL` (§9.4.1.3).
//!
//! Must not: be used outside tests, or stand in for the vendors' documents (the interop
//! tests and `tests/security_documents.rs` read those as they are).

/// One `<topic_rule>`.
#[derive(Clone, Debug)]
pub(crate) struct TopicRuleXml<'a> {
    pub expression: &'a str,
    pub discovery_protection: bool,
    pub liveliness_protection: bool,
    pub read_access_control: bool,
    pub write_access_control: bool,
    pub metadata_protection_kind: &'a str,
    pub data_protection_kind: &'a str,
}

impl<'a> TopicRuleXml<'a> {
    /// Topics matching `expression`: no access control, nothing protected.
    pub(crate) fn open(expression: &'a str) -> Self {
        Self {
            expression,
            discovery_protection: false,
            liveliness_protection: false,
            read_access_control: false,
            write_access_control: false,
            metadata_protection_kind: "NONE",
            data_protection_kind: "NONE",
        }
    }

    fn write(&self, out: &mut String) {
        out.push_str(&format!(
            "<topic_rule><topic_expression>{}</topic_expression>
<enable_discovery_protection>{}</enable_discovery_protection>
<enable_liveliness_protection>{}</enable_liveliness_protection>
<enable_read_access_control>{}</enable_read_access_control>
<enable_write_access_control>{}</enable_write_access_control>
<metadata_protection_kind>{}</metadata_protection_kind>
<data_protection_kind>{}</data_protection_kind>
</topic_rule>",
            self.expression,
            self.discovery_protection,
            self.liveliness_protection,
            self.read_access_control,
            self.write_access_control,
            self.metadata_protection_kind,
            self.data_protection_kind,
        ));
    }
}

/// A governance document with one `<domain_rule>` for domain 0.
#[derive(Clone, Debug)]
pub(crate) struct GovernanceXml<'a> {
    pub allow_unauthenticated_participants: bool,
    pub enable_join_access_control: bool,
    pub discovery_protection_kind: &'a str,
    pub liveliness_protection_kind: &'a str,
    pub rtps_protection_kind: &'a str,
    /// First match applies (§9.4.1.2.7).
    pub topic_rules: Vec<TopicRuleXml<'a>>,
}

impl<'a> GovernanceXml<'a> {
    /// No unauthenticated participants, no join access control, nothing protected, and the
    /// topic rules given.
    pub(crate) fn new(topic_rules: Vec<TopicRuleXml<'a>>) -> Self {
        Self {
            allow_unauthenticated_participants: false,
            enable_join_access_control: false,
            discovery_protection_kind: "NONE",
            liveliness_protection_kind: "NONE",
            rtps_protection_kind: "NONE",
            topic_rules,
        }
    }

    /// The document.
    pub(crate) fn xml(&self) -> String {
        let mut out = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<dds><domain_access_rules><domain_rule>
<domains><id>0</id></domains>
<allow_unauthenticated_participants>{}</allow_unauthenticated_participants>
<enable_join_access_control>{}</enable_join_access_control>
<discovery_protection_kind>{}</discovery_protection_kind>
<liveliness_protection_kind>{}</liveliness_protection_kind>
<rtps_protection_kind>{}</rtps_protection_kind>
<topic_access_rules>"#,
            self.allow_unauthenticated_participants,
            self.enable_join_access_control,
            self.discovery_protection_kind,
            self.liveliness_protection_kind,
            self.rtps_protection_kind,
        );
        for rule in &self.topic_rules {
            rule.write(&mut out);
        }
        out.push_str("</topic_access_rules>\n</domain_rule></domain_access_rules></dds>\n");
        out
    }
}

/// A `<grant>` for `CN=<cn>,O=Siftdds Test,C=NL`, valid 2020–2040, on domain 0: first a deny
/// rule for publishing the topics `deny_publish` and subscribing to `deny_subscribe` (none
/// when both are empty), then every other topic allowed; default DENY.
pub(crate) fn grant_xml(cn: &str, deny_publish: &[&str], deny_subscribe: &[&str]) -> String {
    let topics = |kind: &str, list: &[&str]| match list {
        [] => String::new(),
        list => {
            let topics: String = list.iter().map(|t| format!("<topic>{t}</topic>")).collect();
            format!("<{kind}><topics>{topics}</topics></{kind}>")
        }
    };
    let deny = match (deny_publish, deny_subscribe) {
        ([], []) => String::new(),
        _ => format!(
            "<deny_rule><domains><id>0</id></domains>{}{}</deny_rule>",
            topics("publish", deny_publish),
            topics("subscribe", deny_subscribe)
        ),
    };
    format!(
        r#"<grant name="{cn}">
<subject_name>CN={cn},O=Siftdds Test,C=NL</subject_name>
<validity><not_before>2020-01-01T00:00:00</not_before><not_after>2040-01-01T00:00:00</not_after></validity>
{deny}
<allow_rule><domains><id>0</id></domains>
<publish><topics><topic>*</topic></topics></publish>
<subscribe><topics><topic>*</topic></topics></subscribe></allow_rule>
<default>DENY</default>
</grant>"#
    )
}

/// A permissions document holding `grants` ([`grant_xml`]).
pub(crate) fn permissions_xml(grants: &[String]) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><dds><permissions>{}</permissions></dds>"#,
        grants.concat()
    )
}
