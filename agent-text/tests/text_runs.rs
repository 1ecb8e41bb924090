//! The text transport through the real `Agent` with the built-in tools:
//! a multi-step run with recovery (transcript snapshot), streaming that
//! stops at the completed action, the prompt snapshots, the answer-turn
//! messages, and a tool set aside for a turn left out of the grammar.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_core::budget::{BytesPerToken, TokenEstimator};
use agent_core::message::Role;
use agent_core::testing::ScriptedModel;
use agent_core::{Agent, Budget, StopReason, Toolbox};
use agent_text::{Dialect, PromptBuilder, STOP_SEQUENCE, Section, TextTransport};
use agent_tools::builtin;

fn tools() -> agent_tools::ToolSet {
    builtin::registry(&["search", "calculator"], None, true)
        .unwrap()
        .allow_all()
}

/// A text-transport agent with the built-in tools, on a scripted model
/// the test keeps to read its requests.
fn scripted_agent(model: &Arc<ScriptedModel>) -> Agent {
    Agent::builder()
        .model(Arc::clone(model))
        .transport(TextTransport::new())
        .toolbox(tools())
        .build()
        .unwrap()
}

/// An agent over `model` with the text transport and the built-in search.
fn search_agent(model: &Arc<ScriptedModel>) -> Agent {
    Agent::builder()
        .model(Arc::clone(model))
        .transport(TextTransport::new())
        .toolbox(
            builtin::registry(&["search"], None, true)
                .unwrap()
                .allow_all(),
        )
        .build()
        .unwrap()
}

fn transcript_text(outcome: &agent_core::Outcome) -> String {
    outcome
        .transcript
        .iter()
        .skip(1) // the system prompt has its own snapshot
        .map(|m| format!("--- {:?}\n{}", m.role, m.content))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn multi_step_run_with_recovery_from_a_bad_tool_name_and_broken_json() {
    let model = Arc::new(
        ScriptedModel::new()
            .text("Thought: I should look up France.\nAction: lookup\nAction Input: {\"query\": \"population of France\"}")
            .text("Thought: That tool does not exist; use search.\nAction: search\nAction Input: {\"query\": \"population of France\"\nObservation: France has 1 person")
            .text("Thought: Now Paris.\nAction: search\nAction Input: {'query': 'population of Paris',}")
            .text("Thought: Subtract.\nAction: calculator\nAction Input: {\"expression\": 68000000 - 2100000}")
            .text("Thought: I will try again.\nAction: calculator\nAction Input: 68000000 - 2100000")
            .text("Thought: I know the answer.\nFinal Answer: About 65,900,000 more people live in France than in Paris."),
    );
    let agent = Agent::builder()
        .model(model.clone())
        .transport(TextTransport::new())
        .toolbox(tools())
        .build()
        .unwrap();
    let outcome = agent
        .run("How many more people live in France than in Paris?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert!(outcome.answer.as_deref().unwrap().contains("65,900,000"));
    assert_eq!(outcome.steps, 6);
    let text = transcript_text(&outcome);
    assert!(text.contains("there is no tool named `lookup`. Available tools: search, calculator"));
    assert!(
        !text.contains("France has 1 person"),
        "the fake observation was cut"
    );
    assert!(text.contains("65900000"));
    // Broken JSON is a format error the model fixes, never a string for the tool.
    assert!(text.contains("the Action Input is not valid JSON (line 1, column 25"));
    for request in model.requests() {
        assert_eq!(request.stop, [STOP_SEQUENCE]);
        assert!(request.tools.is_empty());
    }
    insta::assert_snapshot!("recovery_transcript", text);
}

#[tokio::test]
async fn streaming_stops_at_the_completed_action_and_drops_the_fake_observation() {
    let action = "Thought: compute it.\nAction: calculator\nAction Input: {\"expression\": \"(17 * 83) + (12 ** 3)\"}";
    let rambling = "\nObservation: 42\nThought: so the answer is 42\nFinal Answer: 42";
    let chunk = 5;
    let model = Arc::new(
        ScriptedModel::new()
            .text(format!("{action}{rambling}"))
            .text("Thought: done\nFinal Answer: 3139")
            .chunked(chunk),
    );
    let agent = Agent::builder()
        .model(model.clone())
        .transport(TextTransport::new())
        .toolbox(tools())
        .streaming(true)
        .build()
        .unwrap();
    let outcome = agent.run("What is (17 * 83) + (12 ** 3)?").await;
    assert_eq!(outcome.answer.as_deref(), Some("3139"));
    assert_eq!(outcome.tool_calls, 1);
    let observation = &outcome.transcript[3];
    assert_eq!(observation.role, Role::User);
    assert!(
        observation.content.contains("3139"),
        "the real tool ran: {}",
        observation.content
    );
    let all = transcript_text(&outcome);
    assert!(!all.contains("Observation: 42") && !all.contains("answer is 42"));
    assert_eq!(outcome.transcript[2].content, action);
    // First turn: no chunk after the one that closed the JSON input.
    let first_turn_chunks = action.chars().count().div_ceil(chunk);
    let second_turn_chunks = "Thought: done\nFinal Answer: 3139"
        .chars()
        .count()
        .div_ceil(chunk);
    // The second turn is read to its end, including its `Finish` delta.
    assert_eq!(
        model.chunks_sent(),
        first_turn_chunks + second_turn_chunks + 1
    );
}

#[test]
fn default_prompt_is_compact_and_pinned() {
    let prompt = PromptBuilder::new(Dialect::Classic).system(&tools().specs());
    let tokens = BytesPerToken.estimate(&prompt);
    assert!(tokens < 300, "{tokens} estimated tokens");
    insta::assert_snapshot!("default_prompt", prompt);
}

#[test]
fn prompt_sections_can_be_overridden_or_removed() {
    let prompt = PromptBuilder::new(Dialect::Classic)
        .with_section(Section::Role, "You are a support agent for ACME. Be brief.")
        .with_section(Section::Tools, "Available:\n{tools}")
        .without(Section::Rules)
        .with_section(Section::Intro, "Customer asks:");
    let system = prompt.system(&tools().specs());
    assert!(system.starts_with("You are a support agent for ACME."));
    assert!(!system.contains("If a call fails"));
    assert_eq!(
        prompt.task("Can I get a refund?"),
        "Customer asks: Can I get a refund?"
    );
    insta::assert_snapshot!("overridden_prompt", system);
}

#[test]
fn paper_and_answer_dialect_prompts() {
    insta::assert_snapshot!(
        "paper_prompt",
        PromptBuilder::new(Dialect::Paper).system(&tools().specs())
    );
    let answer = PromptBuilder::new(Dialect::AnswerEnding).system(&tools().specs());
    assert!(answer.contains("\nAnswer: <the answer>"));
}

#[test]
fn answer_turn_requests_are_pinned() {
    use agent_core::{Findings, Transport};
    let transport = TextTransport::new();
    let task = "How tall is the tower?";
    let something = transport.answer_request(task, Findings::Something).content;
    let nothing = transport.answer_request(task, Findings::Nothing).content;
    let retry = transport
        .answer_retry("no final answer", task, Findings::Something)
        .content;
    // The question is restated as the run opened it.
    assert!(something.contains("\nQuestion: How tall is the tower?\n"));
    insta::assert_snapshot!(
        "answer_turn_requests",
        format!("--- something\n{something}\n--- nothing\n{nothing}\n--- retry\n{retry}")
    );
}

#[tokio::test]
async fn malformed_turns_count_against_the_budget() {
    let model = ScriptedModel::new()
        .text("I think so.")
        .text("Hmm.")
        .text("Thought: the question is unclear\nFinal Answer: I cannot tell.");
    let agent = Agent::builder()
        .model(model)
        .transport(TextTransport::new())
        .toolbox(tools())
        .budget(Budget {
            max_consecutive_malformed: 2,
            ..Budget::default()
        })
        .build()
        .unwrap();
    let outcome = agent.run("?").await;
    assert_eq!(outcome.stop_reason, StopReason::TooManyMalformed);
    assert_eq!(outcome.answer.as_deref(), Some("I cannot tell."));
    assert!(outcome.forced_answer);
    let feedback = &outcome.transcript[3].content;
    assert!(
        feedback.starts_with("Observation: Error: the reply has no"),
        "{feedback}"
    );
    assert!(feedback.contains("Final Answer: ..."));
}

#[tokio::test]
async fn an_answer_turn_sum_done_in_the_head_may_call_the_calculator_only() {
    let model = Arc::new(
        ScriptedModel::new()
            .text("Thought: add them\nAction: calculator\nAction Input: {\"expression\": \"2100000 + 3800000\"}")
            .text("Thought: add them\nAction: calculator\nAction Input: {\"expression\": \"2100000 + 3800000\"}")
            .text("Thought: half of it\nFinal Answer: 2,900,000")
            .text("Thought: halve it\nAction: calculator\nAction Input: {\"expression\": \"5900000 / 2\"}")
            .text("Thought: the result says it\nFinal Answer: 2,950,000"),
    );
    let agent = scripted_agent(&model);
    let outcome = agent
        .run("Paris has 2,100,000 people and Berlin 3,800,000. What is their average?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("2,950,000"));
    assert_eq!((outcome.steps, outcome.tool_calls), (5, 2));
    let requests = model.requests();
    let grammar = |i: usize| requests[i].constraint.as_ref().unwrap().grammar.clone();
    // The compute turn's grammar: a calculator step or the final answer,
    // no search; the answer turns around it allow only the answer.
    assert!(
        grammar(3).contains("\"calculator\\nAction Input: \""),
        "{}",
        grammar(3)
    );
    assert!(grammar(3).contains("\"Final Answer: \""));
    assert!(!grammar(3).contains("search"));
    assert!(!grammar(2).contains("Action"));
    assert!(!grammar(4).contains("Action"));
    // The first answer turn writes any number; once its answer held one
    // no tool gave, the turns after it write only the conversation's.
    assert!(!grammar(2).contains("found-number"));
    for (i, found, not_found) in [
        (3, "\"5900000\"", "\"2,950,000\""),
        (4, "\"2950000\"", "\"2,950,001\""),
    ] {
        assert!(grammar(i).contains("found-number ::= "), "{}", grammar(i));
        assert!(grammar(i).contains(found) && grammar(i).contains("\"2,100,000\""));
        assert!(!grammar(i).contains(not_found));
    }
    let offer = &requests[3].messages.last().unwrap().content;
    assert!(
        offer.starts_with(
            "Observation: Error: the answer has 2,900,000 which is in no tool result."
        ) && offer.contains("`Action:` (one of: calculator)"),
        "{offer}"
    );
}

#[tokio::test]
async fn a_head_sum_the_calculator_confirms_is_the_answer() {
    let model = Arc::new(
        ScriptedModel::new()
            .text("Thought: add them\nAction: calculator\nAction Input: {\"expression\": \"2100000 + 3800000\"}")
            .text("Thought: add them\nAction: calculator\nAction Input: {\"expression\": \"2100000 + 3800000\"}")
            .text("Thought: half of it\nFinal Answer: 2,950,000")
            .text("Thought: halve it\nAction: calculator\nAction Input: {\"expression\": \"5900000 / 2\"}"),
    );
    let outcome = scripted_agent(&model)
        .run("Paris has 2,100,000 people and Berlin 3,800,000. What is their average?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("2,950,000"));
    assert!(outcome.forced_answer);
    assert_eq!((outcome.steps, outcome.tool_calls), (4, 2));
}

#[tokio::test]
async fn an_answer_turn_asked_again_for_a_made_up_number_writes_only_found_ones() {
    let search =
        "Thought: look it up\nAction: search\nAction Input: {\"query\": \"Great Wall of China\"}";
    let model = Arc::new(
        ScriptedModel::new()
            .text(search)
            .text(search)
            .text("Thought: I remember it\nFinal Answer: 1300")
            .text("Thought: the result says it\nFinal Answer: 21,196 km"),
    );
    let agent = search_agent(&model);
    let outcome = agent.run("How long is the Great Wall of China?").await;
    assert_eq!(outcome.answer.as_deref(), Some("21,196 km"));
    assert!(outcome.forced_answer);
    let requests = model.requests();
    let grammar = |i: usize| requests[i].constraint.as_ref().unwrap().grammar.clone();
    assert!(!grammar(2).contains("found-number"));
    let again = grammar(3);
    assert!(
        again.starts_with("root ::= (\"Thought: \" thought \"\\n\")? \"Final Answer: \" answer"),
        "{again}"
    );
    assert!(again.contains("\"21,196\" | \"21196\""), "{again}");
    assert!(!again.contains("1300"), "{again}");
    let asked = &requests[3].messages.last().unwrap().content;
    assert!(
        asked.starts_with("Observation: Error: the answer has 1300 which is in no tool result"),
        "{asked}"
    );
}

#[tokio::test]
async fn an_answer_turn_after_calls_that_found_nothing_opens_with_a_refusal() {
    use agent_text::grammar::REFUSAL_OPENING;
    let search = "Thought: look it up\nAction: search\nAction Input: {\"query\": \"1998 chess olympiad winner\"}";
    let model = Arc::new(
        ScriptedModel::new()
            .text(search)
            .text(search)
            .text(search)
            .text("Thought: the searches found nothing.\nFinal Answer: I cannot find who won it."),
    );
    let agent = search_agent(&model);
    let outcome = agent.run("Who won the 1998 chess olympiad?").await;
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("I cannot find who won it."));
    let requests = model.requests();
    let last = requests.last().unwrap();
    let grammar = &last.constraint.as_ref().unwrap().grammar;
    assert!(
        grammar.contains(&format!("\"Final Answer: {REFUSAL_OPENING}\"")),
        "{grammar}"
    );
    assert!(
        last.messages
            .last()
            .unwrap()
            .content
            .contains("the calls above found nothing")
    );
    // Earlier turns, which found nothing yet, keep the ordinary step.
    assert!(
        !requests[1]
            .constraint
            .as_ref()
            .unwrap()
            .grammar
            .contains(REFUSAL_OPENING)
    );
}

#[tokio::test]
async fn an_answer_turn_after_a_call_that_found_something_answers_freely() {
    use agent_text::grammar::REFUSAL_OPENING;
    let search =
        "Thought: look it up\nAction: search\nAction Input: {\"query\": \"Great Wall of China\"}";
    let model = Arc::new(
        ScriptedModel::new()
            .text(search)
            .text(search)
            .text("Thought: the result says it\nFinal Answer: 21,196 km"),
    );
    let agent = search_agent(&model);
    let outcome = agent.run("How long is the Great Wall of China?").await;
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("21,196 km"));
    let requests = model.requests();
    let grammar = &requests[2].constraint.as_ref().unwrap().grammar;
    assert!(grammar.contains("\"Final Answer: \" answer"), "{grammar}");
    assert!(!grammar.contains(REFUSAL_OPENING), "{grammar}");
}

#[tokio::test]
async fn a_tool_set_aside_is_left_out_of_the_grammar_for_one_turn() {
    let failing = "Thought: divide\nAction: calculator\nAction Input: {\"expression\": \"1 / 0\"}";
    let model = Arc::new(
        ScriptedModel::new()
            .text(failing)
            .text(failing)
            .text("Thought: look it up\nAction: search\nAction Input: {\"query\": \"Paris\"}")
            .text("Thought: done\nFinal Answer: about 2.1 million"),
    );
    let agent = scripted_agent(&model);
    let outcome = agent.run("How many people live in Paris?").await;
    assert_eq!(outcome.answer.as_deref(), Some("about 2.1 million"));
    let requests = model.requests();
    let grammar = |i: usize| requests[i].constraint.as_ref().unwrap().grammar.clone();
    // After the failed repeat the grammar offers search only; the prompt
    // (the cached prefix) is the same request after request.
    assert!(grammar(1).contains("\"calculator\\nAction Input: \""));
    assert!(!grammar(2).contains("calculator"), "{}", grammar(2));
    assert!(grammar(2).contains("\"search\\nAction Input: \""));
    assert!(grammar(3).contains("\"calculator\\nAction Input: \""));
    assert_eq!(requests[2].messages[0], requests[0].messages[0]);
    let told = &requests[2].messages.last().unwrap().content;
    assert!(
        told.contains("`calculator` is set aside: call search instead"),
        "{told}"
    );
}
