//! Reading fixture YAML into JSON values, with the YAML 1.2 core schema the OATF format uses.

use serde_json::Value;

/// Reads one YAML document into a value: `yes`/`no` stay strings, `012` stays a string, duplicate keys are
/// errors, merge keys are not expanded.
pub(crate) fn from_str(text: &str) -> Result<Value, String> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    options.leading_zero_numbers_as_strings = true;
    options.underscored_numbers_as_strings = true;
    options.merge_keys = serde_saphyr::MergeKeyPolicy::Error;
    options.reject_unsupported_tags = true;
    serde_saphyr::from_str_with_options::<Value>(text, options).map_err(|e| e.to_string())
}
