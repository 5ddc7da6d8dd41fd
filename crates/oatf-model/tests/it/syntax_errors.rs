//! YAML syntax errors are reported where the author can fix them: a tab used for indentation on its
//! own line, an unterminated quote where it opens.

use oatf_model::parse;

#[track_caller]
fn syntax_error(input: &str) -> (String, Option<usize>, Option<usize>) {
    match parse(input) {
        Ok(_) => panic!("accepted:\n{input}"),
        Err(errors) => {
            let e = errors.first().unwrap_or_else(|| panic!("no error"));
            (e.message().to_owned(), e.line(), e.column())
        }
    }
}

#[test]
fn a_tab_used_for_indentation_is_reported_on_its_own_line() {
    for (input, line, column) in [
        (
            "oatf: \"0.1\"\nattack:\n  name: x\n\t  description: y\n",
            4,
            1,
        ),
        ("oatf: \"0.1\"\nattack:\n\tname: x\n", 3, 1),
        (
            "oatf: \"0.1\"\nattack:\n  name: x\n  \tdescription: y\n",
            4,
            3,
        ),
        (
            "oatf: \"0.1\"\nattack:\n  execution:\n    mode: x\n\t\tstate: {}\n",
            5,
            1,
        ),
    ] {
        let (message, l, c) = syntax_error(input);
        assert_eq!(
            (message.as_str(), l, c),
            (
                "a tab is used for indentation; yaml indents with spaces only",
                Some(line),
                Some(column)
            ),
            "{input:?}"
        );
    }
}

#[test]
fn an_unterminated_quote_is_reported_where_it_opens() {
    for (input, line, column, kind) in [
        (
            "oatf: \"0.1\"\nattack:\n  name: \"x\n  description: y\n",
            3,
            9,
            "double",
        ),
        (
            "oatf: \"0.1\"\nattack:\n  name: 'it''s\n  description: y\n",
            3,
            9,
            "single",
        ),
        (
            "oatf: \"0.1\"\nattack:\n  name: \"a \\\" b\n  description: \"ok\"\n",
            3,
            9,
            "double",
        ),
        (
            "oatf: \"0.1\"\n# it's a comment\nattack:\n  name: \"x\n",
            4,
            9,
            "double",
        ),
    ] {
        let (message, l, c) = syntax_error(input);
        assert!(
            message.starts_with(&format!("unterminated {kind}-quoted string")),
            "{input:?}: {message}"
        );
        assert_eq!((l, c), (Some(line), Some(column)), "{input:?}: {message}");
    }
}
