//! Paths: errors point at the byte, and a parsed path keeps its text.

use oatf_primitives::{PathErrorKind, SimplePath, WildcardPath};

#[test]

fn path_errors_point_at_the_byte() {
    let error = SimplePath::parse("ab.c$d").unwrap_err();
    assert_eq!(error.kind(), PathErrorKind::InvalidCharacter('$'));
    assert_eq!(error.offset(), 4);
    assert!(error.to_string().contains("'$' at byte 4"), "{error}");
    let error = SimplePath::parse("abc.de.f$").unwrap_err();
    assert_eq!(error.offset(), 8);
    let error = WildcardPath::parse("ab.cd[0]").unwrap_err();
    assert_eq!(error.kind(), PathErrorKind::InvalidBracket);
    assert_eq!(error.offset(), 5);
    let error = SimplePath::parse("ab.cd[*]").unwrap_err();
    assert_eq!(error.kind(), PathErrorKind::WildcardNotAllowed);
    assert_eq!(error.offset(), 5);
    let error = SimplePath::parse("a..b").unwrap_err();
    assert_eq!(
        (error.kind(), error.offset()),
        (PathErrorKind::EmptySegment, 2)
    );
    assert!(error.to_string().contains("byte 2"), "{error}");
    // Every segment character class is allowed, alone.
    for path in ["a", "Z", "0", "_", "-", "a_b-C9"] {
        assert!(SimplePath::parse(path).is_ok(), "{path}");
    }
    assert!(SimplePath::parse("a b").is_err());
}

#[test]

fn paths_keep_their_text() {
    let simple = SimplePath::parse("a.b_c").unwrap();
    assert_eq!(simple.as_str(), "a.b_c");
    assert_eq!(simple.to_string(), "a.b_c");
    let wildcard = WildcardPath::parse("tools[*].name").unwrap();
    assert_eq!(wildcard.as_str(), "tools[*].name");
    assert_eq!(wildcard.to_string(), "tools[*].name");
    assert!(wildcard.has_wildcard());
    assert!(!WildcardPath::parse("tools.name").unwrap().has_wildcard());
}
