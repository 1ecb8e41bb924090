//! `cargo xtask`: developer tasks for agentloop.
//!
//! - `demo [--transport text|native] [--scene NAME]`: the offline demo
//!   (`agent demo`: scripted scenes, no key, no server).
//! - `bench [--json]`: the peer workload through the real agent (see `bench.rs`);
//!   `bench --runs N [--transport T] [--k K]`: exactly N runs, for callgrind.
//! - `live`: starts the local model server from `../shared/tools/local-llm`,
//!   runs the live tests against it, then `agent run` with both transports.
//! - `eval [--transport text|native|both] [--tasks FILE] [--jsonl OUT] …`:
//!   the task set against a live endpoint (see `eval/mod.rs`).
//! - `fuzz [--inputs N] [--target NAME|all] [--seed S]`: the stable-Rust
//!   fuzzer (see `fuzz/mod.rs`).
//! - `growth [--budget-seconds S]`: parse time against input size on
//!   adversarial inputs (see `growth.rs`).

mod bench;
mod eval;
mod fuzz;
mod growth;
#[path = "../../agent-core/benches/common/workload.rs"]
mod workload;

use std::path::Path;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let task = args.first().map(String::as_str);
    // `cargo xtask` builds in the dev profile, the one `cargo test` and the
    // demo use, so a fresh clone compiles its dependencies once. Tasks that
    // measure time rerun themselves optimized.
    if cfg!(debug_assertions) && matches!(task, Some("bench" | "growth" | "fuzz")) {
        let mut command = vec!["run", "--quiet", "--release", "--package", "xtask", "--"];
        command.extend(args.iter().map(String::as_str));
        return cargo(&command, &[]);
    }
    match task {
        Some("demo") | None => {
            // The demo is the CLI's own `agent demo`: the same live view as a real run.
            let mut command = vec![
                "run",
                "--quiet",
                "--package",
                "agent-cli",
                "--bin",
                "agent",
                "--",
                "demo",
            ];
            command.extend(args.iter().skip(1).map(String::as_str));
            cargo(&command, &[])
        }
        Some("live") => live(),
        Some("bench") => match bench::run_task(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("xtask bench: {err}");
                ExitCode::FAILURE
            }
        },
        Some("eval") => match eval::run(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(err) => {
                eprintln!("xtask eval: {err}");
                ExitCode::from(2)
            }
        },
        Some("fuzz") => match fuzz::run(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(err) => {
                eprintln!("xtask fuzz: {err}");
                ExitCode::from(2)
            }
        },
        Some("growth") => match growth::run(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(err) => {
                eprintln!("xtask growth: {err}");
                ExitCode::from(2)
            }
        },
        Some(other) => {
            eprintln!(
                "xtask: unknown task `{other}` (available: demo, live, bench, eval, fuzz, growth)"
            );
            ExitCode::from(2)
        }
    }
}

/// Starts the local LLM server and runs the live tests against it.
fn live() -> ExitCode {
    let script = Path::new("../shared/tools/local-llm/start.sh");
    if !script.exists() {
        eprintln!(
            "xtask live: {} not found (it ships with the project's shared tools)",
            script.display()
        );
        return ExitCode::FAILURE;
    }
    let output = match Command::new(script).arg("8088").output() {
        Ok(output) if output.status.success() => output,
        Ok(output) => {
            eprintln!(
                "xtask live: the model server did not start:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            return ExitCode::FAILURE;
        }
        Err(err) => {
            eprintln!("xtask live: cannot run {}: {err}", script.display());
            return ExitCode::FAILURE;
        }
    };
    let url = String::from_utf8_lossy(&output.stdout).trim().to_string();
    eprintln!("xtask live: model server at {url}");
    let live_tests = [
        "test",
        "--package",
        "agent-native",
        "--test",
        "live",
        "--",
        "--nocapture",
        "--test-threads",
        "1",
    ];
    let tests = cargo(&live_tests, &[("AGENT_LIVE_BASE_URL", url.as_str())]);
    if tests != ExitCode::SUCCESS {
        return tests;
    }
    // The product as a user meets it: `agent run` with both transports.
    for transport in ["text", "native"] {
        eprintln!("\nxtask live: agent run --transport {transport}");
        let run = [
            "run",
            "--quiet",
            "--package",
            "agent-cli",
            "--bin",
            "agent",
            "--",
            "run",
            "What is (17 * 83) + (12 ** 3)?",
            "--transport",
            transport,
            "--tools",
            "calculator",
            "--base-url",
            url.as_str(),
            "--model",
            "qwen2.5-coder-1.5b-instruct",
            "--max-steps",
            "6",
        ];
        let status = cargo(&run, &[]);
        if status != ExitCode::SUCCESS {
            eprintln!("xtask live: `agent run --transport {transport}` did not end with an answer");
            return status;
        }
    }
    ExitCode::SUCCESS
}

/// Runs cargo with `args` and `env`, passing its exit status on.
/// Parses a task's count argument; `_` separators are allowed
/// (`10_000_000`).
fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
    text.replace('_', "")
        .parse()
        .map_err(|_| format!("`{flag}` needs a number, not `{text}`"))
}

fn cargo(args: &[&str], env: &[(&str, &str)]) -> ExitCode {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    match command.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("xtask: cannot run cargo: {err}");
            ExitCode::FAILURE
        }
    }
}
