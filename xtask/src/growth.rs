//! `cargo xtask growth [--budget-seconds S]`: a quick growth table. Times
//! `parse` and the streamed parse on the adversarial inputs of the
//! `agent-text` growth bench (the same file, included by path) at 1 kB,
//! 10 kB, 100 kB and 1 MB, and prints time(1 MB) / time(100 kB); a ratio
//! far above 10× is flagged as superlinear. A size whose time, extrapolated
//! from the smaller ones, would exceed the budget is estimated, not run.
//! Exits non-zero when anything is superlinear or panics.

#[path = "../../agent-text/benches/growth/inputs.rs"]
mod inputs;

use std::hint::black_box;
use std::time::{Duration, Instant};

use agent_text::{Parsed, parse};

use crate::fuzz::hook::{QuietPanics, catch};
use inputs::{DELTA_BYTES, PATTERNS, SIZES, streamed_parse};

/// Above this 1 MB / 100 kB ratio growth counts as superlinear.
const SUPERLINEAR: f64 = 20.0;
/// Default longest single measurement allowed.
const DEFAULT_BUDGET_SECONDS: u64 = 20;
/// Target time spent measuring one fast cell.
const SAMPLE_TIME: Duration = Duration::from_millis(300);

/// One table cell.
#[derive(Debug, Clone, Copy)]
enum Cell {
    /// Measured (minimum over runs).
    Time(Duration),
    /// Not run: extrapolated from the smaller sizes.
    Estimate(Duration),
    /// The code under test panicked.
    Panic,
}

impl Cell {
    fn duration(self) -> Option<Duration> {
        match self {
            Cell::Time(d) | Cell::Estimate(d) => Some(d),
            Cell::Panic => None,
        }
    }

    fn show(self) -> String {
        match self {
            Cell::Time(d) => human(d),
            Cell::Estimate(d) => format!("~{}", human(d)),
            Cell::Panic => "panic".into(),
        }
    }
}

/// Prints the table; `Ok(true)` when every row grows linearly.
pub(crate) fn run(args: &[String]) -> Result<bool, String> {
    let budget = match args {
        [] => DEFAULT_BUDGET_SECONDS,
        [flag, value] if flag == "--budget-seconds" => value
            .parse()
            .map_err(|_| format!("`--budget-seconds` needs a number, not `{value}`"))?,
        _ => return Err("usage: cargo xtask growth [--budget-seconds S]".into()),
    };
    let budget = Duration::from_secs(budget);
    println!(
        "growth: minimum time per call; stream = ActionWatcher fed {DELTA_BYTES}-byte deltas, \
         then parse; ~ = extrapolated, not run"
    );
    println!(
        "{:<13} {:<6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "pattern", "mode", "1 kB", "10 kB", "100 kB", "1 MB", "100k/10k", "1M/100k"
    );
    let _quiet = QuietPanics::install();
    let mut linear = true;
    for pattern in &PATTERNS {
        for (mode, call) in [
            ("parse", parse as fn(&str) -> Parsed),
            ("stream", streamed_parse),
        ] {
            let cells = row(|size| pattern.build(size), call, budget);
            let last = ratio(cells[2], cells[3]);
            let flag = match last {
                Some(r) if r > SUPERLINEAR => "  SUPERLINEAR",
                None => "  PANIC",
                Some(_) => "",
            };
            linear &= flag.is_empty();
            let estimated = if matches!(cells[3], Cell::Estimate(_)) {
                "~"
            } else {
                ""
            };
            println!(
                "{:<13} {:<6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}{flag}",
                pattern.name,
                mode,
                cells[0].show(),
                cells[1].show(),
                cells[2].show(),
                cells[3].show(),
                ratio(cells[1], cells[2]).map_or("-".into(), |r| format!("{r:.1}×")),
                last.map_or("-".into(), |r| format!("{estimated}{r:.1}×")),
            );
        }
    }
    Ok(linear)
}

/// time(`big`) / time(`small`).
fn ratio(small: Cell, big: Cell) -> Option<f64> {
    Some(big.duration()?.as_secs_f64() / small.duration()?.as_secs_f64().max(1e-9))
}

/// Times `call` on the input of each size; a size whose estimate exceeds
/// `budget` is not run.
fn row(build: impl Fn(usize) -> String, call: fn(&str) -> Parsed, budget: Duration) -> Vec<Cell> {
    let mut cells: Vec<Cell> = Vec::new();
    for size in SIZES {
        let cell = match (cells.last(), estimate(&cells)) {
            (Some(Cell::Panic), _) => Cell::Panic,
            (_, Some(guess)) if guess > budget => Cell::Estimate(guess),
            _ => measure(&build(size), call),
        };
        cells.push(cell);
    }
    cells
}

/// The next size's likely time (sizes grow 10× a step): the last time
/// times the last growth factor, taken between 10× and 100×.
fn estimate(cells: &[Cell]) -> Option<Duration> {
    let last = cells.last()?.duration()?;
    let growth = match cells {
        [.., before, _] => ratio(*before, Cell::Time(last)).unwrap_or(10.0),
        _ => 10.0,
    };
    Some(last.mul_f64(growth.clamp(10.0, 100.0)))
}

/// The minimum time of `call` on `text` over a few runs.
fn measure(text: &str, call: fn(&str) -> Parsed) -> Cell {
    let mut best = Duration::MAX;
    let started = Instant::now();
    let mut runs = 0;
    while runs < 5 || (started.elapsed() < SAMPLE_TIME && runs < 1000) {
        let t = Instant::now();
        if catch(|| black_box(call(black_box(text)))).is_err() {
            return Cell::Panic;
        }
        best = best.min(t.elapsed());
        runs += 1;
        if best > SAMPLE_TIME {
            break;
        }
    }
    Cell::Time(best)
}

/// A duration in µs, ms or s.
fn human(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 1_000.0 {
        format!("{micros:.0} µs")
    } else if micros < 1_000_000.0 {
        format!("{:.1} ms", micros / 1e3)
    } else {
        format!("{:.1} s", micros / 1e6)
    }
}
