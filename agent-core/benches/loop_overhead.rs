//! `loop_overhead`: the shared peer workload (`WORKLOAD.md`) through the
//! core loop with a trivial transport, in time per run of K tool steps plus
//! the final answer. Criterion's throughput is steps per second, so
//! µs/step = 1e6 / throughput. The cost per step must not grow with K.

use std::hint::black_box;
use std::sync::atomic::{AtomicI64, Ordering};

mod common;

use agent_core::testing::TestTransport;
use agent_core::{Agent, Budget, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox};
use async_trait::async_trait;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde::Deserialize;
use serde_json::json;

use common::workload::{WorkloadModel, WorkloadStyle};

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

/// The `add` tool with typed deserialization of its JSON arguments.
#[derive(Default)]
struct AddTool {
    sum: AtomicI64,
}

#[async_trait]
impl Toolbox for AddTool {
    fn specs(&self) -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "add".into(),
            description: "Add two integers.".into(),
            parameters: json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
        }]
    }

    async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
        let args = AddArgs::deserialize(&call.arguments)
            .map_err(|e| ToolError::invalid_args(e.to_string()))?;
        let sum = args.a + args.b;
        self.sum.fetch_add(sum, Ordering::Relaxed);
        Ok(ToolOutput::new(sum.to_string()))
    }
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap_or_else(|e| unreachable!("tokio runtime: {e}"));
    let mut group = c.benchmark_group("loop_overhead");
    for k in [1usize, 10, 50] {
        let agent = Agent::builder()
            .model(WorkloadModel::new(k, WorkloadStyle::Native))
            .transport(TestTransport)
            .toolbox(AddTool::default())
            .budget(Budget {
                max_steps: 100,
                max_tool_calls: 100,
                ..Budget::default()
            })
            .build()
            .unwrap_or_else(|e| unreachable!("agent: {e}"));
        let expected = format!("DONE-{k}");
        group.throughput(Throughput::Elements(k as u64 + 1));
        group.bench_with_input(BenchmarkId::new("steps", k), &k, |b, &k| {
            b.to_async(&runtime).iter(|| async {
                let outcome = agent.run("add").await;
                assert_eq!(outcome.answer.as_deref(), Some(expected.as_str()));
                assert_eq!(outcome.tool_calls as usize, k);
                assert_eq!(outcome.steps as usize, k + 1);
                black_box(outcome)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
