//! The command line of the paired runner: its settings and the measures asked for.

use std::time::Duration;

use oatf_bench::paired::PairedOptions;

/// The error of every measure.
pub(crate) type Error = Box<dyn std::error::Error>;

pub(crate) struct Settings {
    pub(crate) paired: PairedOptions,
    pub(crate) messages: u64,
    pub(crate) reference_messages: u64,
    pub(crate) memory_lengths: Vec<u64>,
}

/// The settings and the measures of `args` (the arguments after the program's name).
pub(crate) fn parse(args: Vec<String>) -> Result<(Settings, Vec<String>), Error> {
    let mut settings = Settings {
        paired: PairedOptions::default(),
        messages: 20_000,
        reference_messages: 500,
        memory_lengths: vec![10_000, 100_000, 1_000_000],
    };
    let mut measures = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--rounds" => settings.paired.rounds = value()?.parse()?,
            "--messages" => settings.messages = value()?.parse()?,
            "--reference-messages" => settings.reference_messages = value()?.parse()?,
            "--sample-ms" => settings.paired.min_sample = Duration::from_millis(value()?.parse()?),
            "--memory-lengths" => {
                settings.memory_lengths = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?;
            }
            "all" => measures.extend(
                [
                    "trace",
                    "load",
                    "cel",
                    "compile",
                    "thoughtjack",
                    "memory",
                    "scaling",
                    "sparse",
                    "load-floor",
                ]
                .map(str::to_owned),
            ),
            "trace" | "load" | "cel" | "compile" | "thoughtjack" | "memory" | "scaling"
            | "sparse" | "load-floor" => measures.push(arg),
            other => {
                return Err(format!(
                    "unknown argument {other:?}; measures: trace load cel compile thoughtjack memory scaling sparse load-floor all"
                )
                .into());
            }
        }
    }
    if measures.is_empty() {
        return Err(
            "name one or more measures: trace load cel compile thoughtjack memory scaling sparse load-floor all".into(),
        );
    }
    Ok((settings, measures))
}
