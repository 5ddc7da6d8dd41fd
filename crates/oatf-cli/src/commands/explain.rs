//! `oatf explain`: what a validation rule requires, like `rustc --explain`. `oatf explain V-013`
//! prints one rule (id, severity, specification section, summary and full text); `oatf explain`
//! lists every rule, one a line. Everything comes from the rule table, `oatf::model::Rule`.

use std::fmt::Write as _;

use oatf::model::Rule;

use crate::output::Output;

/// Arguments of `oatf explain`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The rule to explain (`V-013`, `v013`, `W-001`); without it, every rule is listed.
    rule: Option<String>,
}

pub(crate) fn run(args: Args, out: &mut Output<'_>) -> u8 {
    match args.rule {
        None => {
            out.write(&list());
            0
        }
        Some(id) => match lookup(&id) {
            Some(rule) => {
                out.write(&crate::render::rule::explain(rule));
                0
            }
            None => {
                let shown: String = id.chars().take(32).collect();
                eprintln!(
                    "error: `{}` is not a rule of OATF v0.1; `oatf explain` lists them all",
                    crate::render::safe_text::escape(&shown)
                );
                64
            }
        },
    }
}

/// The rule an argument names: the id as written, in any case, with or without its dash.
fn lookup(id: &str) -> Option<Rule> {
    let id = id.trim().to_ascii_uppercase();
    let mut chars = id.chars();
    let prefix = chars.next()?;
    let rest = chars.as_str();
    match rest.strip_prefix('-') {
        Some(_) => Rule::from_id(&id),
        None => Rule::from_id(&format!("{prefix}-{rest}")),
    }
}

/// One line per rule: id, severity, section, summary.
fn list() -> String {
    let mut text = String::new();
    for rule in Rule::ALL {
        let _ = writeln!(
            text,
            "{}  {:<7}  {:<17}  {}",
            rule.id(),
            rule.severity().as_str(),
            rule.spec_section(),
            rule.summary()
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expect: Option<&str>) {
        assert_eq!(lookup(input).map(Rule::id), expect, "{input}");
    }

    #[test]
    fn ids_are_found_in_any_case_with_or_without_the_dash() {
        check("V-013", Some("V-013"));
        check("v013", Some("V-013"));
        check(" w-001 ", Some("W-001"));
        check("V-999", None);
        check("", None);
        check("é", None);
        check("-", None);
    }

    #[test]
    fn the_list_has_one_line_per_rule() {
        let list = list();
        assert_eq!(list.lines().count(), Rule::ALL.len());
        assert!(
            list.lines().any(|l| l.starts_with("V-050  error ")),
            "{list}"
        );
    }
}
