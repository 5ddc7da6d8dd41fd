//! Verdict types (SDK §2.19, format §9) and `compute_verdict` (SDK §4.5).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
use std::time::{SystemTime, UNIX_EPOCH};

use oatf_model::{Attack, Closed, CorrelationLogic, Tier};
use serde::{Deserialize, Serialize};

use crate::warning::TraceWarning;

/// The result of one indicator (SDK §2.20 `IndicatorResult`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndicatorResult {
    /// The condition was satisfied: evidence of agent compliance.
    Matched,
    /// The condition was not satisfied.
    NotMatched,
    /// The indicator could not be evaluated.
    Error,
    /// The indicator was not evaluated (no evaluator configured for its method).
    Skipped,
}

impl IndicatorResult {
    /// The canonical string of the result.
    pub fn as_str(self) -> &'static str {
        match self {
            IndicatorResult::Matched => "matched",
            IndicatorResult::NotMatched => "not_matched",
            IndicatorResult::Error => "error",
            IndicatorResult::Skipped => "skipped",
        }
    }
}

impl fmt::Display for IndicatorResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The result of an attack (SDK §2.20 `AttackResult`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttackResult {
    /// The agent complied with the attack.
    Exploited,
    /// The agent resisted the attack.
    NotExploited,
    /// Some but not all indicators matched under `correlation.logic: all`.
    Partial,
    /// The verdict could not be established (an indicator error, nothing evaluated, no indicators).
    Error,
}

impl AttackResult {
    /// The canonical string of the result.
    pub fn as_str(self) -> &'static str {
        match self {
            AttackResult::Exploited => "exploited",
            AttackResult::NotExploited => "not_exploited",
            AttackResult::Partial => "partial",
            AttackResult::Error => "error",
        }
    }
}

impl fmt::Display for AttackResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict of one indicator (SDK §2.19).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct IndicatorVerdict {
    /// The indicator that produced this verdict.
    pub indicator_id: String,
    /// What the evaluation gave.
    pub result: IndicatorResult,
    /// When the verdict was produced (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The matched content (truncated) or the error diagnostic, as it was: attacker text that may
    /// hold line breaks and terminal escape sequences. Print it with
    /// [`evidence_escaped`](Self::evidence_escaped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// The tool that produced the verdict; set by the consuming tool, never by the SDK.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The outcome tier of the indicator (format §6.5), copied from its definition by
    /// [`compute_verdict`] so that reports can show it beside the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
}

impl IndicatorVerdict {
    /// A verdict stamped with the current time.
    pub fn new(
        indicator_id: impl Into<String>,
        result: IndicatorResult,
        evidence: Option<String>,
    ) -> Self {
        IndicatorVerdict {
            indicator_id: indicator_id.into(),
            result,
            timestamp: Some(now_rfc3339()),
            evidence,
            source: None,
            tier: None,
        }
    }

    /// The same verdict with `tier` set.
    #[must_use]
    pub fn with_tier(mut self, tier: Option<Tier>) -> Self {
        self.tier = tier;
        self
    }

    /// [`evidence`](Self::evidence) safe to print on one line of a terminal or a log: line breaks,
    /// control characters, ANSI escape sequences and bidi overrides become visible escapes (`\n`,
    /// `\u{1b}`; the rules of [`safe_text::escape`](crate::safe_text::escape), D-132).
    ///
    /// ```
    /// use oatf_eval::{IndicatorResult, IndicatorVerdict};
    ///
    /// let verdict = IndicatorVerdict::new("I-1", IndicatorResult::Matched,
    ///     Some(String::from("ok\n\u{1b}[2KALERT cleared")));
    /// assert_eq!(verdict.evidence_escaped().as_deref(), Some("ok\\n\\u{1b}[2KALERT cleared"));
    /// ```
    pub fn evidence_escaped(&self) -> Option<Cow<'_, str>> {
        self.evidence
            .as_deref()
            .map(oatf_primitives::safe_text::escape)
    }
}

/// Counts of each indicator result (SDK §2.19); they add up to the number of declared indicators.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EvaluationSummary {
    /// Indicators that produced `matched`.
    pub matched: usize,
    /// Indicators that produced `not_matched`.
    pub not_matched: usize,
    /// Indicators that produced `error`.
    pub error: usize,
    /// Indicators that produced `skipped`, or that had no verdict at all.
    pub skipped: usize,
}

impl EvaluationSummary {
    fn count(&mut self, result: IndicatorResult) {
        match result {
            IndicatorResult::Matched => self.matched += 1,
            IndicatorResult::NotMatched => self.not_matched += 1,
            IndicatorResult::Error => self.error += 1,
            IndicatorResult::Skipped => self.skipped += 1,
        }
    }

    /// The number of indicators counted.
    pub fn total(&self) -> usize {
        self.matched + self.not_matched + self.error + self.skipped
    }
}

/// The verdict of an attack (SDK §2.19, format §9.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AttackVerdict {
    /// The attack evaluated; absent when the document has no `attack.id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack_id: Option<String>,
    /// The attack-level result.
    pub result: AttackResult,
    /// The highest outcome tier among matched indicators that have one (SDK §4.5 "Tier
    /// computation"); absent when none has, and so always absent for `not_exploited`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tier: Option<Tier>,
    /// One verdict per declared indicator, in declaration order (a missing one is `skipped`).
    pub indicator_verdicts: Vec<IndicatorVerdict>,
    /// Counts of each indicator result.
    pub evaluation_summary: EvaluationSummary,
    /// When the verdict was produced (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The tool that produced the verdict; set by the consuming tool, never by the SDK.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Why the result is `error` when no indicator verdict explains it (no indicators, an unknown
    /// correlation logic, nothing evaluated); spec-decisions 18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<String>,
    /// What may make the result meaningless although it is right: a declared actor without messages,
    /// an indicator target that never resolved (decision D-70). Set by trace evaluation
    /// ([`TraceEvaluator`](crate::TraceEvaluator)); empty from [`compute_verdict`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<TraceWarning>,
}

/// Computes the attack verdict from indicator verdicts (SDK §4.5, format §9.2).
///
/// The declared indicators are `attack.indicators`, with the ids N-003 would give those written
/// without one (`{attack.id}-{NN}`, or `indicator-{NN}`). A declared indicator without a verdict counts
/// as `skipped`; a verdict for an undeclared indicator is ignored; when several verdicts name the same
/// indicator the last one is used (the spec's input is a map). An attack without indicators, or with a
/// correlation logic that is not `any` or `all`, gives `error` with a [`AttackVerdict::diagnostic`].
pub fn compute_verdict(attack: &Attack, indicator_verdicts: &[IndicatorVerdict]) -> AttackVerdict {
    let logic = match attack.correlation.as_ref().and_then(|c| c.logic.as_ref()) {
        None => CorrelationLogic::Any,
        Some(Closed::Known(logic)) => *logic,
        Some(Closed::Unknown(other)) => {
            let mut verdict = aggregate(
                CorrelationLogic::Any,
                attack.id.as_deref(),
                &declared_ids(attack),
                Tiers::Declared(&declared_tiers(attack)),
                indicator_verdicts,
            );
            verdict.result = AttackResult::Error;
            verdict.diagnostic = Some(unknown_logic_message(other));
            return verdict;
        }
    };
    let Some(_) = attack.indicators else {
        let mut verdict = aggregate::<&str>(
            logic,
            attack.id.as_deref(),
            &[],
            Tiers::FromVerdicts,
            indicator_verdicts,
        );
        verdict.diagnostic = Some(String::from(
            "the attack has no indicators: it can be simulated but not evaluated",
        ));
        return verdict;
    };
    aggregate(
        logic,
        attack.id.as_deref(),
        &declared_ids(attack),
        Tiers::Declared(&declared_tiers(attack)),
        indicator_verdicts,
    )
}

/// [`compute_verdict`] over explicit indicator ids, for callers without an [`Attack`].
///
/// Without indicator definitions, the tier of each indicator is the `tier` its verdict carries.
#[cfg(test)]
pub(crate) fn compute_verdict_for_ids<S: AsRef<str>>(
    logic: CorrelationLogic,
    attack_id: Option<&str>,
    indicator_ids: &[S],
    indicator_verdicts: &[IndicatorVerdict],
) -> AttackVerdict {
    aggregate(
        logic,
        attack_id,
        indicator_ids,
        Tiers::FromVerdicts,
        indicator_verdicts,
    )
}

/// [`compute_verdict`] over explicit indicator ids and their tiers (`tiers[i]` is the tier of the
/// indicator `indicator_ids[i]`; missing entries mean no tier), for callers without an [`Attack`].
#[cfg(test)]
pub(crate) fn compute_verdict_for_tiered_ids<S: AsRef<str>>(
    logic: CorrelationLogic,
    attack_id: Option<&str>,
    indicator_ids: &[S],
    tiers: &[Option<Tier>],
    indicator_verdicts: &[IndicatorVerdict],
) -> AttackVerdict {
    aggregate(
        logic,
        attack_id,
        indicator_ids,
        Tiers::Declared(tiers),
        indicator_verdicts,
    )
}

/// Where the tier of each declared indicator comes from.
#[derive(Clone, Copy)]
pub(crate) enum Tiers<'a> {
    /// The indicator definitions, by position (a known `tier`, else none).
    Declared(&'a [Option<Tier>]),
    /// The `tier` each verdict carries (no definitions at hand).
    FromVerdicts,
}

/// The known tier of each declared indicator, by position (an unknown value counts as none: V-050
/// reports it).
pub(crate) fn declared_tiers(attack: &Attack) -> Vec<Option<Tier>> {
    attack
        .indicators
        .iter()
        .flatten()
        .map(|indicator| indicator.tier.as_ref().and_then(Closed::known))
        .collect()
}

/// The highest tier among matched verdicts (SDK §4.5 "Tier computation").
pub fn max_tier<'v>(verdicts: impl IntoIterator<Item = &'v IndicatorVerdict>) -> Option<Tier> {
    verdicts
        .into_iter()
        .filter(|v| v.result == IndicatorResult::Matched)
        .filter_map(|v| v.tier)
        .max()
}

/// The ids of the declared indicators, generating the N-003 id for those without one.
pub(crate) fn declared_ids(attack: &Attack) -> Vec<String> {
    attack
        .indicators
        .iter()
        .flatten()
        .enumerate()
        .map(|(index, indicator)| match &indicator.id {
            Some(id) => id.clone(),
            None => generated_indicator_id(attack.id.as_deref(), index),
        })
        .collect()
}

pub(crate) use oatf_model::generated_indicator_id;

/// The diagnostic of a correlation logic that is neither `any` nor `all` (the written value, cut).
pub(crate) fn unknown_logic_message(other: &str) -> String {
    format!(
        "unknown correlation logic `{}`, expected one of any, all",
        other.chars().take(64).collect::<String>()
    )
}

pub(crate) fn aggregate<S: AsRef<str>>(
    logic: CorrelationLogic,
    attack_id: Option<&str>,
    indicator_ids: &[S],
    tiers: Tiers<'_>,
    indicator_verdicts: &[IndicatorVerdict],
) -> AttackVerdict {
    let by_id: HashMap<&str, &IndicatorVerdict> = indicator_verdicts
        .iter()
        .map(|v| (v.indicator_id.as_str(), v))
        .collect();
    let mut summary = EvaluationSummary::default();
    let verdicts: Vec<IndicatorVerdict> = indicator_ids
        .iter()
        .enumerate()
        .map(|(position, id)| {
            let id = id.as_ref();
            let mut verdict = match by_id.get(id) {
                Some(verdict) => (*verdict).clone(),
                None => IndicatorVerdict {
                    indicator_id: id.to_owned(),
                    result: IndicatorResult::Skipped,
                    timestamp: None,
                    evidence: Some(String::from("no verdict was produced for this indicator")),
                    source: None,
                    tier: None,
                },
            };
            if let Tiers::Declared(declared) = tiers {
                verdict.tier = declared.get(position).copied().flatten();
            }
            summary.count(verdict.result);
            verdict
        })
        .collect();
    let total = summary.total();
    let (result, diagnostic) = if total == 0 {
        (
            AttackResult::Error,
            Some(String::from("the attack has no indicators")),
        )
    } else if summary.skipped == total {
        (
            AttackResult::Error,
            Some(String::from(
                "every indicator was skipped: no evaluation took place",
            )),
        )
    } else if summary.error > 0 {
        (AttackResult::Error, None)
    } else {
        let result = match logic {
            CorrelationLogic::Any if summary.matched > 0 => AttackResult::Exploited,
            CorrelationLogic::Any => AttackResult::NotExploited,
            CorrelationLogic::All if summary.matched == total => AttackResult::Exploited,
            CorrelationLogic::All if summary.matched > 0 => AttackResult::Partial,
            CorrelationLogic::All => AttackResult::NotExploited,
        };
        (result, None)
    };
    AttackVerdict {
        attack_id: attack_id.map(str::to_owned),
        result,
        max_tier: max_tier(&verdicts),
        indicator_verdicts: verdicts,
        evaluation_summary: summary,
        timestamp: Some(now_rfc3339()),
        source: None,
        diagnostic,
        warnings: Vec::new(),
    }
}

/// The current time as RFC 3339 in UTC with second precision (`2026-11-22T03:04:05Z`).
pub(crate) fn now_rfc3339() -> String {
    format_unix_seconds(unix_seconds())
}

/// Seconds since the Unix epoch, from the system clock.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Seconds since the Unix epoch, from JavaScript's clock: `SystemTime::now` panics on
/// `wasm32-unknown-unknown`.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn unix_seconds() -> u64 {
    let millis = js_sys::Date::now();
    if millis.is_finite() && millis > 0.0 {
        (millis / 1000.0) as u64
    } else {
        0
    }
}

/// Formats seconds since the Unix epoch as an RFC 3339 UTC timestamp.
fn format_unix_seconds(secs: u64) -> String {
    format_unix_time(secs, None)
}

/// Year, month, day, hour, minute and second in UTC of `secs` seconds since the Unix epoch
/// (civil-from-days, H. Hinnant).
fn civil_time(secs: u64) -> [u64; 6] {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Shifted so that the era starts on 0000-03-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    [year, month, day, rem / 3600, (rem % 3600) / 60, rem % 60]
}

/// Formats a time since the Unix epoch as RFC 3339 in UTC, with milliseconds when `millis` is given
/// (`2026-11-22T03:04:05.123Z`): the one writer of the timestamps of verdicts and of traces.
pub(crate) fn format_unix_time(secs: u64, millis: Option<u32>) -> String {
    let [year, month, day, hour, minute, second] = civil_time(secs);
    // Written digit by digit: every indicator verdict is stamped, and `format!` with widths cost
    // 3,000 instructions a stamp, a few per cent of a short trace's run (D-113).
    let mut text = String::with_capacity(24);
    if year > 9999 {
        text.push_str(&year.to_string());
    } else {
        push_digits(&mut text, year, 4);
    }
    for (separator, value) in [
        ('-', month),
        ('-', day),
        ('T', hour),
        (':', minute),
        (':', second),
    ] {
        text.push(separator);
        push_digits(&mut text, value, 2);
    }
    if let Some(ms) = millis {
        text.push('.');
        push_digits(&mut text, u64::from(ms.min(999)), 3);
    }
    text.push('Z');
    text
}

/// Pushes the last `width` decimal digits of `value`, zero-padded.
fn push_digits(text: &mut String, value: u64, width: u32) {
    for place in (0..width).rev() {
        let digit = (value / 10u64.pow(place)) % 10;
        text.push(char::from(b'0' + digit as u8));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(logic: CorrelationLogic, results: &[IndicatorResult], expect: AttackResult) {
        let ids: Vec<String> = (0..results.len()).map(|i| format!("i{i}")).collect();
        let verdicts: Vec<IndicatorVerdict> = ids
            .iter()
            .zip(results)
            .map(|(id, r)| IndicatorVerdict::new(id.clone(), *r, None))
            .collect();
        let verdict = compute_verdict_for_ids(logic, None, &ids, &verdicts);
        assert_eq!(verdict.result, expect, "{logic:?} {results:?}");
        assert_eq!(verdict.evaluation_summary.total(), results.len());
    }

    #[test]
    fn aggregation_precedence() {
        use AttackResult as A;
        use CorrelationLogic::{All, Any};
        use IndicatorResult::*;
        check(Any, &[Matched, NotMatched], A::Exploited);
        check(Any, &[Skipped, Skipped], A::Error);
        check(Any, &[Error, Matched], A::Error);
        check(Any, &[Skipped, NotMatched], A::NotExploited);
        check(All, &[Matched, Matched], A::Exploited);
        check(All, &[Matched, Skipped], A::Partial);
        check(All, &[Matched, Error, NotMatched], A::Error);
        check(All, &[NotMatched, Skipped], A::NotExploited);
        check(All, &[], A::Error);
    }

    #[test]
    fn missing_verdicts_are_skipped_and_extra_ones_ignored() {
        let verdicts = [
            IndicatorVerdict::new("a", IndicatorResult::Matched, None),
            IndicatorVerdict::new("zzz", IndicatorResult::Error, None),
        ];
        let verdict = compute_verdict_for_ids(CorrelationLogic::All, None, &["a", "b"], &verdicts);
        assert_eq!(verdict.result, AttackResult::Partial);
        assert_eq!(
            verdict.evaluation_summary,
            EvaluationSummary {
                matched: 1,
                not_matched: 0,
                error: 0,
                skipped: 1
            }
        );
    }

    #[test]
    fn max_tier_is_the_highest_tier_of_matched_indicators() {
        use AttackResult as A;
        use IndicatorResult::*;
        use Tier::*;
        let ids = ["a", "b", "c"];
        let tiers = [Some(Ingested), Some(BoundaryBreach), Some(LocalAction)];
        let run = |logic, results: [IndicatorResult; 3]| {
            let verdicts: Vec<IndicatorVerdict> = ids
                .iter()
                .zip(results)
                .map(|(id, r)| IndicatorVerdict::new(*id, r, None))
                .collect();
            let v = compute_verdict_for_tiered_ids(logic, None, &ids, &tiers, &verdicts);
            (v.result, v.max_tier)
        };
        let any = CorrelationLogic::Any;
        let all = CorrelationLogic::All;
        // `any`: the unmatched boundary_breach indicator does not count.
        assert_eq!(
            run(any, [Matched, NotMatched, Matched]),
            (A::Exploited, Some(LocalAction))
        );
        assert_eq!(run(any, [NotMatched; 3]), (A::NotExploited, None));
        assert_eq!(run(all, [Matched; 3]), (A::Exploited, Some(BoundaryBreach)));
        assert_eq!(
            run(all, [Matched, Skipped, NotMatched]),
            (A::Partial, Some(Ingested))
        );
        // Computed whatever the result, `error` included (SDK §4.5).
        assert_eq!(
            run(any, [Error, Matched, NotMatched]),
            (A::Error, Some(BoundaryBreach))
        );
        // Matched indicators without a tier: absent.
        let verdicts = [IndicatorVerdict::new("a", Matched, None)];
        let v = compute_verdict_for_tiered_ids(any, None, &["a"], &[None], &verdicts);
        assert_eq!((v.result, v.max_tier), (A::Exploited, None));
        // Without definitions the verdict's own tier counts; with them the definition wins.
        let verdicts = [IndicatorVerdict::new("a", Matched, None).with_tier(Some(LocalAction))];
        let v = compute_verdict_for_ids(any, None, &["a"], &verdicts);
        assert_eq!(v.max_tier, Some(LocalAction));
        let v = compute_verdict_for_tiered_ids(any, None, &["a"], &[Some(Ingested)], &verdicts);
        assert_eq!(v.max_tier, Some(Ingested));
        assert_eq!(v.indicator_verdicts[0].tier, Some(Ingested));
        let json = serde_json::to_value(&v).ok();
        assert_eq!(
            json.as_ref().and_then(|j| j.get("max_tier")),
            Some(&serde_json::json!("ingested"))
        );
    }

    #[test]
    fn no_indicators_is_an_error_with_a_diagnostic() {
        let verdict = compute_verdict(&Attack::default(), &[]);
        assert_eq!(verdict.result, AttackResult::Error);
        assert!(verdict.diagnostic.is_some());
    }

    #[test]
    fn timestamps() {
        assert_eq!(format_unix_seconds(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_unix_seconds(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_unix_seconds(1_767_225_599), "2025-12-31T23:59:59Z");
        // Every day of 400 years (a whole Gregorian cycle) and the year past 9999: as `format!`.
        for day in (0..146_097 + 366).map(|d| d * 86_400 + 86_399 - d % 86_400) {
            let secs = day + 253_402_300_800 * u64::from(day % 1000 == 0);
            let [y, m, d, h, mi, se] = civil_time(secs);
            assert_eq!(
                format_unix_seconds(secs),
                format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{se:02}Z")
            );
        }
    }

    #[test]
    fn serde_names() {
        let json = serde_json::to_value(IndicatorResult::NotMatched).ok();
        assert_eq!(json, Some(serde_json::json!("not_matched")));
        let json = serde_json::to_value(AttackResult::NotExploited).ok();
        assert_eq!(json, Some(serde_json::json!("not_exploited")));
    }
}
