//! Tool calls written in other model families' own formats (Mistral,
//! Llama 3.1 and 3.2, Qwen3-Coder, Gemma, DeepSeek, MiniMax, GLM,
//! Functionary, Granite, Nemotron, Phi-4-mini, InternLM) are read as the step they stand
//! for, with the text before them as the thought; code and prose that only
//! look like them are not calls. And a run through the real `Agent`, the
//! text transport and the built-in tools, whose model writes such calls,
//! ends with the right answer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use agent_core::testing::ScriptedModel;
use agent_text::{Parsed, parse};
use serde_json::{Value, json};

fn action(text: &str) -> (String, Value, Option<String>) {
    match parse(text) {
        Parsed::Action {
            tool,
            input,
            thought,
            ..
        } => (tool, input, thought),
        other => panic!("expected an action for {text:?}, got {other:?}"),
    }
}

fn call(text: &str) -> (String, Value) {
    let (tool, input, _) = action(text);
    (tool, input)
}

#[test]
fn mistral_tool_calls_as_a_list_an_object_or_name_and_args() {
    let expected = ("search".to_string(), json!({"query": "Berlin"}));
    for text in [
        "[TOOL_CALLS] [{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}]",
        "[TOOL_CALLS][{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}, {\"name\": \"calculator\", \"arguments\": {\"expression\": \"1 + 1\"}}]",
        "[TOOL_CALLS] {\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}",
        "[TOOL_CALLS]search[ARGS]{\"query\": \"Berlin\"}",
        "[TOOL_CALLS]search[CALL_ID]a1b2c3d4e[ARGS]{\"query\": \"Berlin\"}",
    ] {
        assert_eq!(call(text), expected, "{text}");
    }
}

#[test]
fn llama_python_tag_json_and_function_tags() {
    assert_eq!(
        call("<|python_tag|>{\"name\": \"search\", \"parameters\": {\"query\": \"Berlin\"}}"),
        ("search".into(), json!({"query": "Berlin"}))
    );
    assert_eq!(
        call("<function=calculator>{\"expression\": \"2 * 21\"}</function>"),
        ("calculator".into(), json!({"expression": "2 * 21"}))
    );
    assert_eq!(
        call("<|python_tag|>search.call(query=\"Berlin\")"),
        ("search".into(), json!({"query": "Berlin"}))
    );
}

#[test]
fn qwen3_coder_parameters_in_tags() {
    let text = "I will read the file first.\n<tool_call>\n<function=read_file>\n<parameter=path>\nnotes/plan.md\n</parameter>\n<parameter=start>\n3\n</parameter>\n</function>\n</tool_call>";
    let (tool, input, thought) = action(text);
    assert_eq!(tool, "read_file");
    assert_eq!(input, json!({"path": "notes/plan.md", "start": 3}));
    assert_eq!(thought.as_deref(), Some("I will read the file first."));
    // A value that is JSON stays JSON; one with no closing tag runs to the end.
    assert_eq!(
        call(
            "<function=grep>\n<parameter=pattern>total: [0-9]+\n</parameter>\n<parameter=is_regex>true"
        ),
        (
            "grep".into(),
            json!({"pattern": "total: [0-9]+", "is_regex": true})
        )
    );
}

#[test]
fn python_style_lists_and_tool_code_fences() {
    assert_eq!(
        call("[search(query=\"Berlin, Germany\")]"),
        ("search".into(), json!({"query": "Berlin, Germany"}))
    );
    assert_eq!(
        call("[calculator(expression='(2 + 3) * 4'), search(query=\"x\")]"),
        ("calculator".into(), json!({"expression": "(2 + 3) * 4"}))
    );
    assert_eq!(
        call(
            "Thought: I need the lines.\n```tool_code\nread_file(path=\"a.txt\", start=1, end=20)\n```"
        ),
        (
            "read_file".into(),
            json!({"path": "a.txt", "start": 1, "end": 20})
        )
    );
    assert_eq!(call("[list_files()]"), ("list_files".into(), json!({})));
}

#[test]
fn tagged_formats_of_deepseek_minimax_glm_and_functionary() {
    let expected = ("search".to_string(), json!({"query": "Berlin", "limit": 3}));
    for text in [
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{\"query\": \"Berlin\", \"limit\": 3}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"query\": \"Berlin\", \"limit\": 3}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"query\">Berlin</parameter>\n<parameter name=\"limit\">3</parameter>\n</invoke>\n</minimax:tool_call>",
        "<function_calls><invoke name=\"search\"><parameter name=\"query\">Berlin</parameter><parameter name=\"limit\">3</parameter></invoke></function_calls>",
        "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>Berlin</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
        ">>>search\n{\"query\": \"Berlin\", \"limit\": 3}",
    ] {
        assert_eq!(call(text), expected, "{text}");
    }
    // The prose before the call is the thought; reasoning in think tags
    // comes first.
    let (tool, input, thought) = action(
        "<think>The user wants Berlin.</think>I will search for it.\n<tool_call>search<arg_key>query</arg_key><arg_value>Berlin</arg_value></tool_call>",
    );
    assert_eq!(
        (tool.as_str(), input),
        ("search", json!({"query": "Berlin"}))
    );
    let thought = thought.unwrap();
    assert!(
        thought.contains("The user wants Berlin.") && thought.ends_with("I will search for it.")
    );
    // A DSML string parameter keeps its digits as text.
    assert_eq!(
        call(
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_file\">\n<｜DSML｜parameter name=\"path\" string=\"true\">2024</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
        ),
        ("read_file".into(), json!({"path": "2024"}))
    );
}

#[test]
fn json_calls_after_a_familys_marker() {
    let expected = ("search".to_string(), json!({"query": "Berlin"}));
    for text in [
        "<|tool_call|>[{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}]",
        "<TOOLCALL>[{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}]</TOOLCALL>",
        "<tool_calls>[{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}]</tool_calls>",
        "functools[{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}]",
        "<|action_start|><|plugin|>\n{\"name\": \"search\", \"parameters\": {\"query\": \"Berlin\"}}<|action_end|>",
        "Thought: I need it.\n<|tool_call|>[{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}]",
    ] {
        assert_eq!(call(text), expected, "{text}");
    }
    // JSON in tags that is no call is not a step: the answer stands.
    let text = "<b>{\"a\": 1}</b>\nFinal Answer: 3";
    assert!(matches!(parse(text), Parsed::Final { answer, .. } if answer == "3"));
}

#[test]
fn a_step_in_react_lines_may_use_these_forms_after_action() {
    assert_eq!(
        call("Thought: look it up\nAction: [search(query=\"Berlin\")]"),
        ("search".into(), json!({"query": "Berlin"}))
    );
    assert_eq!(
        call(
            "Thought: compute\nAction: <function=calculator>{\"expression\": \"6 * 7\"}</function>"
        ),
        ("calculator".into(), json!({"expression": "6 * 7"}))
    );
}

#[test]
fn code_links_and_notes_that_look_alike_are_not_calls() {
    // Positional arguments: code, not a call. The answer after it stands.
    let text = "Thought: in Python this is\n```python\nprint(6 * 7)\n```\nFinal Answer: 42";
    assert!(matches!(parse(text), Parsed::Final { answer, .. } if answer == "42"));
    let text =
        "Thought: see [the docs](https://example.invalid) and [Note(s)] below.\nFinal Answer: 42";
    assert!(matches!(parse(text), Parsed::Final { answer, .. } if answer == "42"));
    let text = "[1] Thought: first\nFinal Answer: done";
    assert!(matches!(parse(text), Parsed::Final { answer, .. } if answer == "done"));
    // A final answer that quotes a call is still the answer.
    let text = "Final Answer: call [search(query=\"x\")] to look it up";
    assert!(matches!(parse(text), Parsed::Final { .. }));
    // Broken forms are format errors, never a panic.
    for text in [
        "[TOOL_CALLS]",
        "[TOOL_CALLS]search[ARGS]",
        "<function=>{}</function>",
        "<function=search",
        "<|python_tag|>",
        "[search(query=\"x\"",
        "```tool_code\n",
        "<｜tool▁call▁begin｜>search",
        "<invoke name=\"bad name\">",
        "<|tool_call|>[{\"name\": \"search\", \"argu",
    ] {
        assert!(matches!(parse(text), Parsed::Error { .. }), "{text}");
    }
}

#[tokio::test]
async fn a_run_whose_model_writes_other_formats_gets_its_answer() {
    let agent = common::search_and_calculator_agent(
        ScriptedModel::new()
            .text("[TOOL_CALLS]search[ARGS]{\"query\": \"population of Berlin\"}")
            .text("The population is 3,800,000; half of it:\n<tool_call>\n<function=calculator>\n<parameter=expression>\n3800000 / 2\n</parameter>\n</function>\n</tool_call>")
            .text("Thought: I have it.\nFinal Answer: Half of Berlin's population is 1,900,000."),
    );
    let outcome = agent.run("What is half the population of Berlin?").await;
    common::assert_half_of_berlin(&outcome);
}

#[tokio::test]
async fn a_run_whose_model_writes_tagged_formats_gets_its_answer() {
    let agent = common::search_and_calculator_agent(
        ScriptedModel::new()
            .text("<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>population of Berlin</arg_value>\n</tool_call>")
            .text("Half of 3,800,000:\n<minimax:tool_call>\n<invoke name=\"calculator\">\n<parameter name=\"expression\">3800000 / 2</parameter>\n</invoke>\n</minimax:tool_call>")
            .text("Thought: I have it.\nFinal Answer: Half of Berlin's population is 1,900,000."),
    );
    let outcome = agent.run("What is half the population of Berlin?").await;
    common::assert_half_of_berlin(&outcome);
}
