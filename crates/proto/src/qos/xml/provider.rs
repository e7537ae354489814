//! [`QosProvider`]: the loaded profiles, and the lookup that resolves a profile's inheritance
//! chain and topic filters into one entity QoS (DDS-XML 1.0 §7.3.2.4; RTI "QoS Profiles").
//!
//! Must not: keep XML documents alive; profiles are owned values, so files may be loaded one
//! after another and refer to each other.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use super::dom::{self, Ctx};
use super::patch::EntityQos;
use super::profile::{Entry, Profile};
use super::text_index::TextIndex;
use super::{
    EntityKind, MAX_FILE_SIZE, MAX_INHERITANCE_DEPTH, MAX_PROFILES, QOS_PROFILES_ENV, QosXmlError,
    USER_QOS_PROFILES_FILE, fastdds, omg,
};
use crate::qos::{
    DataReaderQos, DataWriterQos, DomainParticipantQos, PublisherQos, SubscriberQos, TopicQos,
    is_pattern, wildcard_match,
};

/// A set of QoS profiles loaded from XML files and strings, queried by profile name and topic.
///
/// Profiles are named `Library::Profile` (Fast DDS profiles: `fastdds::profile_name`). An empty
/// profile name means the default profile (`is_default_qos="true"`; the last one loaded wins),
/// or the DDS defaults if there is none. Lookups resolve `base_name` chains across libraries
/// and files, pick entries by `topic_filter`, and run the model's consistency check.
#[derive(Clone, Debug, Default)]
pub struct QosProvider {
    profiles: Vec<Profile>,
    default: Option<usize>,
    /// Full name → index in `profiles` (names are unique).
    by_name: HashMap<String, usize>,
    /// Name within its library → (first index, how many libraries have it), for unqualified
    /// lookups that must be unique.
    by_short: HashMap<String, (usize, usize)>,
}

impl QosProvider {
    /// An empty provider: every lookup with `""` gives the DDS defaults.
    pub fn new() -> Self {
        QosProvider::default()
    }

    /// A provider with the profiles the environment names: each path in
    /// `SIFTDDS_QOS_PROFILES` (`;`-separated, optional `file://`), then `USER_QOS_PROFILES.xml`
    /// from the working directory if it exists (RTI's order, so the user file's default
    /// profile wins).
    pub fn from_environment() -> Result<Self, QosXmlError> {
        let list = std::env::var(QOS_PROFILES_ENV).ok();
        let mut provider = QosProvider::new();
        provider.load_sources(list.as_deref(), Path::new("."))?;
        Ok(provider)
    }

    /// Loads the `;`-separated `list` of files, then `dir/USER_QOS_PROFILES.xml` if present.
    pub(crate) fn load_sources(
        &mut self,
        list: Option<&str>,
        dir: &Path,
    ) -> Result<(), QosXmlError> {
        for item in list
            .unwrap_or("")
            .split(';')
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            self.load_file(item.strip_prefix("file://").unwrap_or(item))?;
        }
        let user = dir.join(USER_QOS_PROFILES_FILE);
        if user.is_file() {
            self.load_file(&user)?;
        }
        Ok(())
    }

    /// Loads one XML file (at most [`MAX_FILE_SIZE`] bytes, UTF-8). On error nothing from the
    /// file is kept.
    pub fn load_file(&mut self, path: impl AsRef<Path>) -> Result<(), QosXmlError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let fail = |what: String| QosXmlError {
            file: name.clone(),
            line: 0,
            col: 0,
            message: what,
        };
        let file = std::fs::File::open(path).map_err(|e| fail(format!("cannot open: {e}")))?;
        let limit = u64::try_from(MAX_FILE_SIZE)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let mut bytes = Vec::new();
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| fail(format!("cannot read: {e}")))?;
        if bytes.len() > MAX_FILE_SIZE {
            return Err(fail(format!("file is larger than {MAX_FILE_SIZE} bytes")));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            fail(format!(
                "not UTF-8 (at byte {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        self.load_str(&name, &text)
    }

    /// Loads profiles from XML `text`; `name` is the file name used in errors. The root is
    /// `<dds>`, `<qos_library>` or (Fast DDS) `<profiles>`. On error nothing is kept.
    pub fn load_str(&mut self, name: &str, text: &str) -> Result<(), QosXmlError> {
        let file: Arc<str> = Arc::from(name);
        let doc = dom::parse(&file, text)?;
        let index = TextIndex::new(doc.input_text());
        let ctx = Ctx {
            file: &file,
            doc: &doc,
            index: &index,
        };
        let root = doc.root_element();
        let mut batch = Vec::new();
        match root.tag_name().name() {
            "dds" => omg::dds(&ctx, root, &mut batch)?,
            "qos_library" => omg::library(&ctx, root, &mut batch)?,
            "profiles" => fastdds::profiles(&ctx, root, &mut batch)?,
            other => {
                let msg = format!(
                    "root element is <{other}>, expected <dds>, <qos_library> or <profiles>"
                );
                return Err(ctx.err(root, msg));
            }
        }
        self.commit(batch)
    }

    /// Adds a parsed file's profiles after checking names are unique and the count bounded.
    /// Linear in the batch: names are checked against the name table, not against each other.
    fn commit(&mut self, batch: Vec<Profile>) -> Result<(), QosXmlError> {
        let mut fresh: HashMap<&str, usize> = HashMap::with_capacity(batch.len());
        for (i, p) in batch.iter().enumerate() {
            super::work::add(1);
            let first = match self.by_name.get(&p.name) {
                Some(j) => self.profiles.get(*j),
                None => fresh.get(p.name.as_str()).and_then(|j| batch.get(*j)),
            };
            if let Some(first) = first {
                let msg = format!(
                    "duplicate profile `{}` (first defined at {})",
                    p.name, first.pos
                );
                return Err(p.pos.error(msg));
            }
            fresh.insert(&p.name, i);
        }
        drop(fresh);
        if self.profiles.len().saturating_add(batch.len()) > MAX_PROFILES {
            let msg = format!("more than {MAX_PROFILES} profiles");
            return Err(batch
                .first()
                .map_or(QosXmlError::unplaced(msg.clone()), |p| p.pos.error(msg)));
        }
        for p in batch {
            let i = self.profiles.len();
            if p.is_default {
                self.default = Some(i);
            }
            self.by_name.insert(p.name.clone(), i);
            if let Some(short) = short_name(&p) {
                let slot = self.by_short.entry(short.to_owned()).or_insert((i, 0));
                slot.1 = slot.1.saturating_add(1);
            }
            self.profiles.push(p);
        }
        Ok(())
    }

    /// The default profile's name (`is_default_qos="true"`, last loaded wins), if any.
    pub fn default_profile(&self) -> Option<&str> {
        self.default
            .and_then(|i| self.profiles.get(i))
            .map(|p| p.name.as_str())
    }

    /// The names of all loaded profiles, in load order.
    pub fn profile_names(&self) -> impl Iterator<Item = &str> {
        self.profiles.iter().map(|p| p.name.as_str())
    }

    /// The peer groups (`<siftdds_peer_group>`, a siftdds extension) of `profile` (`""` =
    /// default profile): the profile's own, not inherited through `base_name`.
    pub fn peer_groups(
        &self,
        profile: &str,
    ) -> Result<Vec<crate::qos::peer_group::PeerGroupConfig>, QosXmlError> {
        if profile.is_empty() {
            return Ok(self
                .default
                .and_then(|i| self.profiles.get(i))
                .map(|p| p.peer_groups.clone())
                .unwrap_or_default());
        }
        let i = self
            .find(profile, None)
            .ok_or_else(|| QosXmlError::unplaced(format!("unknown QoS profile `{profile}`")))?;
        Ok(self
            .profiles
            .get(i)
            .map(|p| p.peer_groups.clone())
            .unwrap_or_default())
    }

    /// The DomainParticipant QoS of `profile` (`""` = default profile).
    pub fn participant_qos(&self, profile: &str) -> Result<DomainParticipantQos, QosXmlError> {
        self.resolve(profile, None)
    }

    /// The Topic QoS of `profile` for topic `topic_name`.
    pub fn topic_qos(&self, profile: &str, topic_name: &str) -> Result<TopicQos, QosXmlError> {
        self.resolve(profile, Some(topic_name))
    }

    /// The Publisher QoS of `profile`.
    pub fn publisher_qos(&self, profile: &str) -> Result<PublisherQos, QosXmlError> {
        self.resolve(profile, None)
    }

    /// The Subscriber QoS of `profile`.
    pub fn subscriber_qos(&self, profile: &str) -> Result<SubscriberQos, QosXmlError> {
        self.resolve(profile, None)
    }

    /// The DataWriter QoS of `profile` for topic `topic_name`.
    pub fn datawriter_qos(
        &self,
        profile: &str,
        topic_name: &str,
    ) -> Result<DataWriterQos, QosXmlError> {
        self.resolve(profile, Some(topic_name))
    }

    /// The DataReader QoS of `profile` for topic `topic_name`.
    pub fn datareader_qos(
        &self,
        profile: &str,
        topic_name: &str,
    ) -> Result<DataReaderQos, QosXmlError> {
        self.resolve(profile, Some(topic_name))
    }

    /// The profile a lookup of `name` starts at; `None` for "DDS defaults".
    fn start(&self, name: &str, kind: EntityKind) -> Result<Option<usize>, QosXmlError> {
        if !name.is_empty() {
            return self
                .find(name, None)
                .map(Some)
                .ok_or_else(|| QosXmlError::unplaced(format!("unknown QoS profile `{name}`")));
        }
        let fast_default = || {
            self.profiles
                .iter()
                .rposition(|p| p.default_kinds.contains(&kind))
        };
        Ok(self.default.or_else(fast_default))
    }

    /// Finds `Lib::Profile`, or an unqualified name in `library`, else in any library if
    /// unique. Constant time: the name tables.
    fn find(&self, name: &str, library: Option<&str>) -> Option<usize> {
        super::work::add(1);
        if let Some(i) = self.by_name.get(name) {
            return Some(*i);
        }
        if name.contains("::") {
            return None;
        }
        if let Some(lib) = library {
            if let Some(i) = self.by_name.get(&format!("{lib}::{name}")) {
                return Some(*i);
            }
        }
        match self.by_short.get(name) {
            Some((i, 1)) => Some(*i),
            _ => None,
        }
    }

    /// Resolves `profile` for entity kind `Q::KIND` and `topic`: follows the base chain,
    /// applies the selected entries from the root down, and checks consistency.
    fn resolve<Q: EntityQos>(&self, profile: &str, topic: Option<&str>) -> Result<Q, QosXmlError> {
        let mut qos = Q::initial();
        let Some(first) = self.start(profile, Q::KIND)? else {
            return Ok(qos);
        };
        let mut visited: Vec<usize> = Vec::new();
        let mut chain: Vec<&Entry> = Vec::new();
        let mut current = first;
        loop {
            let p = self.profiles.get(current).ok_or_else(|| {
                QosXmlError::unplaced(format!("internal: profile index {current} out of range"))
            })?;
            visited.push(current);
            let entry = select(p, Q::KIND, topic);
            chain.extend(entry);
            let Some((base, pos)) = entry.and_then(|e| e.base.as_ref()).or(p.base.as_ref()) else {
                break;
            };
            let next = self.find(base, Some(&p.library)).ok_or_else(|| {
                pos.error(format!("unknown base profile `{base}` (in `{}`)", p.name))
            })?;
            if visited.contains(&next) {
                let mut names: Vec<&str> = visited
                    .iter()
                    .skip_while(|i| **i != next)
                    .filter_map(|i| self.profiles.get(*i).map(|p| p.name.as_str()))
                    .collect();
                names.extend(self.profiles.get(next).map(|p| p.name.as_str()));
                let msg = format!("base_name cycle: {}", names.join(" -> "));
                return Err(pos.error(msg));
            }
            if visited.len() >= MAX_INHERITANCE_DEPTH {
                return Err(pos.error(format!(
                    "base_name chain longer than {MAX_INHERITANCE_DEPTH}"
                )));
            }
            current = next;
        }
        for entry in chain.iter().rev() {
            for patch in &entry.patches {
                qos.apply(patch);
            }
        }
        qos.check().map_err(|reason| {
            let p = self.profiles.get(first).map(|p| (p.name.as_str(), &p.pos));
            let (name, pos) = p.unzip();
            let topic = topic
                .map(|t| format!(" for topic `{t}`"))
                .unwrap_or_default();
            let msg = format!(
                "profile `{}` gives an inconsistent <{}>{topic}: {reason}",
                name.unwrap_or(""),
                Q::KIND.element()
            );
            pos.map_or(QosXmlError::unplaced(msg.clone()), |pos| pos.error(msg))
        })?;
        Ok(qos)
    }
}

/// The entry of `kind` a lookup for `topic` uses (DDS-XML 1.0 §7.3.2.4.3): the first whose
/// `topic_filter` matches, else the first without a filter.
fn select<'p>(p: &'p Profile, kind: EntityKind, topic: Option<&str>) -> Option<&'p Entry> {
    let mut unfiltered = None;
    for e in p.entries.iter().filter(|e| e.kind == kind) {
        match (&e.filter, topic) {
            (Some(f), Some(t)) if filter_matches(f, t) => return Some(e),
            (Some(_), _) => {}
            (None, _) => {
                unfiltered = unfiltered.or(Some(e));
            }
        }
    }
    unfiltered
}

fn filter_matches(filter: &str, topic: &str) -> bool {
    if is_pattern(filter) {
        wildcard_match(filter, topic)
    } else {
        filter == topic
    }
}

/// A profile's name within its library (`Lib::P` → `P`), if it is named that way.
fn short_name(p: &Profile) -> Option<&str> {
    p.name
        .strip_prefix(p.library.as_str())
        .and_then(|r| r.strip_prefix("::"))
}
