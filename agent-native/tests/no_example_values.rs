//! No prompt, tool description or argument description holds a concrete
//! example value: small models copy what they see (an example expression
//! sent word for word, a sample path turned into a directory, a `"..."`
//! placeholder sent as an argument). Formats are shown with placeholders.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_core::message::ToolSpec;
use agent_core::{Completion, Findings, Transport};
use agent_native::{DEFAULT_SYSTEM_PROMPT, NativeTransport};
use agent_text::{Dialect, PromptBuilder, TextTransport};
use agent_tools::builtin;
use serde_json::Value;

/// Fragments of `text` that look like example values.
fn example_values(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let lower = text.to_lowercase();
    for phrase in [
        "e.g.",
        "for example",
        "for instance",
        "such as",
        "example:",
        "\"...\"",
    ] {
        if lower.contains(phrase) {
            found.push(phrase.to_string());
        }
    }
    // Quoted strings: a value a model could send.
    for (i, part) in text.split('"').enumerate() {
        if i % 2 == 1 && !part.trim().is_empty() {
            found.push(format!("\"{part}\""));
        }
    }
    // Backticked tokens with a digit, a path separator or a file extension.
    for (i, part) in text.split('`').enumerate() {
        let looks_like_value = part.chars().any(|c| c.is_ascii_digit())
            || part.contains('/')
            || part.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && ext.len() <= 4
                    && ext.chars().all(|c| c.is_ascii_alphabetic())
                    && !ext.is_empty()
            });
        if i % 2 == 1 && looks_like_value {
            found.push(format!("`{part}`"));
        }
    }
    // Numbers of two digits or more, as words of their own (a position in
    // an error, "line 1, column 18", is not an example).
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    for (i, word) in words.iter().enumerate() {
        let position = i > 0 && matches!(words[i - 1], "line" | "column");
        if !position && word.len() >= 2 && word.chars().all(|c| c.is_ascii_digit()) {
            found.push((*word).to_string());
        }
    }
    found
}

fn descriptions(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("description", Value::String(text)) => out.push(text.clone()),
                    _ => descriptions(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| descriptions(v, out)),
        _ => {}
    }
}

fn built_in_specs() -> Vec<ToolSpec> {
    let dir = tempfile::tempdir().unwrap();
    let tools = builtin::registry(&["calculator", "search", "files"], Some(dir.path()), false)
        .unwrap()
        .allow_all();
    agent_core::Toolbox::specs(&tools)
}

#[test]
fn the_checker_finds_the_examples_models_copied() {
    assert!(!example_values("An arithmetic expression, e.g. `(17 * 83) + 12 ** 3`.").is_empty());
    assert!(!example_values("Glob over paths, e.g. `**/*.rs` or `src/*.toml`.").is_empty());
    assert!(!example_values("Action Input: {\"query\": \"...\"}").is_empty());
    assert!(!example_values("Keywords to look up, like `population of France.txt`").is_empty());
    assert!(example_values("Path of the file, relative to the working directory.").is_empty());
}

#[test]
fn built_in_tools_describe_values_without_examples() {
    for spec in built_in_specs() {
        let mut texts = vec![spec.description.clone()];
        descriptions(&spec.parameters, &mut texts);
        for text in texts {
            let found = example_values(&text);
            assert!(found.is_empty(), "{}: {text:?} holds {found:?}", spec.name);
        }
    }
}

#[test]
fn default_prompts_and_corrections_hold_no_example_values() {
    let specs = built_in_specs();
    let mut texts: Vec<String> = [Dialect::Classic, Dialect::AnswerEnding, Dialect::Paper]
        .into_iter()
        .map(|dialect| {
            // The tool lines are checked above; the rest of the prompt here.
            PromptBuilder::new(dialect).system(&[])
        })
        .collect();
    texts.push(DEFAULT_SYSTEM_PROMPT.to_string());
    let text = TextTransport::new();
    let native = NativeTransport::new();
    for transport in [&text as &dyn Transport, &native] {
        for found in [Findings::Something, Findings::Nothing] {
            texts.push(transport.answer_request("<task>", found).content);
        }
        for message in transport.malformed("the reply was empty", &specs) {
            texts.push(message.content);
        }
        let input = "{\"expression\": 1 +}";
        let broken = Completion::text(format!("Action: calculator\nAction Input: {input}"));
        if let agent_core::transport::Decision::Malformed(reason) =
            transport.interpret(broken, &specs).turn.decision
        {
            // The text transport shows the JSON the model meant: its own
            // values, and none of ours.
            match reason.split_once("string values: ") {
                Some((ours, rest)) => {
                    let (meant, after) = rest.split_once("}.").unwrap_or((rest, ""));
                    assert_eq!(meant, "{\"expression\": \"1 +\"", "{reason}");
                    texts.push(format!("{ours}{after}"));
                }
                None => texts.push(reason),
            }
        }
    }
    for text in texts {
        let found = example_values(&text);
        assert!(found.is_empty(), "{text:?} holds {found:?}");
    }
}
