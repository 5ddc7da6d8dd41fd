//! `oatf explain`: one rule in full, or the list of every rule; an unknown id is a usage error.

use crate::support::command;

fn oatf(args: &[&str]) -> (Option<i32>, String, String) {
    let output = command().args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn explains_one_rule() {
    let (code, stdout, stderr) = oatf(&["explain", "V-013"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        "V-013 (error, §6.2): all regular expressions are syntactically valid RE2\n\n\
         All regular expressions are syntactically valid RE2.\n"
    );
}

#[test]
fn lists_every_rule() {
    let (code, stdout, _) = oatf(&["explain"]);
    assert_eq!(code, Some(0));
    let ids: Vec<_> = stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(ids.len(), 59, "{stdout}");
    assert_eq!(ids.first(), Some(&"V-001"));
    assert!(ids.contains(&"V-050") && ids.contains(&"W-015"), "{stdout}");
}

#[test]
fn an_unknown_rule_is_a_usage_error() {
    let (code, stdout, stderr) = oatf(&["explain", "V-0l3"]);
    assert_eq!(code, Some(64));
    assert!(stdout.is_empty());
    assert!(stderr.contains("`V-0l3` is not a rule"), "{stderr}");
}
