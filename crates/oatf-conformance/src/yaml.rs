//! Reading fixture YAML into JSON values, with the YAML 1.2 core schema the OATF format uses.

use serde_json::Value;

/// Reads one YAML document into a value: `yes`/`no` stay strings, `012` stays a string, duplicate keys are
/// errors, merge keys are not expanded.
pub(crate) fn from_str(text: &str) -> Result<Value, String> {
    serde_saphyr::from_str_with_options::<Value>(text, strict_yaml_options())
        .map_err(|e| e.to_string())
}

/// The serde-saphyr options that read YAML with the YAML 1.2 core schema OATF uses: `yes`/`no` stay
/// strings, `012` and `1_000` stay strings, merge keys (`<<`) and unsupported tags are errors.
///
/// This is the one owner of that profile: fixtures read by this runner and the test files of `oatf test`
/// use it. Duplicate keys are rejected by serde-saphyr's defaults.
///
/// ```
/// let value: serde_json::Value =
///     serde_saphyr::from_str_with_options("a: yes\nb: 012\n", oatf_conformance::strict_yaml_options())?;
/// assert_eq!(value["a"], "yes");
/// assert_eq!(value["b"], "012");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn strict_yaml_options() -> serde_saphyr::Options {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    options.leading_zero_numbers_as_strings = true;
    options.underscored_numbers_as_strings = true;
    options.merge_keys = serde_saphyr::MergeKeyPolicy::Error;
    options.reject_unsupported_tags = true;
    options
}
