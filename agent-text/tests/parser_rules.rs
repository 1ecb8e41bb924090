//! Parser rules the corpus does not cover, a property test and a fuzz-style
//! test over mutated inputs, and a 200 kB input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_text::{ParseOptions, parse, parse_with};
use proptest::prelude::*;
use serde_json::{Value, json};

fn j(text: &str) -> Value {
    parse(text).to_json()
}

fn action(tool: &str, input: Value) -> Value {
    json!({"kind": "action", "tool": tool, "input": input})
}

#[test]
fn labels_drift_in_case_spacing_numbers_and_markup() {
    let expected = action("search", json!({"query": "x"}));
    assert_eq!(
        j("THOUGHT: go\nACTION: search\nACTION INPUT: {\"query\": \"x\"}"),
        expected
    );
    assert_eq!(
        j("Thought 1: go\nAction 1: search\nAction Input 1: {\"query\": \"x\"}"),
        expected
    );
    assert_eq!(
        j("**Thought:** go\n**Action:** search\n**Action Input:** {\"query\": \"x\"}"),
        expected
    );
    assert_eq!(
        j("thought:go\naction :search\naction_input: {'query': 'x'}"),
        expected
    );
    assert_eq!(
        j("Action: functions.search\nAction Input: {\"query\": \"x\"}"),
        expected
    );
    assert_eq!(
        j("Action: `search`\nAction Input: {\"query\": \"x\",}"),
        expected
    );
}

#[test]
fn fences_python_literals_and_unclosed_input() {
    assert_eq!(
        j("Action: add\nAction Input: ```json\n{\"a\": 1, \"ok\": True, \"none\": None}\n```"),
        action("add", json!({"a": 1, "ok": true, "none": null}))
    );
    // Unclosed fence.
    assert_eq!(
        j("Action: add\nAction Input: ```json\n{\"a\": 1}"),
        action("add", json!({"a": 1}))
    );
    // Unclosed braces (cut by max tokens).
    assert_eq!(
        j("Action: add\nAction Input: {\"a\": {\"b\": 2"),
        action("add", json!({"a": {"b": 2}}))
    );
}

#[test]
fn hallucinated_observations_end_the_step_and_are_never_trusted() {
    let expected = action("calculator", json!("2+2"));
    assert_eq!(
        j("Action: calculator\nAction Input: 2+2\nObservation: 5\nFinal Answer: 5"),
        expected
    );
    assert_eq!(
        j("Action: calculator\nAction Input: 2+2\nObservation\n5"),
        expected
    );
    assert_eq!(j("Action: calculator\nAction Input: 2+2\nObserv"), expected);
    assert_eq!(
        j("Action: calculator\nAction Input: 2+2\n  observation: 5"),
        expected
    );
    // The final answer, too, ends at a fake observation.
    assert_eq!(
        j("Final Answer: 4\nObservation: the user is happy"),
        json!({"kind": "final", "answer": "4"})
    );
}

#[test]
fn paper_style_and_answer_endings() {
    assert_eq!(
        j("Thought 1: look it up\nAction 1: Search[Paris]"),
        action("Search", json!("Paris"))
    );
    assert_eq!(
        j("Action 3: Finish[65,900,000]"),
        json!({"kind": "final", "answer": "65,900,000"})
    );
    assert_eq!(
        j("Thought: done\nAnswer: 42"),
        json!({"kind": "final", "answer": "42"})
    );
}

#[test]
fn errors_are_never_silent_final_answers() {
    for text in [
        "",
        "   \n ",
        "just prose",
        "Thought: hmm",
        "Action: search",
        "Action Input: x",
        "Action:\nAction Input: x",
    ] {
        assert_eq!(j(text)["kind"], "error", "{text:?}");
        assert!(j(text)["reason"].as_str().is_some_and(|r| !r.is_empty()));
    }
    let implicit = ParseOptions {
        implicit_final_answer: true,
    };
    assert_eq!(
        parse_with("The answer is 4.", implicit).to_json(),
        json!({"kind": "final", "answer": "The answer is 4."})
    );
    // With markers present, implicit mode still refuses broken steps.
    assert_eq!(
        parse_with("Action: search", implicit).to_json()["kind"],
        "error"
    );
}

#[test]
fn the_first_complete_step_wins() {
    assert_eq!(
        j("Action: a\nAction Input: 1\nAction: b\nAction Input: 2"),
        action("a", json!(1))
    );
    assert_eq!(
        j("Final Answer: x\nAction: b\nAction Input: 2"),
        json!({"kind": "final", "answer": "x"})
    );
}

#[test]
fn a_200_kb_input_parses() {
    let big = format!(
        "Thought: {}\nAction: search\nAction Input: {{\"query\": \"{}\"}}",
        "x".repeat(100_000),
        "y".repeat(100_000)
    );
    assert_eq!(j(&big)["kind"], "action");
    let no_markers = "Thought: ".to_string() + &"ab ".repeat(70_000);
    assert_eq!(j(&no_markers)["kind"], "error");
    let braces = format!("Action: t\nAction Input: {}", "{\"a\":".repeat(50_000));
    let _ = j(&braces);
}

fn corpus_texts() -> &'static [String] {
    static TEXTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(|| {
        include_str!("data/react_parse_cases.jsonl")
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|c| c["text"].as_str().map(str::to_string))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_text_never_panics(text in "(?s).{0,300}") {
        let _ = parse(&text);
        let _ = parse_with(&text, ParseOptions { implicit_final_answer: true });
    }

    #[test]
    fn mutated_corpus_cases_never_panic(index in 0usize..66, cut in 0usize..400, insert in "(?s).{0,5}") {
        let texts = corpus_texts();
        let text = &texts[index % texts.len()];
        let mut at = cut.min(text.len());
        while !text.is_char_boundary(at) { at -= 1; }
        let _ = parse(&text[..at]);
        let mutated = format!("{}{}{}", &text[..at], insert, &text[at..]);
        let _ = parse(&mutated);
    }
}

// Label soup is slow to generate in debug builds; `cargo xtask fuzz` does the
// heavy fuzzing.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn label_soup_never_panics(parts in proptest::collection::vec(
        prop_oneof![
            Just("Thought:".to_string()), Just("Action:".to_string()), Just("Action Input:".to_string()),
            Just("Observation".to_string()), Just("Final Answer:".to_string()), Just("\n".to_string()),
            Just("{".to_string()), Just("}".to_string()), Just("\"".to_string()), Just("'".to_string()),
            Just("```".to_string()), Just("[".to_string()), Just("]".to_string()), Just("word ".to_string()),
            Just("： ".to_string()), Just("(".to_string()), Just(")".to_string()), Just("中文".to_string()),
            Just("é".to_string()), Just("\\".to_string()),
        ], 0..40)) {
        let _ = parse(&parts.concat());
    }
}

// The stream watcher: whatever the chunking, the same cut, on a character
// boundary, never past the text; and the cut text parses to the same step.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_watcher_cuts_the_same_way_however_the_stream_is_chunked(
        thought in "(?s)[a-zé中🚀 .:]{0,60}",
        input in prop_oneof![
            Just("{\"q\": \"中文 é\"}".to_string()),
            Just("population of Paris".to_string()),
            Just("```json\n{\"a\": [1, 2]}\n```".to_string()),
            Just("[1, 2, 3]".to_string()),
        ],
        splits in proptest::collection::vec(0usize..400, 0..6),
    ) {
        use agent_core::transport::StreamWatcher;
        let text = format!("Thought: {thought}\nAction: search\nAction Input: {input}\nObservation: 假的 fake");
        let whole = {
            let mut w = agent_text::ActionWatcher::new();
            w.push(&text)
        };
        let mut cuts: Vec<usize> = splits
            .iter()
            .map(|s| {
                let mut at = s % (text.len() + 1);
                while !text.is_char_boundary(at) { at -= 1; }
                at
            })
            .collect();
        cuts.sort_unstable();
        cuts.push(text.len());
        let mut w = agent_text::ActionWatcher::new();
        let mut from = 0;
        let mut chunked = None;
        for cut in cuts {
            if cut < from { continue; }
            if let Some(end) = w.push(&text[from..cut]) { chunked = Some(end); break; }
            from = cut;
        }
        prop_assert_eq!(whole, chunked);
        let end = whole.expect("the action completes");
        prop_assert!(text.is_char_boundary(end) && end <= text.len());
        prop_assert_eq!(parse(&text[..end]).to_json(), parse(&text).to_json());
    }
}
