//! A computation with numbers from memory (`Budget::ground_numbers`),
//! through the real `Agent`, the text transport and the built-in tools:
//! the call is sent back, and the next turn's grammar must call a tool
//! that finds things, once per run; the turn after that is free, so a
//! model sure of its numbers can still make its call. A run without such
//! tools, and the setting off, are not held to a lookup.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod forced;

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, StopReason};
use forced::{builtin_agent as agent, sent_grammar as grammar};

const QUESTION: &str = "How many more people live in Germany than in France?";
const FROM_MEMORY: &str = "Thought: subtract them\nAction: calculator\nAction Input: {\"expression\": \"83000000 - 67000000\"}";
const SEARCH: &str = "Thought: look them up\nAction: search\nAction Input: {\"query\": \"Germany France population\"}";
const SUBTRACT: &str = "Thought: subtract them\nAction: calculator\nAction Input: {\"expression\": \"84000000 - 68000000\"}";
const COMPUTED: &str = "Thought: the calculator says it\nFinal Answer: 16000000";

/// Whether a step grammar lets the model call `tool`.
fn calls(grammar: &str, tool: &str) -> bool {
    grammar.contains(&format!("\"{tool}\\nAction Input: \""))
}

#[tokio::test]
async fn numbers_from_memory_make_the_next_turn_look_them_up() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(FROM_MEMORY)
            .text(SEARCH)
            .text(SUBTRACT)
            .text(COMPUTED),
    );
    let outcome = agent(&model, &["search", "calculator"], Budget::default())
        .run(QUESTION)
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    assert_eq!(outcome.tool_calls, 2, "the call from memory did not run");
    let requests = model.requests();
    let told = &requests[1].messages.last().unwrap().content;
    assert!(
        told.contains("83000000, 67000000 are not in the question or in any tool result. Look up the facts the question needs with search first"),
        "{told}"
    );
    // It names what the question asks about that no result has mentioned.
    assert!(
        told.contains("make this same call again. No result has mentioned Germany or France yet\n"),
        "{told}"
    );
    // The turn after it must look up: search, no calculator, no answer.
    let forced = grammar(&model, 1);
    assert!(calls(&forced, "search"), "{forced}");
    assert!(!calls(&forced, "calculator"), "{forced}");
    assert!(!forced.contains("Final Answer"), "{forced}");
    // Before it, and after it, the model may do anything.
    for free in [grammar(&model, 0), grammar(&model, 2)] {
        assert!(
            calls(&free, "search") && calls(&free, "calculator") && free.contains("Final Answer"),
            "{free}"
        );
    }
}

#[tokio::test]
async fn a_model_sure_of_its_numbers_makes_its_call_again_after_the_lookup_and_it_runs() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(FROM_MEMORY)
            .text(SEARCH)
            .text(FROM_MEMORY)
            .text(FROM_MEMORY)
            .text(FROM_MEMORY.replace("83000000", "83500000"))
            .text("Thought: done\nFinal Answer: 16000000"),
    );
    let outcome = agent(&model, &["search", "calculator"], Budget::default())
        .run(QUESTION)
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    let requests = model.requests();
    // Sent back once more after the lookup, with no second forced lookup.
    let told = &requests[3].messages.last().unwrap().content;
    assert!(told.contains("are still not in any tool result"), "{told}");
    let again = grammar(&model, 3);
    assert!(
        calls(&again, "calculator") && again.contains("Final Answer"),
        "once per run: {again}"
    );
    // The same call again ran, as the model insisted.
    let ran = &requests[4].messages.last().unwrap().content;
    assert!(ran.contains("16000000"), "{ran}");
    // Another call from memory is sent back, and the turn after it is
    // free: the lookup turn was spent.
    let told = &requests[5].messages.last().unwrap().content;
    assert!(
        told.contains("83500000, 67000000 are not in the question"),
        "{told}"
    );
    let free = grammar(&model, 5);
    assert!(
        calls(&free, "calculator") && free.contains("Final Answer"),
        "once per run: {free}"
    );
    assert_eq!(outcome.tool_calls, 2);
}

#[tokio::test]
async fn a_round_that_also_looked_up_forces_no_lookup() {
    let both = "Thought: both\nAction: search\nAction Input: {\"query\": \"Germany France population\"}\nAction: calculator\nAction Input: {\"expression\": \"83000000 - 67000000\"}";
    let model = Arc::new(
        ScriptedModel::new()
            .text(both)
            .text(SUBTRACT)
            .text(COMPUTED),
    );
    let outcome = agent(&model, &["search", "calculator"], Budget::default())
        .run(QUESTION)
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    let free = grammar(&model, 1);
    assert!(
        calls(&free, "calculator") && free.contains("Final Answer"),
        "{free}"
    );
}

#[tokio::test]
async fn no_lookup_is_forced_without_tools_that_find_things_or_with_grounding_off() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(FROM_MEMORY)
            .text(FROM_MEMORY)
            .text(COMPUTED),
    );
    let outcome = agent(&model, &["calculator"], Budget::default())
        .run(QUESTION)
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    let free = grammar(&model, 1);
    assert!(
        calls(&free, "calculator") && free.contains("Final Answer"),
        "{free}"
    );

    let model = Arc::new(ScriptedModel::new().text(FROM_MEMORY).text(COMPUTED));
    let budget = Budget {
        ground_numbers: false,
        ..Budget::default()
    };
    let outcome = agent(&model, &["search", "calculator"], budget)
        .run(QUESTION)
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("16000000"));
    assert_eq!(outcome.tool_calls, 1);
    let free = grammar(&model, 1);
    assert!(
        calls(&free, "search") && calls(&free, "calculator") && free.contains("Final Answer"),
        "{free}"
    );
}

#[tokio::test]
async fn sent_back_again_it_names_what_the_lookups_have_not_mentioned() {
    let one =
        "Thought: look one up\nAction: search\nAction Input: {\"query\": \"Germany population\"}";
    let model = Arc::new(
        ScriptedModel::new()
            .text(FROM_MEMORY)
            .text(one)
            .text(FROM_MEMORY)
            .text("Thought: done\nFinal Answer: I cannot find it."),
    );
    let outcome = agent(&model, &["search", "calculator"], Budget::default())
        .run(QUESTION)
        .await;
    let requests = model.requests();
    let told = &requests[3].messages.last().unwrap().content;
    assert!(told.contains("still not in any tool result"), "{told}");
    assert!(
        told.contains("this same call again. No result has mentioned France yet\n"),
        "{told}"
    );
    assert_eq!(outcome.tool_calls, 1);
}
