//! `cargo xtask fuzz [--inputs N] [--target NAME|all] [--seed S]
//! [--slow-ms MS] [--replay FILE]`: a stable-Rust mutation fuzzer seeded
//! from `xtask/fuzz-seeds/` and the parser corpus. Targets: `parser`,
//! `watcher`, `json`, `calculator`, `paths`, `run` (see `targets/`). Each
//! failure prints a minimal reproducer as a Rust literal; the run ends
//! with one line per target: `fuzz TARGET: N inputs, P panics, slowest X
//! µs at SIZE bytes`. Exits non-zero when an input panicked, broke an
//! oracle or took longer than the limit (10 ms by default; 20 times that
//! for `run`, whose case is a whole run of some twenty steps). The `run`
//! target runs each case on a worker thread under a [`watchdog`]: a case
//! that does not finish within seconds is a failure, not a hung fuzzer.
//! `--replay FILE` runs one saved input (whole, uncut) through the
//! target(s) and says what it did and how long it took.

mod case;
pub(crate) mod hook;
mod minimize;
mod mutate;
mod replay;
mod report;
mod rng;
mod runner;
mod seeds;
mod targets;
mod watchdog;

use crate::number;
use std::path::Path;
use std::time::{Duration, Instant};

use runner::Settings;

/// Inputs per target when `--inputs` is not given.
const DEFAULT_INPUTS: u64 = 100_000;
/// Time limit per input when `--slow-ms` is not given.
const DEFAULT_SLOW_MS: u64 = 10;
/// Time allowed to minimize one failure.
const MINIMIZE_FOR: Duration = Duration::from_secs(10);

/// Runs the fuzzer; `Ok(true)` when every target ran clean.
pub(crate) fn run(args: &[String]) -> Result<bool, String> {
    let mut inputs = DEFAULT_INPUTS;
    let mut target = "all".to_string();
    let mut seed = None;
    let mut slow_ms = DEFAULT_SLOW_MS;
    let mut replay = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) => (flag, Some(value.to_string())),
            None => (arg.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| rest.next().cloned())
                .ok_or_else(|| format!("`{flag}` needs a value"))
        };
        match flag {
            "--inputs" => inputs = number(flag, &value()?)?,
            "--target" => target = value()?,
            "--seed" => seed = Some(number(flag, &value()?)?),
            "--slow-ms" => slow_ms = number(flag, &value()?)?,
            "--replay" => replay = Some(value()?),
            other => {
                return Err(format!(
                    "unknown option `{other}` (usage: cargo xtask fuzz [--inputs N] \
                     [--target parser|watcher|json|calculator|paths|run|all] [--seed S] \
                     [--slow-ms MS] [--replay FILE])"
                ));
            }
        }
    }
    let names: Vec<&str> = if target == "all" {
        targets::NAMES.to_vec()
    } else if targets::NAMES.contains(&target.as_str()) {
        vec![target.as_str()]
    } else {
        return Err(format!(
            "unknown target `{target}` (available: {}, all)",
            targets::NAMES.join(", ")
        ));
    };
    if let Some(path) = replay {
        return replay::run(&names, Path::new(&path), Duration::from_millis(slow_ms));
    }
    let seed = seed.unwrap_or_else(clock_seed);
    let settings = Settings {
        inputs,
        seed,
        slow: Duration::from_millis(slow_ms),
        minimize_for: MINIMIZE_FOR,
    };
    println!("fuzz: seed {seed} (replay with --seed {seed})");
    let mut reports = Vec::new();
    for name in names {
        let mut target = targets::by_name(name).map_err(|e| format!("{name}: {e}"))?;
        let seeds = seeds::load(target.seeds())
            .map_err(|e| format!("{name}: cannot read the seeds: {e}"))?;
        let started = Instant::now();
        let report = {
            let _quiet = hook::QuietPanics::install();
            runner::run(target.as_mut(), seeds, settings)
        };
        eprintln!(
            "fuzz {name}: {} inputs in {:.1} s",
            report.inputs,
            started.elapsed().as_secs_f64()
        );
        report::recap(&report, settings.slow_for(target.as_ref()));
        reports.push(report);
    }
    for report in &reports {
        println!("{}", report.summary());
    }
    Ok(reports.iter().all(report::Report::clean))
}

/// A seed from the clock, for runs without `--seed`.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_secs() ^ u64::from(d.subsec_nanos()))
}
