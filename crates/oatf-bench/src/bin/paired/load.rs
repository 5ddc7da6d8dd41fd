//! `load` and `load-floor`: loading the library-style documents, against the reference and against
//! the YAML scanner floor.

use oatf_bench::library_documents;
use oatf_bench::paired::{Contender, run_paired};

use crate::options::{Error, Settings};
use crate::report::{Row, report};

/// Loading the library-style documents next to the YAML scanner floor (the same
/// serde-saphyr parser reading each document into `IgnoredAny`).
pub(crate) fn measure_load_floor(settings: &Settings, tier: bool) -> Result<(), Error> {
    let documents = library_documents(tier);
    let bytes: usize = documents.iter().map(String::len).sum();
    let mut contenders = [
        Contender::new("yaml_scanner_floor", || {
            documents
                .iter()
                .map(|d| u64::from(serde_saphyr::from_str::<serde::de::IgnoredAny>(d).is_ok()))
                .sum()
        }),
        Contender::new("ours_load", || {
            documents
                .iter()
                .map(|d| u64::from(oatf::load(d).is_ok()))
                .sum()
        }),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        &format!(
            "load-floor: {} library-style documents ({bytes} bytes) against the YAML scanner floor",
            documents.len()
        ),
        &run,
        &[Row {
            label: "load ÷ serde-saphyr into IgnoredAny",
            numerator: 1,
            denominator: 0,
            target: "≤ 1.10×",
        }],
    );
    let mb = bytes as f64 / 1e6;
    println!(
        "\nMB/s: floor {:.1}, ours {:.1}",
        mb / run.time(0).median,
        mb / run.time(1).median
    );
    Ok(())
}

pub(crate) fn measure_load(settings: &Settings, tier: bool) -> Result<(), Error> {
    let documents = library_documents(tier);
    let bytes: usize = documents.iter().map(String::len).sum();
    let mut contenders = [
        Contender::new("ours", || {
            documents
                .iter()
                .map(|d| u64::from(oatf::load(d).is_ok()))
                .sum()
        }),
        Contender::new("reference", || {
            documents
                .iter()
                .map(|d| u64::from(oatf_reference::load(d).is_ok()))
                .sum()
        }),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        &format!(
            "load: {} library-style documents ({bytes} bytes; every indicator a regex; `tier` {})",
            documents.len(),
            if tier { "on" } else { "off" }
        ),
        &run,
        &[Row {
            label: "load (parse + validate + normalize)",
            numerator: 1,
            denominator: 0,
            target: "≥ 3×",
        }],
    );
    Ok(())
}
