//! `oatf evaluate DOC TRACE`: evaluates a recorded trace against a document's indicators (format §6)
//! and reports the verdict as text, JSON, SARIF 2.1.0 or JUnit XML (`oatf::report`). Several traces, a
//! directory or `--manifest` make a campaign (`crate::campaign`).
//!
//! The trace is read as a stream (`docs/trace-format.md`): memory does not depend on its length.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use oatf::AttackVerdict;
use oatf::CompiledAttack;
use oatf::Document;
use oatf::Tier;
use oatf::report::TraceStats;
use oatf::report::json_report;
use oatf::report::junit;
use oatf::report::run_exit_code;
use oatf::report::sarif;
use oatf::report::warnings;
use oatf::trace::Compat;

use crate::exit::EXIT_USAGE;
use crate::input::source::{document_given_as_trace, read_input, trace_given_as_document};
use crate::options::validate_options;
use crate::output::Output;
use crate::render::diagnostic::{print_load_error, render, with_path};
use crate::render::plural;
use trace::{EXIT_INVALID_DOCUMENT, EXIT_NO_INPUT, Format, evaluate, one_line, result_with_tier};

mod campaign;
mod groups;
mod trace;

/// The exit codes, as `--help` shows them.
const EXIT_CODES: &str = "\
Exit codes (the same as ThoughtJack's, so that CI reads both alike):
  0   not_exploited: the agent resisted (no indicator matched)
  1   exploited, with no tier or max_tier `ingested`
  2   exploited with max_tier `local_action`
  3   exploited with max_tier `boundary_breach`
  4   partial (correlation `all`, some indicators matched) with no tier; a partial verdict
      with a max_tier exits with that tier's code, 1 to 3
  5   error: the verdict could not be established (an indicator failed, none could be
      evaluated, or the trace has no message)
  6   with --strict only: not_exploited, but the run has warnings (a declared actor without
      messages, an indicator target that never resolved, malformed trace lines), so the
      result may be meaningless; a verdict that exits 1 to 5 keeps its code
  64  usage error (bad arguments)
  65  the document does not parse or is not valid
  66  the document or the trace cannot be read
  74  the report cannot be written (standard output full or closed)

Malformed trace lines are reported on stderr with their line numbers and counted in the report; the
verdict is computed from the lines that could be read.";

/// Arguments of `oatf evaluate`.
#[derive(Debug, clap::Args)]
#[command(after_help = EXIT_CODES)]
pub(crate) struct Args {
    /// The OATF document (YAML); `-` reads standard input.
    #[arg(value_name = "DOC", required_unless_present = "manifest")]
    document: Option<PathBuf>,
    /// The trace, one JSON message per line (docs/trace-format.md); `-` reads standard input.
    /// Several traces, or a directory of traces (`*.jsonl`, `*.ndjson`), make a campaign: each is
    /// evaluated in parallel and the report summarizes them.
    #[arg(value_name = "TRACE", required_unless_present = "manifest")]
    traces: Vec<PathBuf>,
    /// A campaign manifest pairing documents and traces (YAML or JSON: `runs: [{document, trace}]`,
    /// paths relative to the manifest; docs/guide.md).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["document", "traces"])]
    manifest: Option<PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// The longest trace line accepted, in bytes; longer lines are reported and skipped.
    #[arg(long, value_name = "BYTES", default_value_t = oatf::trace::DEFAULT_MAX_LINE_LEN)]
    max_line_len: usize,
    /// No progress display, and a campaign report without the list of runs.
    #[arg(long, short)]
    quiet: bool,
    /// Fail on warnings: a run whose verdict is not_exploited exits 6 when a declared actor has no
    /// message, an indicator's target never resolved in the messages it applied to, or trace lines
    /// were malformed (the result may be meaningless). In every format and in campaigns.
    #[arg(long)]
    strict: bool,
    /// Score the traces as a tool other than the spec does (decision D-100): `thoughtjack-context`
    /// evaluates them as ThoughtJack's context mode (its public benchmark) does, deriving
    /// responses from the AG-UI text events first; `spec-exact` (the default) is format §6 as
    /// written. A manifest's `compat:` (top level, or per run, which wins) overrides it.
    #[arg(long, value_name = "PROFILE", default_value = "spec-exact", value_parser = parse_compat)]
    compat: Compat,
    /// Colour in the human report: `auto` (when standard output is a terminal and `NO_COLOR` is
    /// not set), `always` or `never`.
    #[arg(long, value_enum, default_value_t = crate::render::color::When::Auto)]
    color: crate::render::color::When,
}

/// A `--compat` value: one of the profiles' names.
fn parse_compat(value: &str) -> Result<Compat, String> {
    value
        .parse()
        .map_err(|e: oatf::trace::UnknownCompat| e.to_string())
}

/// Prints a clap error and gives the exit code: 0 for `--help` and `--version`, else 64 (usage,
/// sysexits `EX_USAGE`) for every subcommand, since 1 to 5 are verdicts (spec-decisions 24).
pub(crate) fn parse_error_code(error: &clap::Error) -> u8 {
    let _ = error.print();
    match error.exit_code() {
        0 => 0,
        _ => EXIT_USAGE,
    }
}

pub(crate) fn run(args: Args, out: &mut Output<'_>) -> u8 {
    let color = args.color.enabled(out.is_terminal());
    if campaign::is_campaign(args.manifest.as_ref(), &args.traces, args.format) {
        return campaign::run(
            &campaign::Options {
                manifest: args.manifest.as_ref(),
                document: args.document.as_ref(),
                traces: &args.traces,
                format: args.format,
                max_line_len: args.max_line_len,
                compat: args.compat,
                quiet: args.quiet,
                strict: args.strict,
                color,
            },
            out,
        );
    }
    let (Some(document), [trace]) = (&args.document, args.traces.as_slice()) else {
        eprintln!("error: give a document and a trace");
        return EXIT_USAGE;
    };
    if document.as_os_str() == "-" && trace.as_os_str() == "-" {
        eprintln!("error: the document and the trace cannot both be standard input");
        return EXIT_USAGE;
    }
    let (name, source) = match read_input(document) {
        Ok(input) => input,
        Err(message) => {
            eprintln!("error: {}", one_line(&message));
            return EXIT_NO_INPUT;
        }
    };
    if let Some(hint) = trace_given_as_document(&source) {
        let swapped = trace.as_os_str() != "-"
            && std::fs::File::open(trace)
                .ok()
                .map(|f| Box::new(BufReader::new(f)) as Box<dyn BufRead>)
                .is_some_and(|mut input| document_given_as_trace(&mut input).is_some());
        if swapped {
            eprintln!(
                "error: the arguments look swapped: {} is a trace and {} a document; run `oatf evaluate {} {}`",
                one_line(&name),
                one_line(&trace.display().to_string()),
                one_line(&trace.display().to_string()),
                one_line(&name),
            );
        } else {
            eprintln!("error: {}: {hint}", one_line(&name));
        }
        return EXIT_USAGE;
    }
    let loaded = match oatf::load_with(&source, &validate_options()) {
        Ok(loaded) => loaded,
        Err(error) => {
            // Every problem at once: the V- errors of the parts that parsed too.
            print_load_error(&error, &name, &source);
            return EXIT_INVALID_DOCUMENT;
        }
    };
    for warning in &loaded.warnings {
        let headline = with_path(warning.message(), warning.path());
        eprint!("{}", render(warning, headline, &name, &source));
    }
    let attack = CompiledAttack::new(&loaded.document, &oatf::default_eval_options());

    let (trace_name, input): (String, Box<dyn BufRead>) = if trace.as_os_str() == "-" {
        ("<stdin>".to_owned(), Box::new(std::io::stdin().lock()))
    } else {
        match File::open(trace) {
            Ok(file) => (
                trace.display().to_string(),
                Box::new(BufReader::with_capacity(1 << 16, file)),
            ),
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", trace.display());
                return EXIT_NO_INPUT;
            }
        }
    };
    let mut input = input;
    if let Some(hint) = document_given_as_trace(&mut input) {
        eprintln!("error: {}: {hint}", one_line(&trace_name));
        return EXIT_USAGE;
    }
    let (mut verdict, mut stats) = match evaluate(
        &attack,
        input,
        trace_name,
        (args.max_line_len, args.compat),
        !args.quiet,
    ) {
        Ok(done) => done,
        Err(message) => {
            eprintln!("error: {}", one_line(&message));
            return EXIT_NO_INPUT;
        }
    };
    verdict.source = Some(format!("oatf {}", env!("CARGO_PKG_VERSION")));
    stats.strict = args.strict;
    let report = match args.format {
        Format::Human => human(&loaded.document, &verdict, &stats),
        Format::Json => json_report(&verdict, &stats),
        Format::Sarif => sarif(&loaded.document, &verdict, &stats, trace),
        Format::Junit => junit(&loaded.document, &verdict, &stats),
        // A CSV or HTML report is always a campaign's (`campaign::is_campaign`).
        Format::Csv | Format::Html => String::new(),
    };
    let report = if color && args.format == Format::Human {
        crate::render::color::paint_verdicts(&report)
    } else {
        report
    };
    out.write(&report);
    run_exit_code(&verdict, &stats)
}

/// The longest evidence the human summary shows per indicator (`--format json` has it whole).
const HUMAN_EVIDENCE_CHARS: usize = 160;

/// `text` cut to `chars` characters, with `…` when cut.
fn shorten(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

fn human(document: &Document, verdict: &AttackVerdict, stats: &TraceStats) -> String {
    let attack = document.attack.as_ref();
    let mut text = String::new();
    let id = verdict.attack_id.as_deref().unwrap_or("(no attack id)");
    let name = attack.and_then(|a| a.name.as_deref()).unwrap_or("");
    text.push_str(&format!("{}  {}\n", one_line(id), one_line(name)));
    let logic = attack
        .and_then(|a| a.correlation.as_ref())
        .and_then(|c| c.logic.as_ref())
        .map_or("any", |l| l.as_str());
    let severity = attack
        .and_then(|a| a.severity.as_ref())
        .map(|s| format!(", severity {}", s.level().as_str()))
        .unwrap_or_default();
    text.push_str(&format!(
        "verdict: {}  (correlation {logic}{severity})\n",
        result_with_tier(verdict)
    ));
    if let Some(diagnostic) = &verdict.diagnostic {
        text.push_str(&format!("  {}\n", one_line(diagnostic)));
    }
    let width = verdict
        .indicator_verdicts
        .iter()
        .map(|v| one_line(&v.indicator_id).chars().count())
        .max()
        .unwrap_or(0);
    let tiers = verdict.indicator_verdicts.iter().any(|v| v.tier.is_some());
    for v in &verdict.indicator_verdicts {
        let mut line = format!(
            "  {:<11}  {:<width$}",
            v.result.as_str(),
            one_line(&v.indicator_id)
        );
        if tiers {
            let tier = v.tier.map_or("", Tier::as_str);
            line.push_str(&format!("  {tier:<15}"));
        }
        if let Some(at) = stats.matched_lines.get(&v.indicator_id) {
            line.push_str(&format!("  line {at}"));
        }
        if let Some(evidence) = &v.evidence {
            line.push_str("  ");
            line.push_str(&shorten(&one_line(evidence), HUMAN_EVIDENCE_CHARS));
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    let s = &verdict.evaluation_summary;
    text.push_str(&format!(
        "indicators: {} matched, {} not matched, {} error, {} skipped\n",
        s.matched, s.not_matched, s.error, s.skipped
    ));
    text.push_str(&format!(
        "trace: {} message{} in {} line{} of {}",
        stats.messages,
        plural(stats.messages),
        stats.lines,
        plural(stats.lines),
        one_line(&stats.name)
    ));
    if stats.after_grace > 0 {
        text.push_str(&format!(
            "; {} after the grace period, not evaluated",
            stats.after_grace
        ));
    }
    if stats.compat != Compat::SpecExact {
        text.push_str(&format!("; scored with --compat {}", stats.compat));
    }
    text.push('\n');
    for warning in warnings(verdict, stats) {
        text.push_str(&format!("warning: {}\n", one_line(&warning.message)));
    }
    if stats.malformed > 0 {
        text.push_str(&format!(
            "warning: {} malformed line{} skipped (listed on stderr); the verdict is computed from the \
             other lines\n",
            stats.malformed,
            plural(stats.malformed),
        ));
    }
    let code = run_exit_code(verdict, stats);
    if stats.strict && code == oatf::report::EXIT_STRICT_WARNINGS {
        text.push_str(&format!(
            "error: --strict: the run has warnings, so not_exploited cannot be trusted (exit {code})\n"
        ));
    }
    text
}
