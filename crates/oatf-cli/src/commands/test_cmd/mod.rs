//! `oatf test [PATH...]`: runs the test cases of every document of a threat library (`NAME.test.yaml`
//! beside `NAME.yaml`; format in `docs/test-files.md`) and prints failures with expected vs actual, or
//! JUnit XML.
//!
//! The last line of the text report is `N passed, N failed`. Each case is one unit; so is an invalid
//! document, an invalid test file, a test file without a document and, with `--require-tests`, a
//! document without a test file.

use oatf::report::xml::{Outcome, TestCase, TestSuite, TestSuites};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use crate::input::library::{self, Problem};
use crate::output::Output;
use cases::{DocumentReport, TestConfig, run_document};

mod cases;
mod test_file;

/// Arguments of `oatf test`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Directories (walked recursively), documents or test files.
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,
    /// Count a document without a test file as a failure.
    #[arg(long)]
    require_tests: bool,
    /// Report format: `text`, or `junit` (JUnit XML, for CI).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the JUnit report to FILE instead of standard output (the text report then goes to
    /// standard output).
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print failures and the summary only, not a line per passing case.
    #[arg(long, short)]
    quiet: bool,
    /// Colour in the text report: `auto` (when standard output is a terminal and `NO_COLOR` is not
    /// set), `always` or `never`.
    #[arg(long, value_enum, default_value_t = crate::render::color::When::Auto)]
    color: crate::render::color::When,
}

/// Report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Text for people.
    Text,
    /// JUnit XML.
    Junit,
    /// GitHub Actions workflow annotations for the failures (the text report goes to stderr).
    Github,
}

pub(crate) fn run(args: Args, out: &mut Output<'_>) -> u8 {
    let library = match library::discover(&args.paths) {
        Ok(library) => library,
        Err(message) => {
            eprintln!("error: {}", crate::render::safe_text::escape(&message));
            return 2;
        }
    };
    // Test files named on the command line bring their documents.
    let mut documents = library.documents.clone();
    for test in &library.tests {
        if let Some(document) = library::document_of_test(test)
            .into_iter()
            .find(|d| d.is_file())
            && !documents.contains(&document)
        {
            documents.push(document);
        }
    }
    documents.sort();
    let config = TestConfig {
        eval_options: oatf::default_eval_options(),
    };
    let reports = collect(&documents, &library.tests, &config, args.require_tests);

    let failed: usize = reports.iter().map(Reported::failed).sum();
    // Like pytest's "no tests ran": a run that checked nothing must not pass CI.
    let ran = reports
        .iter()
        .map(|r| r.report.cases.len() + r.report.problems.len())
        .sum::<usize>();
    let nothing_ran = failed == 0 && ran == 0;
    // Case names, ids, evidence and file names are attacker text: controls escaped.
    let text = crate::render::safe_text::escape_keep_lines(&text_report(&reports, args.quiet))
        .into_owned();
    match (args.format, &args.output) {
        (Format::Text, _) => {
            if args.color.enabled(out.is_terminal()) {
                out.write(&crate::render::color::paint_verdicts(&text));
            } else {
                out.write(&text);
            }
        }
        (Format::Github, _) => {
            eprint!("{text}");
            out.write(&annotations(&reports));
        }
        (Format::Junit, None) => {
            eprint!("{text}");
            out.write(&junit(&reports));
        }
        (Format::Junit, Some(file)) => {
            out.write(&text);
            if let Err(e) = std::fs::write(file, junit(&reports)) {
                eprintln!(
                    "error: cannot write the JUnit report to {}: {e}",
                    crate::render::safe_text::escape(&file.display().to_string())
                );
                return crate::output::EXIT_IOERR;
            }
        }
    }
    if nothing_ran {
        let what = if documents.is_empty() {
            "no OATF document found"
        } else {
            "no test file found (a document's tests are in NAME.test.yaml beside NAME.yaml)"
        };
        let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "error: no tests ran: {what} under {}",
            crate::render::safe_text::escape(&paths.join(", "))
        );
    }
    u8::from(failed > 0 || nothing_ran)
}

/// A document's report and whether it lacks tests.
struct Reported {
    report: DocumentReport,
    missing_tests: bool,
    require_tests: bool,
}

impl Reported {
    fn failed(&self) -> usize {
        self.report.failed() + usize::from(self.missing_tests && self.require_tests)
    }
}

fn collect(
    documents: &[PathBuf],
    tests: &[PathBuf],
    config: &TestConfig,
    require_tests: bool,
) -> Vec<Reported> {
    let mut reports = Vec::new();
    let loaded = crate::input::library::load_all(documents);
    for (path, loaded) in documents.iter().zip(loaded) {
        let test_file = library::test_of_document(path);
        let report = match loaded {
            Ok(document) => run_document(&document, test_file.as_deref(), config),
            Err(problems) => {
                let mut problems = merge_problems(problems);
                // The test file is checked too, so that one run shows both.
                if let Some(test) = &test_file
                    && let Err(problem) = test_file::read_test_file(test)
                {
                    problems.push(problem);
                }
                DocumentReport {
                    document: path.display().to_string(),
                    problems,
                    ..DocumentReport::default()
                }
            }
        };
        reports.push(Reported {
            missing_tests: test_file.is_none(),
            require_tests,
            report,
        });
    }
    // Test files whose document is missing.
    for test in tests {
        let has_document = library::document_of_test(test).iter().any(|d| d.is_file());
        if !has_document {
            let expected = library::document_of_test(test)
                .first()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            reports.push(Reported {
                report: DocumentReport {
                    document: test.display().to_string(),
                    problems: vec![Problem::new(
                        test.display().to_string(),
                        None,
                        format!("no document for this test file (expected {expected})"),
                    )],
                    ..DocumentReport::default()
                },
                missing_tests: false,
                require_tests,
            });
        }
    }
    reports
}

/// An invalid document is one failure, however many errors it has: the errors become one problem
/// whose message lists them all.
fn merge_problems(problems: Vec<Problem>) -> Vec<Problem> {
    let mut problems = problems.into_iter();
    let Some(mut first) = problems.next() else {
        return Vec::new();
    };
    for other in problems {
        first.message.push_str(&format!("\n{other}"));
    }
    vec![first]
}

fn location(file: &str, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("{file}:{line}"),
        None => file.to_owned(),
    }
}

fn text_report(reports: &[Reported], quiet: bool) -> String {
    let mut text = String::new();
    let mut untested = Vec::new();
    let mut unchecked = Vec::new();
    for reported in reports {
        let report = &reported.report;
        for problem in &report.problems {
            let shown = problem.to_string().replace('\n', "\n       ");
            let _ = writeln!(text, "FAIL {shown}");
        }
        for case in &report.cases {
            let at = location(&case.file, case.line);
            match &case.failure {
                None if quiet => {}
                None => {
                    let _ = writeln!(text, "ok   {at}: {}", case.name);
                }
                Some(failure) => {
                    let id = report.attack_id.as_deref().unwrap_or(&report.document);
                    let _ = writeln!(text, "FAIL {at}: {} ({id}): {}", case.name, failure.summary);
                    for detail in &failure.details {
                        let _ = writeln!(text, "       {detail}");
                    }
                }
            }
        }
        if reported.missing_tests && report.problems.is_empty() {
            untested.push(report.document.as_str());
        }
        unchecked.extend(
            report
                .unchecked_examples
                .iter()
                .map(|id| format!("{id} ({})", report.document)),
        );
    }
    if !untested.is_empty() {
        let (word, tail) = if reports.first().is_some_and(|r| r.require_tests) {
            ("FAIL", " (--require-tests)")
        } else {
            ("note:", "")
        };
        let _ = writeln!(
            text,
            "{word} {} document{} without a test file{tail}:",
            untested.len(),
            crate::render::plural(untested.len())
        );
        for document in untested {
            let _ = writeln!(text, "       {document}");
        }
    }
    if !unchecked.is_empty() {
        let _ = writeln!(
            text,
            "note: semantic examples not checked (no semantic evaluator configured): {}",
            unchecked.join(", ")
        );
    }
    let passed: usize = reports.iter().map(|r| r.report.passed()).sum();
    let failed: usize = reports.iter().map(Reported::failed).sum();
    let _ = writeln!(text, "{passed} passed, {failed} failed");
    text
}

/// One workflow annotation per failure: a document problem, a failing case (at its line in the test
/// file), a document without a test file under `--require-tests`.
fn annotations(reports: &[Reported]) -> String {
    use crate::render::github::{At, Level, annotation};
    let mut text = String::new();
    for reported in reports {
        let report = &reported.report;
        for problem in &report.problems {
            text.push_str(&problem.annotation());
        }
        for case in &report.cases {
            if let Some(failure) = &case.failure {
                let mut message = failure.summary.clone();
                for detail in &failure.details {
                    message.push('\n');
                    message.push_str(detail);
                }
                let at = At {
                    file: &case.file,
                    line: case.line,
                    column: None,
                };
                let title = format!("oatf test: {}", case.name);
                text.push_str(&annotation(Level::Error, at, Some(&title), &message));
            }
        }
        if reported.missing_tests && reported.require_tests && report.problems.is_empty() {
            let at = At {
                file: &report.document,
                line: None,
                column: None,
            };
            text.push_str(&annotation(
                Level::Error,
                at,
                Some("oatf test"),
                "no test file for this document (--require-tests)",
            ));
        }
    }
    text
}

/// The JUnit XML report (`oatf::report::xml`, valid against the Jenkins/Ant `junit-10.xsd`): one
/// `testsuite` per document (its `file` the document), one `testcase` per case; a document problem
/// is a failing testcase `load`, a document without a test file a skipped (or, with
/// `--require-tests`, failing) testcase `tests`. The schema has no `file` or `line` on a test case:
/// the failure message starts with `file:line`.
fn junit(reports: &[Reported]) -> String {
    let mut junit = TestSuites::new("oatf test");
    let mut total_time = Duration::ZERO;
    for reported in reports {
        let report = &reported.report;
        let classname = report.attack_id.as_deref().unwrap_or(&report.document);
        let mut suite = TestSuite::new(report.document.clone());
        suite.file = Some(report.document.clone());
        let mut time = Duration::ZERO;
        for problem in &report.problems {
            suite.cases.push(TestCase::new(
                classname,
                "load",
                Outcome::failure(
                    "invalid",
                    format!(
                        "{}: {}",
                        location(&problem.file, problem.line),
                        problem.message.lines().next().unwrap_or_default()
                    ),
                    problem.to_string(),
                ),
            ));
        }
        for case in &report.cases {
            time += case.duration;
            let outcome = match &case.failure {
                None => Outcome::Passed,
                Some(failure) => Outcome::failure(
                    "verdict",
                    format!("{}: {}", location(&case.file, case.line), failure.summary),
                    failure.details.join("\n"),
                ),
            };
            let mut test_case = TestCase::new(classname, case.name.clone(), outcome);
            test_case.time = Some(case.duration);
            suite.cases.push(test_case);
        }
        if reported.missing_tests && report.problems.is_empty() {
            let outcome = if reported.require_tests {
                Outcome::failure("missing-tests", "no test file", "")
            } else {
                Outcome::skipped("no test file")
            };
            suite.cases.push(TestCase::new(classname, "tests", outcome));
        }
        suite.time = Some(time);
        total_time += time;
        junit.suites.push(suite);
    }
    junit.time = Some(total_time);
    junit.write()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_merge_into_one_failure() {
        let a = Problem::new("f", Some(1), "one".to_owned());
        let b = Problem::new("f", Some(2), "two".to_owned());
        let merged = merge_problems(vec![a, b]);
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].message, "one\nf:2: error: two");
    }

    #[test]
    fn locations() {
        assert_eq!(location("a", Some(3)), "a:3");
        assert_eq!(location("a", None), "a");
    }
}
