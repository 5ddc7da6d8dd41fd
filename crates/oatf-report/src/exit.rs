//! The exit codes of a run: ThoughtJack's codes of a verdict (spec-decisions 24) and the strict
//! mode of D-69.

use oatf_eval::{AttackResult, AttackVerdict};
use oatf_model::Tier;

use crate::stats::{TraceStats, warnings};

/// The exit code of a verdict (spec-decisions 24, ThoughtJack's codes): 0 `not_exploited`; 1, 2, 3
/// `exploited` with no tier or `ingested`, `local_action`, `boundary_breach`; 4 `partial` without a
/// tier (a tiered partial exits with its tier's code); 5 `error`.
///
/// ```
/// use oatf_eval::{AttackResult, AttackVerdict};
///
/// let verdict: AttackVerdict = serde_json::from_value(serde_json::json!({
///     "result": "not_exploited", "indicator_verdicts": [],
///     "evaluation_summary": {"matched": 0, "not_matched": 1, "error": 0, "skipped": 0}
/// }))?;
/// assert_eq!(verdict.result, AttackResult::NotExploited);
/// assert_eq!(oatf_report::exit_code(&verdict), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn exit_code(verdict: &AttackVerdict) -> u8 {
    let tier_code = |tier: Option<Tier>| match tier {
        None | Some(Tier::Ingested) => 1,
        Some(Tier::LocalAction) => 2,
        Some(Tier::BoundaryBreach) => 3,
    };
    match (verdict.result, verdict.max_tier) {
        (AttackResult::NotExploited, _) => 0,
        (AttackResult::Exploited, tier) => tier_code(tier),
        (AttackResult::Partial, None) => 4,
        (AttackResult::Partial, tier) => tier_code(tier),
        (AttackResult::Error, _) => 5,
    }
}

/// The exit code of a run under `--strict` whose verdict exits 0 (`not_exploited`) although the
/// evaluation had warnings or malformed trace lines (decision D-69): the result may be meaningless.
pub const EXIT_STRICT_WARNINGS: u8 = 6;

/// The exit code of a run under `--strict` (decision D-69): [`exit_code`], except that a run that
/// would exit 0 exits [`EXIT_STRICT_WARNINGS`] (6) when it has [`warnings`] or malformed trace
/// lines. A verdict that already fails keeps its code: the warnings do not hide an exploit.
///
/// ```
/// use oatf_eval::AttackVerdict;
/// use oatf_report::{TraceStats, strict_exit_code};
///
/// let verdict: AttackVerdict = serde_json::from_value(serde_json::json!({
///     "result": "not_exploited", "indicator_verdicts": [],
///     "evaluation_summary": {"matched": 0, "not_matched": 1, "error": 0, "skipped": 0}
/// }))?;
/// let mut stats = TraceStats::new("run.jsonl");
/// assert_eq!(strict_exit_code(&verdict, &stats), 0);
/// stats.silent_actors.push("default".into());
/// assert_eq!(strict_exit_code(&verdict, &stats), 6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn strict_exit_code(verdict: &AttackVerdict, stats: &TraceStats) -> u8 {
    match exit_code(verdict) {
        0 if stats.malformed > 0 || !warnings(verdict, stats).is_empty() => EXIT_STRICT_WARNINGS,
        code => code,
    }
}

/// The exit code of a run: [`strict_exit_code`] when [`TraceStats::strict`] is set, else [`exit_code`].
pub fn run_exit_code(verdict: &AttackVerdict, stats: &TraceStats) -> u8 {
    if stats.strict {
        strict_exit_code(verdict, stats)
    } else {
        exit_code(verdict)
    }
}

/// Whether `--strict` turns this run into a failure that the verdict alone is not.
pub(crate) fn strict_failure(verdict: &AttackVerdict, stats: &TraceStats) -> bool {
    stats.strict && exit_code(verdict) == 0 && run_exit_code(verdict, stats) != 0
}
