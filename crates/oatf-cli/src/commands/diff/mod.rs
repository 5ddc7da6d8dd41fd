//! `oatf diff OLD NEW`: compares two campaign reports of `oatf evaluate` (their JSON or CSV, D-106):
//! the runs whose result or tier changed, the runs only in one of them, and a summary by attack and
//! by group. Exits like diff(1): 0 when nothing differs, 1 when something does (with `--fail-on
//! worse`, only when a run got worse), 2 when a report cannot be read.

use std::path::PathBuf;

use crate::output::Output;

mod compare;
mod read;
mod render;

/// Exit code: no difference (or, with `--fail-on worse`, no run got worse).
const EXIT_SAME: u8 = 0;
/// Exit code: the reports differ (or a run got worse).
const EXIT_DIFFERENT: u8 = 1;
/// Exit code: a report cannot be read or is not one of `oatf evaluate`.
const EXIT_TROUBLE: u8 = 2;

/// The exit codes, as `--help` shows them.
const EXIT_CODES: &str = "\
Exit codes (as diff(1)):
  0   nothing changed (with --fail-on worse: no run got worse)
  1   a run changed, was added or removed (with --fail-on worse: a run got worse)
  2   a report cannot be read or is not a report of `oatf evaluate`
  64  usage error (bad arguments)
  74  the output cannot be written";

/// Arguments of `oatf diff`.
#[derive(Debug, clap::Args)]
#[command(after_help = EXIT_CODES)]
pub(crate) struct Args {
    /// The earlier report: the JSON or CSV of `oatf evaluate` (a campaign, or one evaluation's JSON).
    #[arg(value_name = "OLD")]
    old: PathBuf,
    /// The later report, in either format.
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// What exits 1: `any` difference, or only a run that got `worse` (a higher tier, or exploited
    /// where it was not).
    #[arg(long, value_enum, default_value_t = FailOn::Any)]
    fail_on: FailOn,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// The changed, added and removed runs, and the counts by attack and by group.
    Human,
    /// `changed`, `added`, `removed` and `summary`.
    Json,
    /// One row per changed, added or removed run.
    Csv,
    /// GitHub Actions annotations: an error per run that got worse, a warning per other difference.
    Github,
}

/// What makes the exit code 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FailOn {
    /// Any changed, added or removed run.
    Any,
    /// Only a run that got worse.
    Worse,
}

pub(crate) fn run(args: Args, out: &mut Output<'_>) -> u8 {
    let mut reports = Vec::with_capacity(2);
    for path in [&args.old, &args.new] {
        match read::read_report(path) {
            Ok(runs) => reports.push(runs),
            Err(error) => {
                eprintln!(
                    "error: {}",
                    crate::render::safe_text::escape(&error.to_string())
                );
                return EXIT_TROUBLE;
            }
        }
    }
    let (Some(new), Some(old)) = (reports.pop(), reports.pop()) else {
        return EXIT_TROUBLE;
    };
    let diff = compare::Diff::new(old, new);
    if diff.old_runs > 0 && diff.new_runs > 0 && diff.unchanged + diff.changed.len() == 0 {
        eprintln!(
            "warning: {} and {} have no run in common (runs are matched by attack id and trace): are they reports of the same campaign?",
            crate::render::safe_text::escape(&args.old.display().to_string()),
            crate::render::safe_text::escape(&args.new.display().to_string()),
        );
    }
    let code = match args.fail_on {
        FailOn::Any if diff.differs() => EXIT_DIFFERENT,
        FailOn::Worse if diff.any_worse() => EXIT_DIFFERENT,
        _ => EXIT_SAME,
    };
    let names = render::Names {
        old: &args.old.display().to_string(),
        new: &args.new.display().to_string(),
    };
    let text = match args.format {
        Format::Human => render::human(&diff),
        Format::Json => render::json(&diff, &names, code),
        Format::Csv => render::csv(&diff),
        Format::Github => render::github(&diff),
    };
    out.write(&text);
    code
}
