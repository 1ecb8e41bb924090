//! The classes of real model output the parser once got wrong, each with
//! several variants of our own: JSON arrays and other non-object inputs,
//! whole steps on one line, labels glued to the word before them, fences
//! with JSON on the fence line, call syntax on the Action line, plain-text
//! inputs kept verbatim, broken JSON as a format error, and a sentence
//! where the tool name should be. Plus leaked end-of-turn tokens, full-width
//! colons and non-English text, labels without a colon (markdown headings,
//! bold, a dash), steps in XML-like tags, JSON inputs wrapped in
//! backticks or encoded twice, and inputs typed with typographic quotes
//! or full-width JSON marks.

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

fn is_error(text: &str) -> bool {
    matches!(parse(text), Parsed::Error { .. })
}

fn error_reason(text: &str) -> String {
    match parse(text) {
        Parsed::Error { reason, .. } => reason,
        other => panic!("expected an error for {text:?}, got {other:?}"),
    }
}

// 1. Any JSON value given as the input reaches the tool whole.
#[test]
fn class_1_json_arrays_and_other_values_reach_the_tool_whole() {
    assert_eq!(
        j("Thought: two lookups\nAction: batch\nAction Input: [{\"q\": \"a\"}, {\"q\": \"b\"}]"),
        action("batch", json!([{"q": "a"}, {"q": "b"}]))
    );
    assert_eq!(
        j("Action: sum\nAction Input: [1, 2, 3]"),
        action("sum", json!([1, 2, 3]))
    );
    assert_eq!(
        j("Action: tag\nAction Input: [\"x\", \"y\"]\nObservation: done"),
        action("tag", json!(["x", "y"]))
    );
    assert_eq!(
        j("Action: lookup\nAction Input:\n```json\n[\n  {\"id\": 1},\n  {\"id\": 2}\n]\n```"),
        action("lookup", json!([{"id": 1}, {"id": 2}]))
    );
    assert_eq!(
        j("Action: echo\nAction Input: \"a quoted string\""),
        action("echo", json!("a quoted string"))
    );
    assert_eq!(
        j("Action: square\nAction Input: 12.5"),
        action("square", json!(12.5))
    );
    assert_eq!(
        j("Action: nested\nAction Input: {\"a\": [1, {\"b\": [2, 3]}], \"c\": {\"d\": null}}"),
        action("nested", json!({"a": [1, {"b": [2, 3]}], "c": {"d": null}}))
    );
}

// 2. Everything on one line.
#[test]
fn class_2_a_whole_step_on_one_line() {
    assert_eq!(
        j("Thought: I need the population. Action: search Action Input: {\"query\": \"France\"}"),
        action("search", json!({"query": "France"}))
    );
    assert_eq!(
        j("Thought: compute it Action: calculator Action Input: 2 * 21"),
        action("calculator", json!("2 * 21"))
    );
    assert_eq!(
        j("Action: search Action Input: population of Paris Observation: about two million"),
        action("search", json!("population of Paris"))
    );
    assert_eq!(
        j("Thought: I know it now. Final Answer: 42"),
        final_answer("42")
    );
    assert_eq!(
        j(
            "Thought: look it up Action: read_file Action Input: {\"path\": \"notes.txt\"} Observation: fake"
        ),
        action("read_file", json!({"path": "notes.txt"}))
    );
    let parsed = parse("Thought: first step. Action: search Action Input: {\"query\": \"x\"}");
    let Parsed::Action { thought, .. } = parsed else {
        panic!("{parsed:?}")
    };
    assert_eq!(thought.as_deref(), Some("first step."));
}

// 3. Labels glued to the word before them; JSON on the fence line.
#[test]
fn class_3_glued_labels_and_fences_with_json_on_the_fence_line() {
    assert_eq!(
        j("Thought: I should search.Action: search\nAction Input: {\"query\": \"Rome\"}"),
        action("search", json!({"query": "Rome"}))
    );
    assert_eq!(
        j("Thought: that is all I needed to know the answerFinal Answer: 42"),
        final_answer("42")
    );
    assert_eq!(
        j("Thought: okayAction: add\nAction Input: {\"a\": 1}"),
        action("add", json!({"a": 1}))
    );
    assert_eq!(
        j("Action: search\nAction Input: ```json{\"q\": 1}```"),
        action("search", json!({"q": 1}))
    );
    assert_eq!(
        j("Action: search\nAction Input: ```{\"q\": 2}\n```"),
        action("search", json!({"q": 2}))
    );
    assert_eq!(
        j("Action: search\nAction Input: ```json {\"q\": 3}```\nObservation: x"),
        action("search", json!({"q": 3}))
    );
    assert_eq!(
        j("I will check.Action: search Action Input: {\"query\": \"Tokyo\"}"),
        action("search", json!({"query": "Tokyo"}))
    );
}

// 4. Call syntax on the Action line, with no Action Input line.
#[test]
fn class_4_call_syntax_on_the_action_line() {
    assert_eq!(
        j("Thought: search it\nAction: search({\"query\": \"x\"})"),
        action("search", json!({"query": "x"}))
    );
    assert_eq!(
        j("Action: search {\"query\": \"x\"}"),
        action("search", json!({"query": "x"}))
    );
    assert_eq!(
        j("Action: search(query=\"population of Japan\")"),
        action("search", json!({"query": "population of Japan"}))
    );
    assert_eq!(
        j("Action: read_file(path='src/lib.rs', start=3)"),
        action("read_file", json!({"path": "src/lib.rs", "start": 3}))
    );
    assert_eq!(
        j("Action: calculator(\"17 * 83\")"),
        action("calculator", json!("17 * 83"))
    );
    assert_eq!(
        j("Action: search({\n  \"query\": \"multi line\"\n})\nObservation: y"),
        action("search", json!({"query": "multi line"}))
    );
    // When an Action Input follows, it wins, and parentheses are a description.
    assert_eq!(
        j("Action: add (adds two numbers)\nAction Input: {\"a\": 1, \"b\": 2}"),
        action("add", json!({"a": 1, "b": 2}))
    );
    // A description alone is no input.
    assert!(is_error("Action: search (to find the population)"));
}

// 5. Plain-text input is kept verbatim.
#[test]
fn class_5_plain_text_input_keeps_its_last_characters() {
    assert_eq!(
        j("Action: python\nAction Input: df.head()"),
        action("python", json!("df.head()"))
    );
    assert_eq!(
        j("Action: python\nAction Input: df.groupby('a').agg({'b': 'sum'})"),
        action("python", json!("df.groupby('a').agg({'b': 'sum'})"))
    );
    assert_eq!(
        j("Action: python\nAction Input: 'a' + 'b'"),
        action("python", json!("'a' + 'b'"))
    );
    assert_eq!(
        j("Action: wiki\nAction Input: The capital of France."),
        action("wiki", json!("The capital of France."))
    );
    assert_eq!(
        j("Action: python\nAction Input: print({1: 2}.get(1))"),
        action("python", json!("print({1: 2}.get(1))"))
    );
    assert_eq!(
        j("Action: shell\nAction Input: `ls -la`"),
        action("shell", json!("ls -la"))
    );
    assert_eq!(
        j("Action: python\nAction Input: obj.method()\n"),
        action("python", json!("obj.method()"))
    );
}

// 6. Brace-wrapped input that is not JSON, even leniently, is a format error.
#[test]
fn class_6_broken_json_is_a_format_error() {
    for text in [
        "Action: search\nAction Input: {\"query\": \"x\", \"limit\": }",
        "Action: calculator\nAction Input: {\"expression\": 68000000 - 2100000}",
        "Action: search\nAction Input: {query: population of France}",
        "Action: search\nAction Input: {'query' 'x'}",
        "Action: read_file\nAction Input: ```json\n{\"path\": src/lib.rs}\n```",
        "Action: batch\nAction Input: [{\"q\": \"a\"} {\"q\": }]",
    ] {
        let reason = error_reason(text);
        assert!(reason.contains("not valid JSON"), "{text:?}: {reason}");
    }
    // Prose in braces is not an attempt at JSON.
    assert_eq!(
        j("Action: search\nAction Input: {temperature in SF}"),
        action("search", json!("{temperature in SF}"))
    );
}

// 7. A sentence where the tool name should be.
#[test]
fn class_7_a_sentence_is_not_a_tool_name() {
    for text in [
        "Thought: hmm\nAction: I will use the search tool to find it\nAction Input: {\"query\": \"x\"}",
        "Action: Search the encyclopedia for the population, then compute.\nAction Input: France",
        "Action: First, I need to look up the population of France.",
        "Action: use the calculator to add these numbers together\nAction Input: 1 + 1",
    ] {
        let reason = error_reason(text);
        assert!(reason.contains("sentence"), "{text:?}: {reason}");
    }
    assert_eq!(
        j("Action: Intermediate Answer\nAction Input: x"),
        action("Intermediate Answer", json!("x"))
    );
}

#[test]
fn leaked_end_of_turn_tokens_end_the_turn() {
    assert_eq!(
        j("Thought: done\nFinal Answer: 42<|im_end|>\n<|im_start|>user\nObservation: x"),
        final_answer("42")
    );
    assert_eq!(
        j("Action: search\nAction Input: {\"q\": 1}<|eot_id|>"),
        action("search", json!({"q": 1}))
    );
    assert_eq!(j("Final Answer: yes</s>"), final_answer("yes"));
    // Other families' tokens: a new turn the model started on its own.
    for leak in [
        "<｜end▁of▁sentence｜>",
        "<end_of_turn>",
        "\n<start_of_turn>user\nthanks",
        "<eos>",
        "<|end_of_text|>",
        "\n<|user|>\nthanks",
        "<|END_OF_TURN_TOKEN|>",
    ] {
        assert_eq!(
            j(&format!("Final Answer: yes{leak}more")),
            final_answer("yes"),
            "{leak}"
        );
    }
}

#[test]
fn other_frameworks_answer_labels() {
    // LangChain's conversational agent: the answer follows its AI prefix.
    assert_eq!(
        j("Thought: Do I need to use a tool? No\nAI: It is 330 metres tall."),
        final_answer("It is 330 metres tall.")
    );
    assert_eq!(
        j("Thought: the base says 330.\nSo the final answer is: 330 metres"),
        final_answer("330 metres")
    );
}

#[test]
fn full_width_colons_and_non_english_text() {
    assert_eq!(
        j("Thought：我需要计算。\nAction：calculator\nAction Input：{\"expression\": \"2+2\"}"),
        action("calculator", json!({"expression": "2+2"}))
    );
    assert_eq!(
        j(
            "Thought: Je dois chercher la population de la France, évidemment.\nAction: search\nAction Input: {\"query\": \"population de la France\"}"
        ),
        action("search", json!({"query": "population de la France"}))
    );
    assert_eq!(
        j("Thought: 答えが分かりました。\nFinal Answer: 東京の人口は約1400万人です。"),
        final_answer("東京の人口は約1400万人です。")
    );
    assert_eq!(
        j(
            "Thought: 🤔 emoji everywhere 🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀 Action: search Action Input: {\"q\": \"é\"}"
        ),
        action("search", json!({"q": "é"}))
    );
}

#[test]
fn labels_translated_into_the_question_s_language() {
    // A model that writes in the question's language often translates the
    // labels too.
    for (text, answer) in [
        ("思考：我知道答案。\n最终答案：约21196公里", "约21196公里"),
        ("最終回答：約1400万人", "約1400万人"),
        ("Pensée : c'est fait.\nRéponse finale : 126", "126"),
        ("Gedanke: fertig\nEndgültige Antwort: 8443", "8443"),
        ("Respuesta final: 5170", "5170"),
        ("Risposta finale: 3,8 milioni", "3,8 milioni"),
        ("Итоговый ответ: 84 миллиона", "84 миллиона"),
        ("최종 답변: 1400만 명", "1400만 명"),
        ("Suy nghĩ: xong.\nCâu trả lời cuối cùng: 330 mét", "330 mét"),
        ("Düşünce: tamam\nNihai cevap: 330 metre", "330 metre"),
        ("Gedachte: klaar\nEindantwoord: 330 meter", "330 meter"),
        (
            "Myśl: gotowe\nOstateczna odpowiedź: 330 metrów",
            "330 metrów",
        ),
        ("Pikiran: selesai\nJawaban akhir: 330 meter", "330 meter"),
        (
            "Думка: готово\nОстаточна відповідь: 330 метрів",
            "330 метрів",
        ),
        ("تفكير: انتهيت\nالإجابة النهائية: 330 مترا", "330 مترا"),
        ("विचार: हो गया\nअंतिम उत्तर: 330 मीटर", "330 मीटर"),
        ("Tanke: klar\nSlutgiltigt svar: 330 meter", "330 meter"),
        ("Myšlenka: hotovo\nKonečná odpověď: 330 metrů", "330 metrů"),
        ("Σκέψη: έτοιμο\nΤελική απάντηση: 330 μέτρα", "330 μέτρα"),
        ("מחשבה: סיימתי\nתשובה סופית: 330 מטר", "330 מטר"),
        ("فکر: تمام شد\nپاسخ نهایی: ۳۳۰ متر", "۳۳۰ متر"),
        ("ความคิด: เสร็จแล้ว\nคำตอบสุดท้าย: 330 เมตร", "330 เมตร"),
        ("Gândire: gata\nRăspuns final: 330 de metri", "330 de metri"),
        ("Gondolat: kész\nVégső válasz: 330 méter", "330 méter"),
        (
            "Ajatus: valmis\nLopullinen vastaus: 330 metriä",
            "330 metriä",
        ),
    ] {
        assert_eq!(j(text), final_answer(answer), "{text}");
    }
    assert_eq!(
        j("Pensée : je cherche\nAction : search\nEntrée de l'action : {\"query\": \"Berlin\"}"),
        action("search", json!({"query": "Berlin"}))
    );
    assert_eq!(
        j("思考：需要搜索\n行动：search\n行动输入：{\"query\": \"长城\"}\n观察：……"),
        action("search", json!({"query": "长城"}))
    );
    assert_eq!(
        j(
            "Suy nghĩ: cần tìm\nHành động: search\nĐầu vào hành động: {\"query\": \"Hà Nội\"}\nQuan sát: ..."
        ),
        action("search", json!({"query": "Hà Nội"}))
    );
    assert_eq!(
        j("Myšlenka: hledám\nAkce: search\nVstup akce: {\"query\": \"Praha\"}\nPozorování: ..."),
        action("search", json!({"query": "Praha"}))
    );
    // Only at a line start: in prose, a translated word is prose.
    assert_eq!(
        j("Final Answer: la respuesta: 42"),
        final_answer("la respuesta: 42")
    );
}

#[test]
fn tool_call_style_blobs_are_actions() {
    assert_eq!(
        j(
            "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1+2\"}}\n</tool_call>"
        ),
        action("calculator", json!({"expression": "1+2"}))
    );
    assert_eq!(
        j("Thought: use it\n{\"name\": \"search\", \"arguments\": {\"query\": \"Paris\"}}"),
        action("search", json!({"query": "Paris"}))
    );
    // Plain JSON with a `name` is an answer's data, not a call.
    assert!(is_error(
        "Here is the data:\n{\"name\": \"Alice\", \"age\": 3}"
    ));
}

#[test]
fn no_action_then_an_answer() {
    assert_eq!(
        j("Thought: no tool needed\nAction: None\nAction Input: None\nFinal Answer: 7"),
        final_answer("7")
    );
    assert_eq!(
        j("Thought: nothing to call\nAction: N/A\nFinal Answer: done"),
        final_answer("done")
    );
    assert!(is_error("Action: None"));
}

#[test]
fn a_reply_wrapped_in_a_fence_and_an_action_named_final_answer() {
    assert_eq!(
        j("```\nThought: hmm\nAction: search\nAction Input: population of Rome\n```"),
        action("search", json!("population of Rome"))
    );
    assert_eq!(
        j("```\nThought: done\nFinal Answer: 42\n```"),
        final_answer("42")
    );
    assert_eq!(
        j("Final Answer:\n```json\n{\"a\": 1}\n```"),
        final_answer("```json\n{\"a\": 1}\n```")
    );
    assert_eq!(
        j("Thought: I know it\nAction: Final Answer\nAction Input: 42"),
        final_answer("42")
    );
    assert_eq!(
        j("Action: final_answer\nAction Input: \"Paris\""),
        final_answer("Paris")
    );
    // `answer` is the answer on an `Action:` line as it is in a blob.
    assert_eq!(
        j("Action: answer\nAction Input: Paris"),
        final_answer("Paris")
    );
    assert_eq!(
        j("Action: {\"action\": \"answer\", \"args\": \"Paris\"}"),
        final_answer("Paris")
    );
}

#[test]
fn prompt_list_brackets_and_short_input_labels() {
    assert_eq!(
        j("Thought: look\nAction: [Search]\nAction Input: Paris"),
        action("Search", json!("Paris"))
    );
    assert_eq!(
        j("Action: search\nInput: {\"query\": \"Berlin\"}"),
        action("search", json!({"query": "Berlin"}))
    );
    assert_eq!(
        j("Action: search\nTool Input: Rome"),
        action("search", json!("Rome"))
    );
}

#[test]
fn labels_without_a_colon_as_headings_bold_or_with_a_dash() {
    let step = action("search", json!({"query": "tower height"}));
    for text in [
        "### Thought\nI should look it up.\n### Action\nsearch\n### Action Input\n{\"query\": \"tower height\"}",
        "**Thought**\nI should look it up.\n**Action**\nsearch\n**Action Input**\n{\"query\": \"tower height\"}",
        "Thought - I should look it up.\nAction - search\nAction Input - {\"query\": \"tower height\"}",
    ] {
        assert_eq!(j(text), step, "{text}");
    }
    for text in [
        "Thought: done\nFinal Answer - 330 metres",
        "Thought: done\nFinal Answer — 330 metres",
        "Thought: done\n## Final Answer\n330 metres",
        "Thought: done\nFinal Answer\n330 metres",
    ] {
        assert_eq!(j(text), final_answer("330 metres"), "{text}");
    }
    // `Tool:` pairs with `Tool Input:` as `Action:` does with `Action Input:`.
    assert_eq!(
        j("Thought: look it up\nTool: search\nTool Input: {\"query\": \"tower height\"}"),
        step
    );
    // A sentence that starts with a label word is not a label.
    assert!(is_error(
        "Answer the question with the tools.\nThe tower is tall."
    ));
    assert_eq!(
        j(
            "Thought: Answer - first I search.\nAction: search\nAction Input: {\"query\": \"tower height\"}"
        ),
        step
    );
}

#[test]
fn steps_in_xml_like_tags() {
    assert_eq!(
        j("I should look it up.\n<tool>search</tool><tool_input>tower height"),
        action("search", json!("tower height"))
    );
    assert_eq!(
        j(
            "<action>search</action>\n<action_input>{\"query\": \"tower height\"}</action_input>\n<observation>made up"
        ),
        action("search", json!({"query": "tower height"}))
    );
    assert_eq!(
        j("<final_answer>330 metres</final_answer>"),
        final_answer("330 metres")
    );
    assert_eq!(
        j("<think>The base says 330.</think>\n<answer>330 metres</answer>"),
        final_answer("330 metres")
    );
    // Other tags are prose.
    assert!(is_error("<div>330 metres</div>"));
}

#[test]
fn json_inputs_in_backticks_or_encoded_twice_are_objects() {
    let step = action("search", json!({"query": "tower height"}));
    for input in [
        "`{\"query\": \"tower height\"}`",
        "\"{\\\"query\\\": \\\"tower height\\\"}\"",
    ] {
        assert_eq!(
            j(&format!("Action: search\nAction Input: {input}")),
            step,
            "{input}"
        );
    }
    // A name and an input in inline triple backticks.
    assert_eq!(
        j("Action: ```search```\nAction Input: ```tower height```"),
        action("search", json!("tower height"))
    );
    // Text in braces that is not JSON stays text.
    assert_eq!(
        j("Action: calculator\nAction Input: `{2 + 3} * 4`"),
        action("calculator", json!("{2 + 3} * 4"))
    );
}

#[test]
fn calls_printed_in_other_frameworks_shapes() {
    let step = action("search", json!({"query": "tower height"}));
    // An OpenAI-style response part printed as text.
    assert_eq!(
        j(
            "{\"tool_calls\": [{\"id\": \"1\", \"type\": \"function\", \"function\": {\"name\": \"search\", \"arguments\": \"{\\\"query\\\": \\\"tower height\\\"}\"}}]}"
        ),
        step
    );
    assert_eq!(
        j(
            "{\"type\": \"function\", \"function\": {\"name\": \"search\", \"arguments\": {\"query\": \"tower height\"}}}"
        ),
        step
    );
    // smolagents' final_answer tool takes its answer as an argument.
    assert_eq!(
        j("Action:\n{\"name\": \"final_answer\", \"arguments\": {\"answer\": \"330 metres\"}}"),
        final_answer("330 metres")
    );
    assert_eq!(
        j("Action: final_answer\nAction Input: {\"answer\": \"330 metres\"}"),
        final_answer("330 metres")
    );
    // Several arguments stay JSON: nothing is dropped.
    assert_eq!(
        j("Action: final_answer\nAction Input: {\"answer\": \"330\", \"unit\": \"m\"}"),
        final_answer("{\"answer\":\"330\",\"unit\":\"m\"}")
    );
}

// Other words for the input on the line after the action, and list
// markers before the tool's name.
#[test]
fn argument_lines_and_list_markers_on_the_action_line() {
    let input = json!({"expression": "2+2"});
    for text in [
        "Thought: add\nAction: calculator\nArguments: {\"expression\": \"2+2\"}",
        "Action: calculator\n**Parameters:** {\"expression\": \"2+2\"}\nObservation: 4",
        "Action: calculator\n\nArgs:\n```json\n{\"expression\": \"2+2\"}\n```",
        "Action: calculator\n- params: {\"expression\": \"2+2\"}",
        "Action: 1. calculator\nAction Input: {\"expression\": \"2+2\"}",
        "Action: 2) calculator\nAction Input: {\"expression\": \"2+2\"}",
        "Action: - calculator\nAction Input: {\"expression\": \"2+2\"}",
    ] {
        assert_eq!(j(text), action("calculator", input.clone()), "{text}");
    }
    // Plain text after `Arguments:` reaches the tool as written (the
    // gateway reads `name: value` pairs by the tool's own names).
    assert_eq!(
        j("Action: grep\nArgs: pattern=timeout, path=logs"),
        action("grep", json!("pattern=timeout, path=logs"))
    );
    // Anywhere else those words are text: a final answer that lists a
    // function's arguments keeps them, and an action without any input
    // line is still a format error.
    assert_eq!(
        j("Final Answer: It takes two values.\nArguments: a list and a number."),
        final_answer("It takes two values.\nArguments: a list and a number.")
    );
    assert!(is_error(
        "Action: calculator\nThe arguments: {\"expression\": \"2+2\"}"
    ));
    assert_eq!(
        error_reason("Action: calculator\nso the parameters are clear"),
        "`Action: calculator` has no `Action Input:` line after it"
    );
}

// Shapes quoted in other frameworks' bug reports (our own variants; the
// quoted outputs themselves are in `data/bug_report_cases.jsonl`).
#[test]
fn shapes_quoted_in_bug_reports() {
    let input = json!({"query": "Oslo"});
    for text in [
        // Llama 4's markers around a JSON call.
        "<|python_start|>{\"name\": \"search\", \"parameters\": {\"query\": \"Oslo\"}}<|python_end|>",
        // A singular `tool_call` wrapper around a JSON ReAct step.
        "{\"tool_call\": {\"thought\": \"look up\", \"action\": \"search\", \"action_input\": {\"query\": \"Oslo\"}}}",
        // smolagents' keys.
        "Action:\n{\"tool_name\": \"search\", \"tool_arguments\": {\"query\": \"Oslo\"}}",
        // Semantic Kernel's stepwise planner: bracketed labels, `action_variables`.
        "[THOUGHT] I must look it up.\n[ACTION] {\"action\": \"search\", \"action_variables\": {\"query\": \"Oslo\"}}",
        "[Thought]: look up\n[Action]: search\n[Action Input]: {\"query\": \"Oslo\"}",
    ] {
        assert_eq!(j(text), action("search", input.clone()), "{text}");
    }
    // Markdown-escaped underscores in the name.
    assert_eq!(
        j("Action: read\\_file\nAction Input: {\"path\": \"a.md\"}"),
        action("read_file", json!({"path": "a.md"}))
    );
    assert_eq!(j("[THOUGHT] done\n[FINAL ANSWER] 42"), final_answer("42"));
    // Kimi K2's call tokens after its prose; Chinese words for a tool and
    // its input; a `Finish[…]` answer over several lines, or cut off.
    assert_eq!(
        j(
            "我来查一下。<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{\"query\": \"Oslo\"}<|tool_call_end|><|tool_calls_section_end|>"
        ),
        action("search", input.clone())
    );
    for text in [
        "思考：查一下\n工具：search\n工具输入：Oslo",
        "思考: 查一下\n动作: search\n动作输入: Oslo",
        "思考：查一下\n操作：search\n输入：Oslo",
    ] {
        assert_eq!(j(text), action("search", json!("Oslo")), "{text}");
    }
    assert_eq!(
        j("Thought: done\nAction: Finish[It is:\n- 330 m\n- 1889]"),
        final_answer("It is:\n- 330 m\n- 1889")
    );
    assert_eq!(
        j("Action: Finish[It is:\n- 330 m]\nSee [1] and [2]"),
        final_answer("It is:\n- 330 m")
    );
    assert_eq!(
        j("Action: Finish[It is 330 m and it was fin"),
        final_answer("It is 330 m and it was fin")
    );
    // Tool names of several words, as crewAI names its tools, are names;
    // a line that opens like a sentence is still a sentence.
    assert_eq!(
        j("Action: Delegate work to coworker\nAction Input: {\"task\": \"t\"}"),
        action("Delegate work to coworker", json!({"task": "t"}))
    );
    assert_eq!(
        j("Action: Search a txt's content\nAction Input: {\"q\": \"x\"}"),
        action("Search a txt's content", json!({"q": "x"}))
    );
    for text in [
        "Action: I should search it\nAction Input: {}",
        "Action: Let me compute this\nAction Input: {}",
        "Action: use the calculator\nAction Input: {}",
        "Action: search for it then compute the rest\nAction Input: {}",
    ] {
        assert!(error_reason(text).contains("holds a sentence"), "{text}");
    }
}

// A plain-text input that holds a fenced document: label lines inside the
// fence are the document's text, not the next step.
#[test]
fn a_fenced_block_inside_a_plain_input_keeps_its_label_lines() {
    let document = "notes.md:\n```\nThought: a line of the document\nAction: not a step\n```";
    assert_eq!(
        j(&format!(
            "Action: write\nAction Input: {document}\nObservation: done"
        )),
        action("write", json!(document))
    );
    // A reply cut inside the fence: the input runs to its end.
    assert_eq!(
        j("Action: write\nAction Input: notes.md:\n```\nFinal Answer: in the file"),
        action("write", json!("notes.md:\n```\nFinal Answer: in the file"))
    );
    // A label after the block closes still ends the input.
    assert_eq!(
        j("Action: write\nAction Input: a:\n```\nx\n```\nThought: next"),
        action("write", json!("a:\n```\nx\n```"))
    );
}

// A bare `Answer:` in the middle of a line is the answer only right after
// a sentence ends (a streamed reply whose `Thought` label was eaten).
#[test]
fn a_bare_answer_mid_line_after_a_sentence() {
    assert_eq!(
        j("The user greeted me twice. Answer: Hello again! How can I help?"),
        final_answer("Hello again! How can I help?")
    );
    assert_eq!(j("Thought: I know it now。Answer: 42"), final_answer("42"));
    for text in [
        "The Answer: is not in the notes",
        "Thought: check the Answer: field\nAction: search\nAction Input: answer field",
    ] {
        assert_ne!(j(text)["kind"], "final", "{text}");
    }
}

// dspy's XML action: `<action>` around `<tool_name>` and `<arguments>` with
// `<arg key=…>` elements, after markdown heading labels.
#[test]
fn an_xml_action_with_argument_elements() {
    let text = "## thought:\nI need the entry point.\n\n## action:\n<action>\n<tool_name>search_files</tool_name>\n<arguments><arg key=\"pattern\">*.go</arg></arguments>\n</action>";
    assert_eq!(j(text), action("search_files", json!({"pattern": "*.go"})));
}

// A keyword call on the Action line cut off inside its string by the end
// of the reply (the token limit) keeps the text it has.
#[test]
fn a_keyword_call_cut_inside_its_string() {
    assert_eq!(
        j("Thought: done\nAction: finish(answer=\"The tallest is Everest, at 8"),
        final_answer("The tallest is Everest, at 8")
    );
    assert_eq!(
        j("Action: search(query='the tallest mount"),
        action("search", json!({"query": "the tallest mount"}))
    );
    // A closed string without its `)` is no cut call.
    assert!(is_error("Action: search(query='x' and more"));
}

// A JSON blob's tool name may have as many words as an `Action:` line's
// (crewAI's built-in tools have four), and a sentence is still no name.
#[test]
fn a_blob_names_a_tool_of_several_words() {
    assert_eq!(
        j("{\"tool_name\": \"ask the other agent\", \"arguments\": {\"task\": \"x\"}}"),
        action("ask the other agent", json!({"task": "x"}))
    );
    assert_ne!(
        j("{\"action\": \"I will now search the web for it\", \"action_input\": \"x\"}")["kind"],
        "action"
    );
}

// The ReAct lines written as the keys of one JSON object.
#[test]
fn react_labels_as_json_keys() {
    assert_eq!(
        j(
            "{\"Thought\": \"look it up\", \"Action\": \"search\",\n \"Action Input\": {\"query\": \"x\"}, \"Observation\": null}"
        ),
        action("search", json!({"query": "x"}))
    );
    assert_eq!(
        j("{\"Thought\": \"done\", \"Final Answer\": \"the answer\"}"),
        final_answer("the answer")
    );
    // A key written the plain way wins over one that becomes it.
    assert_eq!(
        j("{\"Action\": \"other\", \"action\": \"search\", \"action_input\": \"x\"}"),
        action("search", json!("x"))
    );
    // Only the top level: the arguments keep their keys.
    assert_eq!(
        j("{\"Action\": \"search\", \"Action-Input\": {\"Query Text\": \"x\"}}"),
        action("search", json!({"Query Text": "x"}))
    );
}

// Data with a name, or a to-do with a long name and no input, is no call:
// the answer after it stands.
#[test]
fn data_and_to_dos_in_json_are_not_calls() {
    for text in [
        "Thought: Found the record\n{\"Name\": \"A Person\", \"Parameters\": {\"age\": 31}}\nFinal Answer: the age",
        "Thought: The follow-up is\n{\"action\": \"Send the contract to them\", \"due\": \"Friday\"}\nFinal Answer: the follow-up",
    ] {
        assert_eq!(j(text)["kind"], "final", "{text}");
    }
}

// ChatGLM3's header continues a reply, but not after a step.
#[test]
fn a_chatglm_header_after_a_step_ends_the_reply() {
    assert_eq!(
        j("Final Answer: the answer\n<|assistant|>search\n```python\ntool_call(query='x')\n```"),
        final_answer("the answer")
    );
    assert_eq!(
        j("Let me look.\n<|assistant|>search\n```python\ntool_call(query='x')\n```"),
        action("search", json!({"query": "x"}))
    );
}

// An `Action:` line that only comments on the step, with the blob below.
#[test]
fn a_comment_on_the_action_line_above_its_blob() {
    let text = "Thought: two lookups\nAction: (for the first number)\n```\n{\"action\": \"search\", \"action_input\": \"the first number\"}\n```";
    assert_eq!(j(text), action("search", json!("the first number")));
    // A comment with nothing under it still names no tool.
    assert!(is_error("Action: (for the first number)\nAction Input: x"));
}

// Simon Willison's loop: `Action: <tool>: <input>`, then `PAUSE`.
#[test]
fn the_willison_action_line_holds_its_input_after_a_colon() {
    assert_eq!(
        j("Thought: I need the cost\nAction: lookup_price: <item>\nPAUSE"),
        action("lookup_price", json!("<item>"))
    );
    assert_eq!(
        j("Action: search: {\"query\": \"<words>\"}"),
        action("search", json!({"query": "<words>"}))
    );
    // An Action Input line after it wins.
    assert_eq!(
        j("Action: search: <words>\nAction Input: {\"query\": \"<other>\"}"),
        action("search", json!({"query": "<other>"}))
    );
    // Two calls packed on the line, or a URL, are not one call.
    assert!(is_error(
        "Action: lookup_price: <a>; lookup_price: <b>\nPAUSE"
    ));
    assert!(is_error("Action: https://<host>/<path>"));
}

// An `Action:` line that names no tool, then the answer at once.
#[test]
fn an_unusable_action_line_right_before_the_answer_gives_the_answer() {
    assert_eq!(
        j("Thought: I know this\nAction: I will answer from what I know.\nFinal Answer: <answer>"),
        final_answer("<answer>")
    );
    // With a made-up observation between them the step is broken.
    assert!(is_error(
        "Action: I will answer from what I know.\nObservation: <made up>\nFinal Answer: <answer>"
    ));
}

// Other agent frameworks' step formats.
#[test]
fn autogpt_commands_dspy_fields_and_fenced_answer_calls() {
    assert_eq!(
        j(
            "{\"thoughts\": {\"text\": \"<thought>\", \"plan\": \"-\"}, \"command\": {\"name\": \"search\", \"args\": {\"query\": \"<words>\"}}}"
        ),
        action("search", json!({"query": "<words>"}))
    );
    assert_eq!(
        j(
            "[[ ## next_thought ## ]]\n<thought>\n\n[[ ## next_tool_name ## ]]\nsearch\n\n[[ ## next_tool_args ## ]]\n{\"query\": \"<words>\"}\n\n[[ ## completed ## ]]"
        ),
        action("search", json!({"query": "<words>"}))
    );
    assert_eq!(
        j("Thought: done\nFinal Answer:\n```py\nfinal_answer(\"<answer>\")\n```"),
        final_answer("<answer>")
    );
    assert_eq!(
        j("Final Answer:\n```py\nfinal_answer(answer=42)\n```"),
        final_answer("42")
    );
    // Two calls in the fence are not one answer: the text stands.
    assert_eq!(
        j("Final Answer:\n```py\nfinal_answer(\"a\") + final_answer(\"b\")\n```")["answer"],
        "```py\nfinal_answer(\"a\") + final_answer(\"b\")\n```"
    );
    // A Portuguese bare answer label.
    assert_eq!(j("RESPOSTA: <resposta>"), final_answer("<resposta>"));
}

// Inputs typed with another language's punctuation: typographic quotes
// and full-width JSON marks read as ASCII, and a plain input wrapped in
// typographic quotes or corner brackets loses them.
#[test]
fn typographic_quotes_and_full_width_marks_in_inputs() {
    let step = |input: &str| {
        j(&format!(
            "Thought: look it up\nAction: search\nAction Input: {input}"
        ))
    };
    let tokyo = action("search", json!({"query": "Tokyo"}));
    for input in [
        "{“query”: “Tokyo”}",
        "{„query“: „Tokyo“}",
        "{‘query’: ‘Tokyo’}",
        "｛\"query\"：\"Tokyo\"｝",
        "{\"query\"：\"Tokyo\"，}",
        "［{\"query\": \"Tokyo\"}］",
    ] {
        let parsed = step(input);
        let expected = if input.starts_with('［') {
            action("search", json!([{"query": "Tokyo"}]))
        } else {
            tokyo.clone()
        };
        assert_eq!(parsed, expected, "{input}");
    }
    for input in ["“Tokyo”", "«Tokyo»", "„Tokyo“", "「Tokyo」"] {
        assert_eq!(step(input), action("search", json!("Tokyo")), "{input}");
    }
    // Such marks inside JSON that reads as written stay in its strings.
    assert_eq!(
        step("{\"query\": \"东京，人口\"}"),
        action("search", json!({"query": "东京，人口"}))
    );
}
