//! The JUnit XML report ([`junit`](crate::junit)), built as typed structures (suites, suite,
//! test cases with one outcome each) and written by one writer that owns the XML layout and its
//! escaping ([`xml`](crate::xml)).

use std::fmt::Write as _;

use super::*;

/// `<testsuites>` with its one `<testsuite>`.
struct TestSuites {
    name: &'static str,
    tests: usize,
    failures: usize,
    errors: usize,
    suite: TestSuite,
}

struct TestSuite {
    name: String,
    skipped: usize,
    timestamp: Option<String>,
    properties: Vec<(String, String)>,
    cases: Vec<TestCase>,
}

struct TestCase {
    classname: String,
    name: String,
    outcome: Outcome,
}

/// What happened to a test case: the child element it gets, if any.
enum Outcome {
    Passed,
    /// `<failure type=… message=…>text</failure>`.
    Failure {
        kind: &'static str,
        message: String,
        text: String,
    },
    /// `<error type="error" message=…/>`.
    Error {
        message: String,
    },
    /// `<skipped message=…/>`.
    Skipped {
        message: String,
    },
}

impl TestSuites {
    /// The document, valid against the Jenkins/Ant `junit-10.xsd`.
    fn write(&self) -> String {
        let (tests, failures, errors) = (self.tests, self.failures, self.errors);
        let suite = &self.suite;
        let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        // junit-10.xsd: `skipped` is an attribute of `testsuite`, not of `testsuites`.
        let _ = writeln!(
            x,
            "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">",
            xml::attr(self.name)
        );
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{}\"{}>",
            xml::attr(&suite.name),
            suite.skipped,
            suite
                .timestamp
                .as_deref()
                .map(|t| format!(" timestamp=\"{}\"", xml::attr(t)))
                .unwrap_or_default(),
        );
        x.push_str("    <properties>\n");
        for (key, value) in &suite.properties {
            let _ = writeln!(
                x,
                "      <property name=\"{}\" value=\"{}\"/>",
                xml::attr(key),
                xml::attr(value)
            );
        }
        x.push_str("    </properties>\n");
        for case in &suite.cases {
            let _ = write!(
                x,
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml::attr(&case.classname),
                xml::attr(&case.name)
            );
            let child = match &case.outcome {
                Outcome::Passed => {
                    x.push_str("/>\n");
                    continue;
                }
                Outcome::Failure {
                    kind,
                    message,
                    text,
                } => format!(
                    "<failure type=\"{}\" message=\"{}\">{}</failure>",
                    xml::attr(kind),
                    xml::attr(message),
                    xml::text(text)
                ),
                Outcome::Error { message } => {
                    format!("<error type=\"error\" message=\"{}\"/>", xml::attr(message))
                }
                Outcome::Skipped { message } => {
                    format!("<skipped message=\"{}\"/>", xml::attr(message))
                }
            };
            let _ = write!(x, ">\n      {child}\n    </testcase>\n");
        }
        x.push_str("  </testsuite>\n</testsuites>\n");
        x
    }
}

/// JUnit XML: one test suite for the attack, one test case per indicator; a matched indicator is a
/// failure (the agent complied), an error an error, a skipped one skipped. The verdict, max tier and
/// exit code are suite properties, with each indicator's tier as `tier:ID`. Valid against the
/// Jenkins/Ant `junit-10.xsd`; an `error` verdict no indicator error explains is a test case
/// `verdict` with an `<error>`.
pub fn junit(document: &Document, verdict: &AttackVerdict, stats: &TraceStats) -> String {
    let attack_id = verdict.attack_id.as_deref().unwrap_or("oatf");
    let name = document
        .attack
        .as_ref()
        .and_then(|a| a.name.as_deref())
        .unwrap_or(attack_id);
    let s = &verdict.evaluation_summary;
    // An `error` verdict no indicator error explains (a trace without messages, nothing evaluable)
    // is a test case `verdict` with an `<error>`, so that a CI test view shows it red.
    let verdict_error = verdict.result == AttackResult::Error && s.error == 0;
    // Under `--strict`, warnings that fail the run are a failed test case `warnings` (D-69).
    let warnings = warnings(verdict, stats);
    let strict_failed = strict_failure(verdict, stats);

    let mut properties = vec![("verdict".to_owned(), verdict.result.as_str().to_owned())];
    if let Some(tier) = verdict.max_tier {
        properties.push(("max_tier".to_owned(), tier.as_str().to_owned()));
    }
    properties.extend([
        (
            "exit_code".to_owned(),
            run_exit_code(verdict, stats).to_string(),
        ),
        ("trace".to_owned(), stats.name.clone()),
        ("messages".to_owned(), stats.messages.to_string()),
        ("malformed_lines".to_owned(), stats.malformed.to_string()),
    ]);
    properties.extend(
        warnings
            .iter()
            .map(|w| ("warning".to_owned(), w.message.clone())),
    );
    // junit-10.xsd has no properties on a test case: each indicator's tier is a suite property
    // `tier:ID`.
    properties.extend(verdict.indicator_verdicts.iter().filter_map(|v| {
        v.tier
            .map(|t| (format!("tier:{}", v.indicator_id), t.to_string()))
    }));

    let case = |name: &str, outcome| TestCase {
        classname: attack_id.to_owned(),
        name: name.to_owned(),
        outcome,
    };
    let mut cases: Vec<TestCase> = verdict
        .indicator_verdicts
        .iter()
        .map(|v| {
            let evidence = v.evidence.clone().unwrap_or_default();
            let outcome = match v.result {
                IndicatorResult::NotMatched => Outcome::Passed,
                IndicatorResult::Matched => {
                    let at = stats
                        .matched_lines
                        .get(&v.indicator_id)
                        .map(|line| format!(" (line {line} of {})", stats.name))
                        .unwrap_or_default();
                    // The tier is named in the failure message (and is a suite property).
                    let tier = v.tier.map(|t| format!(", tier {t}")).unwrap_or_default();
                    Outcome::Failure {
                        kind: "matched",
                        message: format!("the agent complied: indicator matched{at}{tier}"),
                        text: evidence,
                    }
                }
                IndicatorResult::Error => Outcome::Error { message: evidence },
                IndicatorResult::Skipped => Outcome::Skipped { message: evidence },
            };
            case(&v.indicator_id, outcome)
        })
        .collect();
    if verdict_error {
        let message = verdict
            .diagnostic
            .as_deref()
            .unwrap_or("the verdict could not be established")
            .to_owned();
        cases.push(case("verdict", Outcome::Error { message }));
    }
    if strict_failed {
        let mut reasons: Vec<String> = warnings.iter().map(|w| w.message.clone()).collect();
        if stats.malformed > 0 {
            reasons.push(format!("{} malformed trace lines skipped", stats.malformed));
        }
        cases.push(case(
            "warnings",
            Outcome::Failure {
                kind: "strict",
                message: format!("--strict: the run has warnings (exit {EXIT_STRICT_WARNINGS})"),
                text: reasons.join("\n"),
            },
        ));
    }
    TestSuites {
        name: "oatf evaluate",
        tests: verdict.indicator_verdicts.len()
            + usize::from(verdict_error)
            + usize::from(strict_failed),
        failures: s.matched + usize::from(strict_failed),
        errors: s.error + usize::from(verdict_error),
        suite: TestSuite {
            name: format!("{attack_id} {name}"),
            skipped: s.skipped,
            timestamp: verdict.timestamp.clone(),
            properties,
            cases,
        },
    }
    .write()
}
