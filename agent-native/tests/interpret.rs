//! How the native transport reads a reply with no tool calls: words are an
//! answer, nothing or bare punctuation (a tool call the server failed to
//! parse, such as a lone `{`) is a malformed turn the model is told about.
//! A reasoning model's `<think>` block is the turn's thought, not its reply.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_core::transport::Decision;
use agent_core::{Completion, Transport};
use agent_native::NativeTransport;

fn decide(text: &str) -> Decision {
    NativeTransport::new()
        .interpret(Completion::text(text), &[])
        .turn
        .decision
}

#[test]
fn words_in_any_language_are_an_answer() {
    for text in [
        "The answer is 441.",
        "441",
        "答案是四百四十一",
        "  Ça fait 441 €  ",
    ] {
        assert!(
            matches!(decide(text), Decision::Final(ref a) if a == text.trim()),
            "{text:?}"
        );
    }
}

#[test]
fn bare_punctuation_is_not_an_answer() {
    for text in ["{", "{\n", "{}", "[]", "```", " ... ", "\"\""] {
        match decide(text) {
            Decision::Malformed(reason) => assert!(reason.contains("punctuation"), "{reason}"),
            other => panic!("{text:?} was read as {other:?}"),
        }
    }
    assert!(matches!(decide("  \n"), Decision::Malformed(r) if r.contains("empty")));
}

#[test]
fn a_reasoning_block_is_the_thought_and_the_reply_follows_it() {
    let tools = [agent_core::ToolSpec {
        name: "search".into(),
        description: "Looks things up.".into(),
        parameters: serde_json::json!({"type": "object"}),
    }];
    let read = NativeTransport::new().interpret(
        Completion::text("<think>\nMaybe 300? Check.\n</think>\n\nThe tower is 330 metres tall."),
        &tools,
    );
    assert_eq!(read.turn.thought.as_deref(), Some("Maybe 300? Check."));
    assert!(
        matches!(read.turn.decision, Decision::Final(ref a) if a == "The tower is 330 metres tall.")
    );
    // A call drafted in the reasoning is not made; the one after it is.
    let read = NativeTransport::new().interpret(
        Completion::text("<think>{\"name\": \"search\", \"arguments\": {\"query\": \"draft\"}}</think>\n{\"name\": \"search\", \"arguments\": {\"query\": \"tower\"}}"),
        &tools,
    );
    match read.turn.decision {
        Decision::Act(calls) => assert_eq!(calls[0].arguments["query"], "tower"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_reply_that_is_only_reasoning_is_not_an_answer() {
    for text in ["<think>The answer is 42, I think", "<think>42</think>\n  "] {
        match decide(text) {
            Decision::Malformed(reason) => assert!(reason.contains("reasoning"), "{reason}"),
            other => panic!("{text:?} was read as {other:?}"),
        }
    }
}

#[test]
fn gpt_oss_harmony_channels_are_a_call_or_an_answer() {
    let call = NativeTransport::new().interpret(
        Completion::text("<|channel|>analysis<|message|>Need the height.<|end|><|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json<|message|>{\"query\": \"tower\"}<|call|>"),
        &[],
    );
    assert_eq!(call.turn.thought.as_deref(), Some("Need the height."));
    match call.turn.decision {
        Decision::Act(calls) => {
            assert_eq!(calls[0].name, "search");
            assert_eq!(calls[0].arguments["query"], "tower");
        }
        other => panic!("{other:?}"),
    }
    let answer = decide(
        "<|channel|>analysis<|message|>Known.<|end|><|start|>assistant<|channel|>final<|message|>It is 330 metres.<|return|>",
    );
    assert!(
        matches!(answer, Decision::Final(ref a) if a == "It is 330 metres."),
        "{answer:?}"
    );
    let thinking = decide("<|channel|>analysis<|message|>Still thinking");
    assert!(
        matches!(thinking, Decision::Malformed(ref r) if r.contains("reasoning")),
        "{thinking:?}"
    );
}

#[test]
fn calls_in_families_own_formats_are_made() {
    // The corpus the text parser is tested on: every call written in a
    // family's own format is a call here too, with the same arguments.
    let data = include_str!("../../agent-text/tests/data/family_calls.jsonl");
    let mut checked = 0;
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let expect = &case["expect"];
        let text = case["text"].as_str().unwrap();
        match (decide(text), expect["kind"].as_str()) {
            (Decision::Act(calls), Some("action")) => {
                assert_eq!(calls[0].name, expect["tool"], "{}", case["id"]);
                assert_eq!(calls[0].arguments, expect["input"], "{}", case["id"]);
            }
            (Decision::Final(answer), Some("final")) => {
                assert_eq!(answer, expect["answer"], "{}", case["id"]);
            }
            (other, _) => panic!("{}: {other:?}", case["id"]),
        }
        checked += 1;
    }
    assert_eq!(checked, 27);
}

#[test]
fn calls_emitted_before_the_thinking_closes_are_made() {
    let tools = [agent_core::ToolSpec {
        name: "search".into(),
        description: "Looks things up.".into(),
        parameters: serde_json::json!({"type": "object"}),
    }];
    let section = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"query\": \"Oslo\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    // In a <think> block never closed, and in reasoning the server sent apart.
    let in_block = Completion::text(format!("<think>I should look it up.\n{section}"));
    let mut apart = Completion::text("");
    apart.reasoning = format!("I should look it up.\n{section}");
    for completion in [in_block, apart] {
        let read = NativeTransport::new().interpret(completion, &tools);
        match read.turn.decision {
            Decision::Act(calls) => assert_eq!(calls[0].arguments["query"], "Oslo"),
            other => panic!("{other:?}"),
        }
        assert_eq!(read.turn.thought.as_deref(), Some("I should look it up."));
    }
    // Qwen3.5's `<tool_call>` blocks at the end of its reasoning, as LM
    // Studio handed them over (lmstudio-bug-tracker#1592).
    let tools: Vec<agent_core::ToolSpec> = ["readWorkspaceFile", "getTypeSource"]
        .iter()
        .map(|name| agent_core::ToolSpec {
            name: (*name).into(),
            description: "Reads.".into(),
            parameters: serde_json::json!({"type": "object"}),
        })
        .collect();
    let mut completion = Completion::text("");
    completion.reasoning = "Let me read the configuration.md file and the source files to understand how tokenWindow is used.\n\n<tool_call>\n<function=readWorkspaceFile>\n<parameter=arg0>\n/llmpeon-parent/doc/docs/setup/configuration.md\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=getTypeSource>\n<parameter=arg0>\norg.sterl.llmpeon.ai.LlmConfig\n</parameter>\n<parameter=arg1>\n\n</parameter>\n</function>\n</tool_call>".into();
    let read = NativeTransport::new().interpret(completion, &tools);
    match read.turn.decision {
        Decision::Act(calls) => {
            let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(names, ["readWorkspaceFile", "getTypeSource"]);
            assert_eq!(calls[1].arguments["arg0"], "org.sterl.llmpeon.ai.LlmConfig");
        }
        other => panic!("{other:?}"),
    }
    assert!(read.turn.thought.unwrap().starts_with("Let me read"));
    let tools = [agent_core::ToolSpec {
        name: "search".into(),
        description: "Looks things up.".into(),
        parameters: serde_json::json!({"type": "object"}),
    }];
    // A call mentioned mid-reasoning, or a JSON draft, is not made.
    for reasoning in [
        format!("Maybe {section} but first I should think more."),
        "Maybe <tool_call>{\"name\": \"search\", \"arguments\": {}}</tool_call> or not."
            .to_string(),
        "{\"name\": \"search\", \"arguments\": {\"query\": \"Oslo\"}}".to_string(),
    ] {
        let mut completion = Completion::text("");
        completion.reasoning = reasoning;
        let read = NativeTransport::new().interpret(completion, &tools);
        assert!(
            matches!(read.turn.decision, Decision::Malformed(_)),
            "{:?}",
            read.turn.decision
        );
    }
}
