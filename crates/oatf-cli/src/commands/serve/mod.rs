//! `oatf serve DOC`: plays a document's `mcp_server` actor over MCP's stdio transport, driving
//! `oatf::runtime::PhaseEngine` with the client's traffic, and records every message in the trace
//! format `oatf evaluate` reads (`--trace`), scoring it at the end with `--evaluate`.
//!
//! JSON-RPC is spoken with `serde_json` (`jsonrpc.rs`, D-120); `mcp.rs` maps the effective state to
//! MCP results (D-121); `session.rs` is the loop; `record.rs` the recording.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::mpsc;

use oatf::report::campaign::{EXIT_INVALID_DOCUMENT, EXIT_NO_INPUT};
use oatf::runtime::PhaseEngine;
use oatf::{CompiledAttack, TraceEvaluator};

use crate::exit::EXIT_USAGE;
use crate::input::source::read_input;
use crate::options::validate_options;
use crate::output::{EXIT_IOERR, Output};
use crate::render::diagnostic::print_load_error;
use crate::render::safe_text::escape;

mod jsonrpc;
mod mcp;
mod record;
mod session;

/// The default longest line accepted from the client: 1 MiB.
const DEFAULT_MAX_LINE_LEN: usize = 1 << 20;

/// The mode `oatf serve` plays.
const SERVER_MODE: &str = "mcp_server";

/// The exit codes, as `--help` shows them.
const EXIT_CODES: &str = "\
Exit codes:
  0   the client ended the session (without --evaluate)
  0-5 with --evaluate: the verdict of the session, as `oatf evaluate` exits
  64  usage error (bad arguments, an --actor the document does not have or that is not mcp_server)
  65  the document does not parse, is not valid, or has no mcp_server actor
  66  the document cannot be read
  74  the trace file cannot be created

Standard input and output carry the MCP session; messages about it go to standard error.";

/// Arguments of `oatf serve`.
#[derive(Debug, clap::Args)]
#[command(after_help = EXIT_CODES)]
pub(crate) struct Args {
    /// The OATF document (YAML) whose mcp_server actor to play.
    #[arg(value_name = "DOC")]
    document: PathBuf,
    /// The actor to play; may be left out when the document has exactly one mcp_server actor.
    #[arg(long, value_name = "NAME")]
    actor: Option<String>,
    /// Record every message of the session into FILE (JSON Lines, docs/trace-format.md), each line
    /// flushed as it is written.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// When the session ends, print the verdict of its messages on standard error and exit with
    /// the verdict's code (as `oatf evaluate`).
    #[arg(long)]
    evaluate: bool,
    /// The longest line accepted from the client, in bytes; a longer one is answered with a
    /// JSON-RPC parse error and skipped, never held. A client's requests are small; the bound keeps
    /// the parsed message of one line to tens of megabytes at most.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE_LEN)]
    max_line_len: usize,
}

pub(crate) fn run(args: Args, _out: &mut Output<'_>) -> u8 {
    let (name, source) = match read_input(&args.document) {
        Ok(input) => input,
        Err(message) => {
            eprintln!("error: {}", escape(&message));
            return EXIT_NO_INPUT;
        }
    };
    let loaded = match oatf::load_with(&source, &validate_options()) {
        Ok(loaded) => loaded,
        Err(error) => {
            print_load_error(&error, &name, &source);
            return EXIT_INVALID_DOCUMENT;
        }
    };
    let normalized = loaded.normalized();
    let engine = match choose_actor(&normalized, args.actor.as_deref()) {
        Ok(actor) => match PhaseEngine::for_document(&normalized, Some(actor)) {
            Ok(engine) => engine,
            Err(e) => {
                eprintln!("error: {}: {}", escape(&name), escape(e.message()));
                return EXIT_INVALID_DOCUMENT;
            }
        },
        Err((code, message)) => {
            eprintln!("error: {}: {}", escape(&name), escape(&message));
            return code;
        }
    };
    let file = match &args.trace {
        Some(path) => match File::create(path) {
            Ok(file) => Some((path.display().to_string(), file)),
            Err(e) => {
                eprintln!(
                    "error: cannot create the trace {}: {e}",
                    escape(&path.display().to_string())
                );
                return EXIT_IOERR;
            }
        },
        None => None,
    };
    let attack = args
        .evaluate
        .then(|| CompiledAttack::new(&loaded.document, &oatf::default_eval_options()));
    let recorder = record::Recorder::new(
        engine.actor(),
        file,
        attack.as_ref().map(TraceEvaluator::new),
    );

    let (sender, lines) = mpsc::channel();
    let max_line_len = args.max_line_len;
    // The reader blocks on standard input; the session waits on the channel with the phase clock's
    // deadline. At the end of the session the thread may still be blocked: the process exits.
    std::thread::spawn(move || {
        let mut input = BufReader::new(std::io::stdin());
        loop {
            let line = jsonrpc::read_line(&mut input, max_line_len);
            let last = !matches!(line, Ok(jsonrpc::Line::Text(_) | jsonrpc::Line::TooLong));
            if sender.send(line).is_err() || last {
                break;
            }
        }
    });
    let stdout = std::io::stdout().lock();
    let session = session::Session::new(engine, stdout, recorder, max_line_len);
    let recorder = session.run(&lines);
    eprintln!(
        "oatf serve: session ended, {} messages recorded",
        recorder.count()
    );
    match recorder.finish() {
        Some(verdict) => {
            eprint!("{}", summary(&verdict));
            oatf::report::exit_code(&verdict)
        }
        None => 0,
    }
}

/// The name of the `mcp_server` actor to play, or the exit code and message of why there is none.
fn choose_actor<'d>(
    document: &oatf::model::NormalizedDocument<'d>,
    requested: Option<&'d str>,
) -> Result<&'d str, (u8, String)> {
    let actors = document.actors();
    let describe = |actors: &[oatf::model::Actor]| {
        actors
            .iter()
            .map(|a| format!("{} ({})", a.name, a.mode))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(requested) = requested {
        return match actors.iter().find(|a| a.name == requested) {
            Some(actor) if actor.mode == SERVER_MODE => Ok(requested),
            Some(actor) => Err((
                EXIT_USAGE,
                format!(
                    "actor {requested:?} is {}: oatf serve plays {SERVER_MODE} actors",
                    actor.mode
                ),
            )),
            None => Err((
                EXIT_USAGE,
                format!(
                    "no actor {requested:?}; the document's actors: {}",
                    describe(actors)
                ),
            )),
        };
    }
    let servers: Vec<&oatf::model::Actor> =
        actors.iter().filter(|a| a.mode == SERVER_MODE).collect();
    match servers.as_slice() {
        [only] => Ok(only.name.as_str()),
        [] => Err((
            EXIT_INVALID_DOCUMENT,
            format!(
                "the document has no {SERVER_MODE} actor to serve (its actors: {})",
                describe(actors)
            ),
        )),
        _ => Err((
            EXIT_USAGE,
            format!(
                "the document has {} {SERVER_MODE} actors: choose one with --actor ({})",
                servers.len(),
                servers
                    .iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The verdict as `--evaluate` prints it on standard error.
fn summary(verdict: &oatf::AttackVerdict) -> String {
    let result = match verdict.max_tier {
        Some(tier) => format!("{} ({tier})", verdict.result),
        None => verdict.result.to_string(),
    };
    let mut text = format!("verdict: {result}\n");
    for indicator in &verdict.indicator_verdicts {
        text.push_str(&format!(
            "  {}  {}",
            escape(&indicator.indicator_id),
            indicator.result
        ));
        if let Some(evidence) = &indicator.evidence {
            text.push_str(&format!("  {}", escape(evidence)));
        }
        text.push('\n');
    }
    text
}
