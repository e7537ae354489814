//! Progress of long work (discovery, publishing, a perf run): an `indicatif` bar or spinner
//! on standard error when it is a terminal; otherwise one plain line every
//! [`PLAIN_EVERY`] on standard error, with no carriage return (a log file gets readable
//! lines).
//!
//! Must not: write to standard output (results go there), or draw when standard error is not
//! a terminal.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a plain progress line is printed when standard error is not a terminal.
pub const PLAIN_EVERY: Duration = Duration::from_secs(1);

/// A progress report: a bar of `len` steps, or a spinner without a length.
pub struct Progress {
    label: &'static str,
    len: Option<u64>,
    bar: Option<ProgressBar>,
    next_plain: Instant,
}

impl Progress {
    /// Progress of `label` over `len` steps (`None`: a spinner).
    pub fn new(label: &'static str, len: Option<u64>) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let target = ProgressDrawTarget::stderr_with_hz(10);
            let bar = ProgressBar::with_draw_target(len, target);
            let template = if len.is_some() {
                "{prefix}: [{bar:30}] {pos}/{len} {msg} ({elapsed})"
            } else {
                "{prefix}: {spinner} {msg} ({elapsed})"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix(label);
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Progress {
            label,
            len,
            bar,
            next_plain: Instant::now() + PLAIN_EVERY,
        }
    }

    /// At step `pos`; `msg` says the rest (called only when something is shown).
    pub fn update(&mut self, pos: u64, msg: impl FnOnce() -> String) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(pos);
                bar.set_message(msg());
            }
            None => {
                let now = Instant::now();
                if now >= self.next_plain {
                    self.next_plain = now + PLAIN_EVERY;
                    match self.len {
                        Some(len) => eprintln!("{}: {pos}/{len} {}", self.label, msg()),
                        None => eprintln!("{}: {pos} {}", self.label, msg()),
                    }
                }
            }
        }
    }

    /// Prints `line` on standard output without breaking the bar.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| println!("{line}")),
            None => println!("{line}"),
        }
    }

    /// Removes the bar (a terminal) or prints the closing plain line.
    pub fn finish(self, msg: &str) {
        match self.bar {
            Some(bar) => bar.finish_and_clear(),
            None if msg.is_empty() => {}
            None => eprintln!("{}: {msg}", self.label),
        }
    }
}
