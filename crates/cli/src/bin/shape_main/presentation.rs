//! The harness's PRESENTATION options (`--access-scope i|t|g`, `--coherent`, `--ordered`,
//! `--coherent-sample-count n`) as QoS and as the publisher's coherent-set schedule, with the
//! lines the harness reads (`srcCxx/shape_main.cxx`: "Started Coherent Set", "Finished
//! Coherent Set", "Reading coherent sets, iteration n", "Reading with ordered access,
//! iteration n").
//!
//! Must not: print; `main.rs` calls these and prints the lines.

use siftdds::api::{DataReader, Error, Sample, Subscriber};
use siftdds::qos::{Presentation, PresentationAccessScope};
use siftdds::types::ShapeType;

use crate::options::Options;

/// The presentation options of one run, parsed by `options.rs`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PresentationArgs {
    /// `--access-scope` (`i`, `t`, `g`), if given.
    pub access_scope: Option<char>,
    /// `--coherent`
    pub coherent: bool,
    /// `--ordered`
    pub ordered: bool,
    /// `--coherent-sample-count` (0: not set).
    pub coherent_sample_count: u32,
}

impl From<&Options> for PresentationArgs {
    fn from(o: &Options) -> Self {
        PresentationArgs {
            access_scope: o.access_scope,
            coherent: o.coherent,
            ordered: o.ordered,
            coherent_sample_count: o.coherent_sample_count,
        }
    }
}

impl PresentationArgs {
    /// True when the run uses PRESENTATION at all (the harness applies the access scope only
    /// with `--coherent` or `--ordered`).
    pub fn enabled(&self) -> bool {
        self.coherent || self.ordered
    }

    /// The policy for the Publisher and Subscriber QoS, or `None` to keep the profile's.
    pub fn policy(&self) -> Option<Presentation> {
        if !self.enabled() {
            return None;
        }
        let access_scope = match self.access_scope {
            Some('t') => PresentationAccessScope::Topic,
            Some('g') => PresentationAccessScope::Group,
            _ => PresentationAccessScope::Instance,
        };
        Some(Presentation {
            access_scope,
            coherent_access: self.coherent,
            ordered_access: self.ordered,
        })
    }

    /// Publisher: iteration `n` (samples written so far per writer and instance) starts a
    /// coherent set (`n % count == 0`).
    pub fn starts_set(&self, n: u64) -> bool {
        let count = u64::from(self.coherent_sample_count);
        self.enabled() && count != 0 && n % count == 0
    }

    /// Publisher: iteration `n` ends the coherent set (`n % count == count - 1`).
    pub fn ends_set(&self, n: u64) -> bool {
        let count = u64::from(self.coherent_sample_count);
        self.enabled() && count != 0 && n % count == count - 1
    }

    /// Subscriber: one read iteration, a batch per reader. With PRESENTATION the harness
    /// brackets its takes with `begin_access`/`end_access`: every reader is taken in one turn
    /// of the event loop ([`Subscriber::take_together`]); otherwise reader by reader, with
    /// `read()` (read with ANY_SAMPLE_STATE) for `-R`.
    pub fn take(
        &self,
        subscriber: &Subscriber,
        readers: &[DataReader<ShapeType>],
        use_read: bool,
    ) -> Result<Vec<Vec<Sample<ShapeType>>>, Error> {
        if self.enabled() && !use_read {
            let refs: Vec<&DataReader<ShapeType>> = readers.iter().collect();
            return subscriber.take_together(&refs);
        }
        readers
            .iter()
            .map(|r| {
                if use_read {
                    // read() with ANY_SAMPLE_STATE, as the harness's C and C++ applications.
                    r.read()
                } else {
                    r.take()
                }
            })
            .collect()
    }

    /// Subscriber: the lines printed before each read iteration `n`.
    pub fn reading_lines(&self, n: u64) -> Vec<String> {
        let mut v = Vec::new();
        if self.coherent {
            v.push(format!("Reading coherent sets, iteration {n}"));
        }
        if self.ordered {
            v.push(format!("Reading with ordered access, iteration {n}"));
        }
        v
    }
}

#[cfg(test)]
mod tests;
