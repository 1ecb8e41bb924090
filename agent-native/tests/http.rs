//! The provider and the native transport against a real HTTP server on
//! 127.0.0.1 serving canned OpenAI-format responses (real socket, real
//! async-openai client). Each case ends in the right outcome with the
//! transcript kept.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use agent_core::agent::AgentBuilder;
use agent_core::hook::FnHook;
use agent_core::message::Role;
use agent_core::{
    Agent, Budget, Complete, CompletionRequest, HookAction, Message, ModelError, StopReason,
};
use agent_native::testing::{Canned, CannedServer};
use agent_native::{NativeTransport, OpenAiCompatible, ProviderConfig, RetryPolicy};
use agent_tools::builtin;
use serde_json::json;

fn provider(server: &CannedServer) -> OpenAiCompatible {
    OpenAiCompatible::new(
        ProviderConfig::new(server.url(), "test-model")
            .with_timeout(Duration::from_millis(800))
            .with_retry(RetryPolicy {
                max_retries: 3,
                base_delay: Duration::from_millis(10),
                max_delay: Duration::from_secs(5),
            }),
    )
    .unwrap()
}

fn agent(server: &CannedServer) -> Agent {
    agent_with(server, false)
}

/// A native agent on `server` with the built-in tools of `groups`.
fn native_agent(server: &CannedServer, groups: &[&str]) -> AgentBuilder {
    Agent::builder()
        .model(provider(server))
        .transport(NativeTransport::new())
        .toolbox(builtin::registry(groups, None, true).unwrap().allow_all())
}

fn agent_with(server: &CannedServer, streaming: bool) -> Agent {
    native_agent(server, &["calculator"])
        .streaming(streaming)
        .budget(Budget {
            max_steps: 5,
            ..Budget::default()
        })
        .build()
        .unwrap()
}

fn tool_answers(outcome: &agent_core::Outcome) -> Vec<(String, String)> {
    outcome
        .transcript
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| (m.tool_call_id.clone().unwrap(), m.content.clone()))
        .collect()
}

#[tokio::test]
async fn plain_completion() {
    let server = CannedServer::start(vec![Canned::text("Hello there.")])
        .await
        .unwrap();
    let request = CompletionRequest::new(vec![Message::user("hi")]);
    let completion = provider(&server).complete(&request).await.unwrap();
    assert_eq!(completion.text, "Hello there.");
    assert_eq!(completion.usage.unwrap().total_tokens, 25);
    let sent = &server.requests()[0];
    assert_eq!(sent["model"], "test-model");
    assert_eq!(
        sent["messages"][0],
        json!({"role": "user", "content": "hi"})
    );
    assert_eq!(sent["stream"], false);
}

#[tokio::test]
async fn a_tool_call_round_trip_through_the_agent() {
    let server = CannedServer::start(vec![
        Canned::tool_calls(&[(
            "call_a",
            "calculator",
            r#"{"expression": "(17 * 83) + (12 ** 3)"}"#,
        )]),
        Canned::text("The result is 3139."),
    ])
    .await
    .unwrap();
    let outcome = agent(&server).run("What is (17 * 83) + (12 ** 3)?").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("The result is 3139."));
    assert_eq!(
        tool_answers(&outcome),
        [("call_a".to_string(), "3139".to_string())]
    );
    assert_eq!(outcome.usage.total_tokens, 65);
    let requests = server.requests();
    let tool = &requests[0]["tools"][0]["function"];
    assert_eq!(tool["name"], "calculator");
    assert!(tool["description"].is_string() && tool["parameters"].is_object());
    let second = &requests[1]["messages"];
    assert_eq!(second[2]["tool_calls"][0]["id"], "call_a");
    assert_eq!(second[2]["content"], serde_json::Value::Null);
    assert_eq!(
        second[3],
        json!({"role": "tool", "content": "3139", "tool_call_id": "call_a"})
    );
}

#[tokio::test]
async fn parallel_tool_calls_are_each_answered_once_in_order() {
    let server = CannedServer::start(vec![
        Canned::tool_calls(&[
            ("c1", "calculator", r#"{"expression": "2**10"}"#),
            ("c2", "calculator", r#"{"expression": "1/0"}"#),
            ("c3", "calculator", r#"{"expression": "6*7"}"#),
        ]),
        Canned::text("done"),
    ])
    .await
    .unwrap();
    let outcome = agent(&server).run("three sums").await;
    let answers = tool_answers(&outcome);
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0], ("c1".into(), "1024".into()));
    assert_eq!(
        answers[1],
        ("c2".into(), "Error (tool failed): division by zero".into())
    );
    assert_eq!(answers[2], ("c3".into(), "42".into()));
}

#[tokio::test]
async fn streaming_sse_with_tool_call_deltas_split_across_chunks() {
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
    };
    let events = vec![
        chunk(json!({"role": "assistant", "content": null}), None),
        chunk(json!({"tool_calls": [{"index": 0, "id": "call_s", "type": "function", "function": {"name": "calculator", "arguments": ""}}]}), None),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"expres"}}]}), None),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "sion\": \"6*"}}]}), None),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "7\"}"}}]}), Some("tool_calls")),
        json!({"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}).to_string(),
    ];
    let final_events = vec![
        chunk(json!({"content": "The answer "}), None),
        chunk(json!({"content": "is 42."}), Some("stop")),
    ];
    let server = CannedServer::start(vec![
        Canned::Sse { events, cut: false },
        Canned::Sse {
            events: final_events,
            cut: false,
        },
    ])
    .await
    .unwrap();
    let outcome = agent_with(&server, true).run("6*7?").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("The answer is 42."));
    assert_eq!(
        tool_answers(&outcome),
        [("call_s".to_string(), "42".to_string())]
    );
    assert_eq!(server.requests()[0]["stream"], true);
}

#[tokio::test]
async fn rate_limited_with_retry_after_then_success() {
    let server = CannedServer::start(vec![
        Canned::status(
            429,
            r#"{"error": {"message": "slow down", "type": "rate_limit_error"}}"#,
        )
        .header("retry-after", "1"),
        Canned::text("ok"),
    ])
    .await
    .unwrap();
    let started = Instant::now();
    let outcome = agent(&server).run("hi").await;
    assert_eq!(outcome.answer.as_deref(), Some("ok"));
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "Retry-After was honoured"
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn an_exhausted_rate_limit_keeps_the_servers_retry_after() {
    let limited = || {
        Canned::status(
            429,
            r#"{"error": {"message": "slow down", "type": "rate_limit_error"}}"#,
        )
        .header("retry-after", "0.05")
    };
    // The first attempt and three retries, all limited.
    let server = CannedServer::start((0..4).map(|_| limited()).collect())
        .await
        .unwrap();
    let request = CompletionRequest::new(vec![Message::user("hi")]);
    let error = provider(&server).complete(&request).await.unwrap_err();
    assert_eq!(
        error,
        ModelError::RateLimited {
            retry_after_ms: Some(50),
            message: "slow down".into()
        }
    );
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn a_refused_connection_is_retried_until_the_server_answers() {
    // Reserve a port, free it, and start the server on it a moment later:
    // the first attempts are refused, a later one is answered.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1");
    let late = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(60)).await;
        CannedServer::start_on(port, vec![Canned::text("made it")])
            .await
            .unwrap()
    });
    let provider = OpenAiCompatible::new(
        ProviderConfig::new(&url, "test-model")
            .with_timeout(Duration::from_millis(800))
            .with_retry(RetryPolicy {
                max_retries: 6,
                base_delay: Duration::from_millis(40),
                max_delay: Duration::from_millis(200),
            }),
    )
    .unwrap();
    let request = CompletionRequest::new(vec![Message::user("hi")]);
    let completion = provider.complete(&request).await.unwrap();
    assert_eq!(completion.text, "made it");
    let server = late.await.unwrap();
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn server_errors_twice_then_success() {
    let server = CannedServer::start(vec![
        Canned::status(500, "internal error"),
        Canned::status(503, "overloaded"),
        Canned::text("third time lucky"),
    ])
    .await
    .unwrap();
    let outcome = agent(&server).run("hi").await;
    assert_eq!(outcome.answer.as_deref(), Some("third time lucky"));
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn retries_end_in_a_typed_error_with_the_transcript_kept() {
    let server = CannedServer::start(vec![
        Canned::tool_calls(&[("c", "calculator", r#"{"expression": "1+1"}"#)]),
        Canned::status(502, "bad gateway"),
        Canned::status(502, "bad gateway"),
        Canned::status(502, "bad gateway"),
        Canned::status(502, "bad gateway"),
    ])
    .await
    .unwrap();
    let outcome = agent(&server).run("hi").await;
    assert!(
        matches!(
            outcome.stop_reason,
            StopReason::Model(ModelError::Server { status: 502, .. })
        ),
        "{:?}",
        outcome.stop_reason
    );
    assert_eq!(outcome.tool_calls, 1);
    assert_eq!(outcome.transcript.len(), 4);
}

#[tokio::test]
async fn a_hang_past_the_timeout_is_a_timeout() {
    let server = CannedServer::start(vec![Canned::Hang]).await.unwrap();
    let started = Instant::now();
    let outcome = agent(&server).run("hi").await;
    assert!(
        matches!(
            outcome.stop_reason,
            StopReason::Model(ModelError::Timeout { .. })
        ),
        "{:?}",
        outcome.stop_reason
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(outcome.transcript.len(), 2);
}

#[tokio::test]
async fn garbage_json_is_a_bad_response_that_keeps_the_raw_body() {
    let server = CannedServer::start(vec![Canned::status(200, "{\"choices\": [garbage")])
        .await
        .unwrap();
    let outcome = agent(&server).run("hi").await;
    match outcome.stop_reason {
        StopReason::Model(ModelError::BadResponse { raw, .. }) => assert!(raw.contains("garbage")),
        other => panic!("{other:?}"),
    }
    let server = CannedServer::start(vec![Canned::json(json!({"object": "chat.completion"}))])
        .await
        .unwrap();
    let outcome = agent(&server).run("hi").await;
    assert!(matches!(
        outcome.stop_reason,
        StopReason::Model(ModelError::BadResponse { .. })
    ));
}

#[tokio::test]
async fn a_stream_cut_mid_way_is_a_model_error_with_the_transcript_kept() {
    let events = vec![
        json!({"choices": [{"index": 0, "delta": {"content": "The answ"}}]}).to_string(),
        "{\"choices\": [{\"index\": 0, \"delta\": {\"content\": \"er".to_string(),
    ];
    let call = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "calculator", "arguments": "{\"expression\": \"1+1\"}"}}]}, "finish_reason": "tool_calls"}]});
    let server = CannedServer::start(vec![
        Canned::Sse {
            events: vec![call.to_string()],
            cut: false,
        },
        Canned::Sse { events, cut: true },
    ])
    .await
    .unwrap();
    let outcome = agent_with(&server, true).run("hi").await;
    assert!(
        matches!(outcome.stop_reason, StopReason::Model(_)),
        "{:?}",
        outcome.stop_reason
    );
    assert_eq!(outcome.tool_calls, 1);
    assert_eq!(outcome.transcript.len(), 4);
}

#[tokio::test]
async fn a_stream_closed_after_a_whole_chunk_is_not_taken_for_an_answer() {
    let events =
        vec![json!({"choices": [{"index": 0, "delta": {"content": "The answer is"}}]}).to_string()];
    let server = CannedServer::start(vec![Canned::Sse { events, cut: true }])
        .await
        .unwrap();
    let outcome = agent_with(&server, true).run("hi").await;
    assert!(
        matches!(&outcome.stop_reason, StopReason::Model(ModelError::BadResponse { message, .. }) if message.contains("ended before")),
        "{:?}",
        outcome.stop_reason
    );
    assert_eq!(outcome.answer, None);
}

#[tokio::test]
async fn tool_calls_written_into_content_are_executed() {
    let server = CannedServer::start(vec![
        Canned::text("<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"12**3\"}}\n</tool_call>"),
        Canned::text("```json\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"17*83\"}}\n```"),
        Canned::text("1728 and 1411"),
    ])
    .await
    .unwrap();
    let outcome = agent(&server).run("compute").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(answers, ["1728", "1411"]);
    // The history sent back is valid: the assistant turn carries the calls.
    let third = &server.requests()[2]["messages"];
    assert_eq!(third[2]["tool_calls"][0]["function"]["name"], "calculator");
}

#[tokio::test]
async fn other_families_calls_in_content_are_executed() {
    // A server whose chat template does not know the model's tool-call
    // format hands Mistral's, Llama 3.1's, Qwen3-Coder's or Llama 3.2's
    // calls over as text.
    let server = CannedServer::start(vec![
        Canned::text("[TOOL_CALLS]calculator[ARGS]{\"expression\": \"12**3\"}"),
        Canned::text("<function=calculator>{\"expression\": \"17*83\"}</function>"),
        Canned::text("<tool_call>\n<function=calculator>\n<parameter=expression>\n2+2\n</parameter>\n</function>\n</tool_call>"),
        Canned::text("[calculator(expression='3*3')]"),
        Canned::text("1728, 1411, 4 and 9"),
    ])
    .await
    .unwrap();
    let outcome = native_agent(&server, &["calculator"])
        .budget(Budget {
            max_steps: 8,
            ..Budget::default()
        })
        .build()
        .unwrap()
        .run("compute")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(answers, ["1728", "1411", "4", "9"]);
}

#[tokio::test]
async fn invalid_json_arguments_become_an_observation_not_a_crash() {
    let server = CannedServer::start(vec![
        Canned::tool_calls(&[("bad", "calculator", r#"{"expression": "2+"#)]),
        Canned::text("sorry"),
        Canned::text("sorry, the calculator cannot read it"),
    ])
    .await
    .unwrap();
    let outcome = agent(&server).run("hi").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    // An answer right after the only call failed is sent back once.
    assert_eq!(
        outcome.answer.as_deref(),
        Some("sorry, the calculator cannot read it")
    );
    assert_eq!(server.requests().len(), 3);
    let (id, content) = &tool_answers(&outcome)[0];
    assert_eq!(id, "bad");
    assert!(
        content.starts_with("Error (invalid arguments): the arguments are not valid JSON"),
        "{content}"
    );
    // The raw arguments go back to the server as the model wrote them.
    assert_eq!(
        server.requests()[1]["messages"][2]["tool_calls"][0]["function"]["arguments"],
        r#"{"expression": "2+"#
    );
}

#[tokio::test]
async fn denied_calls_still_get_exactly_one_tool_answer() {
    let server = CannedServer::start(vec![
        Canned::tool_calls(&[
            ("ok", "calculator", r#"{"expression": "1+1"}"#),
            ("no", "calculator", r#"{"expression": "2+2"}"#),
        ]),
        Canned::text("done"),
    ])
    .await
    .unwrap();
    let agent = native_agent(&server, &["calculator"])
        .hook(FnHook(|c: &agent_core::ToolCall| {
            if c.id == "no" {
                HookAction::Deny("not today".into())
            } else {
                HookAction::Approve
            }
        }))
        .build()
        .unwrap();
    let outcome = agent.run("hi").await;
    let answers = tool_answers(&outcome);
    assert_eq!(
        answers,
        [
            ("ok".to_string(), "2".to_string()),
            ("no".to_string(), "Error (denied): not today".to_string())
        ]
    );
    let history = &server.requests()[1]["messages"];
    assert_eq!(
        history
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .count(),
        2
    );
}

#[tokio::test]
async fn auth_and_unreachable_servers_are_typed_errors() {
    let server = CannedServer::start(vec![Canned::status(
        401,
        r#"{"error": {"message": "Incorrect API key"}}"#,
    )])
    .await
    .unwrap();
    let outcome = agent(&server).run("hi").await;
    assert!(
        matches!(
            outcome.stop_reason,
            StopReason::Model(ModelError::Auth { .. })
        ),
        "{:?}",
        outcome.stop_reason
    );
    // A port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let model = OpenAiCompatible::new(ProviderConfig::new(url, "m")).unwrap();
    let err = model
        .complete(&CompletionRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::Connection { .. }), "{err:?}");
}

#[test]
fn bad_configuration_is_a_typed_error() {
    assert!(OpenAiCompatible::new(ProviderConfig::new("ftp://x", "m")).is_err());
    assert!(OpenAiCompatible::new(ProviderConfig::new("http://x", " ")).is_err());
}

#[tokio::test]
async fn a_tool_set_aside_is_not_listed_for_one_request() {
    let failing = r#"{"expression": "1 / 0"}"#;
    let server = CannedServer::start(vec![
        Canned::tool_calls(&[("c1", "calculator", failing)]),
        Canned::tool_calls(&[("c2", "calculator", failing)]),
        Canned::tool_calls(&[("c3", "search", r#"{"query": "Paris"}"#)]),
        Canned::text("About 2.1 million."),
    ])
    .await
    .unwrap();
    let agent = native_agent(&server, &["calculator", "search"])
        .build()
        .unwrap();
    let outcome = agent.run("How many people live in Paris?").await;
    assert_eq!(outcome.answer.as_deref(), Some("About 2.1 million."));
    let listed = |body: &serde_json::Value| -> Vec<String> {
        body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let requests = server.requests();
    assert!(listed(&requests[1]).contains(&"calculator".to_string()));
    // After the failed repeat: the other tools only, then all again.
    assert!(!listed(&requests[2]).contains(&"calculator".to_string()));
    assert!(listed(&requests[2]).contains(&"search".to_string()));
    assert!(listed(&requests[3]).contains(&"calculator".to_string()));
}
