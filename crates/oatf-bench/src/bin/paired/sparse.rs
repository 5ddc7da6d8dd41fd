//! `sparse`: the lazy reading of a trace against the full one (D-91).

use oatf_bench::paired::{Contender, human_seconds, run_paired};
use oatf_bench::scaling::{scaling_attack, scaling_trace};
use oatf_bench::sparse::sparse_trace;

use crate::options::{Error, Settings};
use crate::ours::{compile_ours, floor_trace, ours_trace, ours_trace_full};
use crate::report::{Row, report};

/// The the lazy reading (`next_into`) against the full one (`next` and
/// `push`) on a trace where one line in five applies to an indicator ([`sparse_trace`]) and on the
/// scaling trace (every line applies), next to the `serde_json::Value` floor of each.
pub(crate) fn measure_sparse(settings: &Settings) -> Result<(), Error> {
    let ten = compile_ours(&scaling_attack(10, true))?;
    let hundred = compile_ours(&scaling_attack(100, false))?;
    let sparse = sparse_trace(settings.messages);
    let dense = scaling_trace(settings.messages);
    let mut contenders = [
        Contender::new("sparse_floor", || floor_trace(&sparse)),
        Contender::new("sparse_full_10", || ours_trace_full(&ten, &sparse)),
        Contender::new("sparse_lazy_10", || ours_trace(&ten, &sparse)),
        Contender::new("sparse_full_100_without_cel", || {
            ours_trace_full(&hundred, &sparse)
        }),
        Contender::new("sparse_lazy_100_without_cel", || {
            ours_trace(&hundred, &sparse)
        }),
        Contender::new("dense_floor", || floor_trace(&dense)),
        Contender::new("dense_full_10", || ours_trace_full(&ten, &dense)),
        Contender::new("dense_lazy_10", || ours_trace(&ten, &dense)),
        Contender::new("dense_full_100_without_cel", || {
            ours_trace_full(&hundred, &dense)
        }),
        Contender::new("dense_lazy_100_without_cel", || {
            ours_trace(&hundred, &dense)
        }),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        &format!(
            "sparse: the scaling attack over a session where 1 line in 5 applies ({} bytes) and over the scaling trace ({} bytes), {} messages each; lazy reading (next_into) against the full one (next + push)",
            sparse.len(),
            dense.len(),
            settings.messages
        ),
        &run,
        &[
            Row {
                label: "sparse, 10 indicators: lazy ÷ full",
                numerator: 2,
                denominator: 1,
                target: "< 1",
            },
            Row {
                label: "sparse, 100 without CEL: lazy ÷ full",
                numerator: 4,
                denominator: 3,
                target: "< 1",
            },
            Row {
                label: "sparse, 10 indicators: full ÷ Value floor",
                numerator: 1,
                denominator: 0,
                target: "",
            },
            Row {
                label: "sparse, 10 indicators: lazy ÷ Value floor",
                numerator: 2,
                denominator: 0,
                target: "",
            },
            Row {
                label: "sparse, 100 without CEL: full ÷ Value floor",
                numerator: 3,
                denominator: 0,
                target: "",
            },
            Row {
                label: "sparse, 100 without CEL: lazy ÷ Value floor",
                numerator: 4,
                denominator: 0,
                target: "",
            },
            Row {
                label: "dense, 10 indicators: lazy ÷ full",
                numerator: 7,
                denominator: 6,
                target: "",
            },
            Row {
                label: "dense, 100 without CEL: lazy ÷ full",
                numerator: 9,
                denominator: 8,
                target: "",
            },
            Row {
                label: "dense, 10 indicators: lazy ÷ Value floor",
                numerator: 7,
                denominator: 5,
                target: "",
            },
            Row {
                label: "dense, 100 without CEL: lazy ÷ Value floor",
                numerator: 9,
                denominator: 5,
                target: "",
            },
        ],
    );
    println!("\n| contender | per message (median) | MB/s |");
    println!("|---|---|---|");
    for (c, name) in run.names.iter().enumerate() {
        let bytes = if c < 5 { sparse.len() } else { dense.len() };
        println!(
            "| {name} | {} | {:.0} |",
            human_seconds(run.time(c).median / settings.messages as f64),
            bytes as f64 / 1e6 / run.time(c).median
        );
    }
    Ok(())
}
