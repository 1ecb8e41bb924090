//! `cargo xtask fuzz --target NAME --replay FILE`: one saved input (a
//! reproducer under `target/fuzz/`, a seed) run once through each named
//! target, whole (a chunked target gets it as one delta), with what it
//! did and how long it took. A process stuck on it can be looked at with
//! `gdb -p`.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use super::case::Case;
use super::hook::{QuietPanics, catch};
use super::targets;

/// Replays `path` through the targets `names`; `Ok(true)` when every one
/// ran it clean within `slow` (times its slow factor).
pub(crate) fn run(names: &[&str], path: &Path, slow: Duration) -> Result<bool, String> {
    let bytes = fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let case = Case {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        cuts: Vec::new(),
    };
    let mut clean = true;
    for name in names {
        let mut target = targets::by_name(name).map_err(|e| format!("{name}: {e}"))?;
        let slow = slow.saturating_mul(target.slow_factor());
        let started = Instant::now();
        let result = {
            let _quiet = QuietPanics::install();
            catch(|| target.run(&case))
        };
        let wall = started.elapsed();
        let said = match result {
            Ok(Ok(outcome)) => {
                let took = Duration::from_nanos(outcome.nanos);
                clean &= took <= slow;
                format!(
                    "ran clean in {} µs{}",
                    took.as_micros(),
                    if took > slow { " (over the limit)" } else { "" }
                )
            }
            Ok(Err(v)) => {
                clean = false;
                format!("oracle `{}` ({}) failed: {}", v.oracle, v.class, v.detail)
            }
            Err(p) => {
                clean = false;
                let at = p.location.unwrap_or_else(|| "unknown location".into());
                format!("panic at {at}: {}", p.message)
            }
        };
        println!(
            "fuzz {name}: {} bytes {said} ({} ms wall)",
            case.text.len(),
            wall.as_millis()
        );
    }
    Ok(clean)
}
