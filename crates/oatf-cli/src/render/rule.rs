//! The text of a rule as `oatf explain V-013` prints it and `oatf lsp` shows it on hover: id,
//! severity, specification section, summary and full text, all from the rule table (`oatf::model::Rule`).

/// The explanation of `rule`.
pub(crate) fn explain(rule: oatf::model::Rule) -> String {
    format!(
        "{} ({}, {}): {}\n\n{}\n",
        rule.id(),
        rule.severity(),
        rule.spec_section(),
        rule.summary(),
        rule.text()
    )
}
