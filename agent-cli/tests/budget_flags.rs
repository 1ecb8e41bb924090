//! The budget's policy flags of `agent run`: `--no-retry-after-failed-calls`
//! takes an answer given right after failed calls as it is,
//! `--no-answer-turn` stops on a repeated call without asking for the
//! answer, `--no-answer-on-repeat` runs the repeat and `--loop-threshold`
//! says when repeats are a loop, and `--no-ground-numbers` runs a
//! calculator call with made-up numbers, `--no-ground-names` takes an
//! answer no result grounds a name of the task for,
//! `--no-compute-when-planned` takes an answer that skips the computation
//! the model's thought planned, and `--no-set-aside-failing-tool` keeps
//! offering a tool whose repeated call failed again; without them, the run
//! asks once for another call, once for the answer, once for grounded
//! numbers, once for the name and once for the computation, and sets that
//! tool aside for a turn.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use agent_native::testing::{Canned, CannedServer};
use common::{agent, output};
use serde_json::Value;

const FAILING: &str =
    "Thought: I divide.\nAction: calculator\nAction Input: {\"expression\": \"1 / 0\"}";
const REPEATED: &str =
    "Thought: I add.\nAction: calculator\nAction Input: {\"expression\": \"2 + 2\"}";

/// Runs `agent run` with the text transport against `replies` and `flags`;
/// the outcome and the number of requests the server saw.
async fn run(replies: &[&str], flags: &[&str]) -> (Value, usize) {
    let (outcome, requests) = run_seen(replies, flags).await;
    (outcome, requests.len())
}

/// As [`run`], with the bodies of the requests the server saw.
async fn run_seen(replies: &[&str], flags: &[&str]) -> (Value, Vec<Value>) {
    run_task("a question", replies, flags).await
}

/// As [`run_seen`], for `task`.
async fn run_task(task: &str, replies: &[&str], flags: &[&str]) -> (Value, Vec<Value>) {
    let server = CannedServer::start(replies.iter().map(|r| Canned::text(r)).collect())
        .await
        .unwrap();
    let mut command = agent();
    command
        .args(["run", task, "--transport", "text", "--json"])
        .args([
            "--constrain",
            "off",
            "--base-url",
            server.url(),
            "--model",
            "test",
        ])
        .args(flags);
    let out = output(command).await;
    let outcome: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (outcome, server.requests())
}

#[tokio::test]
async fn a_tool_whose_repeat_failed_again_is_set_aside_unless_turned_off() {
    let replies = [
        FAILING,
        FAILING,
        "Thought: It fails.\nFinal Answer: It cannot be computed.",
        "Thought: It fails.\nFinal Answer: It cannot be computed.",
    ];
    let last_told = |requests: &[Value]| {
        requests[2]["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(|m| m["content"].to_string())
            .unwrap_or_default()
    };
    let (outcome, requests) = run_seen(&replies, &[]).await;
    assert_eq!(outcome["answer"], "It cannot be computed.");
    let told = last_told(&requests);
    assert!(
        told.contains("`calculator` is set aside: call search instead"),
        "{told}"
    );
    let (_, requests) = run_seen(&replies, &["--no-set-aside-failing-tool"]).await;
    let told = last_told(&requests);
    assert!(!told.contains("set aside"), "{told}");
    assert!(told.contains("Make a different call"), "{told}");
}

#[tokio::test]
async fn an_answer_after_a_failed_call_is_sent_back_once_unless_turned_off() {
    let replies = [
        FAILING,
        "Thought: It failed.\nFinal Answer: I cannot find it.",
        "Thought: I compute.\nAction: calculator\nAction Input: {\"expression\": \"sqrt(16)\"}",
        "Thought: Done.\nFinal Answer: 4",
    ];
    let (outcome, requests) = run(&replies, &[]).await;
    assert_eq!(outcome["answer"], "4");
    assert_eq!(requests, 4);
    let (outcome, requests) = run(&replies, &["--no-retry-after-failed-calls"]).await;
    assert_eq!(outcome["answer"], "I cannot find it.");
    assert_eq!(outcome["stop_reason"]["kind"], "final_answer");
    assert_eq!(requests, 2);
}

#[tokio::test]
async fn a_repeated_call_gets_an_answer_turn_unless_turned_off() {
    // The call repeated right after its result ends the work.
    let replies = [REPEATED, REPEATED, "Thought: I have it.\nFinal Answer: 4"];
    let (outcome, requests) = run(&replies, &[]).await;
    assert_eq!(outcome["stop_reason"]["kind"], "repeated_call");
    assert_eq!(outcome["answer"], "4");
    assert_eq!(outcome["forced_answer"], true);
    assert_eq!(requests, 3);
    let (outcome, requests) = run(&replies, &["--no-answer-turn"]).await;
    assert_eq!(outcome["stop_reason"]["kind"], "repeated_call");
    assert_eq!(outcome["answer"], Value::Null);
    assert_eq!(requests, 2);
}

#[tokio::test]
async fn repeats_run_until_the_loop_threshold_with_no_answer_on_repeat() {
    let replies = [
        REPEATED,
        REPEATED,
        REPEATED,
        "Thought: I have it.\nFinal Answer: 4",
    ];
    // The repeat runs, and the third same call is a loop.
    let (outcome, requests) = run(&replies, &["--no-answer-on-repeat"]).await;
    assert_eq!(outcome["stop_reason"]["kind"], "loop_detected");
    assert_eq!(outcome["answer"], "4");
    assert_eq!(requests, 4);
    // With a threshold of 4, the third call runs too and the model answers
    // on an ordinary turn.
    let (outcome, _) = run(
        &replies,
        &["--no-answer-on-repeat", "--loop-threshold", "4"],
    )
    .await;
    assert_eq!(outcome["stop_reason"]["kind"], "final_answer");
    assert_ne!(outcome["forced_answer"], true);
    assert_eq!(outcome["answer"], "4");
}

#[tokio::test]
async fn a_loop_threshold_below_two_is_a_usage_error() {
    let mut command = agent();
    command.args(["run", "a question", "--loop-threshold", "1"]);
    let out = output(command).await;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("loop_threshold"), "{stderr}");
}

#[tokio::test]
async fn made_up_numbers_are_sent_back_once_unless_turned_off() {
    let replies = [
        "Thought: I multiply.\nAction: calculator\nAction Input: {\"expression\": \"4817 * 3\"}",
        "Thought: Done.\nFinal Answer: 14451",
    ];
    // 4817 is in no tool result: the call is sent back, not run, and the
    // answer that follows has a number no tool gave.
    let (outcome, _) = run(&replies, &[]).await;
    let transcript = outcome["transcript"].to_string();
    assert!(
        transcript.contains("4817 is not in the question"),
        "{transcript}"
    );
    let (outcome, requests) = run(&replies, &["--no-ground-numbers"]).await;
    assert_eq!(outcome["answer"], "14451");
    assert_eq!(outcome["stop_reason"]["kind"], "final_answer");
    assert_eq!(requests, 2);
    assert!(
        !outcome["transcript"]
            .to_string()
            .contains("not in the question")
    );
}

#[tokio::test]
async fn an_answer_no_result_grounds_a_named_column_for_is_sent_back_unless_turned_off() {
    let replies = [
        REPEATED,
        "Thought: Done.\nFinal Answer: 4",
        "Thought: Still done.\nFinal Answer: 4",
    ];
    let task = "Add 2 and 2 to the total_count column.";
    let (outcome, requests) = run_task(task, &replies, &[]).await;
    assert_eq!(outcome["answer"], "4");
    assert_eq!(requests.len(), 3);
    assert!(
        outcome["transcript"]
            .to_string()
            .contains("no tool result shows `total_count`, which the question names"),
        "{}",
        outcome["transcript"]
    );
    let (outcome, requests) = run_task(task, &replies, &["--no-ground-names"]).await;
    assert_eq!(outcome["answer"], "4");
    assert_eq!(requests.len(), 2);
}

#[tokio::test]
async fn an_answer_that_skips_the_planned_computation_is_sent_back_unless_turned_off() {
    let replies = [
        "Thought: I look up both and calculate the difference.\nAction: search\nAction Input: {\"query\": \"Germany France population\"}",
        "Thought: Germany has the most.\nFinal Answer: 84,000,000",
        "Thought: Subtract.\nAction: calculator\nAction Input: {\"expression\": \"84000000 - 68000000\"}",
        "Thought: Done.\nFinal Answer: 16,000,000",
    ];
    let task = "How many more people live in Germany than in France?";
    let flags = ["--tools", "search,calculator"];
    let (outcome, requests) = run_task(task, &replies, &flags).await;
    assert_eq!(outcome["answer"], "16,000,000");
    assert_eq!(requests.len(), 4);
    assert!(
        outcome["transcript"].to_string().contains(
            "your thought says the answer is worked out, and nothing has been computed yet"
        ),
        "{}",
        outcome["transcript"]
    );
    let (outcome, requests) = run_task(
        task,
        &replies,
        &[&flags[..], &["--no-compute-when-planned"]].concat(),
    )
    .await;
    assert_eq!(outcome["answer"], "84,000,000");
    assert_eq!(requests.len(), 2);
}
