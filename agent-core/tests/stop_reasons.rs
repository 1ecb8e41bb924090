//! Every stop reason is reached through the `Agent`, and every outcome
//! keeps its transcript, usage and counts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use agent_core::agent::{CancellationToken, RunControl};
use agent_core::hook::FnHook;
use agent_core::message::{Role, Usage};
use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::{Agent, Budget, Completion, HookAction, ModelError, StopReason};
use common::{TestTools, agent, call, tool_answers};
use serde_json::json;

fn adds(n: usize) -> ScriptedModel {
    (0..n).fold(ScriptedModel::new(), |m, i| {
        m.reply(
            Completion::tool_calls(vec![call(&format!("c{i}"), "add", json!({"a": i, "b": 1}))])
                .with_usage(Usage::new(10, 5)),
        )
    })
}

/// Runs the task "loop" with `model` and a step budget of `max_steps`.
async fn run_with_max_steps(
    model: ScriptedModel,
    max_steps: u32,
) -> (agent_core::Outcome, Arc<ScriptedModel>) {
    let (agent, model) = agent(
        model,
        Budget {
            max_steps,
            ..Budget::default()
        },
    );
    (agent.run("loop").await, model)
}

#[tokio::test]
async fn final_answer_keeps_transcript_and_usage() {
    let model = adds(1).reply(Completion::text("done").with_usage(Usage::new(20, 2)));
    let (agent, _) = agent(model, Budget::default());
    let outcome = agent.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("done"));
    assert_eq!((outcome.steps, outcome.tool_calls), (2, 1));
    assert_eq!(outcome.usage, Usage::new(30, 7));
    let roles: Vec<Role> = outcome.transcript.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant
        ]
    );
    assert_eq!(outcome.transcript[3].content, "1");
}

#[tokio::test]
async fn max_steps_stops_and_keeps_the_work() {
    let (agent, model) = agent(
        adds(10),
        Budget {
            max_steps: 3,
            answer_turn: false,
            ..Budget::default()
        },
    );
    let outcome = agent.run("loop").await;
    assert_eq!(outcome.stop_reason, StopReason::MaxSteps);
    assert_eq!(outcome.answer, None);
    assert_eq!((outcome.steps, outcome.tool_calls), (3, 3));
    assert_eq!(outcome.usage, Usage::new(30, 15));
    assert_eq!(outcome.transcript.len(), 2 + 3 * 2);
    assert_eq!(model.requests().len(), 3);
}

#[tokio::test]
async fn the_builder_turns_the_answer_turn_off_whatever_the_budget_says() {
    let model = Arc::new(adds(10));
    let agent = Agent::builder()
        .answer_turn(false)
        .model(model.clone())
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .budget(Budget {
            max_steps: 2,
            answer_turn: true,
            ..Budget::default()
        })
        .build()
        .unwrap();
    let outcome = agent.run("loop").await;
    assert_eq!(outcome.stop_reason, StopReason::MaxSteps);
    assert!(!outcome.forced_answer);
    assert_eq!(outcome.answer, None);
    assert_eq!(outcome.tool_calls, 2, "both steps were tool steps");
    assert!(model.requests().iter().all(|r| !r.tools.is_empty()));
}

#[tokio::test]
async fn max_steps_with_the_answer_turn_rescues_an_answer() {
    let model =
        adds(2).reply(Completion::text("3, from what I found").with_usage(Usage::new(10, 5)));
    // The last two steps of four are kept for the answer turn and its retry.
    let (outcome, model) = run_with_max_steps(model, 4).await;
    // What ended the work, and that the answer came on a forced turn.
    assert_eq!(outcome.stop_reason, StopReason::MaxSteps);
    assert_eq!(outcome.answer.as_deref(), Some("3, from what I found"));
    assert!(outcome.forced_answer);
    assert_eq!((outcome.steps, outcome.tool_calls), (3, 2));
    let last = model.requests().pop().unwrap();
    assert!(last.tools.is_empty(), "the answer turn offers no tools");
    assert_eq!(
        outcome.to_string(),
        "3, from what I found (answered after max_steps)"
    );
}

#[tokio::test]
async fn at_the_step_limit_an_answer_turn_reply_that_is_a_call_is_asked_again() {
    // Two tool steps; the answer turn (step 3 of 4) gets a call, which is
    // not run, and the retry on the last step gets the answer.
    let model = adds(3).reply(Completion::text("3, from what I found"));
    let (outcome, model) = run_with_max_steps(model, 4).await;
    assert_eq!(outcome.stop_reason, StopReason::MaxSteps);
    assert_eq!(outcome.answer.as_deref(), Some("3, from what I found"));
    assert!(outcome.forced_answer);
    assert_eq!((outcome.steps, outcome.tool_calls), (4, 2));
    assert_eq!(model.requests().len(), 4);
    assert_eq!(model.remaining(), 0);
}

#[tokio::test]
async fn a_budget_of_two_steps_keeps_one_for_the_work() {
    let model = adds(1).reply(Completion::text("1, from what I found"));
    let (outcome, _) = run_with_max_steps(model, 2).await;
    assert_eq!((outcome.steps, outcome.tool_calls), (2, 1));
    assert_eq!(outcome.answer.as_deref(), Some("1, from what I found"));
    assert!(outcome.forced_answer);
}

#[tokio::test]
async fn max_tool_calls_runs_what_fits_and_answers_the_rest() {
    let model = ScriptedModel::new()
        .reply(Completion::tool_calls(vec![
            call("a", "add", json!({"a": 1, "b": 1})),
            call("b", "add", json!({"a": 2, "b": 2})),
        ]))
        .call("c", "add", json!({"a": 3, "b": 3}))
        .text("2, and the rest did not run");
    let (agent, _) = agent(
        model,
        Budget {
            max_tool_calls: 1,
            ..Budget::default()
        },
    );
    let outcome = agent.run("add twice").await;
    assert_eq!(outcome.stop_reason, StopReason::MaxToolCalls);
    assert_eq!(outcome.tool_calls, 1);
    assert!(outcome.forced_answer);
    assert_eq!(
        outcome.answer.as_deref(),
        Some("2, and the rest did not run")
    );
    // Every call got exactly one answer, run or not.
    let answers: Vec<(&str, &str)> = outcome
        .transcript
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| (m.tool_call_id.as_deref().unwrap(), m.content.as_str()))
        .collect();
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0], ("a", "2"));
    assert!(answers[1].1.contains("not run") && answers[1].1.contains("budget"));
    assert!(answers[2].1.contains("not run"));
}

#[tokio::test]
async fn total_token_budget_stops_with_usage_kept() {
    let (agent, _) = agent(
        adds(10),
        Budget {
            max_total_tokens: Some(150),
            ..Budget::default()
        },
    );
    let outcome = agent.run("spend").await;
    assert_eq!(outcome.stop_reason, StopReason::TokenBudget);
    // Each turn uses 15 tokens; a request that would pass 150 is not sent.
    assert!(outcome.usage.total_tokens <= 150, "{:?}", outcome.usage);
    assert!(outcome.steps >= 1);
    assert!(!outcome.transcript.is_empty());
}

#[tokio::test]
async fn per_request_budget_stops_before_the_request_is_sent() {
    // The opening and the tool specs are ~80 estimated tokens; the second
    // request adds the 400-byte argument (~100 more).
    // (No piece repeated: the run cuts such runaways short.)
    let mut seed: u32 = 1;
    let big: String = (0..400)
        .map(|_| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            char::from(b'a' + ((seed >> 16) % 26) as u8)
        })
        .collect();
    let model = ScriptedModel::new().reply(Completion::tool_calls(vec![call(
        "c0",
        "add",
        json!({"a": 1, "b": 2, "pad": big}),
    )]));
    let (agent, model) = agent(
        model,
        Budget {
            max_request_tokens: Some(120),
            ..Budget::default()
        },
    );
    let outcome = agent.run("one call").await;
    assert_eq!(outcome.stop_reason, StopReason::TokenBudget);
    assert_eq!(
        model.requests().len(),
        1,
        "the oversized request was never sent"
    );
    assert_eq!(outcome.steps, 1);
    assert_eq!(outcome.tool_calls, 1);
    assert_eq!(outcome.transcript.len(), 4);
}

#[tokio::test]
async fn wall_clock_timeout_interrupts_a_slow_model() {
    let model = adds(1).text("late").delayed(Duration::from_secs(5));
    let (agent, _) = agent(
        model,
        Budget {
            timeout: Some(Duration::from_millis(150)),
            ..Budget::default()
        },
    );
    let started = std::time::Instant::now();
    let outcome = agent.run("slow").await;
    assert_eq!(outcome.stop_reason, StopReason::Timeout);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(outcome.tool_calls, 1);
    assert_eq!(outcome.transcript.len(), 4);
}

#[tokio::test]
async fn wall_clock_timeout_interrupts_a_slow_tool_and_answers_the_call() {
    let model = ScriptedModel::new().call("s", "sleep", json!({"ms": 5000}));
    let (agent, _) = agent(
        model,
        Budget {
            timeout: Some(Duration::from_millis(150)),
            ..Budget::default()
        },
    );
    let outcome = agent.run("slow tool").await;
    assert_eq!(outcome.stop_reason, StopReason::Timeout);
    let last = outcome.transcript.last().unwrap();
    assert_eq!(last.tool_call_id.as_deref(), Some("s"));
    assert!(last.content.contains("ran out of time"));
}

#[tokio::test]
async fn a_threshold_of_two_asks_for_the_answer_at_the_first_repeat() {
    let same = |id: &str| Completion::tool_calls(vec![call(id, "add", json!({"a": 2, "b": 1}))]);
    let model = ScriptedModel::new()
        .reply(same("1"))
        .reply(same("2"))
        .text("3");
    let (agent, model) = agent(
        model,
        Budget {
            loop_threshold: 2,
            answer_on_repeat: false,
            ..Budget::default()
        },
    );
    let outcome = agent.run("loop").await;
    assert_eq!(outcome.stop_reason, StopReason::LoopDetected);
    assert_eq!(outcome.answer.as_deref(), Some("3"));
    assert!(outcome.forced_answer);
    // The repeat never ran: one tool call, then the answer turn.
    assert_eq!((outcome.steps, outcome.tool_calls), (3, 1));
    assert!(model.requests().pop().unwrap().tools.is_empty());
}

#[tokio::test]
async fn loop_detection_stops_on_the_third_identical_call() {
    let same = |id: &str| Completion::tool_calls(vec![call(id, "add", json!({"b": 1, "a": 2}))]);
    let model = ScriptedModel::new()
        .reply(same("1"))
        .reply(Completion::tool_calls(vec![call(
            "2",
            "add",
            json!({"a": 2, "b": 1}),
        )]))
        .reply(same("3"))
        .text("never reached");
    let (agent, _) = agent(
        model,
        Budget {
            loop_threshold: 3,
            answer_on_repeat: false,
            ..Budget::default()
        },
    );
    let outcome = agent.run("loop").await;
    assert_eq!(outcome.stop_reason, StopReason::LoopDetected);
    // The answer turn after the loop gets the answer the model had.
    assert_eq!(outcome.answer.as_deref(), Some("never reached"));
    assert!(outcome.forced_answer);
    assert_eq!(outcome.tool_calls, 2);
    let tool_msgs: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(tool_msgs[0], "3");
    assert!(tool_msgs[1].starts_with('3') && tool_msgs[1].contains("already made this exact call"));
    assert!(tool_msgs[2].contains("not run"));
}

#[tokio::test]
async fn the_answer_turn_says_when_the_calls_found_nothing() {
    // A lookup without results, then a failed call, then the lookup again:
    // the answer turn says the calls found nothing.
    let model = ScriptedModel::new()
        .call("1", "lookup", json!({"q": "x"}))
        .call("2", "fail", json!({}))
        .call("3", "lookup", json!({"q": "x"}))
        .call("4", "lookup", json!({"q": "x"}))
        .text("I cannot find it.");
    // (Not set aside after its repeat found nothing, the lookup is made a
    // third time.)
    let budget = Budget {
        set_aside_failing_tool: false,
        ..Budget::default()
    };
    let (runner, model) = agent(model, budget);
    let outcome = runner.run("what is x?").await;
    assert!(outcome.forced_answer);
    let requests = model.requests();
    let asked = &requests.last().unwrap().messages.last().unwrap().content;
    assert!(asked.contains("found nothing"), "{asked}");
    assert!(asked.contains("what is x?"), "{asked}");

    // One call that found something, and the request asks for the answer
    // the results show.
    let model = ScriptedModel::new()
        .call("1", "lookup", json!({"q": "x"}))
        .call("2", "add", json!({"a": 2, "b": 1}))
        .call("3", "add", json!({"a": 2, "b": 1}))
        .text("3");
    let (runner, model) = agent(model, Budget::default());
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    let requests = model.requests();
    let asked = &requests.last().unwrap().messages.last().unwrap().content;
    assert!(!asked.contains("found nothing"), "{asked}");
    assert!(
        asked.contains("Answer from the tool results above"),
        "{asked}"
    );
}

#[tokio::test]
async fn repeating_a_call_that_found_nothing_asks_for_a_different_call() {
    // A lookup that found nothing, again right away: the model is stuck,
    // not done. The repeat runs, says the tool is set aside for a turn
    // and which to call instead, and the work goes on; a different call
    // then finds the answer.
    let model = ScriptedModel::new()
        .call("1", "lookup", json!({"q": "x"}))
        .call("2", "lookup", json!({"q": "x"}))
        .call("3", "add", json!({"a": 2, "b": 1}))
        .text("3");
    let (runner, model) = agent(model, Budget::default());
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert!(!outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("3"));
    assert_eq!(outcome.tool_calls, 3);
    let requests = model.requests();
    let told = &requests[2].messages.last().unwrap().content;
    assert!(told.starts_with("No entry mentions that."), "{told}");
    assert!(
        told.contains("this exact call found no match again. For the next turn, `lookup` is set aside: call add,"),
        "{told}"
    );
    assert!(!requests[2].tools.iter().any(|t| t.name == "lookup"));
    assert!(requests[3].tools.iter().any(|t| t.name == "lookup"));
    // Without the set-aside, it says to change the call.
    let model = ScriptedModel::new()
        .call("1", "lookup", json!({"q": "x"}))
        .call("2", "lookup", json!({"q": "x"}))
        .text("3");
    let budget = Budget {
        set_aside_failing_tool: false,
        ..Budget::default()
    };
    let (runner, model) = agent(model, budget);
    runner.run("add").await;
    let requests = model.requests();
    let told = &requests[2].messages.last().unwrap().content;
    assert!(told.contains("Make a different call"), "{told}");
}

#[tokio::test]
async fn a_repeat_spelled_another_way_is_the_same_call() {
    // `Add` and `add` are one tool: the second call repeats the first,
    // and the calls the run records carry the offered name.
    let model = ScriptedModel::new()
        .call("1", "Add", json!({"a": 2, "b": 1}))
        .call("2", "functions.add", json!({"a": 2, "b": 1}))
        .text("3");
    let (runner, _) = agent(model, Budget::default());
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert_eq!((outcome.tool_calls, outcome.steps), (1, 3));
    let names: Vec<&str> = outcome
        .transcript
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.name.as_str()))
        .collect();
    assert_eq!(names, ["add", "add"]);
}

#[tokio::test]
async fn repeating_the_call_that_just_succeeded_asks_for_the_answer() {
    // The call of the round just before, again: not run, the answer turn.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 2, "b": 1}))
        .call("2", "add", json!({"b": 1, "a": 2}))
        .text("3");
    let (runner, _) = agent(model, Budget::default());
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("3"));
    assert_eq!((outcome.tool_calls, outcome.steps), (1, 3));
    let tool_msgs: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(
        tool_msgs[1], tool_msgs[0],
        "the repeat gets the same result"
    );

    // A repeat further back runs; the same result again ends the work
    // for the answer (the model is going round in circles).
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 2, "b": 1}))
        .call("2", "add", json!({"a": 5, "b": 5}))
        .call("3", "add", json!({"a": 2, "b": 1}))
        .text("3");
    let (runner, _) = agent(model, Budget::default());
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert!(outcome.forced_answer);
    assert_eq!((outcome.tool_calls, outcome.steps), (3, 4));
    let tool_msgs: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(
        tool_msgs[2], "3",
        "the repeat ran, with no note: {tool_msgs:?}"
    );

    // After a failed round, going back to an earlier call is recovery:
    // it runs with its note and the work goes on.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 2, "b": 1}))
        .call("2", "fail", json!({}))
        .call("3", "add", json!({"a": 2, "b": 1}))
        .text("3");
    let (runner, _) = agent(model, Budget::default());
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.tool_calls, 3);
    let tool_msgs: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert!(
        tool_msgs[2].contains("already made this exact call"),
        "{tool_msgs:?}"
    );

    // A repeat further back whose result changed goes on, with a note; so
    // does a failed call tried again (a file that appeared, a server that
    // came back).
    let model = ScriptedModel::new()
        .call("1", "tick", json!({}))
        .call("2", "add", json!({"a": 5, "b": 5}))
        .call("3", "tick", json!({}))
        .call("4", "fail", json!({}))
        .call("5", "fail", json!({}))
        .text("done");
    let (runner, _) = agent(model, Budget::default());
    let outcome = runner.run("tick").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.tool_calls, 5);
    let tool_msgs: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert!(
        tool_msgs[2].starts_with("calls so far: 3")
            && tool_msgs[2].contains("already made this exact call"),
        "{tool_msgs:?}"
    );

    // Off, the repeat runs with its note and the threshold decides.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 2, "b": 1}))
        .call("2", "add", json!({"a": 2, "b": 1}))
        .text("3");
    let budget = Budget {
        answer_on_repeat: false,
        ..Budget::default()
    };
    let (runner, _) = agent(model, budget);
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.tool_calls, 2);
}

#[tokio::test]
async fn the_same_result_from_reworded_calls_is_a_loop_too() {
    // Three calls whose arguments differ but whose result does not.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 2, "b": 3}))
        .call("2", "add", json!({"a": 3, "b": 2}))
        .call("3", "add", json!({"a": 1, "b": 4}))
        .text("5")
        .text("never reached");
    let (runner, _) = agent(model, Budget::default());
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::LoopDetected);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("5"));
    assert_eq!((outcome.tool_calls, outcome.steps), (3, 4));
    let tool_msgs: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(tool_msgs[0], "5");
    assert!(
        tool_msgs[1].starts_with('5') && tool_msgs[1].contains("already gave this same result")
    );
    // Failed calls are not counted: trying other arguments after an error
    // is what the model should do.
    let fails = (0..4).fold(ScriptedModel::new(), |m, i| {
        m.call(&format!("f{i}"), "fail", json!({"try": i}))
    });
    // (The first answer after errors alone is sent back once.)
    let fails = fails.text("gave up").text("gave up again");
    let (runner, _) = agent(fails, Budget::default());
    let outcome = runner.run("fail").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("gave up again"));
    // The fourth is not run: three failures in a row set the tool aside
    // for a turn (`Budget::set_aside_failing_tool`).
    assert_eq!(outcome.tool_calls, 3);
}

#[tokio::test]
async fn too_many_malformed_turns_in_a_row() {
    let model = ScriptedModel::new()
        .text("")
        .call("ok", "add", json!({"a": 1, "b": 1}))
        .text("  ")
        .text("")
        .text("")
        .text("2");
    let (agent, _) = agent(model, Budget::default());
    let outcome = agent.run("garble").await;
    assert_eq!(outcome.stop_reason, StopReason::TooManyMalformed);
    // The work ends with one answer turn, its answer marked forced.
    assert_eq!(outcome.answer.as_deref(), Some("2"));
    assert!(outcome.forced_answer);
    // A good turn resets the count: 1 + 3 malformed turns, 1 tool call,
    // then the answer turn.
    assert_eq!((outcome.steps, outcome.tool_calls), (6, 1));
    let feedback = outcome
        .transcript
        .iter()
        .filter(|m| m.content.starts_with("Error: the reply was empty"))
        .count();
    assert_eq!(feedback, 4);
}

#[tokio::test]
async fn model_error_is_a_stop_reason_with_the_work_kept() {
    let error = ModelError::Server {
        status: 503,
        message: "overloaded".into(),
    };
    let model = adds(1).error(error.clone());
    let (agent, _) = agent(model, Budget::default());
    let outcome = agent.run("fail").await;
    assert_eq!(outcome.stop_reason, StopReason::Model(error));
    assert_eq!((outcome.steps, outcome.tool_calls), (2, 1));
    assert_eq!(outcome.transcript.len(), 4);
}

#[tokio::test]
async fn cancellation_token_stops_a_run_mid_call() {
    let model = adds(1).text("late").delayed(Duration::from_secs(10));
    let (agent, _) = agent(model, Budget::default());
    let cancel = CancellationToken::new();
    let control = RunControl::default().with_cancel(cancel.clone());
    let trigger = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancel.cancel();
    });
    let outcome = agent.run_with("cancel me", &control).await;
    trigger.await.unwrap();
    assert_eq!(outcome.stop_reason, StopReason::Cancelled);
    assert_eq!(outcome.tool_calls, 1);
    assert_eq!(outcome.transcript.len(), 4);
}

#[tokio::test]
async fn hook_stop_halts_and_answers_pending_calls() {
    let model = adds(2);
    let agent = Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .hook(FnHook(|c: &agent_core::ToolCall| {
            if c.id == "c1" {
                HookAction::Stop("operator said stop".into())
            } else {
                HookAction::Approve
            }
        }))
        .build()
        .unwrap();
    let outcome = agent.run("halt").await;
    assert_eq!(
        outcome.stop_reason,
        StopReason::Halted("operator said stop".into())
    );
    assert_eq!(outcome.tool_calls, 1);
    let last = outcome.transcript.last().unwrap();
    assert_eq!(last.tool_call_id.as_deref(), Some("c1"));
    assert!(last.content.contains("operator said stop"));
}

#[tokio::test]
async fn the_answer_turn_uses_the_last_step_of_the_budget() {
    let model = adds(1).text("partial answer: 3");
    let (agent, model) = agent(
        model,
        Budget {
            max_steps: 2,
            ..Budget::default()
        },
    );
    let outcome = agent.run("limited").await;
    assert_eq!(outcome.stop_reason, StopReason::MaxSteps);
    assert_eq!(outcome.answer.as_deref(), Some("partial answer: 3"));
    // The answer turn is the budget's last step, never one more.
    assert_eq!(outcome.steps, 2);
    let last_request = model.requests().pop().unwrap();
    assert!(
        last_request.tools.is_empty(),
        "an answer turn offers no tools"
    );
    assert!(
        last_request
            .messages
            .last()
            .unwrap()
            .content
            .contains("without calling tools"),
        "the answer turn asks for an answer in words"
    );
}

#[tokio::test]
async fn call_ids_stay_unique_across_turns_when_a_server_repeats_them() {
    let model = ScriptedModel::new()
        .call("call_0", "add", json!({"a": 1, "b": 1}))
        .call("call_0", "add", json!({"a": 2, "b": 2}))
        .call("", "add", json!({"a": 3, "b": 3}))
        .text("done");
    let (agent, _) = agent(model, Budget::default());
    let outcome = agent.run("ids").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let ids: Vec<&str> = outcome
        .transcript
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.tool_call_id.as_deref().unwrap())
        .collect();
    let unique: std::collections::HashSet<&&str> = ids.iter().collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(unique.len(), 3, "{ids:?}");
    // Each assistant call message carries the id its answer uses.
    let asked: Vec<&str> = outcome
        .transcript
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str()))
        .collect();
    assert_eq!(asked, ids);
}

#[tokio::test]
async fn an_answer_turn_that_gives_no_answer_is_asked_once_more() {
    // A loop, then an answer turn answered with a call: it is not run, and
    // the turn is asked again, saying why.
    let same = || Completion::tool_calls(vec![call("c", "add", json!({"a": 2, "b": 1}))]);
    let model = ScriptedModel::new()
        .reply(same())
        .reply(same())
        .reply(same())
        .text("3");
    let (runner, model) = agent(model, Budget::default());
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("3"));
    assert_eq!(outcome.tool_calls, 1);
    let retry = model.requests().pop().unwrap();
    let asked = retry.messages.last().unwrap();
    assert!(
        asked
            .content
            .starts_with("Error: no more tool calls are possible")
            && asked.content.contains("without calling tools"),
        "{}",
        asked.content
    );
    // Only once: a second reply that is no answer ends the run without one.
    let model = ScriptedModel::new()
        .reply(same())
        .reply(same())
        .text("")
        .text("");
    let (runner, model) = agent(model, Budget::default());
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert_eq!(outcome.answer, None);
    assert_eq!(model.requests().len(), 4);
    // Never past the step budget: an answer turn on the last step stops.
    let model = adds(1).text("").text("never asked");
    let budget = Budget {
        max_steps: 2,
        ..Budget::default()
    };
    let (runner, model) = agent(model, budget);
    let outcome = runner.run("add").await;
    assert_eq!(outcome.stop_reason, StopReason::MaxSteps);
    assert_eq!(outcome.steps, 2);
    assert_eq!(model.requests().len(), 2);
}

#[test]
fn the_default_answer_turn_requests_are_pinned() {
    use agent_core::testing::TestTransport;
    use agent_core::{Findings, Transport};
    let transport = TestTransport;
    let task = "How tall is the tower?";
    let something = transport.answer_request(task, Findings::Something).content;
    let nothing = transport.answer_request(task, Findings::Nothing).content;
    let retry = transport
        .answer_retry("no final answer", task, Findings::Nothing)
        .content;
    // Found nothing: the question comes after the statement, not first.
    assert!(nothing.starts_with("The tool calls above found nothing"));
    insta::assert_snapshot!(
        "default_answer_turn_requests",
        format!("--- something\n{something}\n--- nothing\n{nothing}\n--- retry\n{retry}")
    );
}
