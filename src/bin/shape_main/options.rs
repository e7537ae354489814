//! Command line of `shape_main`, following the OMG dds-rtps harness (`srcCxx/shape_main.cxx`
//! and the newer `srcC/shape_main.c`): getopt-style short options (bundling `-Pw` and attached
//! values `-tSquare` allowed) plus the harness's long options.
//!
//! QoS options are `Option`s: `None` when the command line does not name them, so that a QoS
//! profile (`--qos-file`, `--qos-profile`) decides them (see `qos.rs`).
//!
//! Must not: panic on any input, or touch the network or the file system. Bad input is an
//! `Err` with a message; the caller prints it with the usage text and exits with code 1 (the
//! harness's `ERROR_PARSING_ARGUMENTS`).

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    /// `-h` / `--help`.
    Help,
    /// Run with these options.
    Run(Box<Options>),
}

/// DURABILITY kind from `-D`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DurabilityArg {
    /// `v`
    Volatile,
    /// `l`
    TransientLocal,
    /// `t`
    Transient,
    /// `p`
    Persistent,
}

/// What the publisher does with its instances before exiting (`--final-instance-state`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FinalState {
    /// `u`: unregister_instance.
    Unregister,
    /// `d`: dispose.
    Dispose,
}

/// Every option, with the harness's defaults.
#[derive(Clone, Debug)]
pub struct Options {
    /// `-P`
    pub publish: bool,
    /// `-S`
    pub subscribe: bool,
    /// `-t` (default "Square").
    pub topic: String,
    /// `-d` (default 0).
    pub domain: u32,
    /// `-r` (`Some(true)`) / `-b` (`Some(false)`); neither: the profile's, else RELIABLE.
    pub reliable: Option<bool>,
    /// `-k`: `None` keeps the QoS default (KEEP_LAST 1); `Some(0)` is KEEP_ALL.
    pub history_depth: Option<u32>,
    /// `-f` in ms (0 = off).
    pub deadline_ms: Option<u64>,
    /// `-s` (-1 = SHARED ownership).
    pub ownership_strength: Option<i32>,
    /// `-c`: publisher color (default BLUE), subscriber content filter `color = %0`.
    pub color: Option<String>,
    /// `--cft`: subscriber content filter expression.
    pub cft: Option<String>,
    /// `-p`
    pub partition: Option<String>,
    /// `-D` (default VOLATILE).
    pub durability: Option<DurabilityArg>,
    /// `-x` (1 = XCDR, the default; 2 = XCDR2).
    pub data_representation: Option<u8>,
    /// `-w`
    pub print_writer_samples: bool,
    /// `-z` (default 20; 0 = 1, 2, 3, ... per sample).
    pub shapesize: i32,
    /// `--size-modulo` (0 = off): with `-z 0`, sizes cycle through `1..=n`.
    pub size_modulo: u32,
    /// `-R`: read() instead of take().
    pub use_read: bool,
    /// `--write-period` in ms (default 33).
    pub write_period_ms: u64,
    /// `--read-period` in ms (default 100).
    pub read_period_ms: u64,
    /// `--time-filter` in ms (0 = off).
    pub time_filter_ms: Option<u64>,
    /// `--lifespan` in ms (0 = infinite).
    pub lifespan_ms: Option<u64>,
    /// `--num-iterations` (0 = forever).
    pub num_iterations: u64,
    /// `--num-instances` (default 1).
    pub num_instances: u32,
    /// `--num-topics` (default 1).
    pub num_topics: u32,
    /// `--final-instance-state`
    pub final_state: Option<FinalState>,
    /// `--access-scope` (`i`, `t` or `g`), if given.
    pub access_scope: Option<char>,
    /// `--coherent`
    pub coherent: bool,
    /// `--ordered`
    pub ordered: bool,
    /// `--coherent-sample-count` (0 = not set).
    pub coherent_sample_count: u32,
    /// `--additional-payload-size` in bytes (0 = none).
    pub additional_payload_size: u32,
    /// `--take-read`: plain take() instead of take_next_instance().
    pub take_read: bool,
    /// `--periodic-announcement` in ms (0 = the participant's default).
    pub periodic_announcement_ms: u64,
    /// `--datafrag-size` in bytes (0 = the writer's default).
    pub datafrag_size: u32,
    /// `-v d`
    pub debug: bool,
    /// `--qos-file` (repeatable): QoS profile files (OMG DDS-XML or Fast DDS XML), in order.
    pub qos_files: Vec<String>,
    /// `--qos-profile Lib::Profile`; with files but no profile, their default profile.
    pub qos_profile: Option<String>,
    /// `--interface` (siftdds): the interface selection, overriding `SIFTDDS_INTERFACES`.
    pub interface: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            publish: false,
            subscribe: false,
            topic: "Square".to_string(),
            domain: 0,
            reliable: None,
            history_depth: None,
            deadline_ms: None,
            ownership_strength: None,
            color: None,
            cft: None,
            partition: None,
            durability: None,
            data_representation: None,
            print_writer_samples: false,
            shapesize: 20,
            size_modulo: 0,
            use_read: false,
            write_period_ms: 33,
            read_period_ms: 100,
            time_filter_ms: None,
            lifespan_ms: None,
            num_iterations: 0,
            num_instances: 1,
            num_topics: 1,
            final_state: None,
            access_scope: None,
            coherent: false,
            ordered: false,
            coherent_sample_count: 0,
            additional_payload_size: 0,
            take_read: false,
            periodic_announcement_ms: 0,
            datafrag_size: 0,
            debug: false,
            qos_files: Vec::new(),
            qos_profile: None,
            interface: None,
        }
    }
}

/// The usage text (`-h`), in the harness's layout.
pub fn usage(prog: &str) -> String {
    format!(
        "{prog}: \n\
   --help, -h      : print this menu\n\
   -v [e|d]        : set log message verbosity [e: ERROR, d: DEBUG]\n\
   -P              : publish samples\n\
   -S              : subscribe samples\n\
   -d <int>        : domain id (default: 0)\n\
   -b              : BEST_EFFORT reliability\n\
   -r              : RELIABLE reliability (default)\n\
   -k <depth>      : keep history depth [0: KEEP_ALL]\n\
   -f <interval>   : set a 'deadline' with interval (ms) [0: OFF]\n\
   -s <strength>   : set ownership strength [-1: SHARED]\n\
   -t <topic_name> : set the topic name (default: Square)\n\
   -c <color>      : set color to publish (filter if subscriber)\n\
   -p <partition>  : set a 'partition' string\n\
   -D [v|l|t|p]    : set durability [v: VOLATILE,  l: TRANSIENT_LOCAL]\n\
                                     t: TRANSIENT, p: PERSISTENT]\n\
   -x [1|2]        : set data representation [1: XCDR, 2: XCDR2]\n\
   -w              : print Publisher's samples\n\
   -z <int>        : set shapesize (0: increase the size for every sample)\n\
   -R              : use 'read()' instead of 'take()'\n\
   --write-period <ms>: waiting period between 'write()' operations in ms.\n\
                        Default: 33ms\n\
   --read-period <ms> : waiting period between 'read()' or 'take()' operations\n\
                        in ms. Default: 100ms\n\
   --time-filter <interval> : apply 'time based filter' with interval in ms [0: OFF]\n\
   --lifespan <int>      : indicates the lifespan of a sample in ms\n\
   --num-iterations <int>: indicates the number of iterations of the main loop\n\
                           After that, the application will exit.\n\
                           Default: infinite\n\
   --num-instances <int>: indicates the number of instances a DataWriter writes.\n\
                          Additional instances append a number to the color:\n\
                          \"BLUE\", \"BLUE1\", \"BLUE2\"...\n\
   --num-topics <int>: indicates the number of topics created (using the same\n\
                       type), with one DataReader or DataWriter per topic:\n\
                       \"Square\", \"Square1\", \"Square2\"...\n\
   --final-instance-state [u|d]: action performed on every instance before the\n\
                                 DataWriter is deleted: u: unregister, d: dispose\n\
   --access-scope [i|t|g]: sets Presentation.access_scope to INSTANCE, TOPIC\n\
                           or GROUP\n\
   --coherent            : sets Presentation.coherent_access = true\n\
   --ordered             : sets Presentation.ordered_access = true\n\
   --coherent-sample-count <int>: amount of samples sent for each DataWriter and\n\
                                  instance that are grouped in a coherent set\n\
   --additional-payload-size <bytes>: indicates the amount of bytes added to the\n\
                                      samples written (for example to use large data)\n\
   --take-read           : uses take()/read() instead of take_next_instance()\n\
                           read_next_instance()\n\
   --periodic-announcement <ms> : indicates the periodic participant\n\
                                  announcement period in ms. Default 0 (off)\n\
   --datafrag-size <bytes> : set the data fragment size (default: 0, means\n\
                           not set)\n\
   --cft <expression> : ContentFilteredTopic filter expression (quotes\n\
                        required around the expression). Cannot be used with\n\
                        -c on subscriber applications\n\
   --size-modulo <int> : If set, the modulo operation is applied to the\n\
                         shapesize. This will make that shapesize is in the\n\
                         range [1,N]. This only applies if shapesize is\n\
                         increased (-z 0)\n\
   --qos-file <file>  : load QoS profiles from an OMG DDS-XML (or Fast DDS XML)\n\
                        file; repeatable; SIFTDDS_QOS_PROFILES and\n\
                        ./USER_QOS_PROFILES.xml are loaded first\n\
   --qos-profile <Lib::Profile> : take every QoS the command line does not set\n\
                        from this profile (default: the files' default profile)\n\
   --interface <list> : network interfaces to use: auto, or names, IPv4\n\
                        addresses and CIDR prefixes, comma-separated (overrides\n\
                        SIFTDDS_INTERFACES; default: loopback only, or auto\n\
                        inside netns-run/netns-sites)\n"
    )
}

/// Short options that take a value (getopt string `hPSbrRwc:d:D:f:k:p:s:x:t:v:z:`).
const SHORT_WITH_VALUE: &str = "cdDfkpsxtvz";
/// Short flags.
const SHORT_FLAGS: &str = "hPSbrRw";
/// Long options that take a value.
const LONG_WITH_VALUE: &[&str] = &[
    "write-period",
    "read-period",
    "final-instance-state",
    "access-scope",
    "coherent-sample-count",
    "additional-payload-size",
    "num-topics",
    "lifespan",
    "num-instances",
    "num-iterations",
    "time-filter",
    "periodic-announcement",
    "datafrag-size",
    "cft",
    "size-modulo",
    "qos-file",
    "qos-profile",
    "interface",
];
/// Long flags.
const LONG_FLAGS: &[&str] = &["help", "coherent", "ordered", "take-read"];

/// Parses the arguments (without the program name). `Err` carries the message to print.
pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Parsed, String> {
    let mut o = Options::default();
    let mut i = 0;
    while let Some(arg) = args.get(i).map(AsRef::as_ref) {
        i += 1;
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            if LONG_FLAGS.contains(&name) {
                if inline.is_some() {
                    return Err(format!("option '--{name}' doesn't allow an argument"));
                }
                if apply_flag_long(&mut o, name) {
                    return Ok(Parsed::Help);
                }
            } else if LONG_WITH_VALUE.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => {
                        let v = args.get(i).map(|s| s.as_ref().to_string());
                        i += 1;
                        v.ok_or_else(|| format!("option '--{name}' requires an argument"))?
                    }
                };
                apply_long(&mut o, name, &value)?;
            } else {
                return Err(format!("unrecognized option '{arg}'"));
            }
        } else if let Some(shorts) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            for (pos, c) in shorts.char_indices() {
                if SHORT_FLAGS.contains(c) {
                    if apply_flag_short(&mut o, c) {
                        return Ok(Parsed::Help);
                    }
                } else if SHORT_WITH_VALUE.contains(c) {
                    let rest = &shorts[pos + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        let v = args.get(i).map(|s| s.as_ref().to_string());
                        i += 1;
                        v.ok_or_else(|| format!("option requires an argument -- '{c}'"))?
                    } else {
                        rest.to_string()
                    };
                    apply_short(&mut o, c, &value)?;
                    break;
                } else {
                    return Err(format!("invalid option -- '{c}'"));
                }
            }
        } else {
            return Err(format!("unexpected argument '{arg}'"));
        }
    }
    validate(&o)?;
    Ok(Parsed::Run(Box::new(o)))
}

/// Applies a short flag; true for `-h`.
fn apply_flag_short(o: &mut Options, c: char) -> bool {
    match c {
        'h' => return true,
        'P' => o.publish = true,
        'S' => o.subscribe = true,
        'b' => o.reliable = Some(false),
        'r' => o.reliable = Some(true),
        'R' => o.use_read = true,
        'w' => o.print_writer_samples = true,
        _ => {}
    }
    false
}

/// Applies a long flag; true for `--help`.
fn apply_flag_long(o: &mut Options, name: &str) -> bool {
    match name {
        "help" => return true,
        "coherent" => o.coherent = true,
        "ordered" => o.ordered = true,
        "take-read" => o.take_read = true,
        _ => {}
    }
    false
}

fn apply_short(o: &mut Options, c: char, v: &str) -> Result<(), String> {
    match c {
        'c' => o.color = Some(v.to_string()),
        'd' => o.domain = number(v, "domain_id", 0, i64::from(u32::MAX))?,
        'D' => {
            o.durability = Some(match v {
                "v" => DurabilityArg::Volatile,
                "l" => DurabilityArg::TransientLocal,
                "t" => DurabilityArg::Transient,
                "p" => DurabilityArg::Persistent,
                _ => return Err(format!("unrecognized value for durability {v}")),
            })
        }
        'f' => o.deadline_ms = Some(number(v, "deadline_interval", 0, MAX_MS)?),
        'k' => o.history_depth = Some(number(v, "history_depth", 0, i64::from(i32::MAX))?),
        'p' => o.partition = Some(v.to_string()),
        's' => {
            o.ownership_strength = Some(number(v, "ownership_strength", -1, i64::from(i32::MAX))?);
        }
        'x' => {
            o.data_representation = Some(match v {
                "1" => 1,
                "2" => 2,
                _ => return Err(format!("unrecognized value for data representation {v}")),
            })
        }
        't' => {
            if v.is_empty() {
                return Err("incorrect value for topic name (empty)".to_string());
            }
            o.topic = v.to_string();
        }
        'v' => {
            o.debug = match v {
                "d" => true,
                "e" => false,
                _ => return Err(format!("unrecognized value for verbosity {v}")),
            }
        }
        'z' => o.shapesize = number(v, "shapesize", 0, i64::from(i32::MAX))?,
        _ => return Err(format!("invalid option -- '{c}'")),
    }
    Ok(())
}

/// Longest period we accept, in ms (about 24 days): keeps every later sum far from overflow.
const MAX_MS: i64 = i32::MAX as i64;

fn apply_long(o: &mut Options, name: &str, v: &str) -> Result<(), String> {
    match name {
        "write-period" => o.write_period_ms = number(v, "write-period", 0, MAX_MS)?,
        "read-period" => o.read_period_ms = number(v, "read-period", 0, MAX_MS)?,
        "time-filter" => o.time_filter_ms = Some(number(v, "time-filter", 0, MAX_MS)?),
        "lifespan" => o.lifespan_ms = Some(number(v, "lifespan", 0, MAX_MS)?),
        "periodic-announcement" => {
            o.periodic_announcement_ms = number(v, "periodic-announcement", 0, MAX_MS)?;
        }
        "num-iterations" => o.num_iterations = number(v, "num-iterations", 1, i64::MAX)?,
        "num-instances" => o.num_instances = number(v, "num-instances", 1, 10_000)?,
        "num-topics" => o.num_topics = number(v, "num-topics", 1, 1_000)?,
        "final-instance-state" => {
            o.final_state = Some(match v {
                "u" => FinalState::Unregister,
                "d" => FinalState::Dispose,
                _ => return Err(format!("unrecognized value for final-instance-state {v}")),
            })
        }
        "access-scope" => {
            o.access_scope = Some(match v {
                "i" | "t" | "g" => v.chars().next().unwrap_or('i'),
                _ => return Err(format!("unrecognized value for access-scope {v}")),
            })
        }
        "coherent-sample-count" => {
            o.coherent_sample_count = number(v, "coherent-sample-count", 2, i64::from(u32::MAX))?;
        }
        "additional-payload-size" => {
            // A sample must fit the 64 MiB the CDR layer accepts; 16 MiB is plenty for tests.
            o.additional_payload_size = number(v, "additional-payload-size", 1, 16 << 20)?;
        }
        "datafrag-size" => o.datafrag_size = number(v, "datafrag-size", 0, 65_535)?,
        "cft" => o.cft = Some(v.to_string()),
        "size-modulo" => o.size_modulo = number(v, "size-modulo", 1, i64::from(i32::MAX))?,
        "qos-file" if v.is_empty() => return Err("incorrect value for qos-file (empty)".into()),
        "qos-file" => o.qos_files.push(v.to_string()),
        "qos-profile" if v.is_empty() => {
            return Err("incorrect value for qos-profile (empty)".into());
        }
        "qos-profile" => o.qos_profile = Some(v.to_string()),
        "interface" if v.is_empty() => return Err("incorrect value for interface (empty)".into()),
        "interface" => o.interface = Some(v.to_string()),
        _ => return Err(format!("unrecognized option '--{name}'")),
    }
    Ok(())
}

/// Parses a decimal integer in `min..=max` and converts it to the field's type.
fn number<T: TryFrom<i64>>(v: &str, what: &str, min: i64, max: i64) -> Result<T, String> {
    let n: i64 = v
        .trim()
        .parse()
        .map_err(|_| format!("unrecognized value for {what} {v}"))?;
    if n < min || n > max {
        return Err(format!(
            "incorrect value for {what} {n} (must be in {min}..={max})"
        ));
    }
    T::try_from(n).map_err(|_| format!("incorrect value for {what} {n}"))
}

/// The harness's `validate()` errors.
fn validate(o: &Options) -> Result<(), String> {
    if !o.publish && !o.subscribe {
        return Err("please specify publish [-P] or subscribe [-S]".to_string());
    }
    if o.publish && o.subscribe {
        return Err("please specify only one of: publish [-P] or subscribe [-S]".to_string());
    }
    if o.subscribe && o.color.is_some() && o.cft.is_some() {
        return Err("error: cannot specify both --cft and -c for subscriber applications".into());
    }
    Ok(())
}

impl Options {
    /// The harness's `validate()` warnings: options that do not apply to this role.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        let mut warn = |cond: bool, text: &str| {
            if cond {
                w.push(format!("warning: {text}"));
            }
        };
        let (p, s) = (self.publish, self.subscribe);
        warn(
            p && self.color.is_none(),
            "color was not specified, defaulting to \"BLUE\"",
        );
        warn(
            p && self.time_filter_ms.is_some_and(|t| t > 0),
            "time base filter [--time-filter] ignored on publisher applications",
        );
        warn(
            p && self.use_read,
            "use read [-R] ignored on publisher applications",
        );
        warn(
            p && self.take_read,
            "--take-read ignored on publisher applications",
        );
        warn(
            p && self.cft.is_some(),
            "--cft ignored on publisher applications",
        );
        warn(
            s && self.shapesize != 20,
            "shapesize [-z] ignored on subscriber applications",
        );
        warn(
            s && self.lifespan_ms.is_some_and(|t| t > 0),
            "--lifespan ignored on subscriber applications",
        );
        warn(
            s && self.num_instances > 1,
            "--num-instances ignored on subscriber applications",
        );
        warn(
            s && self.final_state.is_some(),
            "--final-instance-state ignored on subscriber applications",
        );
        warn(
            s && self.coherent_sample_count > 0,
            "--coherent-sample-count ignored on subscriber applications",
        );
        warn(
            s && self.additional_payload_size > 0,
            "--additional-payload-size ignored on subscriber applications",
        );
        warn(
            s && self.datafrag_size > 0,
            "--datafrag-size ignored on subscriber applications",
        );
        warn(
            !self.coherent && !self.ordered && self.coherent_sample_count > 0,
            "--coherent-sample-count ignored because not coherent, or ordered access enabled",
        );
        warn(
            !self.coherent && !self.ordered && self.access_scope.is_some(),
            "--access-scope ignored because not coherent, or ordered access enabled",
        );
        warn(
            self.size_modulo > 0 && self.shapesize != 0,
            "--size-modulo has no effect unless shapesize (-z) is set to 0",
        );
        w
    }

    /// Requested behaviour siftdds cannot deliver; running anyway would print wrong results,
    /// so the application says so and exits (code 2, as for a failed entity creation).
    pub fn unsupported_fatal(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        match self.durability {
            Some(DurabilityArg::Transient) => {
                v.push("-D t: TRANSIENT durability is not supported (no durability service)");
            }
            Some(DurabilityArg::Persistent) => {
                v.push("-D p: PERSISTENT durability is not supported (no durability service)");
            }
            _ => {}
        }
        v
    }

    /// Requested behaviour siftdds honours only in part; the application says so and runs.
    pub fn unsupported_partial(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.subscribe && self.use_read {
            v.push(
                "-R: read() sample states are not supported in full: read() returns each \
                 sample once (NOT_READ samples only)",
            );
        }
        v
    }
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
