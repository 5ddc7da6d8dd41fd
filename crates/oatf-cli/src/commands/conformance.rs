//! `oatf conformance [DIR]`: runs a conformance suite in the OATF fixture layout.

use std::path::PathBuf;

use crate::output::Output;

use oatf_conformance::{FILTER_ENV, Filter, KNOWN_FAILURES_FILE, KnownFailures, run_suite};

/// Arguments of `oatf conformance`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Suite directory (parse/, validate/, normalize/, roundtrip/, evaluate/, verdict/, primitives/).
    /// Default: our corpus, embedded in the binary at build time.
    dir: Option<PathBuf>,
    /// Known-failures file (`ID reason` per line). Default: `known-failures.txt` in the suite directory.
    #[arg(long, value_name = "FILE")]
    known_failures: Option<PathBuf>,
    /// Ignore any known-failures file: every failing case fails the run.
    #[arg(long)]
    strict: bool,
    /// Only cases whose id or file contains a term; `-term` excludes (e.g. `OATF-RS-DUR-,-OATF-RS-DUR-004`).
    /// Default: the OATF_CONFORMANCE environment variable.
    #[arg(long, value_name = "TERMS", allow_hyphen_values = true)]
    filter: Option<String>,
    /// Print the unexpected results and the last line only (no known failures, skips or counts).
    #[arg(long, short)]
    quiet: bool,
}

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
}

/// A directory holding the embedded corpus, written on demand and removed when dropped.
struct ExtractedCorpus(PathBuf);

impl ExtractedCorpus {
    /// Writes the corpus embedded at build time (`build.rs`) into a new directory under the system's
    /// temporary directory.
    fn write() -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!(
            "oatf-conformance-{}-{}",
            env!("CARGO_PKG_VERSION"),
            std::process::id()
        ));
        let extracted = ExtractedCorpus(dir);
        for (name, bytes) in embedded::CORPUS {
            let path = extracted.0.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            std::fs::write(&path, bytes)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok(extracted)
    }
}

impl Drop for ExtractedCorpus {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn run(args: Args, out: &mut Output<'_>) -> u8 {
    let extracted;
    let dir = match args.dir {
        Some(dir) => dir,
        None if embedded::CORPUS.is_empty() => {
            eprintln!(
                "error: this oatf was built without the conformance corpus; pass the suite directory: oatf conformance DIR"
            );
            return 2;
        }
        None => match ExtractedCorpus::write() {
            Ok(corpus) => {
                extracted = corpus;
                extracted.0.clone()
            }
            Err(message) => {
                eprintln!("error: {message}");
                return 2;
            }
        },
    };
    if !dir.is_dir() {
        eprintln!("error: {} is not a directory", dir.display());
        return 2;
    }
    let known = if args.strict {
        KnownFailures::none()
    } else {
        let path = args
            .known_failures
            .unwrap_or_else(|| dir.join(KNOWN_FAILURES_FILE));
        match KnownFailures::load(&path) {
            Ok(known) => known,
            Err(message) => {
                eprintln!("error: {message}");
                return 2;
            }
        }
    };
    let filter = match args.filter {
        Some(terms) => Filter::parse(&terms),
        None => Filter::from_env(),
    };
    if !filter.is_empty() && !args.quiet {
        eprintln!("note: running the cases selected by the filter ({FILTER_ENV} or --filter)");
    }
    let report = run_suite(&dir, &filter, &known);
    let text = report.to_string();
    if args.quiet {
        let mut lines: Vec<&str> = text.lines().collect();
        let last = lines.pop().unwrap_or_default();
        for line in lines {
            if line.starts_with("FAIL ")
                || line.starts_with("  expected:")
                || line.starts_with("  actual:")
            {
                out.write(&format!("{line}\n"));
            }
        }
        out.write(&format!("{last}\n"));
    } else {
        out.write(&format!("{text}\n"));
    }
    if report.results.is_empty() {
        eprintln!("error: no case found under {}", dir.display());
        return 1;
    }
    u8::from(!report.is_success())
}
