//! `json`: [`agent_text::parse_lenient`], the lenient JSON repair.
//! Oracles: the returned offset lies within the text, on a char boundary;
//! and text that is valid strict JSON (per `serde_json`) reads as the same
//! value, with only whitespace after it — unless it nests deeper than the
//! documented bound.

use std::hint::black_box;
use std::time::Instant;

use agent_text::parse_lenient;
use serde_json::Value;

use super::parser::json_kind;
use super::{Outcome, Target, Violation, check_cut, nanos_since, signature};
use crate::fuzz::case::Case;
use crate::fuzz::seeds::SeedSet;

/// Nesting at which the lenient reader may refuse what strict JSON accepts.
const DEPTH_BOUND: usize = 128;

const DICTIONARY: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "'",
    "\\",
    "\\\"",
    "\\n",
    "\\u",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ud83d",
    "\\ude00",
    "\\uZZZZ",
    ":",
    ",",
    " ",
    "\n",
    "true",
    "True",
    "false",
    "False",
    "null",
    "None",
    "-",
    "+",
    ".",
    "e",
    "E",
    "0",
    "-0",
    "1e400",
    "-1e-400",
    "0.1",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "1.5e308",
    "//",
    "/*",
    "*/",
    "$",
    "_",
    "key",
    "\"k\": ",
    "{\"a\": ",
    "[1, ",
    "é",
    "中文",
    "😀",
    "：",
    "\u{0}",
    "\u{1f}",
];

/// The lenient JSON target.
#[derive(Debug)]
pub(crate) struct Json;

impl Target for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn seeds(&self) -> SeedSet {
        SeedSet::Json
    }

    fn dictionary(&self) -> &'static [&'static str] {
        DICTIONARY
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, Violation> {
        let text = case.text.as_str();
        let start = Instant::now();
        let lenient = black_box(parse_lenient(black_box(text)));
        let nanos = nanos_since(start);
        if let Some((_, offset)) = &lenient {
            check_cut("json-offset", text, *offset, "the offset")?;
        }
        if let Ok(strict) = serde_json::from_str::<Value>(text) {
            check_strict(text, &strict, lenient.as_ref())?;
        }
        let signature = match &lenient {
            None => signature(&[b"none"]),
            Some((value, offset)) => signature(&[
                &[json_kind(value)],
                &[u8::from(*offset == text.len())],
                &[u8::from(text[*offset..].trim().is_empty())],
            ]),
        };
        Ok(Outcome { nanos, signature })
    }
}

/// Strict JSON must read as the same value, ending where the value ends.
fn check_strict(
    text: &str,
    strict: &Value,
    lenient: Option<&(Value, usize)>,
) -> Result<(), Violation> {
    let oracle = "json-strict";
    match lenient {
        None if depth(strict) >= DEPTH_BOUND => Ok(()),
        None => Err(Violation::new(oracle, "refused", "valid JSON was refused")),
        Some((value, _)) if value != strict => Err(Violation::new(
            oracle,
            first_difference(strict, value),
            format!("valid JSON {strict} was read as {value}"),
        )),
        Some((_, offset))
            if !text[*offset..]
                .trim_matches([' ', '\t', '\n', '\r'])
                .is_empty() =>
        {
            Err(Violation::new(
                oracle,
                "stopped early",
                format!("valid JSON read only up to byte {offset}"),
            ))
        }
        Some(_) => Ok(()),
    }
}

/// The kind of the first place where `a` and `b` differ, so different
/// bugs are reported apart.
fn first_difference(a: &Value, b: &Value) -> &'static str {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .find(|(p, q)| p != q)
            .map_or("different array", |(p, q)| first_difference(p, q)),
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => x
            .iter()
            .find_map(|(k, p)| match y.get(k) {
                Some(q) if q == p => None,
                Some(q) => Some(first_difference(p, q)),
                // Keys are strings: a key read differently is a string bug.
                None => Some("different string"),
            })
            .unwrap_or("different object"),
        (Value::Number(_), Value::Number(_)) => "different number",
        (Value::String(_), Value::String(_)) => "different string",
        (Value::Object(_), Value::Object(_)) => "different object size",
        (Value::Array(_), Value::Array(_)) => "different array length",
        _ => "different type",
    }
}

/// Nesting depth of a value (scalars are 0).
fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_are_classified_by_their_first_leaf() {
        assert_eq!(
            first_difference(&json!([1, {"a": "x"}]), &json!([1, {"a": "y"}])),
            "different string"
        );
        assert_eq!(
            first_difference(&json!({"a": 1}), &json!({"b": 1})),
            "different string"
        );
        assert_eq!(
            first_difference(&json!([1]), &json!([1.5])),
            "different number"
        );
        assert_eq!(first_difference(&json!([1]), &json!({})), "different type");
        assert_eq!(depth(&json!([[1], {"a": [[]]}])), 4);
        assert!(check_strict("[1] ", &json!([1]), Some(&(json!([1]), 3))).is_ok());
        assert!(check_strict("[1] x", &json!([1]), Some(&(json!([1]), 3))).is_err());
    }
}
