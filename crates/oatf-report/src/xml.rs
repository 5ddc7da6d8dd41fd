//! JUnit XML: the typed document ([`TestSuites`] of [`TestSuite`]s of [`TestCase`]s, each with one
//! [`Outcome`]) and its one writer, which owns the layout and the escaping. `oatf evaluate`
//! ([`junit`](crate::junit)), campaigns and `oatf test` build these types; the output is valid
//! against the Jenkins/Ant `junit-10.xsd`.
//!
//! ```
//! use oatf_report::xml::{Outcome, TestCase, TestSuite, TestSuites};
//!
//! let mut suite = TestSuite::new("library/attack.yaml");
//! suite.cases.push(TestCase::new("OATF-001", "resisted", Outcome::Passed));
//! suite.cases.push(TestCase::new("OATF-001", "complied", Outcome::failure(
//!     "verdict", "expected exploited, got not_exploited", "")));
//! let mut report = TestSuites::new("oatf test");
//! report.suites.push(suite);
//! let xml = report.write();
//! assert!(xml.contains(r#"<testsuites name="oatf test" tests="2" failures="1" errors="0">"#));
//! assert!(xml.contains(r#"<failure type="verdict" message="expected exploited, got not_exploited"/>"#));
//! ```
//!
//! Characters XML 1.0 cannot hold (C0 controls other than tab, newline and carriage return, U+FFFE,
//! U+FFFF) become U+FFFD. In attributes, tab, newline and carriage return are written as character
//! references, since an XML parser would otherwise normalize them to spaces.

use std::time::Duration;

use std::fmt::Write as _;

fn escape(text: &str, in_attribute: bool) -> String {
    let mut escaped = String::with_capacity(text.len());
    escape_into(&mut escaped, text, in_attribute);
    escaped
}

/// Appends `text` escaped to `out`: the runs of bytes that need nothing are copied whole, since
/// nearly every byte of a report's text needs nothing (a JUnit campaign escaped every character
/// one at a time, D-300).
fn escape_into(out: &mut String, text: &str, in_attribute: bool) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // U+FFFE and U+FFFF are EF BF BE and EF BF BF in UTF-8.
        let special = b < 0x20
            || matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'')
            || (b == 0xEF
                && bytes.get(i + 1) == Some(&0xBF)
                && matches!(bytes.get(i + 2), Some(0xBE | 0xBF)));
        if !special {
            i += 1;
            continue;
        }
        out.push_str(&text[start..i]);
        let width = if b == 0xEF { 3 } else { 1 };
        match b {
            b'&' => out.push_str("&amp;"),
            b'<' => out.push_str("&lt;"),
            b'>' => out.push_str("&gt;"),
            b'"' => out.push_str("&quot;"),
            b'\'' => out.push_str("&apos;"),
            b'\t' if in_attribute => out.push_str("&#9;"),
            b'\n' if in_attribute => out.push_str("&#10;"),
            b'\r' if in_attribute => out.push_str("&#13;"),
            b'\t' | b'\n' | b'\r' => out.push(char::from(b)),
            _ => out.push('\u{FFFD}'),
        }
        i += width;
        start = i;
    }
    out.push_str(&text[start..]);
}

/// Escapes text for an attribute value.
pub fn attr(text: &str) -> String {
    escape(text, true)
}

/// Escapes text for element content (line breaks kept).
pub fn text(text: &str) -> String {
    escape(text, false)
}

/// `<testsuites>`: the report. Its counts are those of its suites' test cases.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TestSuites {
    /// The `name` attribute (the command: `oatf evaluate`, `oatf test`).
    pub name: String,
    /// The `time` attribute, when measured.
    pub time: Option<Duration>,
    /// The suites, in order.
    pub suites: Vec<TestSuite>,
}

/// `<testsuite>`: its counts (`tests`, `failures`, `errors`, `skipped`) are those of its cases.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TestSuite {
    /// The `name` attribute.
    pub name: String,
    /// The `time` attribute, when measured.
    pub time: Option<Duration>,
    /// The `timestamp` attribute (RFC 3339), when known.
    pub timestamp: Option<String>,
    /// The `file` attribute, when the suite is a file.
    pub file: Option<String>,
    /// `<property name value/>` elements (a `<properties>` element only when there are some).
    pub properties: Vec<(String, String)>,
    /// The test cases, in order.
    pub cases: Vec<TestCase>,
}

/// `<testcase>`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TestCase {
    /// The `classname` attribute.
    pub classname: String,
    /// The `name` attribute.
    pub name: String,
    /// The `time` attribute, when measured.
    pub time: Option<Duration>,
    /// What happened: the child element the case gets, if any.
    pub outcome: Outcome,
}

/// What happened to a test case.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// No child element.
    Passed,
    /// `<failure type=… message=…>text</failure>` (empty: `<failure …/>`).
    Failure {
        /// The `type` attribute.
        kind: String,
        /// The `message` attribute.
        message: String,
        /// The element's text (line breaks kept).
        text: String,
    },
    /// `<error type=… message=…/>`.
    Error {
        /// The `type` attribute.
        kind: String,
        /// The `message` attribute.
        message: String,
    },
    /// `<skipped message=…/>`.
    Skipped {
        /// The `message` attribute.
        message: String,
    },
}

impl Outcome {
    /// A failure of type `kind`.
    pub fn failure(
        kind: impl Into<String>,
        message: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Outcome::Failure {
            kind: kind.into(),
            message: message.into(),
            text: text.into(),
        }
    }

    /// An error of type `kind`.
    pub fn error(kind: impl Into<String>, message: impl Into<String>) -> Self {
        Outcome::Error {
            kind: kind.into(),
            message: message.into(),
        }
    }

    /// A skipped case.
    pub fn skipped(message: impl Into<String>) -> Self {
        Outcome::Skipped {
            message: message.into(),
        }
    }
}

impl TestCase {
    /// A test case without time.
    pub fn new(classname: impl Into<String>, name: impl Into<String>, outcome: Outcome) -> Self {
        TestCase {
            classname: classname.into(),
            name: name.into(),
            time: None,
            outcome,
        }
    }
}

/// Tests, failures, errors and skipped cases of `cases`.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl Counts {
    fn of(cases: &[TestCase]) -> Self {
        let mut counts = Counts {
            tests: cases.len(),
            ..Counts::default()
        };
        for case in cases {
            match case.outcome {
                Outcome::Passed => {}
                Outcome::Failure { .. } => counts.failures += 1,
                Outcome::Error { .. } => counts.errors += 1,
                Outcome::Skipped { .. } => counts.skipped += 1,
            }
        }
        counts
    }

    fn add(self, other: Counts) -> Self {
        Counts {
            tests: self.tests + other.tests,
            failures: self.failures + other.failures,
            errors: self.errors + other.errors,
            skipped: self.skipped + other.skipped,
        }
    }
}

/// A JUnit `time`: seconds with at most three decimals (`junit-10.xsd`'s `SUREFIRE_TIME`).
fn seconds(duration: Duration) -> String {
    format!("{:.3}", duration.as_secs_f64())
}

/// ` name="value"` when there is a value.
fn optional(name: &str, value: Option<&str>) -> String {
    value
        .map(|v| format!(" {name}=\"{}\"", attr(v)))
        .unwrap_or_default()
}

impl TestSuite {
    /// An empty suite called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        TestSuite {
            name: name.into(),
            time: None,
            timestamp: None,
            file: None,
            properties: Vec::new(),
            cases: Vec::new(),
        }
    }

    fn write(&self, x: &mut String) {
        let c = Counts::of(&self.cases);
        x.push_str("  <testsuite name=\"");
        escape_into(x, &self.name, true);
        let _ = write!(
            x,
            "\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"",
            c.tests, c.failures, c.errors, c.skipped,
        );
        optional_into(x, "time", self.time.map(seconds).as_deref());
        optional_into(x, "timestamp", self.timestamp.as_deref());
        optional_into(x, "file", self.file.as_deref());
        x.push_str(">\n");
        if !self.properties.is_empty() {
            x.push_str("    <properties>\n");
            for (key, value) in &self.properties {
                x.push_str("      <property name=\"");
                escape_into(x, key, true);
                x.push_str("\" value=\"");
                escape_into(x, value, true);
                x.push_str("\"/>\n");
            }
            x.push_str("    </properties>\n");
        }
        // Written piece by piece into `x`, escaping as it goes: a campaign writes a suite a run.
        for case in &self.cases {
            x.push_str("    <testcase classname=\"");
            escape_into(x, &case.classname, true);
            x.push_str("\" name=\"");
            escape_into(x, &case.name, true);
            x.push('"');
            optional_into(x, "time", case.time.map(seconds).as_deref());
            let (element, kind, message, body) = match &case.outcome {
                Outcome::Passed => {
                    x.push_str("/>\n");
                    continue;
                }
                Outcome::Failure {
                    kind,
                    message,
                    text: body,
                } => ("failure", Some(kind), message, body.as_str()),
                Outcome::Error { kind, message } => ("error", Some(kind), message, ""),
                Outcome::Skipped { message } => ("skipped", None, message, ""),
            };
            x.push_str(">\n      <");
            x.push_str(element);
            if let Some(kind) = kind {
                x.push_str(" type=\"");
                escape_into(x, kind, true);
                x.push('"');
            }
            x.push_str(" message=\"");
            escape_into(x, message, true);
            if body.is_empty() {
                x.push_str("\"/>");
            } else {
                x.push_str("\">");
                escape_into(x, body, false);
                x.push_str("</");
                x.push_str(element);
                x.push('>');
            }
            x.push_str("\n    </testcase>\n");
        }
        x.push_str("  </testsuite>\n");
    }
}

/// ` name="value"` appended to `x` when there is a value.
fn optional_into(x: &mut String, name: &str, value: Option<&str>) {
    if let Some(value) = value {
        x.push(' ');
        x.push_str(name);
        x.push_str("=\"");
        escape_into(x, value, true);
        x.push('"');
    }
}

impl TestSuites {
    /// A report called `name`, without suites.
    pub fn new(name: impl Into<String>) -> Self {
        TestSuites {
            name: name.into(),
            time: None,
            suites: Vec::new(),
        }
    }

    /// The document, valid against the Jenkins/Ant `junit-10.xsd`.
    pub fn write(&self) -> String {
        self.write_with(&[])
    }

    /// The document of this report's suites followed by `written`, suites written ahead
    /// ([`TestSuite::written`]): a report of many suites has them written on many threads and joined
    /// here (D-181). The text is the one [`write`](Self::write) gives of all the suites.
    ///
    /// ```
    /// use oatf_report::xml::{Outcome, TestCase, TestSuite, TestSuites};
    ///
    /// let mut suite = TestSuite::new("run");
    /// suite.cases.push(TestCase::new("OATF-001", "OATF-001-01", Outcome::failure("matched", "", "")));
    /// let mut whole = TestSuites::new("oatf evaluate");
    /// whole.suites.push(suite.clone());
    /// let joined = TestSuites::new("oatf evaluate").write_with(&[suite.written()]);
    /// assert_eq!(joined, whole.write());
    /// ```
    pub fn write_with<'w, I>(&self, written: I) -> String
    where
        I: IntoIterator<Item = &'w WrittenSuite>,
        I::IntoIter: Clone,
    {
        let mut x = String::new();
        self.write_pieces_with(written, |piece| x.push_str(piece));
        x
    }

    /// The text [`write_with`](Self::write_with) gives, handed to `sink` in pieces (the head, each
    /// suite, the end) rather than copied into one string: a campaign writes a report of many suites
    /// to its output so (D-212).
    ///
    /// ```
    /// use oatf_report::xml::{Outcome, TestCase, TestSuite, TestSuites};
    ///
    /// let mut suite = TestSuite::new("run");
    /// suite.cases.push(TestCase::new("OATF-001", "OATF-001-01", Outcome::Passed));
    /// let report = TestSuites::new("oatf evaluate");
    /// let mut pieces = String::new();
    /// report.write_pieces_with(&[suite.written()], |piece| pieces.push_str(piece));
    /// assert_eq!(pieces, report.write_with(&[suite.written()]));
    /// ```
    pub fn write_pieces_with<'w, I>(&self, written: I, mut sink: impl FnMut(&str))
    where
        I: IntoIterator<Item = &'w WrittenSuite>,
        I::IntoIter: Clone,
    {
        let own: Vec<WrittenSuite> = self.suites.iter().map(TestSuite::written).collect();
        let written = written.into_iter();
        let mut c = Counts::default();
        for suite in own
            .iter()
            .chain(written.clone().map(|s| -> &WrittenSuite { s }))
        {
            c = c.add(suite.counts);
        }
        let mut head = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        // junit-10.xsd: `skipped` is an attribute of `testsuite`, not of `testsuites`.
        let _ = writeln!(
            head,
            "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\"{}>",
            attr(&self.name),
            c.tests,
            c.failures,
            c.errors,
            optional("time", self.time.map(seconds).as_deref()),
        );
        sink(&head);
        for suite in own.iter().chain(written.map(|s| -> &WrittenSuite { s })) {
            sink(&suite.text);
        }
        sink("</testsuites>\n");
    }
}

/// A test suite written ahead of its report ([`TestSuite::written`]): its XML and its counts, for
/// [`TestSuites::write_with`].
#[derive(Clone, Debug)]
pub struct WrittenSuite {
    text: String,
    counts: Counts,
}

impl TestSuite {
    /// The suite written as it stands in a report ([`TestSuites::write_with`]).
    ///
    /// The text is written into a buffer kept by the thread and copied out at its length: a
    /// campaign keeps every run's suite until its report's head is written, and a string grown by
    /// doubling held a third more than its text, in pages touched for nothing (D-304).
    pub fn written(&self) -> WrittenSuite {
        /// A scratch buffer larger than this is not kept for the next suite.
        const KEEP: usize = 1 << 20;
        thread_local! {
            static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        let text = SCRATCH.with_borrow_mut(|scratch| {
            scratch.clear();
            self.write(scratch);
            let text = scratch.as_str().to_owned();
            if scratch.capacity() > KEEP {
                *scratch = String::new();
            }
            text
        });
        WrittenSuite {
            text,
            counts: Counts::of(&self.cases),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_come_from_the_cases_and_empty_parts_are_left_out() {
        let mut suite = TestSuite::new("s <1>");
        suite.time = Some(Duration::from_micros(1_234_567));
        suite.cases = vec![
            TestCase::new("c", "pass", Outcome::Passed),
            TestCase::new("c", "fail", Outcome::failure("verdict", "why", "")),
            TestCase::new("c", "fail2", Outcome::failure("verdict", "why", "a\nb")),
            TestCase::new("c", "err", Outcome::error("no-verdict", "gone")),
            TestCase::new("c", "skip", Outcome::skipped("no test file")),
        ];
        let mut other = TestSuite::new("empty");
        other.file = Some("f.yaml".into());
        other.properties.push(("k".into(), "v\"".into()));
        let mut report = TestSuites::new("oatf test");
        report.suites = vec![suite, other];
        let xml = report.write();
        assert!(
            xml.contains(r#"<testsuites name="oatf test" tests="5" failures="2" errors="1">"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testsuite name="s &lt;1&gt;" tests="5" failures="2" errors="1" skipped="1" time="1.235">"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testsuite name="empty" tests="0" failures="0" errors="0" skipped="0" file="f.yaml">"#),
            "{xml}"
        );
        // Properties only where there are some.
        assert_eq!(xml.matches("<properties>").count(), 1, "{xml}");
        assert!(
            xml.contains(r#"<property name="k" value="v&quot;"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<failure type="verdict" message="why"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(
                r#"<failure type="verdict" message="why">a
b</failure>"#
            ),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<error type="no-verdict" message="gone"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<skipped message="no test file"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testcase classname="c" name="pass"/>"#),
            "{xml}"
        );
        assert!(!xml.contains(" time=\"\""), "{xml}");
    }

    #[test]
    fn attributes_and_content() {
        assert_eq!(
            attr("a<b>&\"'\n\t\u{1}"),
            "a&lt;b&gt;&amp;&quot;&apos;&#10;&#9;\u{FFFD}"
        );
        assert_eq!(text("a<b>\n\t\u{FFFF}"), "a&lt;b&gt;\n\t\u{FFFD}");
        // Escaped by runs of bytes (D-300): multi-byte characters kept whole, U+FFFE replaced,
        // a character of the same first two bytes (U+FFEF: EF BF AF) kept, a carriage return.
        assert_eq!(
            attr("é\u{FFFE}\r x\u{FFEF}>"),
            "é\u{FFFD}&#13; x\u{FFEF}&gt;"
        );
        assert_eq!(text("\u{FFEF}\u{FFFE}\r"), "\u{FFEF}\u{FFFD}\r");
    }
}
