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

mod cli;

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    /// `-h` / `--help`.
    Help,
    /// `--version`: the text to print.
    Version(String),
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

/// The usage text (`-h`), in the harness's layout (each option line indented by three
/// spaces, as `printf("   --help, -h ...")` in `shape_main.cxx`).
pub fn usage(prog: &str) -> String {
    format!("{prog}: \n{USAGE_OPTIONS}")
}

/// The option lines of [`usage`].
const USAGE_OPTIONS: &str = r#"   --help, -h      : print this menu
   -v [e|d]        : set log message verbosity [e: ERROR, d: DEBUG]
   -P              : publish samples
   -S              : subscribe samples
   -d <int>        : domain id (default: 0)
   -b              : BEST_EFFORT reliability
   -r              : RELIABLE reliability (default)
   -k <depth>      : keep history depth [0: KEEP_ALL]
   -f <interval>   : set a 'deadline' with interval (ms) [0: OFF]
   -s <strength>   : set ownership strength [-1: SHARED]
   -t <topic_name> : set the topic name (default: Square)
   -c <color>      : set color to publish (filter if subscriber)
   -p <partition>  : set a 'partition' string
   -D [v|l|t|p]    : set durability [v: VOLATILE,  l: TRANSIENT_LOCAL]
                                     t: TRANSIENT, p: PERSISTENT]
   -x [1|2]        : set data representation [1: XCDR, 2: XCDR2]
   -w              : print Publisher's samples
   -z <int>        : set shapesize (0: increase the size for every sample)
   -R              : use 'read()' instead of 'take()'
   --write-period <ms>: waiting period between 'write()' operations in ms.
                        Default: 33ms
   --read-period <ms> : waiting period between 'read()' or 'take()' operations
                        in ms. Default: 100ms
   --time-filter <interval> : apply 'time based filter' with interval in ms [0: OFF]
   --lifespan <int>      : indicates the lifespan of a sample in ms
   --num-iterations <int>: indicates the number of iterations of the main loop
                           After that, the application will exit.
                           Default: infinite
   --num-instances <int>: indicates the number of instances a DataWriter writes.
                          Additional instances append a number to the color:
                          "BLUE", "BLUE1", "BLUE2"...
   --num-topics <int>: indicates the number of topics created (using the same
                       type), with one DataReader or DataWriter per topic:
                       "Square", "Square1", "Square2"...
   --final-instance-state [u|d]: action performed on every instance before the
                                 DataWriter is deleted: u: unregister, d: dispose
   --access-scope [i|t|g]: sets Presentation.access_scope to INSTANCE, TOPIC
                           or GROUP
   --coherent            : sets Presentation.coherent_access = true
   --ordered             : sets Presentation.ordered_access = true
   --coherent-sample-count <int>: amount of samples sent for each DataWriter and
                                  instance that are grouped in a coherent set
   --additional-payload-size <bytes>: indicates the amount of bytes added to the
                                      samples written (for example to use large data)
   --take-read           : uses take()/read() instead of take_next_instance()
                           read_next_instance()
   --periodic-announcement <ms> : indicates the periodic participant
                                  announcement period in ms. Default 0 (off)
   --datafrag-size <bytes> : set the data fragment size (default: 0, means
                           not set)
   --cft <expression> : ContentFilteredTopic filter expression (quotes
                        required around the expression). Cannot be used with
                        -c on subscriber applications
   --size-modulo <int> : If set, the modulo operation is applied to the
                         shapesize. This will make that shapesize is in the
                         range [1,N]. This only applies if shapesize is
                         increased (-z 0)
   --qos-file <file>  : load QoS profiles from an OMG DDS-XML (or Fast DDS XML)
                        file; repeatable; SIFTDDS_QOS_PROFILES and
                        ./USER_QOS_PROFILES.xml are loaded first
   --qos-profile <Lib::Profile> : take every QoS the command line does not set
                        from this profile (default: the files' default profile)
   --interface <list> : network interfaces to use: auto, or names, IPv4
                        addresses and CIDR prefixes, comma-separated (overrides
                        SIFTDDS_INTERFACES; default: loopback only, or auto
                        inside netns-run/netns-sites)
"#;

/// Parses the arguments (without the program name). `Err` carries the message to print.
pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Parsed, String> {
    use clap::Parser;
    let argv = std::iter::once("shape_main").chain(args.iter().map(AsRef::as_ref));
    let cli = match cli::Cli::try_parse_from(argv) {
        Ok(c) => c,
        // `--version`: clap's text is the message, and it is no error.
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayVersion => {
            return Ok(Parsed::Version(e.to_string()));
        }
        // clap's first line says what is wrong; its usage line would list every option (the
        // caller prints the harness's usage text after the message).
        Err(e) => {
            let text = e.render().to_string();
            return Err(text.lines().next().unwrap_or("bad arguments").to_string());
        }
    };
    if cli.help {
        return Ok(Parsed::Help);
    }
    let o = cli.into_options();
    validate(&o)?;
    Ok(Parsed::Run(Box::new(o)))
}

/// Longest period we accept, in ms (about 24 days): keeps every later sum far from overflow.
pub(crate) const MAX_MS: i64 = i32::MAX as i64;

/// Parses a decimal integer in `min..=max` and converts it to the field's type.
pub(crate) fn number<T: TryFrom<i64>>(
    v: &str,
    what: &str,
    min: i64,
    max: i64,
) -> Result<T, String> {
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
}

#[cfg(test)]
mod tests;
