//! The report of a paired run: a table of the contenders' times and one of the ratios asked for.

use oatf_bench::paired::{PairedRun, human_seconds};

/// One row of the report: `numerator ÷ denominator` of two contenders of a run.
pub(crate) struct Row {
    pub(crate) label: &'static str,
    pub(crate) numerator: usize,
    pub(crate) denominator: usize,
    pub(crate) target: &'static str,
}

pub(crate) fn report(title: &str, run: &PairedRun, rows: &[Row]) {
    println!("\n## {title}\n");
    println!("| contender | operations per sample | median time per operation | min–max |");
    println!("|---|---|---|---|");
    for (c, name) in run.names.iter().enumerate() {
        let t = run.time(c);
        println!(
            "| {name} | {} | {} | {}–{} |",
            run.iterations[c],
            human_seconds(t.median),
            human_seconds(t.min),
            human_seconds(t.max)
        );
    }
    println!("\n| ratio | median | IQR | min–max | fastest ÷ fastest | rounds | target |");
    println!("|---|---|---|---|---|---|---|");
    for row in rows {
        let r = run.ratio(row.numerator, row.denominator);
        println!(
            "| {} ({} ÷ {}) | **{:.2}×** | {:.2}–{:.2} | {:.2}–{:.2} | {:.2}× | {} | {} |",
            row.label,
            run.names[row.numerator],
            run.names[row.denominator],
            r.median,
            r.q1,
            r.q3,
            r.min,
            r.max,
            run.ratio_of_fastest(row.numerator, row.denominator),
            r.count,
            row.target
        );
    }
}
