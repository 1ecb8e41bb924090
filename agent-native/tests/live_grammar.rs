//! Live check of grammar-constrained decoding against llama.cpp's
//! `llama-server` (Qwen2.5-Coder from `../shared/tools/local-llm/`): raw
//! `/v1/chat/completions` requests carrying the text transport's prompt
//! and `agent_text::grammar`'s GBNF in the `grammar` field. The replies
//! must be in the grammar and parse as a step; a broken grammar must be
//! refused with a client error (how a provider can tell that a server
//! refuses grammars). The server has one slot: the requests are few and
//! short. When no server answers, the tests say plainly that they skipped.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::{Duration, Instant};

use agent_core::{ToolSpec, Toolbox};
use agent_text::grammar::{
    Grammar, REFUSAL_OPENING, final_grammar, final_grammar_with_numbers, react_grammar,
    refusal_grammar,
};
use agent_text::{Dialect, Parsed, PromptBuilder, STOP_SEQUENCE, parse};
use agent_tools::builtin;
use serde_json::{Value, json};

const TASK: &str = "What is (17 * 83) + (12 ** 3)?";
const MODEL: &str = "qwen2.5-coder-1.5b-instruct";

async fn live_server() -> Option<String> {
    common::live_server("live grammar test").await
}

fn tools() -> Vec<ToolSpec> {
    builtin::registry(&["calculator", "search"], None, true)
        .unwrap()
        .allow_all()
        .specs()
}

/// The text transport's opening of the calculator task, then `after`.
fn calculator_task(after: &[Value]) -> Value {
    let prompt = PromptBuilder::new(Dialect::Classic);
    let mut messages = vec![
        json!({"role": "system", "content": prompt.system(&tools())}),
        json!({"role": "user", "content": prompt.task(TASK)}),
    ];
    messages.extend_from_slice(after);
    Value::Array(messages)
}

/// Sends the calculator task with `grammar`; the status and the body.
async fn complete(url: &str, grammar: &str) -> (u16, Value) {
    send(url, calculator_task(&[]), 200, grammar).await
}

/// Sends one chat completion; the status and the body.
async fn send(url: &str, messages: Value, max_tokens: u32, grammar: &str) -> (u16, Value) {
    let body = json!({
        "model": MODEL,
        "messages": messages,
        "max_tokens": max_tokens,
        "temperature": 0,
        "stop": [STOP_SEQUENCE],
        "grammar": grammar
    });
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(240))
        .build()
        .unwrap();
    let started = Instant::now();
    let response = client
        .post(format!("{url}/chat/completions"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    eprintln!(
        "[live grammar] HTTP {status} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, body)
}

/// The reply of a 200 answer: in `grammar`, stopped by the grammar (not
/// by the token cap), and what the parser reads of it.
fn constrained_reply(status: u16, body: &Value, grammar: &Grammar) -> Parsed {
    assert_eq!(status, 200, "{body}");
    let choice = &body["choices"][0];
    let content = choice["message"]["content"].as_str().unwrap_or_default();
    eprintln!(
        "[live grammar] finish_reason={} content={content:?}",
        choice["finish_reason"]
    );
    assert_eq!(choice["finish_reason"], "stop", "{body}");
    assert!(grammar.matches(content), "not in the grammar: {content:?}");
    parse(content)
}

#[tokio::test]
async fn live_step_follows_the_react_grammar() {
    let Some(url) = live_server().await else {
        return;
    };
    let grammar = react_grammar(&tools());
    let (status, body) = complete(&url, &grammar.to_gbnf()).await;
    match constrained_reply(status, &body, &grammar) {
        Parsed::Action { tool, input, .. } => {
            eprintln!("[live grammar] action {tool} {input}");
            assert!(tools().iter().any(|t| t.name == tool), "{tool}");
        }
        Parsed::Final { answer, .. } => eprintln!("[live grammar] final answer {answer:?}"),
        Parsed::Error { reason, .. } => panic!("a constrained reply did not parse: {reason}"),
    }
}

/// The final answer the server gives to the calculator task under the
/// final-only `grammar`.
async fn final_answer_under(url: &str, grammar: &Grammar) -> String {
    let (status, body) = complete(url, &grammar.to_gbnf()).await;
    match constrained_reply(status, &body, grammar) {
        Parsed::Final { answer, .. } => {
            eprintln!("[live grammar] final answer {answer:?}");
            answer
        }
        other => panic!("a final-only reply read as {other:?}"),
    }
}

#[tokio::test]
async fn live_answer_follows_the_final_grammar() {
    let Some(url) = live_server().await else {
        return;
    };
    final_answer_under(&url, &final_grammar()).await;
}

#[tokio::test]
async fn live_answer_after_nothing_found_opens_with_the_refusal() {
    use std::sync::Arc;

    use agent_core::transport::{Findings, RequestParts};
    use agent_core::{Complete, Message, Transport};
    use agent_native::{Constrain, NativeTransport, OpenAiCompatible, ProviderConfig};

    let Some(url) = live_server().await else {
        return;
    };
    // The text transport's grammar: the server accepts it, and the answer
    // opens with the refusal.
    let answer = final_answer_under(&url, &refusal_grammar()).await;
    assert!(answer.starts_with(REFUSAL_OPENING), "{answer:?}");
    // The native transport's: no tools, the words grammar with the opening.
    let transport = NativeTransport::new();
    let messages = Arc::new(vec![
        Message::system(agent_native::DEFAULT_SYSTEM_PROMPT),
        Message::user(TASK),
        transport.answer_request(TASK, Findings::Nothing),
    ]);
    let tools: Arc<[ToolSpec]> = tools().into();
    let request = transport.render(RequestParts {
        messages: &messages,
        tools: &tools,
        answer_only: true,
        answer_tools: &[],
        must_call: &[],
        answer_retry: false,
        answer_numbers: None,
        found_nothing: true,
        max_tokens: Some(32),
        temperature: Some(0.0),
    });
    assert!(request.tools.is_empty());
    let provider = OpenAiCompatible::new(
        ProviderConfig::new(url.as_str(), MODEL).with_constrain(Constrain::On),
    )
    .unwrap();
    let completion = provider.complete(&request).await.unwrap();
    eprintln!("[live grammar] native refusal: {:?}", completion.text);
    assert!(completion.constrained, "the grammar was sent");
    assert!(
        completion.text.starts_with(REFUSAL_OPENING),
        "{:?}",
        completion.text
    );
}

/// The numbers an answer turn of the calculator task may write once the
/// calculator answered it: the result (the task's own numbers are under
/// a hundred, and left out).
fn found_numbers() -> Vec<String> {
    vec!["3139".to_string()]
}

/// The digit runs of `text`.
fn digit_runs(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .collect()
}

#[tokio::test]
async fn live_answer_asked_again_writes_only_found_numbers() {
    use agent_core::Transport;
    use agent_core::transport::Findings;
    use agent_text::TextTransport;

    let Some(url) = live_server().await else {
        return;
    };
    // The calculator answered; the answer turn, asked again after a made-up
    // number, may write only the result.
    let retry = TextTransport::new().answer_retry(
        "the answer has 3193 which is in no tool result; answer only with what the results show",
        TASK,
        Findings::Something,
    );
    let messages = calculator_task(&[
        json!({"role": "assistant", "content": "Thought: compute it\nAction: calculator\nAction Input: {\"expression\": \"(17 * 83) + (12 ** 3)\"}"}),
        json!({"role": "user", "content": "Observation: 3139"}),
        json!({"role": "assistant", "content": "Thought: the result is known\nFinal Answer: 3193"}),
        json!({"role": "user", "content": retry.content}),
    ]);
    let grammar = final_grammar_with_numbers(&found_numbers());
    let (status, body) = send(&url, messages, 64, &grammar.to_gbnf()).await;
    match constrained_reply(status, &body, &grammar) {
        Parsed::Final { answer, .. } => {
            eprintln!("[live grammar] answer with found numbers {answer:?}");
            for run in digit_runs(&answer) {
                assert!(found_numbers().iter().any(|n| n == run), "{answer:?}");
            }
        }
        other => panic!("a final-only reply read as {other:?}"),
    }
}

#[tokio::test]
async fn live_server_refuses_a_broken_grammar() {
    let Some(url) = live_server().await else {
        return;
    };
    let (status, body) = complete(&url, "root ::= \"unterminated").await;
    eprintln!("[live grammar] broken grammar: HTTP {status} {body}");
    assert!((400..500).contains(&status), "HTTP {status}: {body}");
    assert!(body.to_string().contains("grammar"), "{body}");
}

/// A tool whose schema has every construct the grammar compiler emits:
/// nested and free-form objects, optional members, arrays, enums, consts,
/// `oneOf`, numbers, booleans, and untyped values.
fn every_construct() -> ToolSpec {
    ToolSpec {
        name: "plan".into(),
        description: "Make a plan.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": 40},
                "when": {
                    "type": "object",
                    "properties": {"day": {"type": "string"}, "hour": {"type": "integer", "minimum": 0}},
                    "required": ["day"],
                    "additionalProperties": false
                },
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4},
                "level": {"enum": ["low", "high", null]},
                "kind": {"const": "plan"},
                "place": {"oneOf": [
                    {"type": "object", "properties": {"room": {"type": "string"}}, "required": ["room"]},
                    {"type": "object", "properties": {"link": {"type": "string"}}, "required": ["link"]}
                ]},
                "score": {"type": ["number", "null"]},
                "done": {"type": "boolean"},
                "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
                "extra": {}
            },
            "required": ["name"],
            "additionalProperties": false
        }),
    }
}

#[tokio::test]
async fn live_server_parses_every_construct() {
    let Some(url) = live_server().await else {
        return;
    };
    let mut specs = builtin::registry(&["calculator", "search", "files"], None, false)
        .unwrap()
        .allow_all()
        .specs();
    specs.push(every_construct());
    let grammar = react_grammar(&specs).to_gbnf();
    let messages = json!([{"role": "user", "content": "Say hi."}]);
    let (status, body) = send(&url, messages, 1, &grammar).await;
    assert_eq!(status, 200, "{body}");
    let content = body["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        "Thought: ".starts_with(content) || content.starts_with("Thought:"),
        "{content:?}"
    );
}

#[tokio::test]
async fn live_native_answer_asked_again_comes_in_words() {
    use std::sync::Arc;

    use agent_core::transport::{Decision, Findings, RequestParts};
    use agent_core::{Complete, Message, ToolCall, Transport};
    use agent_native::{Constrain, NativeTransport, OpenAiCompatible, ProviderConfig};

    let Some(url) = live_server().await else {
        return;
    };
    // A run whose first answer turn got a call written as text: the
    // second ask lists no tools and carries the words-only grammar.
    let call = ToolCall::new(
        "c1",
        "calculator",
        json!({"expression": "17 * 83 + 12 ** 3"}),
    );
    let transport = NativeTransport::new();
    let messages = Arc::new(vec![
        Message::system(agent_native::DEFAULT_SYSTEM_PROMPT),
        Message::user(TASK),
        Message::assistant_with_calls("", vec![call]),
        Message::tool("c1", "3139"),
        transport.answer_retry(
            "no more tool calls are possible; answer in words",
            TASK,
            Findings::Something,
        ),
    ]);
    let tools: Arc<[ToolSpec]> = tools().into();
    // The second ask, its numbers bound to `answer_numbers` when given.
    let second_ask = |answer_numbers: Option<&[String]>| {
        transport.render(RequestParts {
            messages: &messages,
            tools: &tools,
            answer_only: true,
            answer_tools: &[],
            must_call: &[],
            answer_retry: true,
            answer_numbers,
            found_nothing: false,
            max_tokens: Some(64),
            temperature: Some(0.0),
        })
    };
    let request = second_ask(None);
    assert!(request.tools.is_empty() && request.constraint.is_some());
    let provider = OpenAiCompatible::new(
        ProviderConfig::new(url.as_str(), MODEL).with_constrain(Constrain::On),
    )
    .unwrap();
    let completion = provider.complete(&request).await.unwrap();
    eprintln!(
        "[live grammar] native answer in words: {:?}",
        completion.text
    );
    assert!(completion.constrained, "the grammar was sent");
    let first = completion.text.trim_start().chars().next();
    assert!(
        first.is_some_and(|c| !matches!(c, '{' | '[' | '<')),
        "{:?}",
        completion.text
    );
    let read = transport.interpret(completion, &tools);
    assert!(
        matches!(read.turn.decision, Decision::Final(_)),
        "{:?}",
        read.turn.decision
    );

    // Asked again for a number no tool gave: only found numbers.
    let numbers = found_numbers();
    let request = second_ask(Some(&numbers));
    let completion = provider.complete(&request).await.unwrap();
    eprintln!(
        "[live grammar] native answer with found numbers: {:?}",
        completion.text
    );
    assert!(completion.constrained, "the grammar was sent");
    for run in digit_runs(&completion.text) {
        assert!(numbers.iter().any(|n| n == run), "{:?}", completion.text);
    }
}
