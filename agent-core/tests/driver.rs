//! The `Agent` driver: tool rounds (order, concurrency, barriers), hooks,
//! pause and resume, traces and replay, the event stream, and bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use agent_core::agent::{AgentError, RunControl};
use agent_core::budget::{BudgetError, HistoryWindow};
use agent_core::event::EventSink;
use agent_core::hook::FnHook;
use agent_core::message::Role;
use agent_core::run::{Run, RunConfig, RunError, Step};
use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::tool::{Observation, ToolErrorKind};
use agent_core::trace::{ReplayModel, TraceWriter, read_trace};
use agent_core::transport::{Decision, Interpretation, Opening, RequestParts, Turn};
use agent_core::{
    Agent, Budget, Completion, CompletionRequest, Event, HookAction, Message, Outcome, StopReason,
    ToolSpec, Transport,
};
use common::{TestTools, call, grounded_agent, tool_answers};
use futures::StreamExt;
use serde_json::{Value, json};

fn build(model: ScriptedModel, tools: TestTools) -> Agent {
    Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(tools)
        .build()
        .unwrap()
}

#[tokio::test]
async fn four_calls_finishing_in_reverse_order_come_back_in_call_order() {
    let calls = (0..4)
        .map(|i| call(&format!("c{i}"), "sleep", json!({"ms": 160 - 40 * i})))
        .collect();
    let tools = TestTools::new();
    let model = ScriptedModel::new()
        .reply(Completion::tool_calls(calls))
        .text("ok");
    let started = std::time::Instant::now();
    let outcome = build(model, tools.clone()).run("sleep").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let answers = tool_answers(&outcome);
    let expected: Vec<(String, String)> = (0..4)
        .map(|i| (format!("c{i}"), format!("slept {}", 160 - 40 * i)))
        .collect();
    assert_eq!(answers, expected);
    assert_eq!(tools.probe.max_running.load(Ordering::SeqCst), 4);
    assert!(
        started.elapsed() < Duration::from_millis(400),
        "ran concurrently"
    );
}

#[tokio::test]
async fn parallelism_limit_is_honoured() {
    let calls = (0..6)
        .map(|i| call(&format!("c{i}"), "sleep", json!({"ms": 30 + i})))
        .collect();
    let tools = TestTools::new();
    let agent = Agent::builder()
        .model(
            ScriptedModel::new()
                .reply(Completion::tool_calls(calls))
                .text("ok"),
        )
        .transport(TestTransport)
        .toolbox(tools.clone())
        .max_parallel_tools(2)
        .build()
        .unwrap();
    let outcome = agent.run("sleep").await;
    assert_eq!(outcome.tool_calls, 6);
    assert_eq!(tools.probe.max_running.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_sequential_tool_is_never_overlapped() {
    let calls = vec![
        call("a", "sleep", json!({"ms": 30})),
        call("b", "seq", json!({})),
        call("c", "sleep", json!({"ms": 31})),
        call("d", "sleep", json!({"ms": 32})),
        call("e", "seq", json!({"n": 2})),
    ];
    let tools = TestTools::new();
    let model = ScriptedModel::new()
        .reply(Completion::tool_calls(calls))
        .text("ok");
    let outcome = build(model, tools.clone()).run("mixed").await;
    assert_eq!(outcome.tool_calls, 5);
    assert_eq!(tools.probe.seq_overlapped.load(Ordering::SeqCst), 0);
    // c and d still ran together.
    assert_eq!(tools.probe.max_running.load(Ordering::SeqCst), 2);
    let ids: Vec<String> = tool_answers(&outcome)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
}

#[tokio::test]
async fn failing_tools_become_observations_and_the_run_goes_on() {
    let calls = vec![
        call("f", "fail", json!({})),
        call("ok", "add", json!({"a": 1, "b": 1})),
    ];
    let model = ScriptedModel::new()
        .reply(Completion::tool_calls(calls))
        .text("recovered");
    let sink = Arc::new(Collect::default());
    let agent = Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .sink(sink.clone())
        .build()
        .unwrap();
    let outcome = agent.run("errors").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let answers = tool_answers(&outcome);
    assert_eq!(answers[0].1, "Error (tool failed): the service said no");
    assert!(
        !answers[0].1.contains("10.0.0.7"),
        "the source stays with the operator"
    );
    assert_eq!(answers[1].1, "2");
    // The operator sees the sources.
    let details: Vec<String> = sink
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::ToolCallFinished { detail, .. } => detail,
            _ => None,
        })
        .collect();
    assert!(details.iter().any(|d| d.contains("10.0.0.7")));
}

/// Panics in tools become observations in the gateway (`agent-tools`); a
/// toolbox that lets one escape stops the run, which still returns its
/// own transcript and usage, and the trace records why.
#[tokio::test]
async fn a_panic_escaping_a_toolbox_stops_the_run_with_its_transcript_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("panic.jsonl");
    let model = ScriptedModel::new()
        .call("c0", "add", json!({"a": 1, "b": 1}))
        .call("c1", "boom", json!({}))
        .text("never");
    let agent = Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .sink(TraceWriter::create(&path).unwrap())
        .build()
        .unwrap();
    let outcome = agent.run("crash").await;
    let StopReason::Internal(detail) = &outcome.stop_reason else {
        panic!("{:?}", outcome.stop_reason)
    };
    assert!(
        detail.contains("toolbox panicked") && detail.contains("tool exploded"),
        "{detail}"
    );
    assert_eq!(outcome.steps, 2);
    assert_eq!(outcome.tool_calls, 1);
    assert!(outcome.usage.total_tokens > 0);
    // System, task, first call and its answer, second call and its "not run" answer.
    let answers = tool_answers(&outcome);
    assert_eq!(answers[0].1, "2");
    assert_eq!(answers[1].0, "c1");
    assert!(answers[1].1.contains("internal error"), "{}", answers[1].1);
    let records = read_trace(&path).unwrap();
    assert!(matches!(
        &records.last().unwrap().event,
        Event::Stopped {
            reason: StopReason::Internal(_),
            ..
        }
    ));
}

/// A transport that panics on one reply: the run stops, it does not crash.
#[derive(Debug)]
struct PanickingTransport;

impl Transport for PanickingTransport {
    fn name(&self) -> &str {
        "test"
    }
    fn opening(&self, task: &str, tools: &[ToolSpec]) -> Opening {
        TestTransport.opening(task, tools)
    }
    fn render(&self, parts: RequestParts<'_>) -> CompletionRequest {
        TestTransport.render(parts)
    }
    fn interpret(&self, completion: Completion, tools: &[ToolSpec]) -> Interpretation {
        if completion.text == "explode" {
            panic!("the transport cannot read this");
        }
        TestTransport.interpret(completion, tools)
    }
    fn observations(&self, observations: &[Observation]) -> Vec<Message> {
        TestTransport.observations(observations)
    }
    fn malformed(&self, reason: &str, tools: &[ToolSpec]) -> Vec<Message> {
        TestTransport.malformed(reason, tools)
    }
}

#[tokio::test]
async fn an_internal_error_returns_the_real_run_not_an_invented_outcome() {
    let model = ScriptedModel::new()
        .call("c0", "add", json!({"a": 2, "b": 2}))
        .text("explode");
    let agent = Agent::builder()
        .model(model)
        .transport(PanickingTransport)
        .toolbox(TestTools::new())
        .build()
        .unwrap();
    let outcome = agent.run("break the transport").await;
    let StopReason::Internal(detail) = &outcome.stop_reason else {
        panic!("{:?}", outcome.stop_reason)
    };
    assert!(detail.contains("transport panicked"), "{detail}");
    // The real run: its opening, the first round, and its usage.
    assert_eq!(outcome.transcript[1].content, "break the transport");
    assert_eq!(
        tool_answers(&outcome),
        [("c0".to_string(), "4".to_string())]
    );
    assert_eq!(outcome.steps, 2);
    assert_eq!(outcome.tool_calls, 1);
    assert!(outcome.usage.total_tokens > 0);
}

#[tokio::test]
async fn hooks_approve_deny_and_edit() {
    let calls = vec![
        call("keep", "add", json!({"a": 1, "b": 1})),
        call("deny", "add", json!({"a": 2, "b": 2})),
        call("edit", "add", json!({"a": 3, "b": 3})),
    ];
    let tools = TestTools::new();
    let agent = Agent::builder()
        .model(
            ScriptedModel::new()
                .reply(Completion::tool_calls(calls))
                .text("ok"),
        )
        .transport(TestTransport)
        .toolbox(tools.clone())
        .hook(FnHook(|c: &agent_core::ToolCall| match c.id.as_str() {
            "deny" => HookAction::Deny("adding 2 is forbidden".into()),
            "edit" => HookAction::Edit(json!({"a": 100, "b": 1})),
            _ => HookAction::Approve,
        }))
        .build()
        .unwrap();
    let outcome = agent.run("hooks").await;
    let answers = tool_answers(&outcome);
    assert_eq!(answers[0].1, "2");
    assert_eq!(answers[1].1, "Error (denied): adding 2 is forbidden");
    assert_eq!(answers[2].1, "101");
    assert_eq!(
        tools.probe.calls.load(Ordering::SeqCst),
        2,
        "the denied call never ran"
    );
    // A denied call never ran, so it does not count as a tool call.
    assert_eq!(outcome.tool_calls, 2);
}

fn two_step_model() -> ScriptedModel {
    ScriptedModel::new()
        .call("c0", "add", json!({"a": 40, "b": 2}))
        .text("The answer is 42.")
}

fn same_outcome(a: &Outcome, b: &Outcome) {
    assert_eq!(a.answer, b.answer);
    assert_eq!(a.stop_reason, b.stop_reason);
    assert_eq!(a.transcript, b.transcript);
    assert_eq!(a.usage, b.usage);
    assert_eq!((a.steps, a.tool_calls), (b.steps, b.tool_calls));
}

#[tokio::test]
async fn a_run_paused_before_tools_serialized_and_resumed_matches_an_uninterrupted_one() {
    let straight = build(two_step_model(), TestTools::new())
        .run("add 40 and 2")
        .await;

    // Process 1: run until the tool round, then store the run.
    let first = build(two_step_model(), TestTools::new());
    let mut run = first.start("add 40 and 2");
    let control = RunControl {
        pause_before_tools: true,
        ..RunControl::default()
    };
    let Step::CallTools(calls) = first.drive(&mut run, &control).await.unwrap() else {
        panic!("expected a pause")
    };
    assert_eq!(calls[0].name, "add");
    let stored = run.to_json().unwrap();
    drop(run);

    // Process 2: a fresh agent whose model has only the remaining turn.
    let second = build(
        ScriptedModel::new().text("The answer is 42."),
        TestTools::new(),
    );
    let run = second.restore(&stored).unwrap();
    assert!(run.awaiting_tools());
    let resumed = second.resume(run).await.unwrap();
    same_outcome(&resumed, &straight);
}

#[tokio::test]
async fn the_state_machine_reissues_a_pending_step_after_a_round_trip() {
    let mut run = Run::new("t", vec![], RunConfig::new(TestTransport), 0).unwrap();
    let Step::CallModel(first) = run.next_step(1).unwrap() else {
        panic!()
    };
    let mut run = Run::from_json(
        &run.to_json().unwrap(),
        Arc::new(TestTransport),
        Default::default(),
    )
    .unwrap();
    let Step::CallModel(again) = run.next_step(2).unwrap() else {
        panic!()
    };
    assert_eq!(first, again);
    assert_eq!(run.steps(), 1, "re-issuing does not count a new step");
}

#[tokio::test]
async fn a_trace_replayed_by_replay_model_gives_an_identical_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let writer = Arc::new(TraceWriter::create(&path).unwrap());
    let model = ScriptedModel::new()
        .reply(Completion::tool_calls(vec![
            call("a", "add", json!({"a": 1, "b": 2})),
            call("b", "fail", json!({})),
        ]))
        .text("")
        .call("c", "add", json!({"a": 3, "b": 4}))
        .text("3 and 7");
    let agent = Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .sink(writer)
        .build()
        .unwrap();
    let original = agent.run("replay me").await;

    let records = read_trace(&path).unwrap();
    assert!(matches!(records[0].event, Event::RunStarted { .. }));
    assert!(matches!(
        records.last().unwrap().event,
        Event::Stopped { .. }
    ));
    let replay = ReplayModel::from_records(&records);
    assert_eq!(replay.task(), Some("replay me"));
    let replayed = build_with(replay).run("replay me").await;
    same_outcome(&replayed, &original);
}

fn build_with(model: impl agent_core::Complete + 'static) -> Agent {
    Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_run_whose_model_failed_replays_to_the_same_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("err.jsonl");
    let err = agent_core::ModelError::Timeout { after_ms: 30_000 };
    let agent = Agent::builder()
        .model(
            ScriptedModel::new()
                .call("c", "add", json!({"a": 1}))
                .error(err.clone()),
        )
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .sink(Arc::new(TraceWriter::create(&path).unwrap()))
        .build()
        .unwrap();
    let original = agent.run("fails").await;
    let replayed = build_with(ReplayModel::from_trace(&path).unwrap())
        .run("fails")
        .await;
    assert_eq!(replayed.stop_reason, StopReason::Model(err));
    same_outcome(&replayed, &original);
}

#[derive(Default)]
struct Collect(std::sync::Mutex<Vec<Event>>);

impl EventSink for Collect {
    fn emit(&self, event: &Event) {
        self.0.lock().unwrap().push(event.clone());
    }
}

impl Collect {
    fn events(&self) -> Vec<Event> {
        self.0.lock().unwrap().clone()
    }
}

/// Zeroes the fields that depend on timing.
fn normalize(mut value: Value) -> Value {
    match &mut value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key == "duration_ms" || key == "elapsed_ms" {
                    *v = json!(0);
                } else {
                    *v = normalize(v.take());
                }
            }
        }
        Value::Array(items) => {
            for v in items.iter_mut() {
                *v = normalize(v.take());
            }
        }
        _ => {}
    }
    value
}

#[tokio::test]
async fn event_sequence_of_a_two_step_run() {
    let agent = build(two_step_model(), TestTools::new());
    let mut items = agent.stream("add 40 and 2");
    let mut events = Vec::new();
    while let Some(event) = items.next().await {
        events.push(normalize(serde_json::to_value(event).unwrap()));
    }
    assert_eq!(
        items.outcome().unwrap().answer.as_deref(),
        Some("The answer is 42.")
    );
    insta::assert_json_snapshot!("two_step_events", events);
}

#[tokio::test]
async fn dropping_a_run_stream_records_a_cancelled_stop_in_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("drop.jsonl");
    let agent = Agent::builder()
        .model(
            ScriptedModel::new()
                .call("c", "add", json!({"a": 1, "b": 1}))
                .text("late")
                .delayed(Duration::from_secs(30)),
        )
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .sink(Arc::new(TraceWriter::create(&path).unwrap()))
        .build()
        .unwrap();
    {
        let mut stream = agent.stream("dropped");
        let deadline = tokio::time::sleep(Duration::from_millis(100));
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                _ = &mut deadline => break,
                item = stream.next() => if item.is_none() { break },
            }
        }
    }
    let records = read_trace(&path).unwrap();
    match &records.last().unwrap().event {
        Event::Stopped {
            reason, tool_calls, ..
        } => {
            assert_eq!(*reason, StopReason::Cancelled);
            assert_eq!(*tool_calls, 1);
        }
        other => panic!("last record: {other:?}"),
    }
}

#[tokio::test]
async fn history_window_trims_requests_but_not_the_transcript() {
    let pad = "y".repeat(200); // ~50 tokens per argument
    let model = (0..8).fold(ScriptedModel::new(), |m, i| {
        m.call(&format!("c{i}"), "add", json!({"a": i, "b": 1, "pad": pad}))
    });
    let model = Arc::new(model.text("done"));
    let agent = Agent::builder()
        .model(model.clone())
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .budget(Budget {
            // Room for the eight calls and the answer before the steps
            // kept for an answer turn.
            max_steps: 12,
            history_window: Some(HistoryWindow {
                max_tokens: 400,
                keep_tokens: 250,
            }),
            ..Budget::default()
        })
        .build()
        .unwrap();
    let outcome = agent.run("window").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.transcript.len(), 2 + 8 * 2 + 1);
    let requests = model.requests();
    let sizes: Vec<usize> = requests.iter().map(|r| r.messages.len()).collect();
    for request in &requests {
        assert_eq!(request.messages[0].role, Role::System);
        assert_eq!(request.messages[1].content, "window");
        // Never an orphan tool answer right after the head.
        assert_ne!(request.messages.get(2).map(|m| m.role), Some(Role::Tool));
    }
    assert!(
        sizes.iter().any(|&n| n < 2 + 8 * 2),
        "some request was trimmed: {sizes:?}"
    );
    // Trimming is rare: between trims, each request only appends.
    let trims = sizes.windows(2).filter(|w| w[1] < w[0]).count();
    assert!(trims <= 3, "{sizes:?}");
}

/// A transport that answers garbage: actions with no calls, calls with no
/// name, and calls sharing one id.
#[derive(Debug)]
struct GarbageTransport;

impl Transport for GarbageTransport {
    fn name(&self) -> &str {
        "garbage"
    }
    fn opening(&self, task: &str, tools: &[ToolSpec]) -> Opening {
        TestTransport.opening(task, tools)
    }
    fn render(&self, parts: RequestParts<'_>) -> CompletionRequest {
        TestTransport.render(parts)
    }
    fn interpret(&self, completion: Completion, _tools: &[ToolSpec]) -> Interpretation {
        let decision = match completion.text.as_str() {
            "empty" => Decision::Act(Vec::new().into()),
            "nameless" => Decision::Act(vec![call("x", "  ", json!({}))].into()),
            "dupes" => Decision::Act(
                vec![
                    call("", "add", json!({"a": 1, "b": 1})),
                    call("same", "add", json!({"a": 2, "b": 2})),
                    call("same", "add", json!({"a": 3, "b": 3})),
                ]
                .into(),
            ),
            other => Decision::Final(other.to_string()),
        };
        Interpretation {
            turn: Turn {
                thought: None,
                decision,
            },
            message: Message::assistant(completion.text),
        }
    }
    fn observations(&self, observations: &[Observation]) -> Vec<Message> {
        TestTransport.observations(observations)
    }
    fn malformed(&self, reason: &str, tools: &[ToolSpec]) -> Vec<Message> {
        TestTransport.malformed(reason, tools)
    }
}

#[tokio::test]
async fn garbage_from_a_transport_is_malformed_or_repaired_never_a_panic() {
    let agent = Agent::builder()
        .model(
            ScriptedModel::new()
                .text("empty")
                .text("nameless")
                .text("dupes")
                .text("end"),
        )
        .transport(GarbageTransport)
        .toolbox(TestTools::new())
        .build()
        .unwrap();
    let outcome = agent.run("garbage").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.tool_calls, 3);
    let feedback: Vec<&str> = outcome
        .transcript
        .iter()
        .filter(|m| m.content.starts_with("Error:"))
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(feedback.len(), 2);
    assert!(feedback[0].contains("named no tool"));
    assert!(feedback[1].contains("no tool name"));
    let ids: Vec<String> = tool_answers(&outcome)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let unique: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), 3, "ids made unique: {ids:?}");
}

#[test]
fn bad_configuration_is_a_typed_error() {
    let zero = Agent::builder()
        .model(ScriptedModel::new())
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .budget(Budget {
            max_steps: 0,
            ..Budget::default()
        })
        .build();
    assert_eq!(
        zero.err(),
        Some(AgentError::Budget(BudgetError::Zero("max_steps")))
    );
    let no_model = Agent::builder()
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .build();
    assert_eq!(no_model.err(), Some(AgentError::MissingModel));
    let no_parallel = Agent::builder()
        .model(ScriptedModel::new())
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .max_parallel_tools(0)
        .build();
    assert_eq!(no_parallel.err(), Some(AgentError::ZeroParallelism));
    let run = Run::new(
        "t",
        vec![],
        RunConfig {
            budget: Budget {
                loop_threshold: 1,
                ..Budget::default()
            },
            ..RunConfig::new(TestTransport)
        },
        0,
    );
    assert_eq!(
        run.err(),
        Some(RunError::Budget(BudgetError::LoopThreshold(1)))
    );
}

#[test]
fn stored_runs_of_another_version_transport_or_garbage_are_typed_errors() {
    let run = Run::new("t", vec![], RunConfig::new(TestTransport), 0).unwrap();
    let json = run.to_json().unwrap();
    let read = |json: &str| Run::from_json(json, Arc::new(TestTransport), Default::default());
    let mut stored: Value = serde_json::from_str(&json).unwrap();
    stored["format_version"] = json!(99);
    assert_eq!(
        read(&stored.to_string()).unwrap_err(),
        RunError::UnsupportedFormat {
            found: 99,
            supported: agent_core::run::RUN_FORMAT_VERSION
        }
    );
    assert!(matches!(read("{not json"), Err(RunError::Decode(_))));
    assert!(matches!(read("{}"), Err(RunError::Decode(_))));
    // Resuming with another transport is refused, by the run and the agent.
    let err = Run::from_json(&json, Arc::new(GarbageTransport), Default::default()).unwrap_err();
    assert_eq!(
        err,
        RunError::TransportMismatch {
            stored: "test".into(),
            given: "garbage".into()
        }
    );
    let other = Agent::builder()
        .model(ScriptedModel::new())
        .transport(GarbageTransport)
        .toolbox(TestTools::new())
        .build()
        .unwrap();
    assert!(matches!(
        other.restore(&json),
        Err(RunError::TransportMismatch { .. })
    ));
}

#[test]
fn misusing_the_state_machine_is_a_typed_error() {
    let mut run = Run::new("t", vec![], RunConfig::new(TestTransport), 0).unwrap();
    let err = run.tool_results(vec![], 0).unwrap_err();
    assert!(matches!(err, RunError::UnexpectedInput { .. }));
    assert!(run.model_turn(Completion::text("x"), 0).is_err());
    let Step::CallModel(_) = run.next_step(0).unwrap() else {
        panic!()
    };
    run.model_turn(Completion::tool_calls(vec![call("a", "add", json!({}))]), 1)
        .unwrap();
    let Step::CallTools(calls) = run.next_step(2).unwrap() else {
        panic!()
    };
    let wrong = Observation {
        call_id: "zzz".into(),
        tool: "add".into(),
        content: "0".into(),
        error: None,
        no_results: false,
        missed: false,
    };
    assert!(matches!(
        run.tool_results(vec![wrong], 3),
        Err(RunError::ObservationMismatch { .. })
    ));
    let right = Observation::ok(&calls[0], "0".into());
    run.tool_results(vec![right], 3).unwrap();
    run.cancel(4);
    let Step::Done(outcome) = run.next_step(5).unwrap() else {
        panic!()
    };
    assert_eq!(outcome.stop_reason, StopReason::Cancelled);
    assert_eq!(run.next_step(6), Err(RunError::Finished));
    let _ = ToolErrorKind::Skipped;
}

#[tokio::test]
async fn a_call_with_made_up_numbers_is_sent_back_once_then_runs() {
    // 4127 is in no message the model was given; 300 comes from the task.
    // The turn after the first call must look up; the lookup finds
    // nothing.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 4127, "b": 300}))
        .call("l", "lookup", json!({"query": "stock count"}))
        .call("2", "add", json!({"a": 300, "b": 4127}))
        .call("3", "add", json!({"a": 300, "b": 4127}))
        .text("4427");
    let (agent, tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Add 300 to the stock count.").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("4427"));
    // The first two computing calls never reached the toolbox (the
    // sentence that sent the first back does not make 4127 known); the
    // same call again ran.
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 2);
    assert_eq!(outcome.tool_calls, 2);
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    for denied in [&answers[0], &answers[2]] {
        assert!(
            denied.contains("4127 is not in the question or in any tool result"),
            "{answers:?}"
        );
    }
    // The call that ran is not noted as a repeat.
    assert_eq!(answers[3], "4427");
}

#[tokio::test]
async fn a_call_of_only_assumed_numbers_goes_back_for_a_lookup_first() {
    // Nothing in the task is a number: `12 * 100` computes from nothing
    // the run was given, though both are numbers taken as known.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 12, "b": 100}))
        .call("2", "add", json!({"a": 12, "b": 100}))
        .call("3", "add", json!({"a": 12, "b": 100}))
        .text("112");
    let (agent, tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run("What do our subscriptions cost per year?").await;
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert!(
        answers[0].starts_with(
            "Error (not run): 12, 100 are not in the question or in any tool result. Look up the facts the question needs with"
        ),
        "{answers:?}"
    );
    // Made again on the turn that must look up, it waits; made again
    // after it, it runs: the model may be sure of them.
    assert!(
        answers[1].contains("this turn is for looking up the facts the question needs"),
        "{answers:?}"
    );
    assert_eq!(answers[2], "112");
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.answer.as_deref(), Some("112"));
}

#[tokio::test]
async fn a_made_up_call_made_again_after_a_lookup_is_sent_back_once_more() {
    // Between the first call and the same again, the model looked
    // something up; what it found does not hold 4127.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 4127, "b": 300}))
        .call("2", "sleep", json!({"ms": 25}))
        .call("3", "add", json!({"a": 4127, "b": 300}))
        .call("4", "add", json!({"a": 4127, "b": 300}))
        .text("4427");
    let (agent, tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Add 300 to the stock count.").await;
    assert_eq!(outcome.answer.as_deref(), Some("4427"));
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert!(
        answers[0].contains("4127 is not in the question or in any tool result"),
        "{answers:?}"
    );
    // The second time, it says the lookup did not find the number either.
    assert!(
        answers[2].starts_with("Error (not run): 4127 is still not in any tool result."),
        "{answers:?}"
    );
    // The sleep and the last add ran.
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 2);
    assert_eq!(answers[3], "4427");
}

#[tokio::test]
async fn a_computing_tool_given_names_before_any_lookup_is_told_to_look_them_up() {
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": "latency", "b": 1}))
        .call("2", "lookup", json!({"q": "latency"}))
        .call("3", "add", json!({"a": "latencies", "b": 1}))
        .text("I cannot find it.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run("What is the mean latency?").await;
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(
        answers[0],
        "Error (invalid arguments): `a` is not a number. Look the numbers up with sleep, seq, fail, boom or lookup first."
    );
    // Once a lookup has given a result, the error is the tool's own.
    assert_eq!(answers[2], "Error (invalid arguments): `a` is not a number");
}

#[tokio::test]
async fn a_computing_call_of_numbers_alone_that_fails_keeps_the_tools_own_error() {
    // Written wrong, not computing with names: nothing to look up.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": "2500 * (1 +", "b": 1}))
        .text("I cannot find it.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run("What is 2500 plus one?").await;
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(answers[0], "Error (invalid arguments): `a` is not a number");
}

#[tokio::test]
async fn a_failed_call_that_ran_away_is_told_to_write_it_short() {
    let runaway = format!("2500 * 1.032{}", " * (1 - 1/100)".repeat(30));
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": runaway, "b": 1}))
        .call(
            "2",
            "add",
            json!({"a": "12.5 + 12.5 + 12.5 + 12.5 + 12.5 + 12.5 + 12.5 + 12.5 + 12.5", "b": 1}),
        )
        .text("I cannot find it.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent
        .run("What is 2500 at 3.2% a year after 7 years?")
        .await;
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(
        answers[0],
        "Error (invalid arguments): `a` is not a number. Your `a` wrote one piece again and again \
         until it was cut off. Write the call again, short, with each part once."
    );
    // A repeated piece that is not a runaway's keeps the tool's own error.
    assert!(!answers[1].contains("again and again"), "{answers:?}");
}

#[tokio::test]
async fn numbers_from_the_task_or_tool_results_are_grounded() {
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 1250, "b": 830}))
        .call("2", "add", json!({"a": 2080, "b": 615}))
        .text("2695");
    let (agent, tools) = grounded_agent(model, Budget::default());
    let outcome = agent
        .run("The sales were 1,250 and 830 and then 615. What is the total?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("2695"));
    // 2080 is the first call's result.
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 2);
    // Off, made-up numbers run at once; other tools are never checked.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 4127, "b": 1}))
        .call("2", "fail", json!({"n": 98765}))
        .text("done");
    let budget = Budget {
        ground_numbers: false,
        ..Budget::default()
    };
    let (agent, tools) = grounded_agent(model, budget);
    let outcome = agent.run("go").await;
    assert_eq!(outcome.answer.as_deref(), Some("done"));
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn an_answer_with_a_number_no_tool_gave_is_sent_back_once() {
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 512, "b": 768}))
        .text("The total is 1792.")
        .call("2", "add", json!({"a": 1280, "b": 2048}))
        .text("The total is 3328.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Add 512, 768 and 2048.").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("The total is 3328."));
    let told = outcome
        .transcript
        .iter()
        .find(|m| m.content.contains("1792 is in no tool result"))
        .unwrap();
    assert_eq!(told.role, Role::User);
    assert!(
        told.content
            .contains("Work it out with add from the numbers in the tool results"),
        "{}",
        told.content
    );
    // A second such answer stands.
    let model = ScriptedModel::new()
        .text("About 4,100,000.")
        .text("About 4,100,000, I am sure.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run("How many?").await;
    assert_eq!(
        outcome.answer.as_deref(),
        Some("About 4,100,000, I am sure.")
    );
    // The outcome and the stop event say which numbers no result held.
    assert_eq!(outcome.ungrounded_numbers, ["4,100,000"]);
}

#[tokio::test]
async fn the_outcome_lists_the_answers_numbers_that_no_tool_result_holds() {
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 512, "b": 768}))
        .text("The total is 1280, or 1792 with the spare.")
        .text("The total is 1280, or 1792 with the spare.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let sink = Arc::new(Collect::default());
    let control = RunControl::default().with_sink(sink.clone());
    let outcome = agent.run_with("Add 512 and 768.", &control).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.ungrounded_numbers, ["1792"]);
    let stopped = sink
        .events()
        .into_iter()
        .find_map(|e| match e {
            Event::Stopped {
                ungrounded_numbers, ..
            } => Some(ungrounded_numbers),
            _ => None,
        })
        .unwrap();
    assert_eq!(stopped, ["1792"]);
    // A number a tool gave, or a task's own, is no such number.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 512, "b": 768}))
        .text("512 and 768 make 1,280.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Add 512 and 768.").await;
    assert_eq!(outcome.answer.as_deref(), Some("512 and 768 make 1,280."));
    assert!(outcome.ungrounded_numbers.is_empty());
    // Without grounding, nothing is checked and nothing is listed.
    let model = ScriptedModel::new().text("About 4,100,000.");
    let (agent, _) = grounded_agent(
        model,
        Budget {
            ground_numbers: false,
            ..Budget::default()
        },
    );
    let outcome = agent.run("How many?").await;
    assert_eq!(outcome.answer.as_deref(), Some("About 4,100,000."));
    assert!(outcome.ungrounded_numbers.is_empty());
}

#[tokio::test]
async fn an_answer_on_false_arithmetic_is_sent_back_naming_the_claim() {
    let claim = "Thought: 2,100,000 + 3,800,000 = 8,900,000.\nFinal Answer: 8,900,000";
    let model = ScriptedModel::new()
        .call("1", "lookup", json!({"q": "population"}))
        .text(claim)
        .text(claim)
        .text(claim);
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent
        .run("Paris has 2,100,000 people and Berlin 3,800,000. How many together?")
        .await;
    let told: Vec<&str> = outcome
        .transcript
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.content.as_str())
        .collect();
    // First the claim is named; then, the claim told once, the answer's
    // number is sent back; the third answer stands.
    assert!(
        told.iter().any(|t| t.contains(
            "2,100,000 + 3,800,000 is not 8,900,000. Compute it with add, then give the final answer"
        )),
        "{told:?}"
    );
    assert!(
        told.iter()
            .any(|t| t.contains("8,900,000 is in no tool result")),
        "{told:?}"
    );
    assert_eq!(outcome.answer.as_deref(), Some(claim));
    // Right arithmetic is no claim to send back.
    let model = ScriptedModel::new()
        .call("1", "lookup", json!({"q": "population"}))
        .text("2,100,000 + 3,800,000 = 5,900,000");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent
        .run("Paris has 2,100,000 people and Berlin 3,800,000. How many together?")
        .await;
    assert!(
        !outcome
            .transcript
            .iter()
            .any(|m| m.content.contains("is not 5,900,000")),
        "{:?}",
        outcome.transcript
    );
}

#[tokio::test]
async fn an_answer_before_any_tool_result_is_sent_back_for_any_number() {
    // Answered at once with a small number: sent back, the model computes.
    let model = ScriptedModel::new()
        .text("It is 24.")
        .call("1", "add", json!({"a": 7, "b": 9}))
        .text("It is 16.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Add 7 and 9.").await;
    assert_eq!(outcome.answer.as_deref(), Some("It is 16."));
    let told = outcome
        .transcript
        .iter()
        .find(|m| m.content.contains("24 is in no tool result"))
        .unwrap();
    assert!(
        told.content
            .contains("No tool has been used yet: work it out with add, or look it up, first"),
        "{}",
        told.content
    );
    // The task's own numbers, and words, are no reason to send it back.
    for answer in ["Add 7 and 9.", "Hello! How can I help?"] {
        let (agent, _) = grounded_agent(ScriptedModel::new().text(answer), Budget::default());
        let outcome = agent.run("Add 7 and 9.").await;
        assert_eq!(
            (outcome.answer.as_deref(), outcome.steps),
            (Some(answer), 1)
        );
    }
    // After a result, counts under ten are known again; a `20` no result
    // holds is not, and is sent back once.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 7, "b": 9}))
        .text("16, so 2 more than 14 and about 20.")
        .text("16");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Add 7 and 9.").await;
    assert_eq!(outcome.answer.as_deref(), Some("16"));
    let sent_back = common::told(&outcome);
    assert!(
        sent_back
            .iter()
            .any(|m| m.contains("14, 20 are in no tool result")),
        "{sent_back:?}"
    );
}

#[tokio::test]
async fn request_events_hold_what_the_loop_told_the_model() {
    // A call sent back for a made-up number runs no tool, so no
    // `Observation` event holds why; the next request's event does.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 4127, "b": 300}))
        .text("I cannot add them.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let mut items = agent.stream("Add 300 to it.");
    let mut told = Vec::new();
    while let Some(event) = items.next().await {
        if let Event::ModelRequestStarted { told: messages, .. } = event {
            told.push(messages);
        }
    }
    let first: Vec<Role> = told[0].iter().map(|m| m.role).collect();
    assert_eq!(first, [Role::System, Role::User]);
    assert_eq!(told[1].len(), 1);
    assert_eq!(told[1][0].role, Role::Tool);
    assert!(
        told[1][0]
            .content
            .contains("4127 is not in the question or in any tool result"),
        "{:?}",
        told[1]
    );
}
