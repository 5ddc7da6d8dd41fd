//! Validation of the part of a document that parsed, for [`ParseErrors`] (D-67): validation knows
//! the parse errors, parsing does not know validation.

use crate::parse_errors::ParseErrors;
use crate::span::parent_path;

use super::{ValidateOptions, ValidationResult, validate_with};

impl ParseErrors {
    /// Validates the parts of the document that parsed ([`partial_document`](Self::partial_document)):
    /// the `V-` errors and warnings that the faulty fields do not explain. A finding at a field that
    /// failed, inside it, or at the object that holds it is left out, since leaving the field out is
    /// what the validator saw (an indicator whose `pattern` has the wrong type would otherwise also
    /// be "without a detection key"). Empty when there is no partial document.
    ///
    /// ```
    /// # #[cfg(feature = "yaml")] {
    /// let errors = oatf_model::parse(
    ///     "oatf: \"0.1\"\nattack:\n  version: \"two\"\n  severity: extreme\n  execution: {mode: mcp_server, state: {}}\n",
    /// ).unwrap_err();
    /// assert_eq!(errors.first().map(|e| e.message()),
    ///            Some("expected an integer, found the string \"two\""));
    /// let rest = errors.validate_rest(&oatf_model::ValidateOptions::default());
    /// let rules: Vec<_> = rest.errors().iter().map(|e| (e.rule(), e.path())).collect();
    /// assert_eq!(rules, [("V-005", "attack.severity")]);
    /// # }
    /// ```
    pub fn validate_rest(&self, options: &ValidateOptions) -> ValidationResult {
        let Some(document) = self.partial_document() else {
            return ValidationResult::default();
        };
        let mut result = validate_with(document, options);
        let explained = |path: Option<&str>| {
            let path = path.unwrap_or_default();
            self.dropped().iter().any(|dropped| {
                path == dropped
                    || parent_path(dropped) == Some(path)
                    || path
                        .strip_prefix(dropped.as_str())
                        .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
            })
        };
        result.errors.retain(|e| !explained(Some(e.path())));
        result.warnings.retain(|w| !explained(w.path()));
        result
    }
}
