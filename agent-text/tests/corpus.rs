//! Every case of the shared corpus, of the outputs quoted in other
//! frameworks' bug reports, and of tool calls written in model families'
//! own formats, through the parser, compared with its `expect`
//! (kind, tool, input, answer; strings compared trimmed).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_text::parse;
use serde_json::Value;

fn trimmed(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(s.trim().to_string()),
        other => other.clone(),
    }
}

#[test]
fn all_corpus_cases_parse_as_expected() {
    check_cases(include_str!("data/react_parse_cases.jsonl"), 66);
}

#[test]
fn all_outputs_quoted_in_bug_reports_parse_as_expected() {
    check_cases(include_str!("data/bug_report_cases.jsonl"), 60);
}

#[test]
fn outputs_in_other_languages_parse_as_expected() {
    check_cases(include_str!("data/non_english_outputs.jsonl"), 54);
}

#[test]
fn more_real_outputs_parse_as_expected() {
    check_cases(include_str!("data/more_real_outputs.jsonl"), 53);
}

#[test]
fn outputs_of_small_local_models_parse_as_expected() {
    check_cases(include_str!("data/small_model_outputs.jsonl"), 39);
}

#[test]
fn outputs_of_reasoning_models_parse_as_expected() {
    check_cases(include_str!("data/reasoning_outputs.jsonl"), 21);
}

#[test]
fn outputs_of_other_agent_frameworks_parse_as_expected() {
    check_cases(include_str!("data/agent_framework_outputs.jsonl"), 18);
}

#[test]
fn calls_in_families_own_formats_parse_as_expected() {
    check_cases(include_str!("data/family_calls.jsonl"), 27);
}

#[test]
fn outputs_in_notebooks_and_issue_threads_parse_as_expected() {
    check_cases(include_str!("data/notebook_and_issue_outputs.jsonl"), 47);
}

#[test]
fn outputs_of_local_models_in_notebooks_and_threads_parse_as_expected() {
    check_cases(include_str!("data/local_model_outputs.jsonl"), 39);
}

#[test]
fn outputs_in_agent_lab_logs_and_fixtures_parse_as_expected() {
    check_cases(include_str!("data/lab_log_outputs.jsonl"), 50);
}

#[test]
fn outputs_of_courses_and_local_runs_in_more_languages_parse_as_expected() {
    check_cases(include_str!("data/more_languages_outputs.jsonl"), 40);
}

/// Whether a case's text parses to its `expect`.
fn matches_expect(case: &Value) -> bool {
    let expect = &case["expect"];
    let got = parse(case["text"].as_str().unwrap()).to_json();
    got["kind"] == expect["kind"]
        && match expect["kind"].as_str().unwrap() {
            "action" => {
                trimmed(&got["tool"]) == trimmed(&expect["tool"])
                    && trimmed(&got["input"]) == trimmed(&expect["input"])
            }
            "final" => trimmed(&got["answer"]) == trimmed(&expect["answer"]),
            _ => true,
        }
}

/// Parses every case of a JSONL corpus and compares it with its `expect`.
fn check_cases(data: &str, expected_count: usize) {
    let mut failures = Vec::new();
    let mut count = 0;
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        count += 1;
        let case: Value = serde_json::from_str(line).unwrap();
        if !matches_expect(&case) {
            let (id, expect) = (case["id"].as_str().unwrap(), &case["expect"]);
            let got = parse(case["text"].as_str().unwrap()).to_json();
            failures.push(format!("{id}: expected {expect}, got {got}"));
        }
    }
    assert_eq!(count, expected_count);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
