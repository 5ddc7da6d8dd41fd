//! The JUnit XML report ([`junit`](crate::junit)), built as typed structures (suites, suite,
//! test cases with one outcome each) and written by one writer that owns the XML layout and its
//! escaping ([`xml`](crate::xml)).

use oatf_eval::{AttackResult, AttackVerdict, IndicatorResult};
use oatf_model::Document;

use crate::exit::{EXIT_STRICT_WARNINGS, run_exit_code, strict_failure};
use crate::stats::{TraceStats, warnings};
use crate::xml::{Outcome, TestCase, TestSuite, TestSuites};

/// JUnit XML: one test suite for the attack, one test case per indicator; a matched indicator is a
/// failure (the agent complied), an error an error, a skipped one skipped. The verdict, max tier and
/// exit code are suite properties, with each indicator's tier as `tier:ID`. Valid against the
/// Jenkins/Ant `junit-10.xsd`; an `error` verdict no indicator error explains is a test case
/// `verdict` with an `<error>`.
pub fn junit(document: &Document, verdict: &AttackVerdict, stats: &TraceStats) -> String {
    let mut report = TestSuites::new("oatf evaluate");
    report.suites.push(junit_suite(document, verdict, stats));
    report.write()
}

/// The one test suite of [`junit`], named `ATTACK-ID name`: a campaign's report holds one per run.
pub fn junit_suite(document: &Document, verdict: &AttackVerdict, stats: &TraceStats) -> TestSuite {
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

    let case = |name: &str, outcome| TestCase::new(attack_id, name, outcome);
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
                    Outcome::failure(
                        "matched",
                        format!("the agent complied: indicator matched{at}{tier}"),
                        evidence,
                    )
                }
                IndicatorResult::Error => Outcome::error("error", evidence),
                IndicatorResult::Skipped => Outcome::skipped(evidence),
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
        cases.push(case("verdict", Outcome::error("error", message)));
    }
    if strict_failed {
        let mut reasons: Vec<String> = warnings.iter().map(|w| w.message.clone()).collect();
        if stats.malformed > 0 {
            reasons.push(format!("{} malformed trace lines skipped", stats.malformed));
        }
        cases.push(case(
            "warnings",
            Outcome::failure(
                "strict",
                format!("--strict: the run has warnings (exit {EXIT_STRICT_WARNINGS})"),
                reasons.join("\n"),
            ),
        ));
    }
    let mut suite = TestSuite::new(format!("{attack_id} {name}"));
    suite.timestamp = verdict.timestamp.clone();
    suite.properties = properties;
    suite.cases = cases;
    suite
}
