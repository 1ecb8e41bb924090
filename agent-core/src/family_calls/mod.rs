//! Tool calls written in a model family's own tagged format, as a server
//! that does not parse them hands them over as text:
//!
//! - DeepSeek V3/R1's `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` with a
//!   fenced JSON body, and V3.1's `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}`,
//!   each up to `<｜tool▁call▁end｜>` (the tokens may also come spelled with
//!   ASCII `|` and `_`);
//! - `<invoke name="NAME">` holding `<parameter name="KEY">VALUE</parameter>`
//!   elements, the tag names maybe prefixed, and not always the same way
//!   on both tags (MiniMax-M2 inside `<minimax:tool_call>`, DeepSeek
//!   V3.2's and V4's `<｜DSML｜invoke …>`, the `<function_calls>` wrapper
//!   other models learned), or `<function name="NAME">` with `<param
//!   name="KEY">` (MiniCPM) or `<parameter …>` (Seed);
//! - GLM-4.5's `<tool_call>NAME` followed by `<arg_key>KEY</arg_key>`
//!   `<arg_value>VALUE</arg_value>` pairs (LongCat's tags add a
//!   `longcat_` prefix), or by a JSON object, maybe fenced (DeepSeek V4's
//!   degenerate `<｜DSML｜toolcall>NAME`);
//! - Functionary's `>>>NAME` line before a JSON object (its `>>>all` line
//!   opens prose for the user instead: [`functionary_prose`]);
//! - ChatGLM3's `<|assistant|>NAME` header line (or `NAME` alone on its
//!   line, when a server strips the special token) before a fenced
//!   `tool_call(key=value, …)` ([`opens_chatglm_call`] tells a reader that
//!   cuts a reply at a leaked `<|assistant|>` not to cut there).
//!
//! [`read_family_calls`] reads them in one forward pass; both transports
//! use it after their own readers: the text transport takes the first
//! call as the step, the native transport executes them all. A value in
//! an element is JSON when it reads as JSON (numbers, booleans, objects),
//! else its text, unless the element says `string="true"`.
//!
//! [`json_call_marker_len`] finds another kind of family format: a marker
//! before a JSON call or array of calls (Granite's `<|tool_call|>`,
//! Nemotron's `<TOOLCALL>`, `<tool_calls>`, Phi-4-mini's `functools`,
//! InternLM's `<|action_start|><|plugin|>`, LM Studio's `[TOOL_REQUEST]`,
//! LFM2's `<|tool_call_start|>` before a Python-style list), which each
//! transport's JSON (or Python-style) reader then reads;
//! [`find_json_call_marker`] finds one after prose.
//!
//! [`read_function_tag`] reads Llama 3.1's and Qwen3-Coder's
//! `<function=NAME>` block (a JSON object or `<parameter=KEY>` elements,
//! then `</function>`) into its raw pieces: each transport finds the block
//! with its own readers and decodes the values its own way, so it is not
//! one of [`read_family_calls`]'s formats.
//!
//! This module owns the reading (the calls' types, [`read_family_calls`]'s
//! pass over the formats) and the JSON call markers; each format reads in
//! its own submodule (`deepseek`, `invoke`, `glm`, `functionary`,
//! `chatglm`, `function_tag`), with `json_body` for arguments written as
//! a JSON object and `shared` for the helpers they all use.

mod chatglm;
mod deepseek;
mod function_tag;
mod functionary;
mod glm;
mod invoke;
mod json_body;
mod shared;

use serde_json::Value;

use chatglm::{chatglm_call, find_chatglm};
use deepseek::{CALL_BEGIN, CALLS_BEGIN, deepseek_call, find_token};
use functionary::{find_functionary, functionary_call};
use glm::{find_glm, glm_call};
use invoke::{find_invoke, invoke_call, wrapper_start};

pub use chatglm::opens_chatglm_call;
pub use function_tag::{
    FUNCTION_CLOSE, FUNCTION_OPEN, FunctionBody, FunctionParameter, FunctionTag,
    FunctionTagReading, read_function_tag,
};
pub use functionary::functionary_prose;
pub use invoke::read_argument_elements;
pub use json_body::strip_fence;
pub(crate) use shared::window;

/// How long one marker before a JSON call may be, in bytes.
const MARKER_WINDOW: usize = 40;
/// How many markers may stand in a row before a JSON call.
const MAX_MARKERS: usize = 3;
/// Bare words that mark a JSON call or call list (Phi-4-mini's
/// `functools[…]`, LM Studio's `[TOOL_REQUEST]{…}[END_TOOL_REQUEST]`).
const MARKER_WORDS: [&str; 2] = ["functools", "[TOOL_REQUEST]"];

/// The calls of a reply written in a family's tagged format.
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyCalls {
    /// Where the prose before the calls (and their wrapper) ends.
    pub prose_end: usize,
    /// The calls, in order, up to the first one that could not be read.
    pub calls: Vec<FamilyCall>,
    /// `true` when every call the reply opened was read to its end.
    pub complete: bool,
}

/// One call: the tool and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyCall {
    /// The tool, as written.
    pub name: String,
    /// The arguments: an object, or the raw text when a JSON body does not
    /// parse (so the tool gateway says what is wrong with it).
    pub arguments: Value,
    /// Where the call ends (after its closing tag or token, or the end of
    /// a reply cut inside it).
    pub end: usize,
}

/// A read call, and whether it was read whole (to its closing tag or
/// token, or, for JSON arguments, to the end of the object).
type Read = (FamilyCall, bool);

/// The calls in `text`, or `None` when it opens none in these formats.
pub fn read_family_calls(text: &str) -> Option<FamilyCalls> {
    // Every format opens with a tag (`<`, `>`) or a fence: most replies
    // have none.
    if !text.contains(['<', '>', '`']) {
        return None;
    }
    let openers: [(Option<usize>, Format); 5] = [
        (
            find_token(text, 0, CALL_BEGIN).map(|(at, _)| at),
            Format::DeepSeek,
        ),
        (find_invoke(text, 0).map(|found| found.lt), Format::Invoke),
        (find_glm(text, 0), Format::Glm),
        (find_functionary(text, 0), Format::Functionary),
        (find_chatglm(text, 0), Format::ChatGlm),
    ];
    let (first, format) = openers
        .into_iter()
        .filter_map(|(at, format)| at.map(|at| (at, format)))
        .min_by_key(|(at, _)| *at)?;
    let prose_end = match format {
        Format::DeepSeek => find_token(&text[..first], 0, CALLS_BEGIN).map_or(first, |(at, _)| at),
        Format::Invoke => wrapper_start(text, first),
        Format::Glm | Format::Functionary | Format::ChatGlm => first,
    };
    let mut calls = Vec::new();
    let mut at = first;
    loop {
        let read = match format {
            Format::DeepSeek => deepseek_call(text, at),
            Format::Invoke => invoke_call(text, at),
            Format::Glm => glm_call(text, at),
            Format::Functionary => functionary_call(text, at),
            Format::ChatGlm => chatglm_call(text, at),
        };
        let Some((call, closed)) = read else {
            return Some(FamilyCalls {
                prose_end,
                calls,
                complete: false,
            });
        };
        let end = call.end;
        calls.push(call);
        let next = if closed {
            match format {
                Format::DeepSeek => find_token(text, end, CALL_BEGIN).map(|(at, _)| at),
                Format::Invoke => find_invoke(text, end).map(|found| found.lt),
                Format::Glm => find_glm(text, end),
                Format::Functionary => find_functionary(text, end),
                Format::ChatGlm => find_chatglm(text, end),
            }
        } else {
            None
        };
        match next {
            Some(found) => at = found,
            None => {
                return Some(FamilyCalls {
                    prose_end,
                    calls,
                    complete: closed,
                });
            }
        }
    }
}

/// The length of the family markers at the start of `line` before a JSON
/// call (`{`) or list of calls (`[`): the offset of that bracket. `None`
/// when the line does not open with a marker followed by one. Markers are
/// special tokens (`<|…|>`), tags without spaces (`<TOOLCALL>`) and the
/// marker words (Phi-4-mini's `functools`, LM Studio's
/// `[TOOL_REQUEST]`); what follows may also be a Python-style list
/// (LFM2). Whether it is a call is for the caller to check.
pub fn json_call_marker_len(line: &str) -> Option<usize> {
    let mut at = 0;
    let mut markers = 0;
    while markers <= MAX_MARKERS {
        let rest = &line[at..];
        if markers > 0 && (rest.starts_with('{') || rest.starts_with('[')) {
            return Some(at);
        }
        let len = marker_at(rest)?;
        markers += 1;
        at += len;
        at += line[at..].len() - line[at..].trim_start().len();
    }
    None
}

/// The first place in `text` where family markers open a JSON call (see
/// [`json_call_marker_len`]), after prose on the same line too: where the
/// markers start, and where the JSON starts.
pub fn find_json_call_marker(text: &str) -> Option<(usize, usize)> {
    text.char_indices()
        .filter(|(_, c)| *c == '<' || MARKER_WORDS.iter().any(|w| w.starts_with(*c)))
        .find_map(|(at, _)| json_call_marker_len(&text[at..]).map(|len| (at, at + len)))
}

/// The length of one marker at the start of `rest`.
fn marker_at(rest: &str) -> Option<usize> {
    if let Some(word) = MARKER_WORDS.iter().find(|word| rest.starts_with(**word)) {
        return Some(word.len());
    }
    let inner = rest.strip_prefix('<')?;
    if inner.starts_with('/') {
        return None;
    }
    let close = window(inner, MARKER_WINDOW).find('>').filter(|&n| n > 0)?;
    let name = &inner[..close];
    let plain = name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '|' | '_' | '-' | ':' | '｜' | '▁'));
    plain.then_some(close + 2)
}

#[derive(Debug, Clone, Copy)]
enum Format {
    DeepSeek,
    Invoke,
    Glm,
    Functionary,
    ChatGlm,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first call in `text`, and whether the reply was read whole.
    pub(super) fn first(text: &str) -> (String, Value, bool) {
        let read = read_family_calls(text).unwrap();
        let call = read.calls.first().unwrap();
        (call.name.clone(), call.arguments.clone(), read.complete)
    }

    #[test]
    fn markers_before_json_calls() {
        for line in [
            "<|tool_call|>[{\"name\": \"a\"}]",
            "<TOOLCALL>[{\"name\": \"a\"}]</TOOLCALL>",
            "<tool_calls> [{\"name\": \"a\"}]",
            "functools[{\"name\": \"a\"}]",
            "<|action_start|><|plugin|>\n{\"name\": \"a\"}",
            "[TOOL_REQUEST]\n{\"name\": \"a\"}\n[END_TOOL_REQUEST]",
            "<|tool_call_start|>[a(k=1)]<|tool_call_end|>",
        ] {
            let at = json_call_marker_len(line).unwrap();
            assert!(line[at..].starts_with(['[', '{']), "{line}");
        }
        for line in [
            "{\"name\": \"a\"}",
            "</x>{}",
            "<a b>{}",
            "<answer>42",
            "functools",
        ] {
            assert_eq!(json_call_marker_len(line), None, "{line}");
        }
    }

    #[test]
    fn odd_text_is_not_a_call_and_never_panics() {
        for text in [
            "invoke name=\"x\">",
            "<invoke name=\"a b\">",
            "<tool_call>",
            "<｜tool▁call▁begin｜>",
            "é<invoke name=\"ü\"",
            "ééééééééééééééééééééé<invoke name=\"x\">",
            ">>>",
        ] {
            let _ = read_family_calls(text);
        }
        assert!(read_family_calls("Plain prose with a <tag> and >>> arrows.").is_none());
    }
}
