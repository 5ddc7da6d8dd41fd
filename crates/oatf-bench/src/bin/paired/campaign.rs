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
    rounds: usize,
    format: String,
    dir: PathBuf,
    bin: PathBuf,
}

fn options(args: &[String]) -> Result<Options, Error> {
    let exe = std::env::current_exe()?;
    let mut options = Options {
        runs: 4000,
        jobs: vec![1, 2],
        rounds: 9,
        format: "csv".to_owned(),
        dir: PathBuf::from("target/campaign-bench"),
        bin: exe.with_file_name(format!("oatf{}", std::env::consts::EXE_SUFFIX)),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--runs" => options.runs = value()?.parse()?,
            "--rounds" => options.rounds = value()?.parse()?,
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
    let (write_only, floor_only) = match args.first().map(String::as_str) {
        Some("write") => (true, false),
        Some("floor") => (false, true),
        _ => (false, false),
    };
    let args = if write_only || floor_only {
        &args[1..]
    } else {
        args
    };
    let options = options(args)?;
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
    paired.rounds = options.rounds;
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
