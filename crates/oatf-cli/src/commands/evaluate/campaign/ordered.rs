//! A campaign's runs evaluated on every core and handed to the main thread in run order as they
//! finish (D-260), so that a report whose runs come first (CSV, JSON, SARIF) is written while the
//! runs are evaluated and keeps no run's text beyond a bounded window.
//!
//! The workers (one rayon task per thread of the pool) take chunks of consecutive runs from a shared
//! counter, in order, and send each finished chunk to the main thread; the main thread keeps the
//! chunks that finished before an earlier one in a reorder buffer and hands every chunk over as
//! soon as all earlier ones are. A worker does not start a chunk more than a window ahead of the
//! first chunk not handed over: however slow the output, at most that many runs are held.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError, mpsc};

/// The most runs a worker takes at a time: a chunk is one message to the main thread and one wake-up
/// of it (a futex wake and a context switch, several microseconds). With 16 runs a chunk, the
/// wake-ups and the channel's lock were most of the main thread's time (2% of a campaign's CPU time
/// at 2 threads, twice the serial share of writing every run).
const MAX_CHUNK: usize = 64;

/// The runs that may be evaluated ahead of the first run not yet handed over (about 20 MB of
/// SARIF runs), at least two chunks per thread.
const WINDOW_RUNS: usize = 2048;

/// Evaluates `work(run)` for every run of `runs` on the threads of rayon's pool and hands the
/// results to `consume` on the calling thread, in run order: `consume(first, results)` gets the
/// results of the runs `first..first + results.len()`, each run once. Called on a thread of the
/// pool (`campaign::run` is called from `main`, which is not), where waiting for the workers would
/// hold a thread they may need, the runs are evaluated one after the other.
///
/// A panic in `work` or in `consume` stops the other side (no run is started after it) and is
/// raised again here once every worker has stopped.
pub(super) fn in_order<R, T, W, C>(runs: &[R], work: W, mut consume: C)
where
    R: Sync,
    T: Send,
    W: Fn(&R) -> T + Sync,
    C: FnMut(usize, Vec<T>),
{
    if rayon::current_thread_index().is_some() {
        for (i, run) in runs.iter().enumerate() {
            consume(i, vec![work(run)]);
        }
        return;
    }
    let count = runs.len();
    let threads = rayon::current_num_threads().max(1);
    // Chunks small enough that every thread gets several, for the balance of a short campaign.
    let chunk = (count / (threads * 8)).clamp(1, MAX_CHUNK);
    let chunks = count.div_ceil(chunk);
    let gate = Gate::new((WINDOW_RUNS / chunk).max(2 * threads));
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel::<(usize, Vec<T>)>();
    rayon::in_place_scope(|scope| {
        let _stop = StopOnUnwind(&gate);
        for _ in 0..threads.min(chunks) {
            let sender = sender.clone();
            let (gate, next, work) = (&gate, &next, &work);
            scope.spawn(move |_| {
                let _stop = StopOnUnwind(gate);
                loop {
                    let taken = next.fetch_add(1, Ordering::Relaxed);
                    if taken >= chunks || !gate.admit(taken) {
                        break;
                    }
                    let results: Vec<T> = runs
                        .iter()
                        .skip(taken * chunk)
                        .take(chunk)
                        .map(work)
                        .collect();
                    if sender.send((taken, results)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // `pending[k]`: chunk `first + k`, once it has finished.
        let mut pending: VecDeque<Option<Vec<T>>> = VecDeque::new();
        let mut first = 0;
        for (taken, results) in receiver {
            let Some(slot) = taken.checked_sub(first) else {
                continue;
            };
            if pending.len() <= slot {
                pending.resize_with(slot + 1, || None);
            }
            pending[slot] = Some(results);
            let start = first;
            let mut ready: Vec<T> = Vec::new();
            while let Some(Some(_)) = pending.front() {
                if let Some(Some(results)) = pending.pop_front() {
                    if ready.is_empty() {
                        ready = results;
                    } else {
                        ready.extend(results);
                    }
                }
                first += 1;
            }
            if !ready.is_empty() {
                gate.open_to(first);
                consume(start * chunk, ready);
            }
        }
    });
}

/// Holds back a worker that would start a chunk a window or more ahead of the first chunk not yet
/// handed over; stops every worker when either side panicked.
struct Gate {
    /// The first chunk that may not start yet.
    limit: AtomicUsize,
    window: usize,
    stopped: AtomicBool,
    /// Workers waiting for `limit` to move.
    waiting: AtomicUsize,
    lock: Mutex<()>,
    moved: Condvar,
}

impl Gate {
    fn new(window: usize) -> Self {
        Gate {
            limit: AtomicUsize::new(window),
            window,
            stopped: AtomicBool::new(false),
            waiting: AtomicUsize::new(0),
            lock: Mutex::new(()),
            moved: Condvar::new(),
        }
    }

    /// Waits until chunk `taken` may start; `false` when the campaign stopped.
    fn admit(&self, taken: usize) -> bool {
        if taken < self.limit.load(Ordering::SeqCst) {
            return !self.stopped.load(Ordering::SeqCst);
        }
        let mut guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.waiting.fetch_add(1, Ordering::SeqCst);
        while taken >= self.limit.load(Ordering::SeqCst) && !self.stopped.load(Ordering::SeqCst) {
            guard = self
                .moved
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        !self.stopped.load(Ordering::SeqCst)
    }

    /// Every chunk before `first` was handed over: the window moves up to it.
    fn open_to(&self, first: usize) {
        self.limit
            .store(first.saturating_add(self.window), Ordering::SeqCst);
        // A worker counts itself as waiting before it looks at the limit, under the lock: either it
        // sees the new limit or it is counted here, and then waits on the lock taken here.
        if self.waiting.load(Ordering::SeqCst) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
            self.moved.notify_all();
        }
    }

    fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.moved.notify_all();
    }
}

/// Stops the campaign when the thread that holds it unwinds from a panic: no worker waits for a
/// window that will not move.
struct StopOnUnwind<'g>(&'g Gate);

impl Drop for StopOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `count` items, the item `i` taking longer when `i % 7 == 0` (so chunks finish out of
    /// order), and gives the runs `consume` saw, in the order it saw them. A test's thread is not one
    /// of rayon's, as `main` is not.
    fn handed_over(count: usize) -> Vec<usize> {
        let mut seen = Vec::new();
        in_order(
            &(0..count).collect::<Vec<_>>(),
            |&i| {
                if i % 7 == 0 {
                    std::thread::sleep(std::time::Duration::from_micros(100));
                }
                i * 10
            },
            |first, results| {
                for (k, value) in results.into_iter().enumerate() {
                    assert_eq!(value, (first + k) * 10, "the result of run {}", first + k);
                    seen.push(first + k);
                }
            },
        );
        seen
    }

    #[test]
    fn every_run_is_handed_over_once_in_order() {
        for count in [0, 1, 5, 100, 1000, 3001, 20_000] {
            assert_eq!(
                handed_over(count),
                (0..count).collect::<Vec<_>>(),
                "{count} runs"
            );
        }
    }

    #[test]
    fn no_run_starts_a_window_ahead_of_the_first_not_handed_over() {
        // One slow run early: without the window, the others would all run while it sleeps.
        let handed = AtomicUsize::new(0);
        let most_ahead = AtomicUsize::new(0);
        let started = AtomicUsize::new(0);
        let count = 20 * WINDOW_RUNS;
        in_order(
            &(0..count).collect::<Vec<_>>(),
            |&i| {
                started.fetch_add(1, Ordering::SeqCst);
                if i == 3 {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                let ahead = i.saturating_sub(handed.load(Ordering::SeqCst));
                most_ahead.fetch_max(ahead, Ordering::SeqCst);
            },
            |first, results| handed.store(first + results.len(), Ordering::SeqCst),
        );
        assert_eq!(started.load(Ordering::SeqCst), count);
        // The window opens before the runs that became ready are handed over: twice the window
        // (in runs), and a chunk.
        let window = WINDOW_RUNS.max(2 * rayon::current_num_threads() * MAX_CHUNK);
        let bound = 2 * window + MAX_CHUNK;
        let ahead = most_ahead.load(Ordering::SeqCst);
        assert!(
            ahead <= bound,
            "a run started {ahead} runs ahead (bound {bound})"
        );
    }

    #[test]
    fn a_panic_in_a_worker_stops_the_campaign_and_is_raised() {
        let handed = AtomicUsize::new(0);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            in_order(
                &(0..100 * WINDOW_RUNS).collect::<Vec<_>>(),
                |&i| assert!(i != 5, "run {i} failed"),
                |_, results| {
                    handed.fetch_add(results.len(), Ordering::SeqCst);
                },
            );
        }));
        assert!(caught.is_err(), "the panic is raised again");
        assert!(
            handed.load(Ordering::SeqCst) < 5,
            "no run after the failed one is handed over"
        );
    }

    #[test]
    fn a_panic_in_the_hand_over_stops_the_workers_and_is_raised() {
        let started = AtomicUsize::new(0);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            in_order(
                &(0..100 * WINDOW_RUNS).collect::<Vec<_>>(),
                |_| {
                    started.fetch_add(1, Ordering::SeqCst);
                },
                |first, _| assert!(first == 0, "the output failed"),
            );
        }));
        assert!(caught.is_err(), "the panic is raised again");
        let window = WINDOW_RUNS.max(2 * rayon::current_num_threads() * MAX_CHUNK);
        assert!(
            started.load(Ordering::SeqCst) <= 3 * window,
            "the workers stopped"
        );
    }
}
