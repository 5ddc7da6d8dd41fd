//! Output errors: every command, in every format, checks its writes and its final
//! flush. Output that cannot be written (`> /dev/full`, a closed standard output `>&-`, an
//! `--output` file that cannot be written) gives a message naming what was not written and exit 74
//! (EX_IOERR), whatever the command's own code would have been; a closed pipe (`| head -c1`) ends
//! quietly with the command's own exit code.

use std::io::{Read as _, Write as _};
use std::process::{Command, Output, Stdio};

use crate::support::{OATF, command, examples};

const EXIT_IOERR: i32 = 74;

const DOC: &str = "a2a-skill-poisoning.yaml";
const TRACE: &str = "a2a-skill-poisoning.complied.jsonl";
const RESISTED: &str = "a2a-skill-poisoning.resisted.jsonl";

/// A document with errors, given on standard input: the diagnostics are output too.
const INVALID: &str = "oatf: \"0.1\"\nattack:\n  severity: extreme\n";

/// A directory holding one invalid document, written once per test process.
fn broken_library() -> &'static str {
    static DIR: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("oatf-output-errors-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("broken.yaml"), INVALID).unwrap();
        dir.to_str().unwrap().to_owned()
    })
}

/// A valid document whose keys are out of the canonical order: `fmt` has something to write.
const UNFORMATTED: &str = "attack:\n  name: x\n  execution:\n    mode: mcp_server\n    phases:\n      - name: p\n        state: {tools: []}\n  indicators:\n    - surface: tool_description\n      protocol: mcp\n      pattern: {contains: x}\noatf: \"0.1\"\n";

/// One command line, and what it reads on standard input.
struct Case {
    args: Vec<String>,
    stdin: &'static str,
}

fn case(args: &[&str]) -> Case {
    Case {
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        stdin: "",
    }
}

/// Every command, in every format it writes to standard output.
fn cases() -> Vec<Case> {
    let mut cases = vec![
        case(&["--help"]),
        case(&["--version"]),
        case(&["evaluate", "--help"]),
        case(&["validate", DOC]),
        case(&["validate", "--format", "json", DOC]),
        Case {
            stdin: INVALID,
            ..case(&["validate", "-"])
        },
        Case {
            stdin: INVALID,
            ..case(&["validate", "--format", "json", "-"])
        },
        // A valid document gives no annotation: only an invalid one writes in this format.
        Case {
            stdin: INVALID,
            ..case(&["validate", "--format", "github", "-"])
        },
        case(&["normalize", DOC]),
        // `fmt` writes to standard output from standard input, and with `--diff`/`--check`.
        Case {
            stdin: UNFORMATTED,
            ..case(&["fmt", "-"])
        },
        Case {
            stdin: UNFORMATTED,
            ..case(&["fmt", "--diff", "-"])
        },
        Case {
            stdin: UNFORMATTED,
            ..case(&["fmt", "--check", "-"])
        },
        case(&["catalog", "."]),
        case(&["catalog", "--format", "json", "."]),
        // A library without problems gives no annotation: only a broken one writes in this format.
        case(&["catalog", "--format", "github", broken_library()]),
        case(&["catalog", "--coverage", "owasp_llm", "."]),
        case(&[
            "catalog",
            "--coverage",
            "owasp_llm",
            "--format",
            "json",
            ".",
        ]),
        case(&["test", "."]),
        case(&["test", "--format", "junit", "."]),
        // Passing tests give no annotation: only a failure writes in this format.
        case(&["test", "--format", "github", broken_library()]),
        case(&["evaluate", DOC, TRACE]),
        case(&["evaluate", DOC, RESISTED]),
        case(&["conformance"]),
        case(&["completions", "bash"]),
        case(&["schema"]),
        case(&["explain"]),
        case(&["explain", "V-013"]),
    ];
    for format in ["human", "json", "sarif", "junit"] {
        // One evaluation, and a campaign (several traces).
        cases.push(case(&["evaluate", "--format", format, DOC, TRACE]));
        cases.push(case(&[
            "evaluate", "--format", format, DOC, TRACE, RESISTED,
        ]));
    }
    cases.push(case(&["evaluate", "--format", "csv", DOC, TRACE, RESISTED]));
    cases
}

/// Runs `case` with standard output set up by `stdout`, or closed (`>&-`) when `None`.
fn run(case: &Case, stdout: Option<Stdio>) -> Output {
    let bin = OATF;
    let mut command = match stdout {
        Some(stdout) => {
            let mut command = Command::new(bin);
            command.args(&case.args).stdout(stdout);
            command
        }
        None => {
            // The shell closes descriptor 1, then becomes `oatf`: its stdout is closed from the start.
            let mut command = Command::new("sh");
            command
                .arg("-c")
                .arg("exec \"$0\" \"$@\" >&-")
                .arg(bin)
                .args(&case.args)
                .stdout(Stdio::null());
            command
        }
    };
    let mut child = command
        .current_dir(examples())
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(case.stdin.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

fn dev_full() -> Stdio {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap()
        .into()
}

/// The command's own exit code, with its output discarded (`> /dev/null`, opened write-only).
fn own_code(case: &Case) -> i32 {
    let output = run(case, Some(Stdio::null()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let code = output.status.code().unwrap();
    assert_ne!(code, EXIT_IOERR, "{:?} > /dev/null: {stderr}", case.args);
    assert!(
        !stderr.contains("cannot write"),
        "{:?}: {stderr}",
        case.args
    );
    code
}

#[test]
fn every_command_writes_something() {
    // Otherwise the tests below would prove nothing for it.
    for case in cases() {
        let output = run(&case, Some(Stdio::piped()));
        assert!(!output.stdout.is_empty(), "{:?} writes nothing", case.args);
    }
}

#[test]
fn a_full_disk_is_an_error_with_a_message() {
    for case in cases() {
        let output = run(&case, Some(dev_full()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(EXIT_IOERR),
            "{:?}: {stderr}",
            case.args
        );
        assert!(
            stderr.contains("error: cannot write to standard output: No space left on device"),
            "{:?}: {stderr}",
            case.args
        );
        assert!(!stderr.contains("panicked"), "{:?}: {stderr}", case.args);
    }
}

#[test]
fn a_closed_stdout_is_an_error_with_a_message() {
    for case in cases() {
        let output = run(&case, None);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(EXIT_IOERR),
            "{:?} >&-: {stderr}",
            case.args
        );
        assert!(
            stderr.contains("error: cannot write to standard output: it is closed"),
            "{:?}: {stderr}",
            case.args
        );
        assert!(!stderr.contains("panicked"), "{:?}: {stderr}", case.args);
    }
}

#[test]
fn a_dev_null_opened_read_write_is_not_a_closed_stdout() {
    // Python's `subprocess.DEVNULL` and Node's `stdio: 'ignore'` hand the child `/dev/null` opened
    // read-write, as the Rust runtime does for a closed stdout: only a stdout closed before start-up
    // is an error, a harness that discards the output keeps the command's own exit code.
    for case in cases() {
        let code = own_code(&case);
        let read_write = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
            .unwrap();
        let output = run(&case, Some(read_write.into()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{:?} 1<>/dev/null: {stderr}",
            case.args
        );
        assert!(
            !stderr.contains("cannot write"),
            "{:?}: {stderr}",
            case.args
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly_with_the_commands_own_code() {
    for case in cases() {
        let code = own_code(&case);
        let mut child = command()
            .args(&case.args)
            .current_dir(examples())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(case.stdin.as_bytes()).unwrap();
        drop(stdin);
        // Read one byte, then close the pipe, as `| head -c1` does.
        let mut stdout = child.stdout.take().unwrap();
        let mut byte = [0u8; 1];
        let _ = stdout.read(&mut byte);
        drop(stdout);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{:?}: {stderr}",
            case.args
        );
        assert!(!stderr.contains("panicked"), "{:?}: {stderr}", case.args);
        assert!(
            !stderr.contains("cannot write"),
            "{:?}: {stderr}",
            case.args
        );
    }
}

#[test]
fn an_output_file_that_cannot_be_written_is_an_error_naming_it() {
    let missing = std::env::temp_dir()
        .join(format!("oatf-no-such-dir-{}", std::process::id()))
        .join("report.xml");
    let missing = missing.to_str().unwrap();
    for file in ["/dev/full", missing] {
        let case = case(&["test", "--format", "junit", "--output", file, "."]);
        let output = run(&case, Some(Stdio::null()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(EXIT_IOERR),
            "{:?}: {stderr}",
            case.args
        );
        assert!(
            stderr.contains(&format!("error: cannot write the JUnit report to {file}: ")),
            "{:?}: {stderr}",
            case.args
        );
    }
    // The same with a closed standard output: both are reported, the exit code is still 74.
    let case = case(&["test", "--format", "junit", "--output", "/dev/full", "."]);
    let output = run(&case, None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(EXIT_IOERR), "{stderr}");
    assert!(stderr.contains("the JUnit report to /dev/full"), "{stderr}");
    assert!(stderr.contains("standard output: it is closed"), "{stderr}");
}

#[test]
fn a_full_stderr_is_not_a_panic() {
    // Std's `eprintln!` panics (exit 101) when standard error cannot be written; the CLI drops the
    // message and keeps its exit code. The broken library and document make every command write
    // diagnostics or summaries on standard error.
    let mut cases = cases();
    cases.push(Case {
        stdin: INVALID,
        ..case(&["normalize", "-"])
    });
    cases.push(case(&["catalog", broken_library()]));
    cases.push(case(&["evaluate", broken_library(), TRACE]));
    for case in cases {
        let code = own_code(&case);
        let mut child = command()
            .args(&case.args)
            .current_dir(examples())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(dev_full())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(case.stdin.as_bytes()).unwrap();
        drop(stdin);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{:?} 2> /dev/full", case.args);
    }
}
