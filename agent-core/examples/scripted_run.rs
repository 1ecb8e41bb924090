//! A scripted two-step run through the core loop, printed event by event (offline).

use agent_core::event::FnSink;
use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::{Agent, Event, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox};
use async_trait::async_trait;
use serde_json::json;

struct Multiply;

#[async_trait]
impl Toolbox for Multiply {
    fn specs(&self) -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "multiply".into(),
            description: "Multiply two integers.".into(),
            parameters: json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
        }]
    }

    async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
        let arg = |name: &str| {
            call.arguments[name]
                .as_i64()
                .ok_or_else(|| ToolError::invalid_args(format!("`{name}` must be an integer")))
        };
        let product = arg("a")?
            .checked_mul(arg("b")?)
            .ok_or_else(|| ToolError::failed("the product overflows"))?;
        Ok(ToolOutput::new(product.to_string()))
    }
}

fn show(event: &Event) {
    match event {
        Event::RunStarted { task, .. } => println!("Task: {task}"),
        Event::ToolCallStarted { call } => println!("Action: {} {}", call.name, call.arguments),
        Event::Observation { observation } => println!("Observation: {}", observation.content),
        Event::FinalAnswer { answer } => println!("Final Answer: {answer}"),
        Event::Stopped {
            reason,
            steps,
            tool_calls,
            usage,
            elapsed_ms,
            ..
        } => println!(
            "-- stop: {reason} | steps {steps} | tool calls {tool_calls} | tokens {} | {elapsed_ms} ms",
            usage.total_tokens
        ),
        _ => {}
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let model = ScriptedModel::new()
        .call("call_0", "multiply", json!({"a": 17, "b": 83}))
        .text("17 × 83 = 1411.");
    let agent = match Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(Multiply)
        .sink(FnSink(show))
        .build()
    {
        Ok(agent) => agent,
        Err(err) => {
            eprintln!("cannot build the agent: {err}");
            std::process::exit(2);
        }
    };
    let outcome = agent.run("What is 17 times 83?").await;
    std::process::exit(if outcome.is_success() { 0 } else { 1 });
}
