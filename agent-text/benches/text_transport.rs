//! `text_transport`: parse throughput (bytes/s) on typical and 200 kB
//! outputs, and the per-step cost of the text transport on the shared peer
//! workload (`WORKLOAD.md`): a scripted model writes ReAct text, the agent
//! renders the prompt, parses, validates through the real `ToolSet`, runs
//! `add`, appends the observation. µs/step = 1e6 / elements-per-second.

use std::hint::black_box;

#[path = "../../agent-core/benches/common/workload.rs"]
mod workload;

use agent_core::{Agent, Budget, ToolError};
use agent_text::{TextTransport, parse};
use agent_tools::{ToolRegistry, typed_tool};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use schemars::JsonSchema;
use serde::Deserialize;

use workload::{WorkloadModel, WorkloadStyle};

/// Arguments of `add`.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
}

fn parse_throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    let typical = "Thought: I need the population of France to compare.\nAction: search\nAction Input: {\"query\": \"population of France\"}\nObservation: fake";
    let big_json = format!(
        "Thought: {}\nAction: search\nAction Input: {{\"query\": \"{}\"}}",
        "x".repeat(100_000),
        "y".repeat(100_000)
    );
    let big_prose = "Thought: still thinking about it\n".repeat(6_000);
    for (name, text) in [
        ("typical", typical.to_string()),
        ("200kB_json", big_json),
        ("200kB_no_markers", big_prose),
    ] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &text, |b, text| {
            b.iter(|| black_box(parse(black_box(text))));
        });
    }
    group.finish();
}

fn steps(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap_or_else(|e| unreachable!("runtime: {e}"));
    let mut registry = ToolRegistry::new();
    if let Err(e) = registry.register(typed_tool(
        "add",
        "Add two integers.",
        |a: AddArgs| async move { Ok::<_, ToolError>((a.a + a.b).to_string()) },
    )) {
        unreachable!("register: {e}");
    }
    let tools = registry.allow_all();
    let mut group = c.benchmark_group("text_steps");
    for k in [1usize, 10, 50] {
        let agent = Agent::builder()
            .model(WorkloadModel::new(k, WorkloadStyle::Text))
            .transport(TextTransport::new())
            .toolbox(tools.clone())
            .budget(Budget {
                max_steps: 100,
                max_tool_calls: 100,
                ..Budget::default()
            })
            .build()
            .unwrap_or_else(|e| unreachable!("agent: {e}"));
        let expected = format!("DONE-{k}");
        group.throughput(Throughput::Elements(k as u64 + 1));
        group.bench_with_input(BenchmarkId::from_parameter(k), &k, |b, &k| {
            b.to_async(&runtime).iter(|| async {
                let outcome = agent.run("add").await;
                assert_eq!(outcome.answer.as_deref(), Some(expected.as_str()));
                assert_eq!(outcome.tool_calls as usize, k);
                black_box(outcome)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, parse_throughput, steps);
criterion_main!(benches);
