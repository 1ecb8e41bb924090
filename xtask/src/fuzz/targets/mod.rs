//! The fuzz targets: the [`Target`] trait and the six implementations
//! (`parser`, `watcher`, `json`, `calculator`, `paths`, `run`), each with
//! its dictionary, its seed set and its oracles.

mod calculator;
mod json;
mod parser;
mod paths;
mod run;
mod watcher;

use std::time::Instant;

use super::case::Case;
use super::seeds::SeedSet;

pub(crate) use calculator::Calculator;
pub(crate) use json::Json;
pub(crate) use parser::Parser;
pub(crate) use paths::Paths;
pub(crate) use run::{RunTarget, seeds as run_seeds};
pub(crate) use watcher::Watcher;

/// Target names, in the order `--target all` runs them.
pub(crate) const NAMES: [&str; 6] = ["parser", "watcher", "json", "calculator", "paths", "run"];

/// What one input did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// Time of the code under test (oracles excluded), in nanoseconds.
    pub(crate) nanos: u64,
    /// A coarse hash of the result; a new one puts the input in the pool.
    pub(crate) signature: u64,
}

/// An oracle that did not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// Which oracle.
    pub(crate) oracle: &'static str,
    /// How it failed; failures are grouped by oracle and class.
    pub(crate) class: &'static str,
    /// What was seen.
    pub(crate) detail: String,
}

impl Violation {
    /// A violation of `oracle`, of kind `class`.
    pub(crate) fn new(
        oracle: &'static str,
        class: &'static str,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            oracle,
            class,
            detail: detail.into(),
        }
    }
}

/// Code under test plus its oracles.
pub(crate) trait Target {
    /// The target's name.
    fn name(&self) -> &'static str;
    /// The seeds it starts from.
    fn seeds(&self) -> SeedSet;
    /// Tokens the mutator inserts.
    fn dictionary(&self) -> &'static [&'static str];
    /// Whether inputs are fed as deltas (the cuts matter).
    fn chunked(&self) -> bool {
        false
    }
    /// How many times the per-input time limit one input may take (an
    /// input that is a whole run does the work of many).
    fn slow_factor(&self) -> u32 {
        1
    }
    /// Runs one input and checks the oracles.
    fn run(&mut self, case: &Case) -> Result<Outcome, Violation>;
    /// Why no more inputs can be run, once that is so (a target whose
    /// watchdog has left too many workers stuck).
    fn stopped(&mut self) -> Option<String> {
        None
    }
}

/// The target called `name`.
pub(crate) fn by_name(name: &str) -> std::io::Result<Box<dyn Target>> {
    Ok(match name {
        "parser" => Box::new(Parser),
        "watcher" => Box::new(Watcher),
        "json" => Box::new(Json),
        "calculator" => Box::new(Calculator),
        "paths" => Box::new(Paths::new()?),
        "run" => Box::new(RunTarget::new().map_err(std::io::Error::other)?),
        other => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("unknown fuzz target `{other}`"),
            ));
        }
    })
}

/// Nanoseconds since `start`.
fn nanos_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// FNV-1a over `parts`: a cheap signature of a result.
fn signature(parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for part in parts {
        for &b in *part {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        hash = (hash ^ 0xff).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// At most the first `n` bytes of `text`, cut back to a char boundary.
fn prefix(text: &str, n: usize) -> &[u8] {
    let mut end = n.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text.as_bytes()[..end]
}

/// Checks that `at` is a cut point of `text`: within it and on a char boundary.
fn check_cut(oracle: &'static str, text: &str, at: usize, what: &str) -> Result<(), Violation> {
    if at > text.len() {
        return Err(Violation::new(
            oracle,
            "past the end",
            format!("{what} {at} is past the end ({} bytes)", text.len()),
        ));
    }
    if !text.is_char_boundary(at) {
        return Err(Violation::new(
            oracle,
            "inside a character",
            format!("{what} {at} is inside a character"),
        ));
    }
    Ok(())
}
