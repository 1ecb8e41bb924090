//! `cargo xtask`: developer tasks for agentloop.
//!
//! - `demo`: runs the offline scripted demo (no key, no server).

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("demo") | None => cargo(&[
            "run",
            "--quiet",
            "--package",
            "agent-core",
            "--features",
            "testing",
            "--example",
            "scripted_run",
        ]),
        Some(other) => {
            eprintln!("xtask: unknown task `{other}` (available: demo)");
            ExitCode::from(2)
        }
    }
}

/// Runs cargo with `args`, passing its exit status on.
fn cargo(args: &[&str]) -> ExitCode {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    match Command::new(cargo).args(args).status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("xtask: cannot run cargo: {err}");
            ExitCode::FAILURE
        }
    }
}
