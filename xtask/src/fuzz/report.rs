//! What a fuzz run reports: the per-target [`Report`], the reproducer
//! printed when a failure is found, progress lines, the final
//! `fuzz TARGET: N inputs, P panics, slowest X µs at SIZE bytes` line, and
//! the artifacts saved under `target/fuzz/`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::case::Case;

/// One kind of failure (a panic location or an oracle).
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    /// Grouping key: the panic's location or the oracle's name.
    pub(crate) key: String,
    /// What happened on the minimized input.
    pub(crate) what: String,
    /// The input it was first seen on.
    pub(crate) original: Case,
    /// The minimized input.
    pub(crate) minimized: Case,
    /// Inputs that failed this way.
    pub(crate) count: u64,
}

/// The results of fuzzing one target.
#[derive(Debug, Clone)]
pub(crate) struct Report {
    /// The target's name.
    pub(crate) target: &'static str,
    /// Whether its inputs are fed as deltas.
    pub(crate) chunked: bool,
    /// Inputs run.
    pub(crate) inputs: u64,
    /// Failures, by kind.
    pub(crate) failures: Vec<Failure>,
    /// Time of the slowest input, in nanoseconds.
    pub(crate) slowest_nanos: u64,
    /// Its size in bytes.
    pub(crate) slowest_bytes: usize,
    /// Inputs over the time limit.
    pub(crate) over_limit: u64,
    /// The slowest input, kept when it is over the limit.
    pub(crate) slowest_case: Option<Case>,
    /// Why the target stopped before its last input, if it did.
    pub(crate) stopped: Option<String>,
}

impl Report {
    /// An empty report for `target`.
    pub(crate) fn new(target: &'static str, chunked: bool) -> Self {
        Self {
            target,
            chunked,
            inputs: 0,
            failures: Vec::new(),
            slowest_nanos: 0,
            slowest_bytes: 0,
            over_limit: 0,
            slowest_case: None,
            stopped: None,
        }
    }

    /// Notes the time an input took (`limit` in nanoseconds).
    pub(crate) fn timed(&mut self, case: &Case, nanos: u64, limit: u64) {
        if nanos > limit {
            self.over_limit += 1;
        }
        if nanos > self.slowest_nanos {
            self.slowest_nanos = nanos;
            self.slowest_bytes = case.text.len();
            if nanos > limit {
                self.slowest_case = Some(case.clone());
            }
        }
    }

    /// Inputs that panicked or broke an oracle.
    pub(crate) fn failed(&self) -> u64 {
        self.failures.iter().map(|f| f.count).sum()
    }

    /// Whether the run is clean: no failure, nothing over the limit.
    pub(crate) fn clean(&self) -> bool {
        self.failures.is_empty() && self.over_limit == 0
    }

    /// The final line.
    pub(crate) fn summary(&self) -> String {
        format!(
            "fuzz {}: {} inputs, {} panics, slowest {} µs at {} bytes",
            self.target,
            self.inputs,
            self.failed(),
            self.slowest_nanos.div_ceil(1000),
            self.slowest_bytes
        )
    }
}

/// Prints a failure when it is first found, with its minimal reproducer.
pub(crate) fn found(target: &str, chunked: bool, failure: &Failure) {
    println!("fuzz {target}: {}", failure.what);
    println!(
        "  first seen on a {}-byte input; minimal reproducer (target {target}, {} bytes{}):",
        failure.original.text.len(),
        failure.minimized.text.len(),
        if chunked { ", as deltas" } else { "" }
    );
    println!("  {}", failure.minimized.literal(chunked));
}

/// A progress line on stderr.
pub(crate) fn progress(report: &Report, total: u64, elapsed: Duration) {
    eprintln!(
        "fuzz {}: {}/{} inputs in {:.0} s, {} panics, slowest {} µs",
        report.target,
        report.inputs,
        total,
        elapsed.as_secs_f64(),
        report.failed(),
        report.slowest_nanos.div_ceil(1000)
    );
}

/// The recap of a finished target: failure counts with reproducers, the
/// inputs over the limit; saves the inputs under `target/fuzz/`.
pub(crate) fn recap(report: &Report, limit: Duration) {
    let dir = artifacts();
    for (i, failure) in report.failures.iter().enumerate() {
        let saved = save(
            &dir,
            &format!("{}-{}.txt", report.target, i + 1),
            &failure.minimized,
        );
        println!(
            "fuzz {}: {} inputs failed: {}",
            report.target, failure.count, failure.what
        );
        println!(
            "  reproducer ({}): {}",
            report.target,
            failure.minimized.literal(report.chunked)
        );
        print_saved(saved);
    }
    if let Some(why) = &report.stopped {
        println!(
            "fuzz {}: stopped after {} inputs: {why}",
            report.target, report.inputs
        );
    }
    if let Some(case) = &report.slowest_case {
        let saved = save(&dir, &format!("{}-slow.txt", report.target), case);
        println!(
            "fuzz {}: {} inputs over {} ms; the slowest took {} µs on {} bytes",
            report.target,
            report.over_limit,
            limit.as_millis(),
            report.slowest_nanos.div_ceil(1000),
            case.text.len()
        );
        if case.text.len() <= 200 {
            println!(
                "  input ({}): {}",
                report.target,
                case.literal(report.chunked)
            );
        } else {
            let mut end = 160;
            while !case.text.is_char_boundary(end) {
                end -= 1;
            }
            println!(
                "  input starts ({}): {:?}…",
                report.target,
                &case.text[..end]
            );
        }
        print_saved(saved);
    }
}

fn print_saved(saved: io::Result<PathBuf>) {
    match saved {
        Ok(path) => println!("  saved to {}", path.display()),
        Err(err) => println!("  (not saved: {err})"),
    }
}

/// `target/fuzz/` of the workspace (or of `CARGO_TARGET_DIR`).
fn artifacts() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
            xtask.parent().unwrap_or(xtask).join("target")
        })
        .join("fuzz")
}

fn save(dir: &Path, name: &str, case: &Case) -> io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let path = dir.join(name);
    fs::write(&path, &case.text)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_has_the_agreed_shape() {
        let mut report = Report::new("parser", false);
        report.inputs = 3;
        report.timed(&Case::new("abc"), 1_500, 10_000_000);
        report.timed(&Case::new("a"), 900, 10_000_000);
        assert_eq!(
            report.summary(),
            "fuzz parser: 3 inputs, 0 panics, slowest 2 µs at 3 bytes"
        );
        assert!(report.clean());
    }
}
