//! `paired campaign`: a campaign of short real traces (`oatf_bench::campaign`) evaluated by the
//! `oatf` binary, next to its floor, "read every trace and parse each line into a
//! `serde_json::Value`" on one thread, in interleaved rounds (docs/performance.md, "Round 4").
//!
//! ```sh
//! cargo build --release -p oatf-cli -p oatf-bench
//! target/release/paired campaign --runs 4000 --jobs 1,2 --rounds 9
//! ```
//!
//! `paired campaign write [options]` only writes the campaign (and prints the manifest's path);
//! `paired campaign floor [options]` runs the floor once over a written campaign (for `perf stat`
//! and callgrind).
//!
//! `paired campaign serial [options]` prints each format's serial share: the part of the campaign's
//! CPU time spent on the main thread, the part that more cores do not shorten, and the efficiency
//! it allows by Amdahl's law on 16 cores and on the most `--jobs`. It runs `perf record -e
//! task-clock` (perf must be installed) on `oatf evaluate` at the most `--jobs` threads, `--rounds`
//! times a format (default 3 here), and counts the samples of the main thread (`perf script -F
//! pid,tid`); `--formats` (default `human,csv,json,sarif,junit,html`) names the formats (D-214).
//!
//! Options: `--runs N` (default 4000), `--jobs A,B,…` (the thread counts the binary runs at,
//! through `RAYON_NUM_THREADS`; default `1,2`), `--rounds N` (default 9), `--format F` (the report format,
//! default `csv`), `--dir D` (default `target/campaign-bench`), `--bin PATH` (default the `oatf`
//! beside this binary). The floor also runs on the largest thread count (`floor ×J`, the traces
//! split among J threads): what the machine itself allows.
//!
//! Efficiency at J threads is `time at 1 ÷ (J × time at J)`, the median of its per-round values.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use oatf_bench::campaign::{campaign_traces, floor, write_campaign};
use oatf_bench::paired::{Contender, PairedOptions, human_seconds, run_paired};

use crate::options::Error;

struct Options {
    runs: usize,
    jobs: Vec<usize>,
    rounds: Option<usize>,
    format: String,
    formats: Vec<String>,
    dir: PathBuf,
    bin: PathBuf,
}

fn options(args: &[String]) -> Result<Options, Error> {
    let exe = std::env::current_exe()?;
    let mut options = Options {
        runs: 4000,
        jobs: vec![1, 2],
        rounds: None,
        format: "csv".to_owned(),
        formats: ["human", "csv", "json", "sarif", "junit", "html"]
            .map(str::to_owned)
            .to_vec(),
        dir: PathBuf::from("target/campaign-bench"),
        bin: exe.with_file_name(format!("oatf{}", std::env::consts::EXE_SUFFIX)),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--runs" => options.runs = value()?.parse()?,
            "--rounds" => options.rounds = Some(value()?.parse()?),
            "--formats" => {
                options.formats = value()?.split(',').map(str::to_owned).collect();
            }
            "--format" => options.format = value()?.clone(),
            "--dir" => options.dir = PathBuf::from(value()?),
            "--bin" => options.bin = PathBuf::from(value()?),
            "--jobs" => {
                options.jobs = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?;
            }
            other => return Err(format!("paired campaign: unknown argument {other:?}").into()),
        }
    }
    if options.jobs.is_empty() || options.jobs.contains(&0) {
        return Err("--jobs needs thread counts of at least 1".into());
    }
    Ok(options)
}

/// The floor on `threads` threads: the traces split in `threads` contiguous parts.
fn floor_on(traces: &[PathBuf], threads: usize) -> u64 {
    if threads == 1 {
        return floor(traces).unwrap_or(0);
    }
    let part = traces.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = traces
            .chunks(part)
            .map(|chunk| scope.spawn(move || floor(chunk).unwrap_or(0)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
    })
}

pub(crate) fn main(args: &[String]) -> Result<(), Error> {
    let (write_only, floor_only, serial) = match args.first().map(String::as_str) {
        Some("write") => (true, false, false),
        Some("floor") => (false, true, false),
        Some("serial") => (false, false, true),
        _ => (false, false, false),
    };
    let args = if write_only || floor_only || serial {
        &args[1..]
    } else {
        args
    };
    let options = options(args)?;
    if serial {
        return serial_shares(&options);
    }
    if floor_only {
        // For `perf stat` and callgrind: the floor once, on one thread, over a written campaign.
        let traces = campaign_traces(&options.dir, options.runs);
        let started = std::time::Instant::now();
        let values = floor(&traces)?;
        println!(
            "floor: {values} values in {}",
            human_seconds(started.elapsed().as_secs_f64())
        );
        return Ok(());
    }
    let campaign = write_campaign(&options.dir, options.runs)?;
    if write_only {
        println!("{}", campaign.manifest.display());
        return Ok(());
    }
    let messages = floor(&campaign.traces)?;
    println!(
        "campaign: {} runs, {} traces of {} bytes on average ({} messages), {} cores available, binary {}",
        options.runs,
        campaign.traces.len(),
        campaign.bytes / campaign.traces.len().max(1) as u64,
        messages,
        std::thread::available_parallelism().map_or(0, usize::from),
        options.bin.display()
    );
    // The binary must evaluate the campaign: a failing command would time nothing.
    let check = Command::new(&options.bin)
        .args([
            "evaluate",
            "--quiet",
            "--format",
            &options.format,
            "--manifest",
        ])
        .arg(&campaign.manifest)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()?;
    if check.status.code().is_none_or(|c| c > 6) {
        return Err(format!(
            "{} evaluate --manifest failed ({}): {}",
            options.bin.display(),
            check.status,
            String::from_utf8_lossy(&check.stderr)
        )
        .into());
    }
    let most = options.jobs.iter().copied().max().unwrap_or(1);
    let floor_names: Vec<&'static str> = vec![
        "floor ×1",
        Box::leak(format!("floor ×{most}").into_boxed_str()),
    ];
    let mut contenders = vec![
        Contender::new(floor_names[0], || floor_on(&campaign.traces, 1)),
        Contender::new(floor_names[1], || floor_on(&campaign.traces, most)),
    ];
    for &jobs in &options.jobs {
        let name: &'static str = Box::leak(format!("oatf -j{jobs}").into_boxed_str());
        let bin = options.bin.clone();
        let manifest = campaign.manifest.clone();
        let format = options.format.clone();
        contenders.push(Contender::new(name, move || {
            Command::new(&bin)
                .args(["evaluate", "--quiet", "--format", &format, "--manifest"])
                .arg(&manifest)
                .env("RAYON_NUM_THREADS", jobs.to_string())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .ok()
                .and_then(|s| s.code())
                .map_or(u64::MAX, |c| c as u64)
        }));
    }
    let mut paired = PairedOptions::default();
    paired.rounds = options.rounds.unwrap_or(9);
    paired.min_sample = Duration::from_millis(200);
    let run = run_paired(&mut contenders, &paired);
    println!("\n| contender | median per campaign | per run | IQR (per campaign) |");
    println!("|---|---|---|---|");
    for (c, name) in run.names.iter().enumerate() {
        let t = run.time(c);
        println!(
            "| {name} | {} | {} | {}–{} |",
            human_seconds(t.median),
            human_seconds(t.median / options.runs as f64),
            human_seconds(t.q1),
            human_seconds(t.q3)
        );
    }
    println!("\n| measure | median | IQR | fastest ÷ fastest | goal |");
    println!("|---|---|---|---|---|");
    let one = options.jobs.iter().position(|j| *j == 1).map(|i| i + 2);
    if let Some(one) = one {
        let r = run.ratio(one, 0);
        println!(
            "| oatf -j1 ÷ floor ×1 | **{:.2}×** | {:.2}–{:.2} | {:.2}× | ≤ 1.5× |",
            r.median,
            r.q1,
            r.q3,
            run.ratio_of_fastest(one, 0)
        );
        for (i, &jobs) in options.jobs.iter().enumerate() {
            if jobs == 1 {
                continue;
            }
            // Per-round efficiency: time at 1 ÷ (J × time at J).
            let r = run.ratio(one, i + 2);
            println!(
                "| efficiency at {jobs} threads (oatf -j1 ÷ ({jobs} × oatf -j{jobs})) | **{:.0}%** | {:.0}–{:.0}% | {:.0}% | ≥ 75% |",
                r.median * 100.0 / jobs as f64,
                r.q1 * 100.0 / jobs as f64,
                r.q3 * 100.0 / jobs as f64,
                run.ratio_of_fastest(one, i + 2) * 100.0 / jobs as f64
            );
        }
    }
    if most > 1 {
        let r = run.ratio(0, 1);
        println!(
            "| floor efficiency at {most} threads (what the machine allows) | {:.0}% | {:.0}–{:.0}% | {:.0}% | |",
            r.median * 100.0 / most as f64,
            r.q1 * 100.0 / most as f64,
            r.q3 * 100.0 / most as f64,
            run.ratio_of_fastest(0, 1) * 100.0 / most as f64
        );
    }
    Ok(())
}

/// The share of one `oatf evaluate` process's task-clock samples taken on its main thread, at
/// `jobs` threads: `(main, all)`.
fn main_thread_samples(
    options: &Options,
    manifest: &std::path::Path,
    format: &str,
    jobs: usize,
) -> Result<(u64, u64), Error> {
    let data = options.dir.join("serial.perf.data");
    let recorded = Command::new("perf")
        .args(["record", "-q", "-e", "task-clock", "-F", "4000", "-o"])
        .arg(&data)
        .arg("--")
        .arg(&options.bin)
        .args(["evaluate", "--quiet", "--format", format, "--manifest"])
        .arg(manifest)
        .env("RAYON_NUM_THREADS", jobs.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("perf record (is perf installed?): {e}"))?;
    // `oatf evaluate` exits with the worst verdict's code (0 to 6); perf passes it on.
    if recorded.code().is_none_or(|c| c > 6) {
        return Err(
            format!("perf record of oatf evaluate --format {format} failed: {recorded}").into(),
        );
    }
    let script = Command::new("perf")
        .args(["script", "-F", "pid,tid", "-i"])
        .arg(&data)
        .stderr(Stdio::null())
        .output()?;
    let _ = std::fs::remove_file(&data);
    Ok(count_main(&String::from_utf8_lossy(&script.stdout)))
}

/// `(main, all)`: the lines `PID/TID` of `perf script -F pid,tid` whose thread is the process.
fn count_main(script: &str) -> (u64, u64) {
    let mut main = 0;
    let mut all = 0;
    for line in script.lines() {
        let Some((pid, tid)) = line.trim().split_once('/') else {
            continue;
        };
        all += 1;
        if pid.trim() == tid.trim() {
            main += 1;
        }
    }
    (main, all)
}

/// Amdahl's bound on the efficiency at `cores` of a program whose serial share is `s`.
fn amdahl(s: f64, cores: usize) -> f64 {
    1.0 / (1.0 + (cores as f64 - 1.0) * s)
}

/// `paired campaign serial`: each format's serial share and the efficiency it allows.
fn serial_shares(options: &Options) -> Result<(), Error> {
    let campaign = write_campaign(&options.dir, options.runs)?;
    let jobs = options.jobs.iter().copied().max().unwrap_or(2).max(2);
    let rounds = options.rounds.unwrap_or(3).max(1);
    println!(
        "serial share: main-thread task-clock samples ÷ all, {} runs, RAYON_NUM_THREADS={jobs}, {rounds} rounds, binary {}",
        options.runs,
        options.bin.display()
    );
    println!("\n| format | serial share, median | min–max | bound on 16 cores | bound on {jobs} |");
    println!("|---|---|---|---|---|");
    for format in &options.formats {
        let mut shares = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let (main, all) = main_thread_samples(options, &campaign.manifest, format, jobs)?;
            if all > 0 {
                shares.push(main as f64 / all as f64);
            }
        }
        shares.sort_by(f64::total_cmp);
        let Some(median) = shares.get(shares.len() / 2).copied() else {
            println!("| {format} | no samples | | | |");
            continue;
        };
        println!(
            "| {format} | **{:.2}%** | {:.2}–{:.2}% | {:.0}% | {:.0}% |",
            median * 100.0,
            shares[0] * 100.0,
            shares[shares.len() - 1] * 100.0,
            amdahl(median, 16) * 100.0,
            amdahl(median, jobs) * 100.0
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_thread_is_the_process() {
        let script = "  100/100 \n  100/101 \n  100/101 \n  100/100 \nnoise\n";
        assert_eq!(count_main(script), (2, 4));
        assert_eq!(count_main(""), (0, 0));
    }

    #[test]
    fn amdahl_bounds_the_efficiency() {
        assert!((amdahl(0.0, 16) - 1.0).abs() < 1e-12);
        // 75% on 16 cores needs a serial share of at most 1/45 (2.2%).
        assert!((amdahl(1.0 / 45.0, 16) - 0.75).abs() < 1e-12);
        assert!((amdahl(0.05, 2) - 1.0 / 1.05).abs() < 1e-12);
    }
}
