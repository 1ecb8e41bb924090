//! The tolerant ReAct parser: a pure function from model text to a
//! [`Parsed`] decision. It follows the corpus contract:
//!
//! 1. The first complete step wins: `Action` + `Action Input`, or
//!    `Final Answer` / `Answer`, whichever completes first; the rest is
//!    speculation and is dropped.
//! 2. A hallucinated `Observation` (with or without colon) ends the step,
//!    and so does a partial `Observ` at the very end.
//! 3. Inputs: a ```` ``` ```` fence is stripped when it holds JSON; JSON is
//!    read leniently (see [`parse_lenient`](crate::parse_lenient)); other
//!    text is kept trimmed, minus one pair of wrapping quotes.
//! 4. Labels are matched leniently: case, indentation, markdown bold, step
//!    numbers (`Action 2:`), `_` for space. Paper style `Tool[arg]` is an
//!    action and `Finish[x]` a final answer; a JSON blob with `action` and
//!    `action_input` is an action too.
//! 5. No markers, an `Action` with no input, and empty output are errors —
//!    never silently a final answer (unless `implicit_final_answer`).
//! 6. The parser is syntactic: unknown tool names are returned as written.
//!
//! It scans each line once and looks at a bounded prefix for labels, so it
//! runs in linear time on any input.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::lenient_json::parse_lenient;

/// The decision parsed from one model output. Its JSON form is stable:
/// `{"kind":"action","tool":…,"input":…}`, `{"kind":"final","answer":…}`,
/// `{"kind":"error","reason":…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Parsed {
    /// Call `tool` with `input` (a JSON value, or a string).
    Action {
        /// The tool name as written.
        tool: String,
        /// The input.
        input: Value,
        /// The reasoning before the action.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        thought: Option<String>,
        /// Bytes of the text that make up the step (the rest is dropped).
        #[serde(skip)]
        end: usize,
    },
    /// The final answer.
    Final {
        /// The answer.
        answer: String,
        /// The reasoning before it.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        thought: Option<String>,
        /// Bytes of the text that make up the step.
        #[serde(skip)]
        end: usize,
    },
    /// The output cannot be used; the reason is shown to the model.
    Error {
        /// What is wrong.
        reason: String,
    },
}

impl Parsed {
    /// The stable JSON form (without `thought`).
    pub fn to_json(&self) -> Value {
        match self {
            Parsed::Action { tool, input, .. } => {
                serde_json::json!({"kind": "action", "tool": tool, "input": input})
            }
            Parsed::Final { answer, .. } => serde_json::json!({"kind": "final", "answer": answer}),
            Parsed::Error { reason } => serde_json::json!({"kind": "error", "reason": reason}),
        }
    }
}

/// Parser options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Treat text with no markers at all as the final answer (off by default).
    pub implicit_final_answer: bool,
}

/// A ReAct label at the start of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    Thought,
    Action,
    ActionInput,
    Observation,
    FinalAnswer,
}

/// Longest label prefix examined, in bytes.
const LABEL_WINDOW: usize = 40;

/// Recognizes a label line; returns the label and the byte offset of the
/// value within `line`.
fn label_of(line: &str) -> Option<(Label, usize)> {
    let start = line.len() - line.trim_start().len();
    let mut rest = &line[start..];
    let mut offset = start;
    for prefix in ["**", "*", "#", "- "] {
        if let Some(r) = rest.strip_prefix(prefix) {
            rest = r.trim_start_matches('#').trim_start();
            offset = line.len() - rest.len();
            break;
        }
    }
    let window_end = rest
        .char_indices()
        .take_while(|(i, _)| *i < LABEL_WINDOW)
        .last()
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    let window = &rest[..window_end];
    let colon = window.find(':');
    let head_end = colon.unwrap_or(window.len());
    let head: String = window[..head_end]
        .chars()
        .filter(|c| *c != '*')
        .map(|c| {
            if c == '_' {
                ' '
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    let head = head
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim();
    let head = head
        .strip_prefix("step ")
        .map(|h| h.trim_start_matches(|c: char| c.is_ascii_digit()).trim())
        .unwrap_or(head);
    let words: Vec<&str> = head.split_whitespace().collect();
    let value_at = |colon: usize| {
        let after = &rest[colon + 1..];
        let after = after.trim_start_matches('*');
        offset + (rest.len() - after.len())
    };
    if let Some(colon) = colon {
        let label = match words.as_slice() {
            ["thought"] | ["thoughts"] | ["thinking"] => Some(Label::Thought),
            ["action"] => Some(Label::Action),
            ["action", "input"] | ["actioninput"] | ["action", "inputs"] => {
                Some(Label::ActionInput)
            }
            ["observation"] | ["observations"] => Some(Label::Observation),
            ["final", "answer"] | ["finalanswer"] | ["answer"] => Some(Label::FinalAnswer),
            _ => None,
        };
        if let Some(label) = label {
            return Some((label, value_at(colon)));
        }
    }
    // `Observation` without a colon still ends a step.
    let lowered = rest.trim_end().to_ascii_lowercase();
    if lowered == "observation" || lowered.starts_with("observation ") {
        return Some((Label::Observation, line.len()));
    }
    None
}

struct Line<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let end = start + piece.len();
        let content = piece.strip_suffix('\n').unwrap_or(piece);
        let content = content.strip_suffix('\r').unwrap_or(content);
        out.push(Line {
            text: content,
            start,
            end,
        });
        start = end;
    }
    out
}

/// Removes a partial stop token (`Observ`, `Obs`…) on the last line.
fn strip_partial_observation(text: &str) -> &str {
    let trimmed = text.trim_end();
    if let Some(nl) = trimmed.rfind('\n') {
        let last = trimmed[nl + 1..].trim().to_ascii_lowercase();
        if last.len() >= 3 && "observation".starts_with(&last) {
            return &trimmed[..nl];
        }
    }
    text
}

fn clean(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Parses one model output.
pub fn parse(text: &str) -> Parsed {
    parse_with(text, ParseOptions::default())
}

/// Parses one model output with options.
pub fn parse_with(text: &str, options: ParseOptions) -> Parsed {
    let text = strip_partial_observation(text);
    if text.trim().is_empty() {
        return Parsed::Error {
            reason: "the reply was empty".into(),
        };
    }
    let lines = lines(text);
    let mut thought = String::new();
    let mut saw_marker = false;
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        match label_of(line.text) {
            Some((Label::Thought, at)) => {
                saw_marker = true;
                push_thought(&mut thought, &line.text[at..]);
            }
            Some((Label::Observation, _)) => saw_marker = true,
            Some((Label::FinalAnswer, at)) => {
                let (answer, end) = collect_until_label(&lines, i, at);
                let Some(answer) = clean(&answer) else {
                    return Parsed::Error {
                        reason: "the Final Answer was empty".into(),
                    };
                };
                return Parsed::Final {
                    answer,
                    thought: clean(&thought),
                    end,
                };
            }
            Some((Label::ActionInput, _)) => {
                return Parsed::Error {
                    reason: "found `Action Input:` without an `Action:` line before it".into(),
                };
            }
            Some((Label::Action, at)) => {
                return parse_action(&lines, i, at, clean(&thought));
            }
            None => {
                let trimmed = line.text.trim_start();
                if trimmed.starts_with("```") || trimmed.starts_with('{') {
                    if let Some(parsed) = json_blob(text, line.start, clean(&thought)) {
                        return parsed;
                    }
                }
                push_thought(&mut thought, line.text);
            }
        }
        i += 1;
    }
    if options.implicit_final_answer && !saw_marker {
        if let Some(answer) = clean(text) {
            return Parsed::Final {
                answer,
                thought: None,
                end: text.len(),
            };
        }
    }
    Parsed::Error {
        reason: if saw_marker {
            "the reply has no `Action:` with `Action Input:` and no `Final Answer:`".into()
        } else {
            "the reply has no `Thought:`/`Action:`/`Action Input:` or `Final Answer:` lines".into()
        },
    }
}

fn push_thought(thought: &mut String, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if !thought.is_empty() {
        thought.push('\n');
    }
    thought.push_str(text);
}

/// The value of the label on line `i` (from byte `at`) plus the following
/// lines up to the next label line. Returns the text and where it ends.
fn collect_until_label(lines: &[Line<'_>], i: usize, at: usize) -> (String, usize) {
    let mut out = String::from(&lines[i].text[at..]);
    let mut end = lines[i].end;
    for line in &lines[i + 1..] {
        if label_of(line.text).is_some() {
            break;
        }
        out.push('\n');
        out.push_str(line.text);
        end = line.end;
    }
    (out, end)
}

fn parse_action(lines: &[Line<'_>], i: usize, at: usize, thought: Option<String>) -> Parsed {
    let mut name = lines[i].text[at..].trim().to_string();
    let mut j = i + 1;
    // Paper style: `Action: Search[entity]` / `Finish[answer]`.
    if let Some(parsed) = paper_style(&name, lines[i].end, thought.clone()) {
        return parsed;
    }
    // The name may be on the next line (`Action:\n  Terminal`), or a JSON blob may follow.
    if name.is_empty() {
        while j < lines.len() && lines[j].text.trim().is_empty() {
            j += 1;
        }
        if j < lines.len() && label_of(lines[j].text).is_none() {
            let candidate = lines[j].text.trim();
            if candidate.starts_with("```") || candidate.starts_with('{') {
                let joined: String = lines[j..].iter().map(|l| format!("{}\n", l.text)).collect();
                if let Some(parsed) = json_blob_in(&joined, lines[j].start, thought.clone()) {
                    return parsed;
                }
            }
            name = candidate.to_string();
            j += 1;
        }
    }
    let name = tool_name(&name);
    let Some(name) = name else {
        return Parsed::Error {
            reason: "the `Action:` line does not name a tool".into(),
        };
    };
    while j < lines.len() {
        match label_of(lines[j].text) {
            Some((Label::ActionInput, at)) => {
                let (raw, end) = collect_until_label(lines, j, at);
                return Parsed::Action {
                    tool: name,
                    input: decode_input(&raw),
                    thought,
                    end,
                };
            }
            Some(_) => break,
            None => j += 1,
        }
    }
    Parsed::Error {
        reason: format!("`Action: {name}` has no `Action Input:` line after it"),
    }
}

/// Cleans a tool name: drops a trailing `(description)`, wrapping quotes,
/// backticks and bold. Refuses names that are clearly not one name.
fn tool_name(raw: &str) -> Option<String> {
    let mut name = raw.trim();
    if let Some(paren) = name.find('(') {
        if paren > 0 {
            name = name[..paren].trim();
        }
    }
    let name = name
        .trim_matches(|c: char| c == '`' || c == '"' || c == '\'' || c == '*')
        .trim();
    let name = name.strip_prefix("functions.").unwrap_or(name);
    if name.is_empty() || name.contains(':') || name.chars().count() > 64 {
        return None;
    }
    Some(name.to_string())
}

/// `Search[entity]` → action; `Finish[answer]` → final answer.
fn paper_style(value: &str, end: usize, thought: Option<String>) -> Option<Parsed> {
    let open = value.find('[')?;
    let inner = value.strip_suffix(']')?.get(open + 1..)?;
    let name = value[..open].trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    if name.eq_ignore_ascii_case("finish") {
        return Some(Parsed::Final {
            answer: inner.trim().to_string(),
            thought,
            end,
        });
    }
    Some(Parsed::Action {
        tool: name.to_string(),
        input: Value::String(inner.trim().to_string()),
        thought,
        end,
    })
}

/// A JSON blob (`{"action": …, "action_input": …}`), fenced or not,
/// starting at byte `from` of `text`.
fn json_blob(text: &str, from: usize, thought: Option<String>) -> Option<Parsed> {
    json_blob_in(&text[from..], from, thought)
}

fn json_blob_in(text: &str, offset: usize, thought: Option<String>) -> Option<Parsed> {
    let body = text.trim_start();
    let skipped = text.len() - body.len();
    let (body, fence_len) = match body.strip_prefix("```") {
        Some(after) => {
            let nl = after.find('\n')?;
            (&after[nl + 1..], 3 + nl + 1)
        }
        None => (body, 0),
    };
    let (value, used) = parse_lenient(body)?;
    let object = value.as_object()?;
    let action = object.get("action")?.as_str()?.trim().to_string();
    let input = object
        .get("action_input")
        .or_else(|| object.get("action_inputs"))
        .or_else(|| object.get("input"))
        .cloned()
        .unwrap_or(Value::Object(serde_json::Map::new()));
    let mut end = offset + skipped + fence_len + used;
    if fence_len > 0 {
        if let Some(close) = text[end - offset..].find("```") {
            end += close + 3;
        }
    }
    if action.eq_ignore_ascii_case("final answer") || action.eq_ignore_ascii_case("final_answer") {
        let answer = match input {
            Value::String(s) => s,
            other => other.to_string(),
        };
        return Some(Parsed::Final {
            answer: answer.trim().to_string(),
            thought,
            end,
        });
    }
    Some(Parsed::Action {
        tool: tool_name(&action)?,
        input: normalize_blob_input(input),
        thought,
        end,
    })
}

fn normalize_blob_input(input: Value) -> Value {
    match input {
        Value::String(s) => decode_input(&s),
        other => other,
    }
}

/// Decodes an `Action Input` value (rule 3).
pub fn decode_input(raw: &str) -> Value {
    let text = raw.trim();
    if text.is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    // A fence is stripped only when it holds JSON.
    if let Some(after) = text.strip_prefix("```") {
        let inner = after.split_once('\n').map_or("", |(_, rest)| rest);
        let inner = inner.trim_end().strip_suffix("```").unwrap_or(inner).trim();
        if let Some(value) = json_object_or_array(inner) {
            return value;
        }
        return Value::String(text.to_string());
    }
    if let Some(value) = embedded_object(text) {
        return value;
    }
    if text.starts_with('[') {
        if let Some(value) = json_object_or_array(text) {
            return value;
        }
    }
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        if !value.is_object() && !value.is_array() {
            return value;
        }
    }
    Value::String(unquote(text).to_string())
}

fn json_object_or_array(text: &str) -> Option<Value> {
    let (value, _) = parse_lenient(text)?;
    (value.is_object() || value.is_array()).then_some(value)
}

/// An object starting at the first `{`, when what precedes it is a short
/// prefix on the same line (`** {…}`, `QueryEngineTool({…})`).
fn embedded_object(text: &str) -> Option<Value> {
    let brace = text.find('{')?;
    let prefix = &text[..brace];
    if prefix.len() > 40 || prefix.contains('\n') {
        return None;
    }
    let (value, _) = parse_lenient(&text[brace..])?;
    value.is_object().then_some(value)
}

/// Removes one pair of wrapping quotes or backticks, or a lone unbalanced
/// leading or trailing quote.
fn unquote(text: &str) -> &str {
    for q in ['"', '\'', '`'] {
        if text.len() >= 2 && text.starts_with(q) && text.ends_with(q) {
            return text[1..text.len() - 1].trim();
        }
    }
    for q in ['"', '\'', '`'] {
        if let Some(rest) = text.strip_prefix(q) {
            if !rest.contains(q) {
                return rest.trim();
            }
        }
        if let Some(rest) = text.strip_suffix(q) {
            if !rest.contains(q) {
                return rest.trim();
            }
        }
    }
    text
}
