//! `dispatch`: validation + dispatch of a typed `add(a, b)` call through
//! the `ToolSet` gateway (lookup, schema validation, deserialization,
//! timeout, cap), in time per call.

use std::hint::black_box;

use agent_core::{ToolCall, ToolError, Toolbox};
use agent_tools::{ToolRegistry, typed_tool};
use criterion::{Criterion, criterion_group, criterion_main};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Arguments of `add`.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap_or_else(|e| unreachable!("runtime: {e}"));
    let mut registry = ToolRegistry::new();
    if let Err(e) = registry.register(typed_tool(
        "add",
        "Add two integers.",
        |args: AddArgs| async move { Ok::<_, ToolError>((args.a + args.b).to_string()) },
    )) {
        unreachable!("register: {e}");
    }
    let tools = registry.allow_all();
    let call = ToolCall::new("call_0", "add", json!({"a": 20, "b": 22}));
    c.bench_function("gateway/typed_add_call", |b| {
        b.to_async(&runtime).iter(|| async {
            let out = tools.call(black_box(&call)).await;
            assert!(matches!(&out, Ok(o) if o.content == "42"));
            black_box(out)
        });
    });
    let invalid = ToolCall::new("call_1", "add", json!({"a": 20, "b": "x"}));
    c.bench_function("gateway/typed_add_invalid", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(tools.call(black_box(&invalid)).await.is_err()) });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
