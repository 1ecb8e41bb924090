//! `parser`: [`agent_text::parse`] on whole completions. Oracle: the
//! `end` of an action or final answer lies within the text, on a char
//! boundary.

use std::hint::black_box;
use std::time::Instant;

use agent_text::{Parsed, parse};

use super::{Outcome, Target, Violation, check_cut, nanos_since, prefix, signature};
use crate::fuzz::case::Case;
use crate::fuzz::seeds::SeedSet;

/// ReAct labels and the punctuation the parser cares about.
pub(crate) const REACT_DICTIONARY: &[&str] = &[
    "Thought:",
    "Action:",
    "Action Input:",
    "Final Answer:",
    "Answer:",
    "Observation",
    "Observation:",
    "Observ",
    "\nObservation: ",
    "**Action:**",
    "Action 2:",
    "Step 1 Action:",
    "action_input:",
    "ACTION INPUT:",
    "Final_Answer:",
    "Thought：",
    "Action：",
    "- ",
    "# ",
    "**",
    "Search[",
    "Finish[",
    "[",
    "]",
    "{",
    "}",
    "{\"action\": \"",
    "\"action_input\": ",
    "\"",
    "'",
    "`",
    "\\",
    "\\\"",
    "\\u00e9",
    "\\ud83d",
    "```",
    "```json\n",
    "\n```\n",
    "\n",
    "\r\n",
    "\n\n",
    "    ",
    ":",
    ",",
    "//",
    "/*",
    "*/",
    "True",
    "None",
    "functions.",
    "(",
    ")",
    "中文",
    "é",
    "😀",
    "：",
    "\u{200b}",
];

/// The parser target.
#[derive(Debug)]
pub(crate) struct Parser;

impl Target for Parser {
    fn name(&self) -> &'static str {
        "parser"
    }

    fn seeds(&self) -> SeedSet {
        SeedSet::React
    }

    fn dictionary(&self) -> &'static [&'static str] {
        REACT_DICTIONARY
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, Violation> {
        let text = case.text.as_str();
        let start = Instant::now();
        let parsed = black_box(parse(black_box(text)));
        let nanos = nanos_since(start);
        let signature = match &parsed {
            Parsed::Action {
                tool,
                input,
                thought,
                end,
            } => {
                check_cut("parser-end", text, *end, "the action's end")?;
                signature(&[
                    b"action",
                    prefix(tool, 4),
                    &[json_kind(input), u8::from(thought.is_some())],
                    &[u8::from(*end == text.len())],
                ])
            }
            Parsed::Final {
                answer,
                thought,
                end,
            } => {
                check_cut("parser-end", text, *end, "the final answer's end")?;
                signature(&[
                    b"final",
                    &[u8::from(answer.contains('\n')), u8::from(thought.is_some())],
                    &[u8::from(*end == text.len())],
                ])
            }
            Parsed::Error { reason, .. } => signature(&[b"error", prefix(reason, 24)]),
        };
        Ok(Outcome { nanos, signature })
    }
}

/// A byte naming the JSON type of `value`.
pub(crate) fn json_kind(value: &serde_json::Value) -> u8 {
    match value {
        serde_json::Value::Null => b'n',
        serde_json::Value::Bool(_) => b'b',
        serde_json::Value::Number(_) => b'0',
        serde_json::Value::String(_) => b's',
        serde_json::Value::Array(_) => b'a',
        serde_json::Value::Object(_) => b'o',
    }
}
