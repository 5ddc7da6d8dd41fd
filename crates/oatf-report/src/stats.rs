//! What was read of a trace besides its messages ([`TraceStats`]) and the warnings of a run.

use std::collections::HashMap;

use oatf_eval::{AttackVerdict, TraceWarning, TraceWarningKind};

/// The warning for a declared actor that no message of the trace belongs to (spec-decisions 23).
pub fn silent_actor_warning(actor: &str) -> String {
    TraceWarning::actor_without_messages(actor).message
}

/// The warnings of a run (decision D-70): the verdict's
/// ([`AttackVerdict::warnings`](oatf_eval::AttackVerdict::warnings)), and a warning for each actor
/// of [`TraceStats::silent_actors`] the verdict does not name already.
pub fn warnings(verdict: &AttackVerdict, stats: &TraceStats) -> Vec<TraceWarning> {
    let mut warnings = verdict.warnings.clone();
    for actor in &stats.silent_actors {
        let named = warnings.iter().any(|w| {
            w.kind == TraceWarningKind::ActorWithoutMessages && w.actor.as_deref() == Some(actor)
        });
        if !named {
            warnings.push(TraceWarning::actor_without_messages(actor));
        }
    }
    warnings
}

/// What was read of a trace besides the messages: the counts and positions the reports show.
///
/// Build it with [`TraceStats::new`] and set the fields while reading the trace.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct TraceStats {
    /// The trace as the reports name it (a path, or `<stdin>`).
    pub name: String,
    /// Messages evaluated ([`TraceEvaluator::messages`](oatf_eval::TraceEvaluator::messages)).
    pub messages: u64,
    /// Lines read, malformed ones included.
    pub lines: u64,
    /// Lines that were not a trace message.
    pub malformed: u64,
    /// Messages not evaluated because they came after the grace period (format §6).
    pub after_grace: u64,
    /// Declared actors without any message in the trace.
    pub silent_actors: Vec<String>,
    /// Warnings and malformed lines fail the run (`oatf evaluate --strict`, decision D-69): the
    /// exit code is [`strict_exit_code`](crate::strict_exit_code), and the reports say so.
    pub strict: bool,
    /// Indicator id → line of the message that matched it.
    pub matched_lines: HashMap<String, u64>,
    /// The compatibility profile the trace was scored with (D-100); the JSON report names it when
    /// it is not the default.
    pub compat: oatf_eval::Compat,
}

impl TraceStats {
    /// Empty statistics for the trace called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        TraceStats {
            name: name.into(),
            ..TraceStats::default()
        }
    }

    /// Sets [`silent_actors`](Self::silent_actors) from `evaluator` (call it after setting
    /// [`messages`](Self::messages)): the declared actors without any message, when the trace had
    /// messages. Without any message the verdict is `error` already and naming every actor adds
    /// nothing. Every binding (CLI, Python, JavaScript) records it through here, so their rows and
    /// reports agree.
    pub fn record_silent_actors(&mut self, evaluator: &oatf_eval::TraceEvaluator<'_>) {
        self.silent_actors = if self.messages > 0 {
            evaluator.silent_actors().map(str::to_owned).collect()
        } else {
            Vec::new()
        };
    }
}
