//! Real replies whose tool calls a server left in `content` (and real
//! answers that only look like calls), through the native transport's
//! reading of a reply with no tool calls: each must come out as the calls
//! the model meant, as an answer, or as a broken call the model is told
//! about. The data is `data/content_calls.jsonl`; its README says where
//! each case comes from.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_core::transport::Decision;
use agent_core::{Completion, ToolSpec, Transport};
use agent_native::NativeTransport;
use serde_json::{Value, json};

/// The decision for one case's content, with its offered tools.
fn decide(case: &Value) -> Decision {
    let tools: Vec<ToolSpec> = case["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| ToolSpec {
            name: name.as_str().unwrap().to_string(),
            description: "A tool.".into(),
            parameters: json!({"type": "object"}),
        })
        .collect();
    let content = case["content"].as_str().unwrap();
    NativeTransport::new()
        .interpret(Completion::text(content), &tools)
        .turn
        .decision
}

/// Whether `decision` is what the case expects; the mismatch otherwise.
fn check(case: &Value, decision: &Decision) -> Result<(), String> {
    let expect = &case["expect"];
    match (expect["kind"].as_str().unwrap(), decision) {
        ("calls", Decision::Act(calls)) => {
            let got: Vec<Value> = calls
                .iter()
                .map(|c| json!({"name": c.name, "arguments": c.arguments}))
                .collect();
            if got == expect["calls"].as_array().unwrap().clone() {
                Ok(())
            } else {
                Err(format!("calls {got:?}"))
            }
        }
        ("answer", Decision::Final(_)) | ("broken", Decision::Malformed(_)) => Ok(()),
        (_, other) => Err(format!("{other:?}")),
    }
}

#[test]
fn calls_left_in_content_are_read_as_the_model_meant() {
    let data = include_str!("data/content_calls.jsonl");
    let mut failures = Vec::new();
    let mut count = 0;
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        count += 1;
        if let Err(got) = check(&case, &decide(&case)) {
            failures.push(format!(
                "{}: expected {}, got {got}",
                case["id"], case["expect"]
            ));
        }
    }
    assert_eq!(count, 38);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
