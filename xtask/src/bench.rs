//! `cargo xtask bench [--json]`: the shared peer workload (`WORKLOAD.md`)
//! through the real `Agent`, both transports and the real `ToolSet` (schema
//! validation on). Prints µs/step for K = 1, 10, 50 (median, p10, p90),
//! 10,000 × K5 runs in flight on a `current_thread` runtime against the same
//! runs one by one, peak RSS, and one round of 8 parallel 100 ms tool calls.
//!
//! `cargo xtask bench --runs N [--transport text|native] [--k K]` instead
//! makes exactly N checked runs and prints nothing else: a fixed amount of
//! work to count instructions with `valgrind --tool=callgrind` (N runs minus
//! fewer runs gives the cost of a run, free of the host's load).

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agent_core::{
    Agent, Budget, Complete, Completion, CompletionRequest, ModelError, ToolCall, ToolError,
    Transport,
};
use agent_native::NativeTransport;
use agent_text::TextTransport;
use agent_tools::{ToolRegistry, ToolSet, typed_tool};
use async_trait::async_trait;
use schemars::JsonSchema;

use crate::number;
use crate::workload::{WorkloadModel, WorkloadStyle};
use serde::Deserialize;
use serde_json::json;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Native,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Native => "native",
        }
    }

    fn style(self) -> WorkloadStyle {
        match self {
            Kind::Text => WorkloadStyle::Text,
            Kind::Native => WorkloadStyle::Native,
        }
    }

    fn transport(self) -> Arc<dyn Transport> {
        match self {
            Kind::Text => Arc::new(TextTransport::new()),
            Kind::Native => Arc::new(NativeTransport::new()),
        }
    }
}

/// Arguments of `add`.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
}

/// Arguments of `sleep`.
#[derive(Deserialize, JsonSchema)]
struct SleepArgs {
    /// Which call this is.
    n: u64,
}

fn add_tools(sum: Arc<AtomicI64>, runs: Arc<AtomicUsize>) -> Result<ToolSet, String> {
    let mut registry = ToolRegistry::new();
    registry
        .register(typed_tool("add", "Add two integers.", move |a: AddArgs| {
            let sum = Arc::clone(&sum);
            let runs = Arc::clone(&runs);
            async move {
                let s = a.a + a.b;
                sum.fetch_add(s, Ordering::Relaxed);
                runs.fetch_add(1, Ordering::Relaxed);
                Ok::<_, ToolError>(s.to_string())
            }
        }))
        .map_err(|e| e.to_string())?;
    Ok(registry.allow_all())
}

struct Workload {
    agent: Agent,
    model_calls: Arc<WorkloadModel>,
    sum: Arc<AtomicI64>,
    tool_runs: Arc<AtomicUsize>,
    k: usize,
}

fn workload(kind: Kind, k: usize) -> Result<Workload, String> {
    let sum = Arc::new(AtomicI64::new(0));
    let tool_runs = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(WorkloadModel::new(k, kind.style()));
    let agent = Agent::builder()
        .model(Arc::clone(&model))
        .transport(kind.transport())
        .toolbox(add_tools(Arc::clone(&sum), Arc::clone(&tool_runs))?)
        .budget(Budget {
            max_steps: 1000,
            max_tool_calls: 1000,
            ..Budget::default()
        })
        .build()
        .map_err(|e| e.to_string())?;
    Ok(Workload {
        agent,
        model_calls: model,
        sum,
        tool_runs,
        k,
    })
}

impl Workload {
    /// One run with the workload's checks.
    async fn run_checked(&self) -> Result<(), String> {
        let calls0 = self.model_calls.calls();
        let runs0 = self.tool_runs.load(Ordering::Relaxed);
        let sum0 = self.sum.load(Ordering::Relaxed);
        let outcome = self.agent.run("add").await;
        let k = self.k;
        let expected = format!("DONE-{k}");
        let calls = self.model_calls.calls() - calls0;
        let runs = self.tool_runs.load(Ordering::Relaxed) - runs0;
        let sum = self.sum.load(Ordering::Relaxed) - sum0;
        let want_sum = (k * (k + 1) / 2) as i64;
        if outcome.answer.as_deref() != Some(expected.as_str())
            || calls != k + 1
            || runs != k
            || sum != want_sum
        {
            return Err(format!(
                "workload check failed: answer {:?}, model calls {calls}, tool runs {runs}, sum {sum} (want {want_sum})",
                outcome.answer
            ));
        }
        Ok(())
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Peak resident set size of this process, in MiB.
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| e.to_string())
}

async fn steps(kind: Kind, k: usize) -> Result<(f64, f64, f64), String> {
    let w = workload(kind, k)?;
    let warm = Instant::now();
    while warm.elapsed() < Duration::from_millis(500) {
        w.run_checked().await?;
    }
    let mut samples = Vec::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) || samples.len() < 15 {
        let t = Instant::now();
        w.run_checked().await?;
        samples.push(t.elapsed().as_secs_f64() * 1e6 / (k + 1) as f64);
    }
    samples.sort_by(f64::total_cmp);
    Ok((
        percentile(&samples, 0.5),
        percentile(&samples, 0.1),
        percentile(&samples, 0.9),
    ))
}

/// How many K=5 runs are in flight at once on the one-thread runtime.
const IN_FLIGHT_RUNS: usize = 10_000;

async fn in_flight(kind: Kind) -> Result<(f64, f64), String> {
    let w = workload(kind, 5)?;
    let t = Instant::now();
    let results = futures::future::join_all((0..IN_FLIGHT_RUNS).map(|_| w.run_checked())).await;
    let concurrent = t.elapsed().as_secs_f64() * 1e3;
    results.into_iter().collect::<Result<Vec<()>, String>>()?;
    let t = Instant::now();
    for _ in 0..IN_FLIGHT_RUNS {
        w.run_checked().await?;
    }
    Ok((concurrent, t.elapsed().as_secs_f64() * 1e3))
}

/// One round of 8 tool calls that each sleep 100 ms: the wall time of the run.
async fn parallel_round() -> Result<f64, String> {
    struct EightCalls;
    #[async_trait]
    impl Complete for EightCalls {
        async fn complete(&self, request: &CompletionRequest) -> Result<Completion, ModelError> {
            Ok(if request.messages.len() <= 2 {
                Completion::tool_calls(
                    (0..8)
                        .map(|n| ToolCall::new(format!("c{n}"), "sleep", json!({"n": n})))
                        .collect(),
                )
            } else {
                Completion::text("done")
            })
        }
    }
    let mut registry = ToolRegistry::new();
    registry
        .register(typed_tool(
            "sleep",
            "Sleeps 100 ms.",
            |a: SleepArgs| async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok::<_, ToolError>(a.n.to_string())
            },
        ))
        .map_err(|e| e.to_string())?;
    let agent = Agent::builder()
        .model(EightCalls)
        .transport(NativeTransport::new())
        .toolbox(registry.allow_all())
        .build()
        .map_err(|e| e.to_string())?;
    let t = Instant::now();
    let outcome = agent.run("sleep").await;
    let wall = t.elapsed().as_secs_f64() * 1e3;
    if outcome.tool_calls != 8 || outcome.answer.as_deref() != Some("done") {
        return Err(format!(
            "parallel round check failed: {:?}",
            outcome.stop_reason
        ));
    }
    Ok(wall)
}

/// `cargo xtask bench [--json]`, or `--runs N [--transport text|native]
/// [--k K]`: the full table, or a fixed number of runs.
pub(crate) fn run_task(args: &[String]) -> Result<(), String> {
    let (mut json, mut runs, mut kind, mut k) = (false, None, None, None);
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let mut value = || {
            rest.next()
                .cloned()
                .ok_or_else(|| format!("`{flag}` needs a value"))
        };
        match flag.as_str() {
            "--json" => json = true,
            "--runs" => runs = Some(number::<u64>(flag, &value()?)?),
            "--transport" => {
                kind = Some(match value()?.as_str() {
                    "text" => Kind::Text,
                    "native" => Kind::Native,
                    other => return Err(format!("unknown transport `{other}` (text, native)")),
                })
            }
            "--k" => k = Some(number::<usize>(flag, &value()?)?),
            other => {
                return Err(format!(
                    "unknown option `{other}` (usage: cargo xtask bench [--json], or \
                     bench --runs N [--transport text|native] [--k K])"
                ));
            }
        }
    }
    match runs {
        None if kind.is_some() || k.is_some() => Err(
            "--transport and --k go with --runs; the full bench measures every transport and K"
                .into(),
        ),
        None => run(json),
        Some(_) if json => Err("--runs prints nothing to write as JSON; leave out --json".into()),
        Some(runs) => fixed_runs(runs, kind.unwrap_or(Kind::Text), k.unwrap_or(10)),
    }
}

/// Exactly `runs` checked runs of the workload with `k` calls, one after
/// another, printing nothing: a fixed amount of work for instruction
/// counts.
fn fixed_runs(runs: u64, kind: Kind, k: usize) -> Result<(), String> {
    runtime()?.block_on(async {
        let w = workload(kind, k)?;
        for _ in 0..runs {
            w.run_checked().await?;
        }
        Ok(())
    })
}

/// Runs every measurement and prints the table (and JSON lines with `json`).
fn run(json: bool) -> Result<(), String> {
    let rt = runtime()?;
    println!("agentloop loop overhead (peer workload, real Agent + ToolSet, schema validation on)");
    println!(
        "{:<8} {:>4} {:>12} {:>10} {:>10}",
        "transport", "K", "µs/step", "p10", "p90"
    );
    let mut table = Vec::new();
    for kind in [Kind::Text, Kind::Native] {
        for k in [1usize, 10, 50] {
            let (median, p10, p90) = rt.block_on(steps(kind, k))?;
            println!(
                "{:<8} {:>4} {:>12.2} {:>10.2} {:>10.2}",
                kind.name(),
                k,
                median,
                p10,
                p90
            );
            if json {
                println!(
                    "{}",
                    json!({"bench": "steps", "transport": kind.name(), "k": k, "us_per_step": round2(median), "p10": round2(p10), "p90": round2(p90)})
                );
            }
            table.push((kind, k, median));
        }
    }
    for kind in [Kind::Text, Kind::Native] {
        let at = |k: usize| {
            table
                .iter()
                .find(|(t, kk, _)| *t == kind && *kk == k)
                .map_or(0.0, |r| r.2)
        };
        println!("{}: K=50 / K=10 = {:.2}", kind.name(), at(50) / at(10));
    }
    for kind in [Kind::Text, Kind::Native] {
        let (concurrent, sequential) = rt.block_on(in_flight(kind))?;
        let rss = peak_rss_mib();
        println!(
            "in flight ({}): {IN_FLIGHT_RUNS} × K5 concurrent {concurrent:.1} ms, sequential {sequential:.1} ms, peak RSS {rss:.1} MiB",
            kind.name()
        );
        if json {
            println!(
                "{}",
                json!({"bench": "in_flight", "transport": kind.name(), "runs": IN_FLIGHT_RUNS, "k": 5, "concurrent_ms": round2(concurrent), "sequential_ms": round2(sequential), "peak_rss_mib": round2(rss)})
            );
        }
    }
    let wall = rt.block_on(parallel_round())?;
    println!("parallel round: 8 calls × 100 ms → {wall:.1} ms wall");
    if json {
        println!(
            "{}",
            json!({"bench": "parallel_round", "calls": 8, "each_ms": 100, "wall_ms": round2(wall)})
        );
    }
    Ok(())
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
