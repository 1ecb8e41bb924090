//! Tests of the `run` target: its seeds run clean, and a case that does
//! not finish, or panics on the worker, is reported through the runner.

use std::thread;
use std::time::Duration;

use super::*;
use crate::fuzz::hook::QuietPanics;
use crate::fuzz::runner::{self, Settings};

fn settings(inputs: u64) -> Settings {
    Settings {
        inputs,
        seed: 7,
        slow: Duration::from_secs(60),
        minimize_for: Duration::from_secs(5),
    }
}

#[test]
fn the_hand_written_seeds_finish_clean_on_both_transports() {
    let mut target = RunTarget::new().unwrap();
    for seed in corpus::hand_written() {
        let result = target.run(&Case::new(*seed));
        assert!(result.is_ok(), "{seed:?}: {result:?}");
    }
}

#[test]
fn the_seed_set_holds_the_hand_written_seeds_and_runs_of_react_replies() {
    let seeds = crate::fuzz::seeds::load(SeedSet::Run).unwrap();
    assert!(seeds.iter().any(|s| s.contains("logs/app.log.1:2:")));
    assert!(seeds.len() > corpus::hand_written().len() + 100);
}

/// A target whose case sleeps past the watchdog when it holds `zz`, and
/// panics when it holds `boom`.
fn sleepy(max_stuck: usize) -> RunTarget {
    let progress = Arc::new(Mutex::new(Progress::default()));
    RunTarget::with_job(
        Duration::from_millis(100),
        max_stuck,
        progress,
        |case: &Case| {
            if case.text.contains("zz") {
                thread::sleep(Duration::from_millis(1500));
            }
            if case.text.contains("boom") {
                panic!("boom on the worker");
            }
            Ok(Outcome {
                nanos: 1,
                signature: case.text.len() as u64,
            })
        },
    )
}

#[test]
fn a_case_that_does_not_finish_is_reported_and_minimized() {
    let mut target = sleepy(100);
    let seeds = vec!["fine".to_string(), "a long case with zz inside".to_string()];
    let report = runner::run(&mut target, seeds, settings(2));
    assert_eq!(report.inputs, 2);
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    let failure = &report.failures[0];
    assert_eq!(failure.key, "run-ends/did not finish");
    assert!(
        failure.what.contains("no result after 0.1 s"),
        "{}",
        failure.what
    );
    assert_eq!(failure.original.text, "a long case with zz inside");
    assert_eq!(failure.minimized.text, "zz");
    assert!(!report.clean());
}

#[test]
fn a_target_with_too_many_stuck_workers_stops() {
    let mut target = sleepy(1);
    let seeds = vec!["zz".to_string(), "fine".to_string()];
    let report = runner::run(&mut target, seeds, settings(10));
    assert_eq!(report.inputs, 1);
    assert_eq!(report.failures[0].key, "run-ends/did not finish");
    assert!(
        report
            .stopped
            .as_deref()
            .is_some_and(|s| s.contains("1 worker"))
    );
}

#[test]
fn a_panic_on_the_worker_is_reported_where_it_happened() {
    let mut target = sleepy(100);
    let report = {
        let _quiet = QuietPanics::install();
        runner::run(&mut target, vec!["x boom".to_string()], settings(1))
    };
    // The location is kept (see `hook::rethrow`) unless another test
    // has put the default panic hook back meanwhile.
    let failure = &report.failures[0];
    assert!(
        failure.what.contains("boom on the worker"),
        "{}",
        failure.what
    );
    assert_eq!(failure.minimized.text, "boom");
}
