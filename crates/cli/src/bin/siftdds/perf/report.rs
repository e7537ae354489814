//! Reporting for `siftdds perf`: a line per second (samples/s, Mb/s, lost, CPU%), a live
//! spinner on a terminal (`crate::progress`), the closing `summary:` line, and latency
//! percentiles.
//!
//! Must not: touch DDS entities; it only counts what the modes tell it.

use std::time::{Duration, Instant};

use crate::progress::Progress;

/// Process CPU time (user + system) from `/proc/self/stat`, in clock ticks of 1/100 s
/// (USER_HZ, 100 on Linux); `None` where that file does not exist.
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.get(stat.rfind(')')?.checked_add(2)?..)?;
    let mut fields = rest.split_ascii_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime.saturating_add(stime))
}

/// Counts samples and bytes and prints a report every second.
pub struct Meter {
    label: &'static str,
    start: Instant,
    samples: u64,
    bytes: u64,
    lost: u64,
    interval_start: Instant,
    interval_samples: u64,
    interval_bytes: u64,
    interval_lost: u64,
    interval_cpu: Option<u64>,
    /// Drawn on a terminal only: the per-second lines already say it all in a log.
    live: Option<Progress>,
}

impl Meter {
    /// A meter whose lines start with `label` (the mode).
    pub fn new(label: &'static str) -> Self {
        let now = Instant::now();
        Meter {
            label,
            start: now,
            samples: 0,
            bytes: 0,
            lost: 0,
            interval_start: now,
            interval_samples: 0,
            interval_bytes: 0,
            interval_lost: 0,
            interval_cpu: cpu_ticks(),
            live: std::io::IsTerminal::is_terminal(&std::io::stderr())
                .then(|| Progress::new(label, None)),
        }
    }

    /// Restarts the clock (when the first sample is about to flow).
    pub fn restart(&mut self) {
        if let Some(p) = self.live.take() {
            p.finish("");
        }
        *self = Meter::new(self.label);
    }

    /// Records `n` samples of `bytes` in total, and `lost` newly detected lost samples.
    pub fn record(&mut self, n: u64, bytes: u64, lost: u64) {
        self.samples = self.samples.saturating_add(n);
        self.bytes = self.bytes.saturating_add(bytes);
        self.lost = self.lost.saturating_add(lost);
        self.interval_samples = self.interval_samples.saturating_add(n);
        self.interval_bytes = self.interval_bytes.saturating_add(bytes);
        self.interval_lost = self.interval_lost.saturating_add(lost);
    }

    /// Lost so far.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Prints the per-second line when a second has passed, and the progress line.
    pub fn tick(&mut self) {
        let now = Instant::now();
        let dt = now.duration_since(self.interval_start);
        if dt >= Duration::from_secs(1) {
            let secs = dt.as_secs_f64();
            let cpu = cpu_ticks();
            let cpu_pct = match (self.interval_cpu, cpu) {
                (Some(a), Some(b)) => format!("{:.0}%", b.saturating_sub(a) as f64 / secs),
                _ => "?".to_string(),
            };
            let line = format!(
                "[{:7.3}s] {}: {:>10.0} samples/s {:>9.2} Mb/s lost {} cpu {}",
                now.duration_since(self.start).as_secs_f64(),
                self.label,
                self.interval_samples as f64 / secs,
                self.interval_bytes as f64 * 8.0 / secs / 1e6,
                self.interval_lost,
                cpu_pct,
            );
            match &self.live {
                Some(p) => p.println(&line),
                None => println!("{line}"),
            }
            self.interval_start = now;
            self.interval_samples = 0;
            self.interval_bytes = 0;
            self.interval_lost = 0;
            self.interval_cpu = cpu;
        }
        let (samples, lost) = (self.samples, self.lost);
        if let Some(p) = &mut self.live {
            p.update(samples, || format!("samples, {lost} lost"));
        }
    }

    /// Prints the machine-readable throughput summary over `secs` seconds.
    pub fn summary(&mut self, secs: f64) {
        if let Some(p) = self.live.take() {
            p.finish("");
        }
        let secs = secs.max(1e-9);
        println!(
            "summary: samples={} rate={:.0}/s mbps={:.2} lost={}",
            self.samples,
            self.samples as f64 / secs,
            self.bytes as f64 * 8.0 / secs / 1e6,
            self.lost
        );
    }
}

/// Round-trip times, in nanoseconds.
#[derive(Default)]
pub struct Latencies {
    all: Vec<u64>,
    interval: Vec<u64>,
}

impl Latencies {
    /// Records one round trip.
    pub fn record(&mut self, rtt: Duration) {
        let ns = u64::try_from(rtt.as_nanos()).unwrap_or(u64::MAX);
        self.all.push(ns);
        self.interval.push(ns);
    }

    /// Number of round trips.
    pub fn count(&self) -> usize {
        self.all.len()
    }

    /// Prints and resets the interval's percentiles.
    pub fn report_interval(&mut self, elapsed: f64) {
        let p = percentiles(&mut self.interval);
        println!(
            "[{elapsed:7.3}s] ping: {:>8} round trips p50 {:.1} us p90 {:.1} us p99 {:.1} us max {:.1} us",
            self.interval.len(),
            p[0],
            p[1],
            p[2],
            p[3]
        );
        self.interval.clear();
    }

    /// Prints the machine-readable latency summary.
    pub fn summary(&mut self) {
        let n = self.all.len();
        let p = percentiles(&mut self.all);
        println!(
            "summary: samples={n} p50_us={:.1} p90_us={:.1} p99_us={:.1} max_us={:.1}",
            p[0], p[1], p[2], p[3]
        );
    }
}

/// p50, p90, p99 and max of `ns` in microseconds (sorts it); zeros when empty.
pub fn percentiles(ns: &mut [u64]) -> [f64; 4] {
    ns.sort_unstable();
    let at = |q: f64| -> f64 {
        let Some(last) = ns.len().checked_sub(1) else {
            return 0.0;
        };
        let i = ((last as f64) * q).round() as usize;
        ns.get(i.min(last)).map_or(0.0, |v| *v as f64 / 1e3)
    };
    [at(0.50), at(0.90), at(0.99), at(1.0)]
}

#[cfg(test)]
mod tests;
