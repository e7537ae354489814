//! Value checks shared by the subcommands' options (clap `value_parser`s): each refuses
//! nonsense with the reason, so `--rate inf` or `--seconds 0` never reach a run.
//!
//! Must not: know any subcommand; a check here takes a string and returns a value or the
//! reason it is refused.

/// A rate in Hz: finite, > 0 and at most [`MAX_RATE`].
pub fn rate(s: &str) -> Result<f64, String> {
    let v = finite_positive(s)?;
    if v > MAX_RATE {
        return Err(format!(
            "{v} Hz is above {MAX_RATE} Hz, more than one process writes on this machine"
        ));
    }
    Ok(v)
}

/// Writes per second above which a paced writer is pointless: one write costs a few µs.
pub const MAX_RATE: f64 = 1e6;

/// Longest run a duration option accepts, in seconds (one day).
pub const MAX_SECONDS: f64 = 86_400.0;

/// A duration in seconds: finite, > 0 and at most [`MAX_SECONDS`].
pub fn seconds(s: &str) -> Result<f64, String> {
    let v = finite_positive(s)?;
    if v > MAX_SECONDS {
        return Err(format!("{v} s is longer than one day ({MAX_SECONDS} s)"));
    }
    Ok(v)
}

/// A finite number > 0.
fn finite_positive(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() {
        return Err(format!("{s} is not finite"));
    }
    if v <= 0.0 {
        return Err(format!("{s} is not > 0"));
    }
    Ok(v)
}

/// A DDS domain id: 0..=232, the domains whose RTPS ports fit in 16 bits with the default
/// port mapping for participant index 0 (PB 7400 + DG 250 × domain + d3 11 ≤ 65535; RTPS
/// 2.5 §9.6.1.1; Cyclone refuses the same ids).
pub fn domain(s: &str) -> Result<u32, String> {
    let v: u32 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a domain id (0..={MAX_DOMAIN})"))?;
    if v > MAX_DOMAIN {
        return Err(format!(
            "{v} is above {MAX_DOMAIN}: its RTPS ports would not fit in 16 bits (RTPS 2.5 §9.6.1.1)"
        ));
    }
    Ok(v)
}

/// Highest domain id whose ports fit the default port mapping.
pub const MAX_DOMAIN: u32 = 232;

#[cfg(test)]
mod tests;
