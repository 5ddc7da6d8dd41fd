//! Paired, interleaved timing: the contenders of one measure run alternately in rounds, so that a
//! change of machine load during the run hits all of them alike, and each ratio is taken within a
//! round before the rounds are summarized (median and spread).
//!
//! Criterion runs its benchmarks one after another, so a ratio of two criterion medians mixes two
//! moments of the machine; on a shared machine that drifts by tens of percent. This runner is for
//! ratios; criterion (`benches/`) stays for absolute trends.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// One contender of a measure: a name and the work of one operation. The returned number is passed
/// through [`black_box`] so the work cannot be optimized away.
pub struct Contender<'a> {
    /// Short name, shown in the report.
    pub name: &'static str,
    run: Box<dyn FnMut() -> u64 + 'a>,
}

impl<'a> Contender<'a> {
    /// A contender doing `run` once per operation.
    pub fn new(name: &'static str, run: impl FnMut() -> u64 + 'a) -> Self {
        Self {
            name,
            run: Box::new(run),
        }
    }
}

impl std::fmt::Debug for Contender<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Contender")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// How long and how often to measure.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct PairedOptions {
    /// Number of measured rounds (each runs every contender once, for one sample).
    pub rounds: usize,
    /// Warm-up per contender before the first round; it also calibrates the operations per sample.
    pub warm_up: Duration,
    /// Least wall time of one sample: an operation faster than this is repeated within the sample.
    pub min_sample: Duration,
}

impl Default for PairedOptions {
    fn default() -> Self {
        Self {
            rounds: 15,
            warm_up: Duration::from_millis(300),
            min_sample: Duration::from_millis(40),
        }
    }
}

/// The raw result of [`run_paired`]: the time per operation of every contender in every round.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PairedRun {
    /// Contender names, in the order given.
    pub names: Vec<&'static str>,
    /// Operations per sample of each contender (from the warm-up).
    pub iterations: Vec<u64>,
    /// `per_op[c][r]`: seconds per operation of contender `c` in round `r`.
    pub per_op: Vec<Vec<f64>>,
}

impl PairedRun {
    /// Per-round ratios `numerator ÷ denominator` of two contenders (by index), summarized.
    ///
    /// # Panics
    /// Never for indices within [`PairedRun::names`]; an index out of range gives an empty summary.
    pub fn ratio(&self, numerator: usize, denominator: usize) -> Summary {
        let (Some(n), Some(d)) = (self.per_op.get(numerator), self.per_op.get(denominator)) else {
            return Summary::of(&[]);
        };
        let ratios: Vec<f64> = n.iter().zip(d).map(|(n, d)| n / d).collect();
        Summary::of(&ratios)
    }

    /// `numerator ÷ denominator` of the two contenders' fastest samples: the least disturbed estimate
    /// when the machine is busy (load only ever adds time), next to the median of per-round ratios.
    pub fn ratio_of_fastest(&self, numerator: usize, denominator: usize) -> f64 {
        self.time(numerator).min / self.time(denominator).min
    }

    /// The summary of one contender's seconds per operation over the rounds.
    pub fn time(&self, contender: usize) -> Summary {
        Summary::of(self.per_op.get(contender).map_or(&[][..], Vec::as_slice))
    }
}

/// Median and spread of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Summary {
    /// Number of values.
    pub count: usize,
    /// Smallest value (NaN for an empty sample, as are the others).
    pub min: f64,
    /// First quartile (linear interpolation between closest ranks).
    pub q1: f64,
    /// Median.
    pub median: f64,
    /// Third quartile.
    pub q3: f64,
    /// Largest value.
    pub max: f64,
}

impl Summary {
    /// Summarizes `values` (any order; NaNs sort last).
    pub fn of(values: &[f64]) -> Self {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let quantile = |q: f64| -> f64 {
            match sorted.len() {
                0 => f64::NAN,
                len => {
                    let position = q * (len - 1) as f64;
                    let low = position.floor() as usize;
                    let high = position.ceil() as usize;
                    let fraction = position - low as f64;
                    sorted[low] + (sorted[high] - sorted[low]) * fraction
                }
            }
        };
        Self {
            count: sorted.len(),
            min: quantile(0.0),
            q1: quantile(0.25),
            median: quantile(0.5),
            q3: quantile(0.75),
            max: quantile(1.0),
        }
    }
}

/// Runs the contenders in interleaved rounds and returns their times per operation.
///
/// First each contender is warmed up for `options.warm_up` (at least one operation), which also
/// calibrates how many operations one sample of it takes to last `options.min_sample`. Then
/// `options.rounds` rounds follow; each takes one sample of every contender, in the given order in
/// even rounds and in reverse order in odd ones (A B, B A, A B, …), so that neither contender
/// always runs right after the other.
pub fn run_paired(contenders: &mut [Contender<'_>], options: &PairedOptions) -> PairedRun {
    let mut iterations = Vec::with_capacity(contenders.len());
    for contender in contenders.iter_mut() {
        let start = Instant::now();
        let mut done = 0u64;
        while done == 0 || start.elapsed() < options.warm_up {
            black_box((contender.run)());
            done += 1;
        }
        let per_op = start.elapsed().as_secs_f64() / done as f64;
        let wanted = (options.min_sample.as_secs_f64() / per_op.max(1e-9)).ceil();
        iterations.push((wanted as u64).max(1));
    }
    let mut per_op = vec![Vec::with_capacity(options.rounds); contenders.len()];
    let mut order: Vec<usize> = (0..contenders.len()).collect();
    for round in 0..options.rounds {
        if round > 0 {
            order.reverse();
        }
        for &c in &order {
            let contender = &mut contenders[c];
            let start = Instant::now();
            for _ in 0..iterations[c] {
                black_box((contender.run)());
            }
            per_op[c].push(start.elapsed().as_secs_f64() / iterations[c] as f64);
        }
    }
    PairedRun {
        names: contenders.iter().map(|c| c.name).collect(),
        iterations,
        per_op,
    }
}

/// A duration in seconds, written with a unit that keeps three significant digits (`812 ms`).
pub fn human_seconds(seconds: f64) -> String {
    let (value, unit) = if seconds >= 1.0 {
        (seconds, "s")
    } else if seconds >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds >= 1e-6 {
        (seconds * 1e6, "µs")
    } else {
        (seconds * 1e9, "ns")
    };
    if value >= 100.0 {
        format!("{value:.0} {unit}")
    } else if value >= 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.2} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn summary_takes_median_and_quartiles_by_rank() {
        let s = Summary::of(&[5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!(
            (s.count, s.min, s.q1, s.median, s.q3, s.max),
            (5, 1.0, 2.0, 3.0, 4.0, 5.0)
        );
        // Even count: the median interpolates between the two middle values.
        let s = Summary::of(&[4.0, 1.0, 2.0, 3.0]);
        assert_eq!(s.median, 2.5);
        assert_eq!(s.q1, 1.75);
        assert!(Summary::of(&[]).median.is_nan());
    }

    #[test]
    fn contenders_alternate_and_each_round_samples_every_contender() {
        let log = RefCell::new(Vec::new());
        let mut contenders = [
            Contender::new("a", || {
                log.borrow_mut().push('a');
                0
            }),
            Contender::new("b", || {
                log.borrow_mut().push('b');
                0
            }),
        ];
        let options = PairedOptions {
            rounds: 4,
            warm_up: Duration::ZERO,
            // One operation per sample whatever the speed: a sample of zero length is still one op.
            min_sample: Duration::ZERO,
        };
        let run = run_paired(&mut contenders, &options);
        drop(contenders);
        let log: String = log.into_inner().into_iter().collect();
        // Warm-up (one each), then A B, B A, A B, B A.
        assert_eq!(log, "ab".to_owned() + "ab" + "ba" + "ab" + "ba");
        assert_eq!(run.iterations, vec![1, 1]);
        assert_eq!(
            run.per_op.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![4, 4]
        );
    }

    #[test]
    fn ratio_is_taken_within_each_round() {
        let run = PairedRun {
            names: vec!["a", "b"],
            iterations: vec![1, 1],
            // Load doubles in round 2: the per-round ratio stays 2, a ratio of medians would not.
            per_op: vec![vec![2.0, 4.0, 2.0], vec![1.0, 2.0, 1.0]],
        };
        let r = run.ratio(0, 1);
        assert_eq!((r.min, r.median, r.max), (2.0, 2.0, 2.0));
        assert!(run.ratio(0, 7).median.is_nan());
        assert_eq!(run.ratio_of_fastest(0, 1), 2.0);
        assert_eq!(run.ratio_of_fastest(1, 0), 0.5);
    }

    #[test]
    fn human_seconds_keeps_three_digits() {
        assert_eq!(human_seconds(0.812_4), "812 ms");
        assert_eq!(human_seconds(1.5e-6), "1.50 µs");
        assert_eq!(human_seconds(42.0e-9), "42.0 ns");
    }
}
