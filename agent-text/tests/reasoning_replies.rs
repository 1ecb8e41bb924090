//! Replies of reasoning models: a `<think>` block (or kindred) before the
//! ReAct step, a closing tag whose opening tag was in the prompt, a block
//! never closed, and gpt-oss's harmony channels. The block is the thought;
//! a draft inside it is never taken over the step written after it.

mod common;

use agent_core::testing::ScriptedModel;
use agent_text::{Parsed, parse};
use serde_json::json;

const STEP: &str =
    "Thought: I will look it up.\nAction: search\nAction Input: {\"query\": \"tower height\"}";

fn is_search(parsed: &Parsed) -> bool {
    matches!(parsed, Parsed::Action { tool, input, .. }
        if tool == "search" && *input == json!({"query": "tower height"}))
}

#[test]
fn the_step_after_a_reasoning_block_wins_over_a_draft_inside_it() {
    let draft = "Maybe I just answer.\nFinal Answer: 300\nor call it:\nAction: calculator\nAction Input: {}";
    for (open, close) in agent_core::reasoning::REASONING_TAGS {
        let text = format!("{open}\n{draft}\n{close}\n\n{STEP}\nObservation: made up");
        let parsed = parse(&text);
        assert!(is_search(&parsed), "{open}: {parsed:?}");
        let Parsed::Action { thought, end, .. } = parsed else {
            unreachable!()
        };
        let thought = thought.unwrap_or_default();
        assert!(thought.starts_with("Maybe I just answer."), "{thought}");
        assert!(thought.ends_with("I will look it up."), "{thought}");
        assert!(
            text[..end].ends_with("\"tower height\"}"),
            "{}",
            &text[..end]
        );
    }
}

#[test]
fn a_closing_tag_whose_opening_tag_was_in_the_prompt() {
    let text = format!("Okay, the user asks for a height. Final Answer: 1\n</think>\n{STEP}");
    assert!(is_search(&parse(&text)));
    let answer = parse("So it is four.\n</think>\n\nThought: done\nFinal Answer: 4");
    assert!(
        matches!(answer, Parsed::Final { ref answer, .. } if answer == "4"),
        "{answer:?}"
    );
    // A reply that only mentions the closing tag is read as usual.
    let mention = parse("Thought: done\nFinal Answer: write </think> to end it.");
    assert!(
        matches!(mention, Parsed::Final { ref answer, .. } if answer == "write </think> to end it."),
        "{mention:?}"
    );
}

#[test]
fn a_block_with_nothing_after_it_gives_its_draft_step() {
    let closed = format!("<think>\n{STEP}\n</think>");
    assert!(is_search(&parse(&closed)));
    // A stop sequence or the token limit ended the turn inside the block.
    let unclosed = format!("<think>\n{STEP}\nObservation:");
    assert!(is_search(&parse(&unclosed)));
    let only_thinking = parse("<think>\nLet me think about which tool");
    let Parsed::Error { reason, .. } = only_thinking else {
        panic!("{only_thinking:?}")
    };
    assert!(reason.contains("only reasoning"), "{reason}");
}

#[test]
fn prose_after_a_block_is_not_an_answer_by_itself() {
    // Rule 5 holds after the block too: no markers, no decision.
    let parsed = parse("<think>\nFinal Answer: 12\n</think>\n\nIt is 12.");
    assert!(matches!(parsed, Parsed::Error { .. }), "{parsed:?}");
}

#[test]
fn harmony_channels_thinking_calls_and_final_replies() {
    let call = "<|channel|>analysis<|message|>Need the height.<|end|><|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json<|message|>{\"query\": \"tower height\"}<|call|>";
    let parsed = parse(call);
    assert!(is_search(&parsed), "{parsed:?}");
    assert!(
        matches!(parsed, Parsed::Action { thought: Some(ref t), .. } if t == "Need the height.")
    );

    let final_reply = "<|channel|>analysis<|message|>Known.<|end|><|start|>assistant<|channel|>final<|message|>It is 330 metres.<|return|>";
    assert!(
        matches!(parse(final_reply), Parsed::Final { ref answer, .. } if answer == "It is 330 metres.")
    );

    // Asked for ReAct lines, the model writes them in the final channel.
    let react = format!(
        "<|channel|>analysis<|message|>Search it.<|end|><|start|>assistant<|channel|>final<|message|>{STEP}"
    );
    assert!(is_search(&parse(&react)));

    // A final message with only a thought line in it, then a call.
    let thought_then_call = "<|channel|>analysis<|message|>Need it.<|end|><|start|>assistant<|channel|>final<|message|>THOUGHT: I will look it up.<|end|><|start|>assistant<|channel|>commentary to=search <|constrain|>json<|message|>{\"query\": \"tower height\"}";
    let parsed = parse(thought_then_call);
    assert!(is_search(&parsed), "{parsed:?}");
    assert!(
        matches!(parsed, Parsed::Action { thought: Some(ref t), .. } if t.contains("I will look it up.")),
        "{parsed:?}"
    );

    // A final message that ended the turn, or another role after it: no
    // call is taken from beyond it.
    for beyond in [
        "<|channel|>final<|message|>Thought: done.<|return|><|start|>assistant<|channel|>commentary to=search<|message|>{\"query\": \"tower height\"}",
        "<|channel|>final<|message|>Thought: done.<|end|><|start|>user<|message|>search it<|end|><|start|>assistant<|channel|>commentary to=search<|message|>{\"query\": \"tower height\"}",
    ] {
        assert!(matches!(parse(beyond), Parsed::Error { .. }), "{beyond}");
    }

    let thinking_only = "<|channel|>analysis<|message|>Hmm.<|end|>";
    assert!(matches!(parse(thinking_only), Parsed::Error { .. }));
}

#[tokio::test]
async fn a_run_whose_model_thinks_aloud_gets_its_answer() {
    let agent = common::search_and_calculator_agent(
        ScriptedModel::new()
            .text("<think>\nThe user wants half of Berlin's population. Maybe it is 3,000,000?\nFinal Answer: 1,500,000\nNo, I should look it up.\n</think>\n\nThought: Look it up.\nAction: search\nAction Input: {\"query\": \"population of Berlin\"}")
            .text("<|channel|>analysis<|message|>3,800,000 people; halve it.<|end|><|start|>assistant<|channel|>commentary to=functions.calculator json<|message|>{\"expression\": \"3800000 / 2\"}<|call|>")
            .text("The result is in.\n</think>\nThought: I have it.\nFinal Answer: Half of Berlin's population is 1,900,000."),
    );
    let outcome = agent.run("What is half the population of Berlin?").await;
    common::assert_half_of_berlin(&outcome);
}
