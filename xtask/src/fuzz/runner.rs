//! The mutation loop for one target: replays the seeds, then mutates pool
//! entries (seeds up to 16 kB plus inputs that gave a new result
//! signature; big inputs come from the mutator's repetition), runs each
//! input under the quiet panic hook, times it (an input over the limit is
//! re-run and its minimum time counts), and minimizes the first failure of
//! each kind. A target that says it has stopped (its watchdog has left too
//! many workers stuck) is fuzzed no further.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::case::Case;
use super::hook::catch;
use super::minimize::minimize;
use super::mutate::Mutator;
use super::report::{self, Failure, Report};
use super::rng::Rng;
use super::targets::{Outcome, Target};

/// Pool entries beyond the seeds.
const POOL_EXTRA: usize = 4096;
/// Largest seed mutated, in bytes (bigger ones are only replayed).
const BASE_MAX_BYTES: usize = 16 * 1024;
/// Largest input added to the pool, in bytes.
const POOL_MAX_BYTES: usize = 4096;
/// Smallest input whose time per byte is tracked, in bytes.
const PER_BYTE_MIN_BYTES: usize = 256;
/// Extra runs of an input that measured over the limit.
const RERUNS: usize = 3;
/// Seconds between progress lines.
const PROGRESS_EVERY: Duration = Duration::from_secs(15);

/// How long and how hard to fuzz.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// Inputs to run (seeds first).
    pub(crate) inputs: u64,
    /// PRNG seed.
    pub(crate) seed: u64,
    /// An input slower than this is reported (times the target's
    /// [`slow_factor`](Target::slow_factor)).
    pub(crate) slow: Duration,
    /// Time allowed to minimize one failure.
    pub(crate) minimize_for: Duration,
}

impl Settings {
    /// The time limit per input of `target`.
    pub(crate) fn slow_for(&self, target: &dyn Target) -> Duration {
        self.slow.saturating_mul(target.slow_factor())
    }
}

/// A failed run of one input: a grouping key and a description.
struct Failed {
    key: String,
    what: String,
}

/// Runs `case` once, catching panics; oracle violations are failures too.
fn attempt(target: &mut dyn Target, case: &Case) -> Result<Outcome, Failed> {
    match catch(|| target.run(case)) {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(v)) => Err(Failed {
            key: format!("{}/{}", v.oracle, v.class),
            what: format!("oracle `{}` ({}) failed: {}", v.oracle, v.class, v.detail),
        }),
        Err(p) => {
            let at = p
                .location
                .clone()
                .unwrap_or_else(|| "unknown location".into());
            Err(Failed {
                key: p.location.unwrap_or_else(|| p.message.clone()),
                what: format!("panic at {at}: {}", p.message),
            })
        }
    }
}

/// Fuzzes `target` with `seeds`; prints each new failure as it is found.
pub(crate) fn run(target: &mut dyn Target, seeds: Vec<String>, settings: Settings) -> Report {
    let mut rng = Rng::new(settings.seed);
    let mut mutator = Mutator::new(target.dictionary());
    let mut pool: Vec<String> = seeds
        .iter()
        .filter(|s| s.len() <= BASE_MAX_BYTES)
        .cloned()
        .collect();
    if pool.is_empty() {
        pool.push(String::new());
    }
    let base_count = pool.len();
    let mut seen = HashSet::new();
    let mut slowest_per_byte = 0;
    let mut report = Report::new(target.name(), target.chunked());
    let limit = u64::try_from(settings.slow_for(target).as_nanos()).unwrap_or(u64::MAX);
    let mut case = Case::default();
    let started = Instant::now();
    let mut last_progress = started;
    for i in 0..settings.inputs {
        match usize::try_from(i).ok().and_then(|i| seeds.get(i)) {
            Some(seed) => {
                case.text.clear();
                case.text.push_str(seed);
            }
            None => {
                let base = rng.below(pool.len());
                mutator.mutate(&mut rng, &pool[base], &pool, &mut case.text);
            }
        }
        case.cuts.clear();
        if target.chunked() {
            case.cut_randomly(&mut rng);
        }
        report.inputs += 1;
        match attempt(target, &case) {
            Ok(outcome) => {
                // Only a record or an input over the limit is worth re-running.
                let bar = limit.min(report.slowest_nanos);
                let nanos = settle(target, &case, outcome.nanos, bar);
                report.timed(&case, nanos, limit);
                // New behaviour, or a record time per byte (the seed of a
                // superlinear input once repeated), joins the pool.
                let len = case.text.len();
                let per_byte = if len >= PER_BYTE_MIN_BYTES {
                    nanos / len as u64
                } else {
                    0
                };
                let slow = per_byte > slowest_per_byte;
                slowest_per_byte = slowest_per_byte.max(per_byte);
                if (seen.insert(outcome.signature) || slow) && len <= POOL_MAX_BYTES {
                    if pool.len() < base_count + POOL_EXTRA {
                        pool.push(case.text.clone());
                    } else {
                        pool[base_count + rng.below(POOL_EXTRA)] = case.text.clone();
                    }
                }
            }
            Err(failed) => record(target, &case, failed, &mut report, settings),
        }
        if let Some(why) = target.stopped() {
            report.stopped = Some(why);
            break;
        }
        if i % 4096 == 0 && last_progress.elapsed() > PROGRESS_EVERY {
            last_progress = Instant::now();
            report::progress(&report, settings.inputs, started.elapsed());
        }
    }
    report
}

/// The time that counts for an input: re-runs one over `bar` a few times
/// and keeps the minimum, so a preempted run is not blamed.
fn settle(target: &mut dyn Target, case: &Case, mut nanos: u64, bar: u64) -> u64 {
    for _ in 0..RERUNS {
        if nanos <= bar {
            break;
        }
        match attempt(target, case) {
            Ok(again) => nanos = nanos.min(again.nanos),
            Err(_) => break,
        }
    }
    nanos
}

/// Counts a failure; the first of its kind is minimized and printed.
fn record(
    target: &mut dyn Target,
    case: &Case,
    failed: Failed,
    report: &mut Report,
    settings: Settings,
) {
    if let Some(known) = report.failures.iter_mut().find(|f| f.key == failed.key) {
        known.count += 1;
        return;
    }
    let key = failed.key;
    // What the last candidate kept said, so a hang is not run again.
    let mut what = failed.what;
    let minimized = minimize(
        case,
        |candidate| match attempt(target, candidate) {
            Err(f) if f.key == key => {
                what = f.what;
                true
            }
            _ => false,
        },
        settings.minimize_for,
    );
    let failure = Failure {
        key,
        what,
        original: case.clone(),
        minimized,
        count: 1,
    };
    report::found(report.target, report.chunked, &failure);
    report.failures.push(failure);
}
