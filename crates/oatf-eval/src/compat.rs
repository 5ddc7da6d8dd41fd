//! Compatibility profiles: which messages of a trace an indicator sees (decision D-100).
//!
//! The default, [`Compat::SpecExact`], is format §6 as written. A profile changes only which
//! messages an indicator sees (derived messages, relaxed or narrowed filters); verdicts, tiers,
//! correlation and exit codes are computed by the same code in every profile.

use std::fmt;
use std::str::FromStr;

/// How a [`TraceEvaluator`](crate::TraceEvaluator) selects the messages an indicator sees.
///
/// ```
/// use oatf_eval::Compat;
///
/// let compat: Compat = "thoughtjack-context".parse()?;
/// assert_eq!(compat, Compat::ThoughtjackContext);
/// assert_eq!(Compat::default(), Compat::SpecExact);
/// assert_eq!(Compat::SpecExact.as_str(), "spec-exact");
/// assert!("thoughtjack".parse::<Compat>().is_err());
/// # Ok::<(), oatf_eval::UnknownCompat>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compat {
    /// Format §6 exactly: the trace as written, the four filters of the spec.
    #[default]
    SpecExact,
    /// ThoughtJack 0.6's *context* mode (D-100): before filtering, the text of AG-UI
    /// `text_message_content` events is added as responses of the server actors and of the AG-UI
    /// actor, A2A `tools/call` requests gain `a2a.task.message`; `mcp` indicators also see the
    /// AG-UI actors' messages, indicators whose target is `arguments` or
    /// `request.params.arguments` see only incoming `tools/call`, `message/send` and `tasks/send`,
    /// and entries nested deeper than 64 levels are skipped.
    ThoughtjackContext,
}

impl Compat {
    /// Every profile, the default first.
    pub const ALL: [Compat; 2] = [Compat::SpecExact, Compat::ThoughtjackContext];

    /// The profile's name as the command line, manifests and the bindings write it
    /// (`spec-exact`, `thoughtjack-context`).
    pub fn as_str(self) -> &'static str {
        match self {
            Compat::SpecExact => "spec-exact",
            Compat::ThoughtjackContext => "thoughtjack-context",
        }
    }

    /// Whether this is ThoughtJack's context mode.
    pub(crate) fn is_context(self) -> bool {
        self == Compat::ThoughtjackContext
    }
}

/// Whether an indicator `target` is one the context profile narrows to incoming calls (D-100,
/// point 4): exactly `arguments` or `request.params.arguments`.
pub(crate) fn narrows_to_calls(target: &str) -> bool {
    matches!(target, "arguments" | "request.params.arguments")
}

impl fmt::Display for Compat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Compat {
    type Err = UnknownCompat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Compat::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownCompat(s.to_owned()))
    }
}

/// A profile name that is not one of [`Compat::ALL`]; `Display` names the known ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCompat(pub String);

impl fmt::Display for UnknownCompat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = Compat::ALL.iter().map(|c| c.as_str()).collect();
        write!(
            f,
            "unknown compatibility profile `{}`; expected one of: {}",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownCompat {}
