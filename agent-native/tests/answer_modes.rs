//! How a run's answer comes with the native transport, end to end through
//! an agent, in each [`AnswerMode`]:
//!
//! - `AfterCalls` (the default): every ordinary request must be a call;
//!   the model's repeat of the call that just gave its result gets that
//!   result again, and the answer turn (same tools, `tool_choice: none`,
//!   the task restated) gives the answer;
//! - `AnswerTool`: `final_answer` beside the run's tools, required; a call
//!   to it is the answer, one beside other calls waits for them, an empty
//!   one is sent back;
//! - `Words`: `tool_choice: auto`, and prose is the answer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_core::message::{Role, ToolChoice};
use agent_core::testing::ScriptedModel;
use agent_core::transport::{Decision, Findings, RequestParts};
use agent_core::{Agent, Completion, Message, StopReason, ToolCall, ToolSpec, Transport};
use agent_native::{ANSWER_TOOL, AnswerMode, NativeTransport};
use agent_tools::builtin;
use serde_json::json;

fn agent(model: &Arc<ScriptedModel>, transport: NativeTransport) -> Agent {
    agent_with(model, transport, &["calculator"])
}

/// An agent over `model` with these built-in tools.
fn agent_with(model: &Arc<ScriptedModel>, transport: NativeTransport, tools: &[&str]) -> Agent {
    let tools = builtin::registry(tools, None, true).unwrap().allow_all();
    Agent::builder()
        .model(Arc::clone(model))
        .transport(transport)
        .toolbox(tools)
        .build()
        .unwrap()
}

fn names(request: &agent_core::CompletionRequest) -> Vec<&str> {
    request.tools.iter().map(|t| t.name.as_str()).collect()
}

#[tokio::test]
async fn by_default_every_turn_is_a_call_and_the_answer_comes_after_them() {
    let model = Arc::new(
        ScriptedModel::new()
            .call("c1", "calculator", json!({"expression": "385 / 3.5"}))
            .call("c2", "calculator", json!({"expression": "385 / 3.5"}))
            .text("110 km/h"),
    );
    let task = "A train covers 385 km in 3.5 hours. What is its speed?";
    let outcome = agent(&model, NativeTransport::new()).run(task).await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("110 km/h"));
    // One call ran; its repeat got the same result back.
    assert_eq!(outcome.tool_calls, 1);
    let results: Vec<&str> = outcome
        .transcript
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(results, ["110", "110"]);
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    for ordinary in &requests[..2] {
        assert_eq!(names(ordinary), ["calculator"]);
        assert_eq!(ordinary.tool_choice, ToolChoice::Required);
    }
    // The answer turn keeps the tools (the server's prefix cache holds)
    // and asks again what the task was.
    let answer_turn = &requests[2];
    assert_eq!(names(answer_turn), ["calculator"]);
    assert_eq!(answer_turn.tool_choice, ToolChoice::None);
    assert!(answer_turn.constraint.is_none());
    let asked = answer_turn.messages.last().unwrap();
    assert_eq!(asked.role, Role::User);
    assert!(asked.content.starts_with(task), "{}", asked.content);
    assert_eq!(
        requests[0].messages[0].content,
        agent_native::DEFAULT_SYSTEM_PROMPT
    );
}

#[tokio::test]
async fn an_answer_turn_answered_with_a_written_call_asks_again_without_tools() {
    // Qwen2.5-Coder 0.5B writes the call it repeated as text on the answer
    // turn whatever `tool_choice` says, and once cut off at the token
    // limit; neither is an answer.
    let written = r#"{"name": "calculator", "arguments": {"expression": "385 / 3.5"}}"#;
    for first_reply in [written, &written[..40]] {
        let model = Arc::new(
            ScriptedModel::new()
                .call("c1", "calculator", json!({"expression": "385 / 3.5"}))
                .call("c2", "calculator", json!({"expression": "385 / 3.5"}))
                .text(first_reply)
                .text("110 km/h"),
        );
        let task = "A train covers 385 km in 3.5 hours. What is its speed?";
        let outcome = agent(&model, NativeTransport::new()).run(task).await;
        assert_eq!(outcome.answer.as_deref(), Some("110 km/h"), "{first_reply}");
        assert!(outcome.forced_answer);
        let requests = model.requests();
        assert_eq!(requests.len(), 4);
        assert_eq!(
            names(&requests[2]),
            ["calculator"],
            "the first ask keeps the cache"
        );
        assert!(
            requests[3].tools.is_empty(),
            "the second ask offers no tools"
        );
        let words = requests[3].constraint.as_ref().expect("and asks for words");
        assert!(words.answer_only && words.grammar.starts_with("root ::= [^"));
        assert!(requests[2].constraint.is_none());
        let asked = requests[3].messages.last().unwrap();
        assert_eq!(
            asked.content,
            format!("{task}\nAnswer in words, from the results above."),
            "the second ask restates the task and wants words, with no error line to copy"
        );
    }
}

#[tokio::test]
async fn an_answer_turn_answer_with_a_made_up_number_is_asked_again_for_found_ones() {
    let search = json!({"query": "Great Wall of China"});
    let model = Arc::new(
        ScriptedModel::new()
            .call("c1", "search", search.clone())
            .call("c2", "search", search)
            .text("About 1300 km.")
            .text("About 21,196 km."),
    );
    let outcome = agent_with(&model, NativeTransport::new(), &["search"])
        .run("How long is the Great Wall of China?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("About 21,196 km."));
    assert!(outcome.forced_answer && outcome.ungrounded_numbers.is_empty());
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    assert!(requests[2].constraint.is_none());
    // The second ask: no tools, words whose numbers are the results'.
    let words = requests[3].constraint.as_ref().expect("a grammar");
    assert!(requests[3].tools.is_empty());
    assert!(
        words.grammar.contains(r#""21,196" | "21196""#) && !words.grammar.contains("1300"),
        "{}",
        words.grammar
    );
}

#[tokio::test]
async fn an_answer_turn_after_calls_that_found_nothing_opens_with_a_refusal() {
    use agent_core::transport::REFUSAL_OPENING;
    let search = json!({"query": "1998 chess olympiad winner"});
    let model = Arc::new(
        ScriptedModel::new()
            .call("c1", "search", search.clone())
            .call("c2", "search", search.clone())
            .call("c3", "search", search)
            .text("I cannot find who won it."),
    );
    let outcome = agent_with(&model, NativeTransport::new(), &["search"])
        .run("Who won the 1998 chess olympiad?")
        .await;
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("I cannot find who won it."));
    let requests = model.requests();
    let answer_turn = requests.last().unwrap();
    // No tools, so the server honours the grammar; the answer opens with
    // the refusal.
    assert!(answer_turn.tools.is_empty());
    assert_eq!(answer_turn.tool_choice, ToolChoice::None);
    let grammar = &answer_turn.constraint.as_ref().expect("a grammar").grammar;
    assert!(
        grammar.starts_with(&format!("root ::= \"{REFUSAL_OPENING}\" ")),
        "{grammar}"
    );
    assert!(
        answer_turn
            .messages
            .last()
            .unwrap()
            .content
            .starts_with("The tool calls above found nothing about this question")
    );
    // Ordinary turns keep their tools and no grammar.
    assert_eq!(names(&requests[1]), ["search"]);
    assert!(requests[1].constraint.is_none());
}

#[test]
fn a_second_ask_after_calls_that_found_nothing_still_says_so() {
    let transport = NativeTransport::new();
    let task = "Which file holds the release date?";
    let retry = transport.answer_retry("no more tool calls are possible", task, Findings::Nothing);
    assert_eq!(retry, transport.answer_request(task, Findings::Nothing));
    assert!(retry.content.contains("found nothing"), "{}", retry.content);
    assert!(!retry.content.contains("Error"), "{}", retry.content);
}

#[tokio::test]
async fn an_answer_turn_sum_done_in_the_head_gets_one_calculator_call() {
    // The model repeats its call, then answers with a sum no tool gave:
    // the next turn keeps the tools (the prefix cache) and requires a
    // call; its result is the answer's number, so that answer stands.
    let model = Arc::new(
        ScriptedModel::new()
            .call(
                "c1",
                "calculator",
                json!({"expression": "2100000 + 3800000"}),
            )
            .call(
                "c2",
                "calculator",
                json!({"expression": "2100000 + 3800000"}),
            )
            .text("2,950,000")
            .call("c3", "calculator", json!({"expression": "5900000 / 2"})),
    );
    let task = "Paris has 2,100,000 people and Berlin 3,800,000. What is their average?";
    let outcome = agent(&model, NativeTransport::new()).run(task).await;
    assert_eq!(outcome.answer.as_deref(), Some("2,950,000"));
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert_eq!((outcome.steps, outcome.tool_calls), (4, 2));
    let requests = model.requests();
    let choices: Vec<&ToolChoice> = requests.iter().map(|r| &r.tool_choice).collect();
    assert_eq!(
        choices,
        [
            &ToolChoice::Required,
            &ToolChoice::Required,
            &ToolChoice::None,
            &ToolChoice::Required,
        ]
    );
    assert!(requests.iter().all(|r| names(r) == ["calculator"]));
    let offer = &requests[3].messages.last().unwrap().content;
    assert!(
        offer.starts_with("Error: the answer has 2,950,000 which is in no tool result.")
            && offer.ends_with("Call one of the tools (calculator)."),
        "{offer}"
    );
}

#[tokio::test]
async fn a_malformed_turn_asks_for_a_call_when_turns_must_be_calls() {
    let model = Arc::new(
        ScriptedModel::new()
            .text("{")
            .call("c1", "calculator", json!({"expression": "6 * 7"}))
            .call("c2", "calculator", json!({"expression": "6 * 7"}))
            .text("42"),
    );
    let outcome = agent(&model, NativeTransport::new())
        .run("What is six times seven?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("42"));
    let told = &model.requests()[1].messages;
    assert_eq!(
        told.last().unwrap().content,
        "Error: the reply held no words or numbers, only punctuation. Call one of the tools (calculator)."
    );
}

#[tokio::test]
async fn a_call_to_final_answer_is_the_answer() {
    let model = Arc::new(
        ScriptedModel::new()
            .call("c1", "calculator", json!({"expression": "385 / 3.5"}))
            .call("c2", ANSWER_TOOL, json!({"answer": "110 km/h"})),
    );
    let transport = NativeTransport::new().with_answer_mode(AnswerMode::AnswerTool);
    let outcome = agent(&model, transport)
        .run("A train covers 385 km in 3.5 hours. What is its speed?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("110 km/h"));
    assert!(!outcome.forced_answer);
    // The answer is recorded as words, with no call left unanswered.
    let last = outcome.transcript.last().unwrap();
    assert_eq!(last.role, Role::Assistant);
    assert_eq!(last.content, "110 km/h");
    assert!(last.tool_calls.is_empty());
    for request in model.requests() {
        assert_eq!(names(&request), ["calculator", ANSWER_TOOL]);
        assert_eq!(request.tool_choice, ToolChoice::Required);
    }
    assert_eq!(
        model.requests()[0].messages[0].content,
        agent_native::ANSWER_TOOL_SYSTEM_PROMPT
    );
}

#[tokio::test]
async fn an_answer_beside_other_calls_waits_for_their_results() {
    let model = Arc::new(
        ScriptedModel::new()
            .reply(Completion::tool_calls(vec![
                ToolCall::new("c1", "calculator", json!({"expression": "6 * 7"})),
                ToolCall::new("c2", ANSWER_TOOL, json!({"answer": "a guess"})),
            ]))
            .call("c3", ANSWER_TOOL, json!({"answer": "42"})),
    );
    let transport = NativeTransport::new().with_answer_mode(AnswerMode::AnswerTool);
    let outcome = agent(&model, transport)
        .run("What is six times seven?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("42"));
    assert_eq!(outcome.tool_calls, 1);
    // The dropped call is not in the history the provider sees, so every
    // call there has its one tool message.
    let calls: Vec<&str> = outcome
        .transcript
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.name.as_str()))
        .collect();
    assert_eq!(calls, ["calculator"]);
}

#[tokio::test]
async fn an_empty_answer_is_sent_back_and_prose_still_answers() {
    let model = Arc::new(
        ScriptedModel::new()
            .call("c1", ANSWER_TOOL, json!({}))
            .text("It is forty-two."),
    );
    let transport = NativeTransport::new().with_answer_mode(AnswerMode::AnswerTool);
    let outcome = agent(&model, transport)
        .run("What is six times seven?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("It is forty-two."));
    let told = &model.requests()[1].messages;
    let last = told.last().unwrap();
    assert_eq!(last.role, Role::User);
    assert_eq!(
        last.content,
        "Error: `final_answer` was called without an `answer`. Call one of the tools (calculator, final_answer), or call final_answer with the answer."
    );
}

#[tokio::test]
async fn with_the_answer_tool_a_loop_ends_in_an_answer_turn_with_the_same_tools() {
    let same = json!({"expression": "18 * 3"});
    let model = Arc::new(
        ScriptedModel::new()
            .call("c1", "calculator", same.clone())
            .call("c2", "calculator", same)
            .call("c3", ANSWER_TOOL, json!({"answer": "54"})),
    );
    let transport = NativeTransport::new().with_answer_mode(AnswerMode::AnswerTool);
    let outcome = agent(&model, transport).run("What is 18 times 3?").await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("54"));
    let last = model.requests().pop().unwrap();
    assert_eq!(names(&last), ["calculator", ANSWER_TOOL]);
    assert_eq!(last.tool_choice, ToolChoice::None);
}

#[tokio::test]
async fn in_words_mode_prose_is_the_answer() {
    let model = Arc::new(ScriptedModel::new().text("forty-two"));
    let transport = NativeTransport::new().with_answer_mode(AnswerMode::Words);
    let outcome = agent(&model, transport)
        .run("What is six times seven?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("forty-two"));
    let request = &model.requests()[0];
    assert_eq!(names(request), ["calculator"]);
    assert_eq!(request.tool_choice, ToolChoice::Auto);
    assert_eq!(
        request.messages[0].content,
        agent_native::WORDS_SYSTEM_PROMPT
    );
}

fn render_with(transport: &NativeTransport, tool: &str) -> agent_core::CompletionRequest {
    let messages = Arc::new(vec![Message::user("question")]);
    let tools: Arc<[ToolSpec]> = Arc::from(vec![ToolSpec {
        name: tool.into(),
        description: "Look a thing up.".into(),
        parameters: json!({"type": "object", "properties": {"query": {"type": "string"}}}),
    }]);
    transport.render(RequestParts {
        messages: &messages,
        tools: &tools,
        answer_only: false,
        answer_tools: &[],
        must_call: &[],
        answer_retry: false,
        answer_numbers: None,
        found_nothing: false,
        max_tokens: None,
        temperature: None,
    })
}

#[test]
fn a_run_tool_named_final_answer_wins() {
    let transport = NativeTransport::new().with_answer_mode(AnswerMode::AnswerTool);
    let request = render_with(&transport, ANSWER_TOOL);
    assert_eq!(request.tools.len(), 1, "no second final_answer");
    assert_eq!(request.tool_choice, ToolChoice::Auto);
    // A tool choice set by hand holds on ordinary turns in every mode.
    let chosen = NativeTransport::new().with_tool_choice(ToolChoice::Tool("lookup".into()));
    assert_eq!(
        render_with(&chosen, "lookup").tool_choice,
        ToolChoice::Tool("lookup".into())
    );
}

#[test]
fn an_answer_written_as_the_answer_tools_arguments_is_the_answer() {
    let read = NativeTransport::new().interpret(Completion::text("{\"answer\": \"42\"}"), &[]);
    assert_eq!(read.turn.decision, Decision::Final("42".into()));
    let read = NativeTransport::new().interpret(Completion::text("{\"answer\": \"\"}"), &[]);
    assert!(matches!(read.turn.decision, Decision::Final(text) if text.contains("answer")));
}

#[test]
fn a_turn_that_must_compute_requires_a_call_whatever_the_mode_lists() {
    // In words mode ordinary turns are `auto`; a turn the run says must
    // call a computing tool is `required`, with the same tools listed
    // (the prefix cache).
    let transport = NativeTransport::new().with_answer_mode(AnswerMode::Words);
    let messages = Arc::new(vec![Message::user("question")]);
    let calculator = ToolSpec {
        name: "calculator".into(),
        description: "Evaluate arithmetic.".into(),
        parameters: json!({"type": "object", "properties": {"expression": {"type": "string"}}}),
    };
    let tools: Arc<[ToolSpec]> = Arc::from(vec![calculator.clone()]);
    let parts = |must_call: &'static [ToolSpec]| RequestParts {
        messages: &messages,
        tools: &tools,
        answer_only: false,
        answer_tools: &[],
        must_call,
        answer_retry: false,
        answer_numbers: None,
        found_nothing: false,
        max_tokens: None,
        temperature: None,
    };
    assert_eq!(transport.render(parts(&[])).tool_choice, ToolChoice::Auto);
    let must: &'static [ToolSpec] = Vec::leak(vec![calculator]);
    let forced = transport.render(parts(must));
    assert_eq!(forced.tool_choice, ToolChoice::Required);
    assert_eq!(forced.tools.len(), 1);
}

#[tokio::test]
async fn a_computing_call_from_memory_makes_the_next_turn_look_up_and_a_computing_call_there_waits()
{
    // Words mode, so the turn that must look up stands out as `required`.
    let model = Arc::new(
        ScriptedModel::new()
            .call(
                "c1",
                "calculator",
                json!({"expression": "83000000 - 67000000"}),
            )
            .call(
                "c2",
                "calculator",
                json!({"expression": "83000000 - 67000000"}),
            )
            .call(
                "c3",
                "search",
                json!({"query": "Germany France population"}),
            )
            .call(
                "c4",
                "calculator",
                json!({"expression": "84000000 - 68000000"}),
            )
            .text("16,000,000 more people live in Germany."),
    );
    let transport = NativeTransport::new().with_answer_mode(AnswerMode::Words);
    let outcome = agent_with(&model, transport, &["search", "calculator"])
        .run("How many more people live in Germany than in France?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let requests = model.requests();
    assert_eq!(requests[0].tool_choice, ToolChoice::Auto);
    assert_eq!(
        requests[1].tool_choice,
        ToolChoice::Required,
        "must look up"
    );
    assert_eq!(
        names(&requests[1]),
        names(&requests[0]),
        "the same tools listed"
    );
    // The same computing call on that turn is not run.
    let waited = &requests[2].messages.last().unwrap().content;
    assert!(
        waited.contains("this turn is for looking up the facts the question needs, with search"),
        "{waited}"
    );
    assert_eq!(outcome.tool_calls, 2, "the search, then the computation");
    // The turn after it is free.
    assert_eq!(requests[2].tool_choice, ToolChoice::Auto);
}
