//! The text of every error type says what is wrong.

use oatf_internal::check_regex;
use oatf_primitives::{Condition, parse_duration};
use serde_json::json;

#[test]

fn error_texts_say_what_is_wrong() {
    let error = parse_duration("5 minutes").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("invalid duration \"5 minutes\": "),
        "{error}"
    );
    assert!(error.to_string().ends_with(error.reason()), "{error}");
    let error = check_regex("a(?=b)").unwrap_err();
    assert!(!error.message().is_empty());
    assert_eq!(
        error.to_string(),
        format!("{} (at byte {})", error.message(), error.span().start)
    );
    let error = Condition::from_value(json!({"contains": 1})).unwrap_err();
    assert!(!error.message().is_empty());
    assert_eq!(error.to_string(), error.message());
}
