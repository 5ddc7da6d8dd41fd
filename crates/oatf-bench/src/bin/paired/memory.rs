//! `memory`: the peak resident set of a whole-trace run, each length measured in a child process.

use std::hint::black_box;
use std::process::Command;

use oatf_bench::paired::human_seconds;
use oatf_bench::{LibraryAttack, TraceSource, library_attack, ours_accepts_tier};

use crate::options::{Error, Settings};
use crate::ours::compile_ours;

/// Peak resident memory (`VmHWM`) of this process in KiB, from `/proc/self/status` (Linux).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Child process of the `memory` measure: evaluates a generated trace of `messages` lines, read as a
/// stream, and prints its message count and peak memory.
pub(crate) fn memory_child(messages: u64) -> Result<(), Error> {
    let tier = ours_accepts_tier();
    let attack = compile_ours(&library_attack(LibraryAttack::new(100, true, tier)))?;
    let mut evaluator = oatf::TraceEvaluator::new(&attack);
    let reader = std::io::BufReader::new(TraceSource::new(messages));
    for message in oatf::JsonlTraceReader::new(reader) {
        evaluator.push(&message?);
    }
    let read = evaluator.messages();
    black_box(evaluator.finish());
    println!(
        "{read} {}",
        peak_rss_kib().ok_or("no VmHWM in /proc/self/status")?
    );
    Ok(())
}

pub(crate) fn measure_memory(settings: &Settings) -> Result<(), Error> {
    let exe = std::env::current_exe()?;
    println!(
        "\n## memory: peak resident set of a whole-trace run (library attack, trace streamed)\n"
    );
    println!("| messages | peak RSS (VmHWM) | wall time |");
    println!("|---|---|---|");
    for &messages in &settings.memory_lengths {
        let start = std::time::Instant::now();
        let output = Command::new(&exe)
            .args(["memory-child", &messages.to_string()])
            .output()?;
        let elapsed = start.elapsed().as_secs_f64();
        if !output.status.success() {
            return Err(format!(
                "memory child failed: {}",
                String::from_utf8_lossy(&output.stderr)
            )
            .into());
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let mut fields = stdout.split_whitespace();
        let read: u64 = fields.next().ok_or("no count")?.parse()?;
        let kib: u64 = fields.next().ok_or("no peak")?.parse()?;
        if read != messages {
            return Err(format!("memory child read {read} of {messages} messages").into());
        }
        println!(
            "| {messages} | {:.1} MiB | {} |",
            kib as f64 / 1024.0,
            human_seconds(elapsed)
        );
    }
    Ok(())
}
