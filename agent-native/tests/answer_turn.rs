//! What the native transport sends on a forced answer turn: by default
//! the answer tool alone with `tool_choice` required, so the server makes
//! the turn an answer (small models behind chat templates that list the
//! tools answer with a tool call written as text); without the answer
//! tool, no tools and no `tool_choice`; or, when asked, the tools kept
//! with `tool_choice` none (the server's prefix cache stays whole).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_core::message::ToolChoice;
use agent_core::transport::RequestParts;
use agent_core::{Message, ToolSpec, Transport};
use agent_native::NativeTransport;
use serde_json::json;

fn render(transport: &NativeTransport, answer_only: bool) -> agent_core::CompletionRequest {
    render_with(transport, answer_only, "lookup")
}

fn render_with(
    transport: &NativeTransport,
    answer_only: bool,
    tool: &str,
) -> agent_core::CompletionRequest {
    let messages = Arc::new(vec![Message::user("question")]);
    let tools: Arc<[ToolSpec]> = Arc::from(vec![ToolSpec {
        name: tool.into(),
        description: "Look a thing up.".into(),
        parameters: json!({"type": "object", "properties": {"query": {"type": "string"}}}),
    }]);
    transport.render(RequestParts {
        messages: &messages,
        tools: &tools,
        answer_only,
        max_tokens: None,
        temperature: None,
    })
}

#[test]
fn an_answer_turn_offers_the_answer_tool_alone_by_default() {
    let transport = NativeTransport::new();
    let ordinary = render(&transport, false);
    assert_eq!(ordinary.tools.len(), 2, "the run's tool and final_answer");
    assert_eq!(ordinary.tool_choice, ToolChoice::Required);
    let answer = render(&transport, true);
    let names: Vec<&str> = answer.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, [agent_native::ANSWER_TOOL]);
    assert_eq!(answer.tool_choice, ToolChoice::Required);
    // Its call is read as the answer.
    let completion = agent_core::Completion::tool_calls(vec![agent_core::ToolCall::new(
        "a",
        agent_native::ANSWER_TOOL,
        json!({"answer": "42"}),
    )]);
    let tools = [ToolSpec {
        name: "lookup".into(),
        description: "Look a thing up.".into(),
        parameters: json!({"type": "object"}),
    }];
    let read = transport.interpret(completion, &tools);
    assert_eq!(
        read.turn.decision,
        agent_core::transport::Decision::Final("42".into())
    );
    // Without the answer tool: no tools at all.
    let plain = NativeTransport::new().with_answer_tool(false);
    let answer = render(&plain, true);
    assert!(answer.tools.is_empty());
    assert_eq!(answer.tool_choice, ToolChoice::None);
}

#[test]
fn an_answer_turn_can_keep_the_tools_with_tool_choice_none() {
    let transport = NativeTransport::new().with_tools_on_answer_turn(true);
    let answer = render(&transport, true);
    // The same list as an ordinary turn's, so the server's prefix cache
    // holds: the tool and final_answer.
    assert_eq!(answer.tools, render(&transport, false).tools);
    assert_eq!(answer.tool_choice, ToolChoice::None);
    let plain = NativeTransport::new()
        .with_answer_tool(false)
        .with_tools_on_answer_turn(true);
    let answer = render(&plain, true);
    assert_eq!(answer.tools.len(), 1);
    assert_eq!(answer.tool_choice, ToolChoice::None);
}

#[test]
fn a_run_tool_named_final_answer_wins() {
    let request = render_with(&NativeTransport::new(), false, agent_native::ANSWER_TOOL);
    assert_eq!(request.tools.len(), 1, "no second final_answer");
    assert_eq!(request.tool_choice, ToolChoice::Auto);
}
