//! The evidence texts of whole-trace verdicts: the message that decided an indicator
//! ([`describe`]), and why no message applied to one ([`no_applicable_message`], spec-decisions 23).

use oatf_model::Direction;

use super::message::Head;
use crate::compat::Compat;
use crate::indicator::CompiledIndicator;
use crate::texts::truncate;

/// Why no message applied to `indicator`, naming the first filter that removed them all:
/// `no applicable message: 14 mcp messages, none with method tools/call`.
pub(super) fn no_applicable_message(
    indicator: &CompiledIndicator,
    evaluated: u64,
    after_grace: u64,
    funnel: &[u64; 4],
    compat: Compat,
) -> String {
    let plural = |n: u64| if n == 1 { "message" } else { "messages" };
    let name = |s: &str| truncate(s, 64);
    let protocol = indicator.protocol().map(name);
    let mut text = String::from("no applicable message: ");
    if evaluated == 0 && after_grace == 0 {
        return String::from("the trace has no message");
    } else if evaluated == 0 {
        text.push_str("every message came after the grace period");
    } else if funnel[0] == 0 {
        text.push_str(&format!("{evaluated} {}", plural(evaluated)));
        if let Some(protocol) = &protocol {
            text.push_str(&format!(", none of protocol {protocol}"));
        }
    } else {
        // What the messages that passed the previous steps were, then the step that removed them.
        let what = |n: u64, with_method: bool| {
            let mut what = format!("{n}");
            if let Some(protocol) = &protocol {
                what.push(' ');
                what.push_str(protocol);
            }
            what.push(' ');
            what.push_str(plural(n));
            if let (true, Some(surface)) = (with_method, indicator.surface()) {
                what.push_str(&format!(" with method {}", name(surface)));
            }
            what
        };
        if funnel[1] == 0 && compat.is_context() && indicator.calls_only() {
            let surface = indicator
                .surface()
                .map(|s| format!(" with method {}", name(s)))
                .unwrap_or_default();
            text.push_str(&format!(
                "{}, none an incoming tools/call, message/send or tasks/send{surface} \
                 (thoughtjack-context)",
                what(funnel[0], false)
            ));
        } else if funnel[1] == 0 {
            let surface = indicator.surface().map(name).unwrap_or_default();
            text.push_str(&format!(
                "{}, none with method {surface}",
                what(funnel[0], false)
            ));
        } else if funnel[2] == 0 {
            let actor = indicator.actor().map(name).unwrap_or_default();
            text.push_str(&format!(
                "{}, none from actor {actor}",
                what(funnel[1], true)
            ));
        } else {
            let direction = indicator.direction().map_or("", Direction::as_str);
            text.push_str(&format!(
                "{}, none that is a {direction}",
                what(funnel[2], true)
            ));
            if indicator.actor().is_some() {
                text.push_str(" of the actor");
            }
        }
    }
    if after_grace > 0 && evaluated > 0 {
        text.push_str(&format!(
            " ({after_grace} later {} after the grace period not evaluated)",
            plural(after_grace)
        ));
    }
    text
}

/// Evidence naming the message: `seq 10 (tools/call): <what matched>`.
pub(super) fn describe(
    message: &Head<'_>,
    position: u64,
    evidence: Option<String>,
    evidence_chars: usize,
) -> Option<String> {
    let mut text = match message.seq {
        Some(seq) => format!("seq {seq}"),
        None => format!("message {position}"),
    };
    if let Some(method) = message.method {
        text.push_str(" (");
        text.push_str(&truncate(method, 64));
        text.push(')');
    }
    if let Some(evidence) = evidence {
        text.push_str(": ");
        text.push_str(&truncate(&evidence, evidence_chars));
    }
    Some(text)
}
