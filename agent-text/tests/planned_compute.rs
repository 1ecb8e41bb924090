//! A computation the model said it would do and skipped
//! (`Budget::compute_when_planned`), through the real `Agent`, the text
//! transport and the built-in tools: the answer is sent back once and the
//! next turn's grammar must call the calculator, on an ordinary turn and
//! on the answer turn; a run with no such plan, and the setting off, take
//! the answer as it is.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod forced;

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Agent, Budget, StopReason};
use forced::{builtin_agent, sent_grammar as grammar};

const QUESTION: &str = "How many more people live in Germany than in France?";
const PLAN_AND_SEARCH: &str = "Thought: I need both populations, then calculate the difference.\nAction: search\nAction Input: {\"query\": \"Germany France population\"}";
const COPIED: &str = "Thought: Germany has the most.\nFinal Answer: 84,000,000";
const SUBTRACT: &str = "Thought: subtract them\nAction: calculator\nAction Input: {\"expression\": \"84000000 - 68000000\"}";
const COMPUTED: &str = "Thought: the calculator says it\nFinal Answer: 16000000";

fn agent(model: &Arc<ScriptedModel>, budget: Budget) -> Agent {
    builtin_agent(model, &["search", "calculator"], budget)
}

#[tokio::test]
async fn an_answer_that_skips_the_planned_computation_is_sent_back_to_the_calculator() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(PLAN_AND_SEARCH)
            .text(COPIED)
            .text(SUBTRACT)
            .text(COMPUTED),
    );
    let outcome = agent(&model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    assert!(!outcome.forced_answer);
    assert_eq!(outcome.tool_calls, 2);
    let requests = model.requests();
    let told = &requests[2].messages.last().unwrap().content;
    assert!(
        told.starts_with("Observation: Error: your thought says the answer is worked out, and nothing has been computed yet. Call calculator now"),
        "{told}"
    );
    // The turn after it must call the calculator: no final answer, no search.
    let forced = grammar(&model, 2);
    assert!(
        forced.starts_with("root ::= \"Thought: \" thought \"\\nAction: \" action\n"),
        "{forced}"
    );
    assert!(
        forced.contains("\"calculator\\nAction Input: \""),
        "{forced}"
    );
    assert!(!forced.contains("Final Answer") && !forced.contains("search"));
    // The turn before it is an ordinary step; the one right after the
    // result may still call any tool, but its thought and answer write
    // only the computed numbers (and the question's).
    let step = grammar(&model, 1);
    assert!(
        step.contains("Final Answer: ") && step.contains("search"),
        "{step}"
    );
    assert!(!step.contains("found-number"));
    let bound = grammar(&model, 3);
    assert!(
        bound.contains("Final Answer: ") && bound.contains("search"),
        "{bound}"
    );
    assert!(
        bound.contains("found-number ::= ") && bound.contains("\"16000000\""),
        "{bound}"
    );
    assert!(
        !bound.contains("84,000,000") && !bound.contains("\"68000000\""),
        "{bound}"
    );
}

#[tokio::test]
async fn on_the_answer_turn_the_compute_round_must_call_the_calculator() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(PLAN_AND_SEARCH)
            .text(PLAN_AND_SEARCH)
            .text(COPIED)
            .text(SUBTRACT)
            .text(COMPUTED),
    );
    let outcome = agent(&model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    assert!(outcome.forced_answer);
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    let forced = grammar(&model, 3);
    assert!(
        forced.contains("\"calculator\\nAction Input: \"") && !forced.contains("Final Answer"),
        "{forced}"
    );
    // The answer turn after the round writes only the answer, with the
    // computed number.
    let answer = grammar(&model, 4);
    assert!(!answer.contains("Action"), "{answer}");
    assert!(
        answer.contains("\"16000000\"") && !answer.contains("84,000,000"),
        "{answer}"
    );
}

#[tokio::test]
async fn the_compute_round_s_result_binds_the_answer_turn_after_it() {
    // An answer turn's answer worked out in the head gets a compute round
    // (it may answer); the call it makes there binds the answer after it
    // to the computed number and the conversation's, but not the numbers
    // it was computed from. (The head sum is wrong: one the round
    // confirms stands without that turn.)
    let head_sum = "Thought: Germany has more.\nFinal Answer: 15,000,000";
    let model = Arc::new(
        ScriptedModel::new()
            .text(PLAN_AND_SEARCH)
            .text(PLAN_AND_SEARCH)
            .text(head_sum)
            .text(SUBTRACT)
            .text(COMPUTED),
    );
    let outcome = agent(&model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    let round = grammar(&model, 3);
    assert!(
        round.contains("\"calculator\\nAction Input: \"") && round.contains("Final Answer"),
        "{round}"
    );
    let answer = grammar(&model, 4);
    assert!(!answer.contains("Action"), "{answer}");
    assert!(
        answer.contains("\"16000000\"")
            && !answer.contains("84,000,000")
            && !answer.contains("\"68000000\""),
        "{answer}"
    );
    // A looked-up number that was no operand may still be written.
    assert!(answer.contains("\"2024\""), "{answer}");
}

#[tokio::test]
async fn a_lone_number_computes_nothing_and_the_forced_turn_comes_again() {
    // Told to compute, the model calls the calculator with the number it
    // answered, alone: it runs, is told it computed nothing, and the
    // next turn must compute still.
    let lone =
        "Thought: it is this\nAction: calculator\nAction Input: {\"expression\": \"84,000,000\"}";
    let model = Arc::new(
        ScriptedModel::new()
            .text(PLAN_AND_SEARCH)
            .text(COPIED)
            .text(lone)
            .text(SUBTRACT)
            .text(COMPUTED),
    );
    let outcome = agent(&model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    let requests = model.requests();
    let told = &requests[3].messages.last().unwrap().content;
    assert!(
        told.contains("(Note: one number alone computes nothing. If the question needs a computation, write the arithmetic"),
        "{told}"
    );
    let forced = grammar(&model, 3);
    assert!(!forced.contains("Final Answer"), "{forced}");
    // In brackets it is one number alone too.
    let model = Arc::new(
        ScriptedModel::new()
            .text(PLAN_AND_SEARCH)
            .text(COPIED)
            .text("Thought: it is this\nAction: calculator\nAction Input: {\"expression\": \"(84000000)\"}")
            .text("Thought: done\nFinal Answer: 84,000,000"),
    );
    let outcome = agent(&model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.tool_calls, 2);
    let requests = model.requests();
    let told = &requests[3].messages.last().unwrap().content;
    assert!(told.contains("one number alone computes nothing"), "{told}");
}

#[tokio::test]
async fn a_difference_where_the_question_asks_how_many_times_is_sent_back_to_divide() {
    let question = "How many times taller is Mount Everest than the Eiffel Tower?";
    let search = "Thought: I need both heights.\nAction: search\nAction Input: {\"query\": \"Mount Everest Eiffel Tower height\"}";
    let subtract = "Thought: the difference\nAction: calculator\nAction Input: {\"expression\": \"8849 - 330\"}";
    let divide =
        "Thought: divide\nAction: calculator\nAction Input: {\"expression\": \"8849 / 330\"}";
    let replies = [
        search,
        subtract,
        "Thought: done\nFinal Answer: 8519",
        divide,
        "Thought: done\nFinal Answer: 26.8",
    ];
    let model = Arc::new(replies.iter().fold(ScriptedModel::new(), |m, r| m.text(*r)));
    let outcome = agent(&model, Budget::default()).run(question).await;
    assert_eq!(outcome.answer.as_deref(), Some("26.8"));
    let requests = model.requests();
    let told = &requests[3].messages.last().unwrap().content;
    assert!(
        told.contains("the question asks how many times one is the other, and nothing has been divided yet: that is a division. Call calculator now"),
        "{told}"
    );
    let forced = grammar(&model, 3);
    assert!(!forced.contains("Final Answer"), "{forced}");
    // Asked for a difference, the difference stands.
    let model = Arc::new(replies.iter().fold(ScriptedModel::new(), |m, r| m.text(*r)));
    let outcome = agent(&model, Budget::default())
        .run("How much taller is Mount Everest than the Eiffel Tower?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("8519"));
}

#[tokio::test]
async fn an_answer_stands_without_a_plan_to_compute_or_with_the_setting_off() {
    let lookup =
        "Thought: look it up\nAction: search\nAction Input: {\"query\": \"Germany population\"}";
    let model = Arc::new(ScriptedModel::new().text(lookup).text(COPIED));
    let outcome = agent(&model, Budget::default())
        .run("How many people live in Germany?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("84,000,000"));
    assert_eq!(outcome.steps, 2);

    let model = Arc::new(ScriptedModel::new().text(PLAN_AND_SEARCH).text(COPIED));
    let budget = Budget {
        compute_when_planned: false,
        ..Budget::default()
    };
    let outcome = agent(&model, budget).run(QUESTION).await;
    assert_eq!(outcome.answer.as_deref(), Some("84,000,000"));
    assert_eq!(outcome.steps, 2);
}

#[tokio::test]
async fn a_refusal_or_a_second_skip_stands() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(PLAN_AND_SEARCH)
            .text("Thought: nothing to go on\nFinal Answer: The results do not say."),
    );
    let outcome = agent(&model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.answer.as_deref(), Some("The results do not say."));

    let model = Arc::new(
        ScriptedModel::new()
            .text(PLAN_AND_SEARCH)
            .text(COPIED)
            .text(COPIED),
    );
    let outcome = agent(&model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("84,000,000"));
}

#[tokio::test]
async fn a_thought_replying_to_a_sent_back_answer_is_no_plan() {
    // The made-up number is sent back with words about working it out;
    // the reply's thought repeats them, which is no plan of the model's.
    let model = Arc::new(
        ScriptedModel::new()
            .text("Thought: look it up\nAction: search\nAction Input: {\"query\": \"Paris\"}")
            .text("Thought: it is warm\nFinal Answer: 22 degrees")
            .text("Thought: the calculation is not possible\nFinal Answer: 2,100,000 people live there."),
    );
    let outcome = agent(&model, Budget::default())
        .run("How many people live in Paris?")
        .await;
    assert_eq!(
        outcome.answer.as_deref(),
        Some("2,100,000 people live there.")
    );
    assert_eq!(outcome.steps, 3);
}

#[tokio::test]
async fn a_forced_call_sent_back_for_a_miscopied_number_is_forced_once_more() {
    let miscopied = "Thought: subtract them\nAction: calculator\nAction Input: {\"expression\": \"84000000 - 6800000\"}";
    let model = Arc::new(
        ScriptedModel::new()
            .text(PLAN_AND_SEARCH)
            .text(COPIED)
            .text(miscopied)
            .text(SUBTRACT)
            .text(COMPUTED),
    );
    let outcome = agent(&model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    let requests = model.requests();
    let sent_back = &requests[3].messages.last().unwrap().content;
    assert!(sent_back.contains("6800000"), "{sent_back}");
    for i in [2, 3] {
        let forced = grammar(&model, i);
        assert!(!forced.contains("Final Answer"), "{i}: {forced}");
    }
    assert!(grammar(&model, 4).contains("found-number ::= "));
}

#[tokio::test]
async fn a_name_the_question_writes_and_no_result_shows_is_looked_for_first() {
    let model = Arc::new(
        ScriptedModel::new()
            .text("Thought: read the populations, then calculate the average of pop_total.\nAction: search\nAction Input: {\"query\": \"Germany population\"}")
            .text(COPIED)
            .text("Thought: no such field\nFinal Answer: No result has a pop_total field."),
    );
    let outcome = agent(&model, Budget::default())
        .run("What is the average pop_total of Germany?")
        .await;
    assert_eq!(
        outcome.answer.as_deref(),
        Some("No result has a pop_total field.")
    );
    let requests = model.requests();
    let told = &requests[2].messages.last().unwrap().content;
    assert!(told.contains("no tool result shows `pop_total`"), "{told}");
    assert!(grammar(&model, 2).contains("Final Answer: "));
}

#[tokio::test]
async fn an_answer_after_computing_calls_that_only_failed_is_sent_back_to_the_calculator() {
    // The calculator could not read names for numbers; the model gave up
    // on numbers it had in front of it.
    let with_names = "Thought: now calculate the difference\nAction: calculator\nAction Input: {\"expression\": \"germany - france\"}";
    let gave_up = "Thought: I cannot work it out\nFinal Answer: I cannot find it.";
    let model = Arc::new(
        ScriptedModel::new()
            .text(PLAN_AND_SEARCH)
            .text(with_names)
            .text(gave_up)
            .text(SUBTRACT)
            .text(COMPUTED),
    );
    let outcome = agent(&model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    let requests = model.requests();
    let failed = &requests[2].messages.last().unwrap().content;
    assert!(failed.contains("Error (invalid arguments)"), "{failed}");
    let told = &requests[3].messages.last().unwrap().content;
    assert!(
        told.starts_with("Observation: Error: your thought says the answer is worked out, and nothing has been computed yet."),
        "{told}"
    );
    let forced = grammar(&model, 3);
    assert!(
        forced.contains("\"calculator\\nAction Input: \"") && !forced.contains("Final Answer"),
        "{forced}"
    );

    // The answer stands after a sum that cannot be done, after a call
    // made before anything was found, and after a computing call that
    // gave a result (a call not read after it).
    let by_zero = "Thought: now calculate the ratio\nAction: calculator\nAction Input: {\"expression\": \"84000000 / 0\"}";
    let cases: [(&[&str], &str); 3] = [
        (&[PLAN_AND_SEARCH, by_zero, gave_up], "I cannot find it."),
        (&[with_names, PLAN_AND_SEARCH, gave_up], "I cannot find it."),
        (
            &[PLAN_AND_SEARCH, SUBTRACT, with_names, COMPUTED],
            "16000000",
        ),
    ];
    for (replies, answer) in cases {
        let model = Arc::new(
            replies
                .iter()
                .fold(ScriptedModel::new(), |model, reply| model.text(*reply)),
        );
        let outcome = agent(&model, Budget::default()).run(QUESTION).await;
        assert_eq!(outcome.answer.as_deref(), Some(answer), "{replies:?}");
        assert_eq!(outcome.steps, replies.len() as u32, "{replies:?}");
    }
}
