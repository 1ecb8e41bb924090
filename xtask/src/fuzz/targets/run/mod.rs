//! `run`: the sans-IO [`agent_core::run::Run`] driven through a few steps
//! per case, on the text transport (the tolerant parser reads each reply)
//! and on the native one (`name {json}` lines are calls with fuzzed
//! arguments), with the calculator, search and read-only file tools. The
//! case is split at `␞` into the task, the model's replies and the tool
//! results, so the run's own readers (numbers and grounding, gutters,
//! columns, ratios, runaways, echoes) read fuzzed text. Oracles: no panic;
//! every run is done within `2 × max_steps + 4` steps, within its budget
//! and without an internal error; the state machine takes every input
//! given by the book; a case takes at most [`SLOW_FACTOR`] times the
//! per-input limit (`--slow-ms`); and each case finishes within
//! [`WATCHDOG`]: it runs on a worker thread, and one that does not finish
//! is reported as `run-ends (did not finish)` with where the run was.

mod corpus;
mod drive;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_core::Toolbox;
use agent_core::transport::Transport;
use agent_native::NativeTransport;
use agent_text::TextTransport;
use agent_tools::builtin::{BuiltinError, registry};

use super::{Outcome, Target, Violation, nanos_since, signature};
use crate::fuzz::case::Case;
use crate::fuzz::hook::rethrow;
use crate::fuzz::seeds::SeedSet;
use crate::fuzz::watchdog::{Stalled, Watchdog};
use drive::{Progress, SEPARATOR, Tools, drive};

pub(crate) use corpus::seeds;

/// How long one case may take before it counts as a hang.
const WATCHDOG: Duration = Duration::from_secs(3);
/// Workers left stuck in a hang before the target stops.
const MAX_STUCK: usize = 6;
/// The per-input time limit is this many times the other targets': a
/// case is two runs of up to twenty steps, each step reading its pieces
/// again (about 0.5 µs per byte in all, linear, on a 2-core machine).
const SLOW_FACTOR: u32 = 20;

type Checked = Result<Outcome, Violation>;

/// The run target; see the module docs.
#[derive(Debug)]
pub(crate) struct RunTarget {
    watchdog: Watchdog<Checked>,
    progress: Arc<Mutex<Progress>>,
}

impl RunTarget {
    /// The target with the built-in tools (their specs only: results are
    /// the case's).
    pub(crate) fn new() -> Result<Self, BuiltinError> {
        let root = std::env::temp_dir();
        let toolset = registry(&["calculator", "search", "files"], Some(&root), true)?.allow_all();
        let specs = toolset.specs();
        let tools = Tools {
            grounded: specs
                .iter()
                .filter(|t| toolset.needs_grounded_numbers(&t.name))
                .map(|t| t.name.clone())
                .collect(),
            specs,
            context: None,
        };
        let text: Arc<dyn Transport> = Arc::new(TextTransport::new());
        let native: Arc<dyn Transport> = Arc::new(NativeTransport::new());
        let progress = Arc::new(Mutex::new(Progress::default()));
        let seen = Arc::clone(&progress);
        Ok(Self::with_job(WATCHDOG, MAX_STUCK, progress, move |case| {
            let pieces: Vec<&str> = case.text.split(SEPARATOR).collect();
            let start = Instant::now();
            let on_text = drive(&text, false, &tools, &pieces, &seen)?;
            let on_native = drive(&native, true, &tools, &pieces, &seen)?;
            let nanos = nanos_since(start);
            let mut parts = Vec::new();
            for ended in [&on_text, &on_native] {
                parts.extend_from_slice(ended.stop.as_bytes());
                parts.extend([
                    ended.steps as u8,
                    ended.tool_calls.min(255) as u8,
                    u8::from(ended.answered),
                    u8::from(ended.forced),
                ]);
            }
            Ok(Outcome {
                nanos,
                signature: signature(&[b"run", &parts, &[pieces.len().min(16) as u8]]),
            })
        }))
    }

    /// The target running `job` under a watchdog of `limit`.
    fn with_job(
        limit: Duration,
        max_stuck: usize,
        progress: Arc<Mutex<Progress>>,
        job: impl Fn(&Case) -> Checked + Send + Sync + 'static,
    ) -> Self {
        Self {
            watchdog: Watchdog::new(limit, max_stuck, job),
            progress,
        }
    }
}

impl Target for RunTarget {
    fn name(&self) -> &'static str {
        "run"
    }

    fn seeds(&self) -> SeedSet {
        SeedSet::Run
    }

    fn dictionary(&self) -> &'static [&'static str] {
        corpus::DICTIONARY
    }

    fn slow_factor(&self) -> u32 {
        SLOW_FACTOR
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, Violation> {
        match self.watchdog.run(case) {
            Ok(Ok(checked)) => checked,
            Ok(Err(panicked)) => rethrow(panicked),
            Err(Stalled::TimedOut) => {
                let at = self.progress.lock().map(|p| *p).unwrap_or_default();
                let stuck = self.watchdog.stuck();
                Err(Violation::new(
                    "run-ends",
                    "did not finish",
                    format!(
                        "no result after {} s: the {} transport, step {}, in {} with piece {} \
                         (the worker thread is left running; {stuck} running so far)",
                        self.watchdog.limit().as_secs_f64(),
                        at.transport,
                        at.step,
                        at.doing,
                        at.piece,
                    ),
                ))
            }
            Err(Stalled::Refused(why)) => Err(Violation::new("run-ends", "not run", why)),
        }
    }

    fn stopped(&mut self) -> Option<String> {
        let stuck = self.watchdog.stuck();
        self.watchdog
            .exhausted()
            .then(|| format!("{stuck} worker threads are stuck in cases that did not finish"))
    }
}

#[cfg(test)]
mod tests;
