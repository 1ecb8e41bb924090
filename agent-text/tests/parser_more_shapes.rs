//! Shapes of real output found in notebooks and issue threads (see
//! `data/notebook_and_issue_outputs.jsonl`), each with variants of our
//! own: a turn the model writes on after its step, a JSON step after the
//! conversational `AI:` prefix, a paper-style step as the whole reply,
//! Qwen-Agent's `✿FUNCTION✿` markers, call objects keyed other ways,
//! more ways to write the answer's label, Gemma's and Gemini's own call
//! syntax, calls whose strings run over lines, tool results the model
//! invents under other names, and a prompt template's placeholders and
//! escaped braces copied around a step.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_text::{Parsed, parse};
use serde_json::{Value, json};

fn action(tool: &str, input: Value) -> Value {
    json!({"kind": "action", "tool": tool, "input": input})
}

fn final_answer(answer: &str) -> Value {
    json!({"kind": "final", "answer": answer})
}

fn j(text: &str) -> Value {
    parse(text).to_json()
}

#[test]
fn a_next_turn_written_by_the_model_ends_the_step() {
    assert_eq!(
        j("Final Answer: Hello!\n\nHuman: and now the next one?"),
        final_answer("Hello!")
    );
    assert_eq!(
        j("Thought: done\nFinal Answer: about four\nQuestion: what else is there?\nThought: more"),
        final_answer("about four")
    );
    assert_eq!(
        j("Action: search\nAction Input: tallest tower\nNew question: how old is it?"),
        action("search", json!("tallest tower"))
    );
    // The question echoed before the step is not its thought.
    match parse(
        "Question: how far is it?\nThought: look it up\nAction: search\nAction Input: {\"query\": \"distance\"}",
    ) {
        Parsed::Action { thought, .. } => assert_eq!(thought.as_deref(), Some("look it up")),
        other => panic!("expected an action, got {other:?}"),
    }
    // A question inside the answer's line is the answer's text.
    assert_eq!(
        j("Final Answer: The question: is it open? Yes."),
        final_answer("The question: is it open? Yes.")
    );
}

#[test]
fn a_json_step_after_the_conversational_prefix_is_the_step() {
    assert_eq!(
        j(
            "AI: \nAssistant: ```json\n{\"action\": \"Final Answer\", \"action_input\": \"It is <answer>.\"}\n```"
        ),
        final_answer("It is <answer>.")
    );
    assert_eq!(
        j("AI: {\"action\": \"search\", \"action_input\": \"the weather\"}"),
        action("search", json!("the weather"))
    );
    assert_eq!(
        j("Final Answer: {\"action\": \"Final Answer\", \"action_input\": \"done\"}"),
        final_answer("done")
    );
    // Data given as the answer stays the answer.
    assert_eq!(
        j("Final Answer: {\"name\": \"x\", \"size\": 3}"),
        final_answer("{\"name\": \"x\", \"size\": 3}")
    );
    // Under a real answer label, a call is not run: the answer was given.
    assert_eq!(
        j("Final Answer: {\"action\": \"search\", \"action_input\": \"q\"}"),
        final_answer("{\"action\": \"search\", \"action_input\": \"q\"}")
    );
}

#[test]
fn a_paper_style_step_may_be_the_whole_reply() {
    assert_eq!(
        j("search[tallest tower]"),
        action("search", json!("tallest tower"))
    );
    assert_eq!(j("click[< Prev]\n"), action("click", json!("< Prev")));
    assert_eq!(
        j("lookup[the capital]\nObservation: invented"),
        action("lookup", json!("the capital"))
    );
    assert_eq!(j("Finish[SUPPORTS]"), final_answer("SUPPORTS"));
    // Brackets in a sentence are no step.
    assert!(matches!(
        parse("I would use search[x] here"),
        Parsed::Error { .. }
    ));
    assert!(matches!(parse("see [1] for more"), Parsed::Error { .. }));
}

#[test]
fn qwen_agent_markers_are_labels() {
    assert_eq!(
        j("✿FUNCTION✿: get_weather\n✿ARGS✿: {\"city\": \"<city>\"}\n✿RESULT✿: sunny"),
        action("get_weather", json!({"city": "<city>"}))
    );
    assert_eq!(
        j("✿FUNCTION✿: a\n✿ARGS✿: {}\n✿FUNCTION✿: b\n✿ARGS✿: {}"),
        action("a", json!({}))
    );
    assert_eq!(j("✿RETURN✿: It is mild."), final_answer("It is mild."));
}

#[test]
fn call_objects_keyed_other_ways_keep_their_arguments() {
    assert_eq!(
        j("{\"function\": \"send\", \"params\": {\"message\": \"hi\"}}"),
        action("send", json!({"message": "hi"}))
    );
    assert_eq!(
        j("{\"tool_name\": \"search\", \"tool_args\": {\"query\": \"q\"}}"),
        action("search", json!({"query": "q"}))
    );
    assert_eq!(
        j(
            "{\"function_call\": {\"name\": \"search\", \"arguments\": \"{\\\"query\\\": \\\"q\\\"}\"}}"
        ),
        action("search", json!({"query": "q"}))
    );
    // Arguments written flat beside the name.
    assert_eq!(
        j("{\"action\": \"search\", \"query\": \"q\", \"thought\": \"look\"}"),
        action("search", json!({"query": "q"}))
    );
    // A fenced list of calls: the first is the step.
    assert_eq!(
        j(
            "```json\n[{\"name\": \"a\", \"arguments\": {\"x\": 1}}, {\"name\": \"b\", \"arguments\": {}}]\n```"
        ),
        action("a", json!({"x": 1}))
    );
    // A list of data is no step.
    assert!(matches!(
        parse("```json\n[1, 2, 3]\n```"),
        Parsed::Error { .. }
    ));
    // An object left open at a line's end, then words: it ends there.
    assert_eq!(
        j(
            "{\n\"function\": \"send\",\n\"params\": {\"message\": \"hi\"}\nFUNCTION RETURN {\"status\": \"OK\"}"
        ),
        action("send", json!({"message": "hi"}))
    );
}

#[test]
fn more_ways_to_label_the_answer() {
    assert_eq!(
        j("Final Response: It is late."),
        final_answer("It is late.")
    );
    assert_eq!(j("Final Output: 3 files"), final_answer("3 files"));
    assert_eq!(
        j("Finale Antwort: Es ist spät."),
        final_answer("Es ist spät.")
    );
    assert_eq!(
        j("Action : search\nEntrée de l’action : {\"query\": \"q\"}"),
        action("search", json!({"query": "q"}))
    );
}

#[test]
fn gemma_and_gemini_calls_in_their_own_syntax() {
    assert_eq!(
        j("call:write_file{content:hello,path:notes.txt}"),
        action(
            "write_file",
            json!({"content": "hello", "path": "notes.txt"})
        )
    );
    assert_eq!(
        j(
            "I will look.\n<|tool_call>call:search{query:<|\"|>tallest tower, 2024<|\"|>}<tool_call|>"
        ),
        action("search", json!({"query": "tallest tower, 2024"}))
    );
    assert_eq!(
        j("<start_function_call>overview{}</end_function_call>"),
        action("overview", json!({}))
    );
    assert_eq!(
        j("```tool_code\nprint(default_api.lookup(item='<item>'))\n```"),
        action("lookup", json!({"item": "<item>"}))
    );
    // Prose that says `call:` is no call.
    assert!(matches!(
        parse("call: me when you are free"),
        Parsed::Error { .. }
    ));
}

#[test]
fn a_call_whose_string_runs_over_lines_is_read_whole() {
    assert_eq!(
        j("Thought: done\nAction: finish(answer=\"first line\nsecond line\n\")"),
        final_answer("first line\nsecond line")
    );
    assert_eq!(
        j("Action: note(text=\"a\nb\", tag=\"x\")\nObservation: invented"),
        action("note", json!({"text": "a\nb", "tag": "x"}))
    );
}

#[test]
fn tool_results_invented_under_other_names_end_the_input() {
    assert_eq!(
        j("Action: search\nAction Input: weather in Paris\nTool Output: sunny"),
        action("search", json!("weather in Paris"))
    );
    assert_eq!(
        j("Thought: 查天气\nAction: search\nAction Input: 北京天气\n观察结果：晴"),
        action("search", json!("北京天气"))
    );
    assert_eq!(
        j("思考：查一下\n工具名称：search\n工具参数：{\"query\": \"北京\"}"),
        action("search", json!({"query": "北京"}))
    );
    assert_eq!(j("Финальный ответ: 42 дня"), final_answer("42 дня"));
    assert_eq!(j("答案：九千二"), final_answer("九千二"));
}

#[test]
fn a_template_s_placeholder_and_escaped_braces_around_a_step_are_read_through() {
    assert_eq!(
        j("Thought: look it up\nAction: search\nAction Input: {{\"query\": \"Cairo weather\"}}"),
        action("search", json!({"query": "Cairo weather"}))
    );
    assert_eq!(
        j(
            "Thought: x\nAction:\n```json\n{{\n  \"action\": \"search\",\n  \"action_input\": {{\"query\": \"Cairo\"}}\n}}\n```"
        ),
        action("search", json!({"query": "Cairo"}))
    );
    assert_eq!(
        j("Thought: x\nAction:\n$JSON_BLOB\n{\"action\": \"search\", \"action_input\": \"Cairo\"}"),
        action("search", json!("Cairo"))
    );
    assert_eq!(
        j(
            "Thought: x\nAction: $JSON_BLOB\n${{ \"action\": \"search\", \"action_input\": {\"q\": \"Cairo\"}}}$"
        ),
        action("search", json!({"q": "Cairo"}))
    );
    // A template that is no JSON is the input as written; braces in an
    // answer or inside a string stay.
    assert_eq!(
        j("Thought: x\nAction: render\nAction Input: {{user_name}}"),
        action("render", json!("{{user_name}}"))
    );
    assert_eq!(
        j("Thought: done\nFinal Answer: use {{name}} in the template"),
        final_answer("use {{name}} in the template")
    );
    assert_eq!(
        j("Thought: x\nAction: write\nAction Input: {\"text\": \"a {{b}} c\"}"),
        action("write", json!({"text": "a {{b}} c"}))
    );
}

#[test]
fn a_bare_answer_label_in_more_languages_is_the_answer() {
    assert_eq!(j("Trả lời: Hà Nội"), final_answer("Hà Nội"));
    assert_eq!(j("Thought: ok\n回答：東京"), final_answer("東京"));
    assert_eq!(j("Düşünce: tamam\nYanıt: Ankara"), final_answer("Ankara"));
    assert_eq!(j("답변: 서울"), final_answer("서울"));
    assert_eq!(j("Đáp án: 42 km"), final_answer("42 km"));
}
