//! Tool calls written in a model family's own tool-call format instead of
//! ReAct lines. Models trained on one format fall back to it when a prompt
//! asks for another, most of all small local ones:
//!
//! - a bare JSON array of calls, `[{"name": …, "arguments": …}]`;
//! - Mistral's `[TOOL_CALLS]`, followed by such an array or object, or by
//!   `name[ARGS]{…}` (with an optional `[CALL_ID]…` before `[ARGS]`);
//! - Llama 3.1's `<|python_tag|>` (Llama 4's `<|python_start|>`) before a JSON call, and its
//!   `<function=name>{…}</function>`;
//! - Qwen3-Coder's `<function=name>` with one `<parameter=key>value
//!   </parameter>` per argument (inside `<tool_call>` tags); both
//!   `<function=…>` blocks are read by
//!   [`agent_core::family_calls::read_function_tag`], which the native
//!   transport shares;
//! - a family's marker before a JSON call or list of calls (Granite's
//!   `<|tool_call|>`, Nemotron's `<TOOLCALL>`, Phi-4-mini's `functools`;
//!   see [`agent_core::family_calls::json_call_marker_len`]);
//! - Llama 3.2's Python-style list, `[name(key=value, …)]`, and Gemma's
//!   fenced `` ```tool_code `` block holding `name(key=value, …)` (or
//!   Gemini's `print(default_api.name(…))`);
//! - Gemma's own `call:name{key:value}` syntax (see [`crate::gemma`]).
//!
//! Each is read into the same [`Blob`] a JSON action is: the first call is
//! the step, and the text before it is the thought. Python-style calls must
//! use keyword arguments (or none): `print(x)` in a fence is code, not a
//! call.

use agent_core::family_calls::{
    FUNCTION_CLOSE, FUNCTION_OPEN, FunctionBody, FunctionTagReading, json_call_marker_len,
    read_function_tag,
};
use serde_json::{Map, Value};

use crate::action::keyword_arguments;
use crate::blob::{Blob, from_object, skip_space};
use crate::input::decode_input;
use crate::lenient_json::read_lenient;

/// Mistral's marker before its calls.
const MISTRAL_CALLS: &str = "[TOOL_CALLS]";

/// The markers before a call: Llama 3.1's `<|python_tag|>` and Llama 4's
/// `<|python_start|>` (its `<|python_end|>` after the call is not needed).
pub(crate) const PYTHON_TAGS: [&str; 2] = ["<|python_tag|>", "<|python_start|>"];
/// Gemma's fence tag for a call.
pub(crate) const TOOL_CODE_FENCE: &str = "```tool_code";
/// How far a name, with Mistral's call id, may run before its `[ARGS]`
/// or its tag's `>`, in bytes.
const NAME_WINDOW: usize = 256;
/// How far a Python-style call's arguments may run, in bytes. Bounded,
/// like every search from a candidate line, so that text full of lines
/// that open a call and never close it is still read in linear time.
pub(crate) const CALL_WINDOW: usize = 16 * 1024;

/// Whether a line (trimmed at its start) opens a call in one of these
/// formats, or in `<tool_call>` tags (Qwen's and Hermes' wrapper, around
/// JSON or a `<function=…>`).
pub(crate) fn opens_call(line: &str) -> bool {
    line.starts_with(MISTRAL_CALLS)
        || line.starts_with("<tool_call>")
        || PYTHON_TAGS.iter().any(|tag| line.starts_with(tag))
        || line.starts_with(FUNCTION_OPEN)
        || line.starts_with(TOOL_CODE_FENCE)
        || crate::gemma::opens_gemma_call(line)
        || json_call_marker_len(line).is_some()
        || line.strip_prefix('[').is_some_and(|rest| {
            let rest = rest.trim_start();
            rest.starts_with('{') || python_call_name(rest).is_some()
        })
}

/// Reads a call in one of these formats at byte `p` (its first non-space
/// byte). `None` when nothing at `p` is one of them; the JSON forms after
/// Llama's `<|python_tag|>` are left to the caller, which skips the tag
/// and reads on.
pub(crate) fn read_call(text: &str, p: usize) -> Option<Blob> {
    let rest = &text[p..];
    if let Some(after) = rest.strip_prefix(MISTRAL_CALLS) {
        let at = skip_space(text, p + MISTRAL_CALLS.len());
        let next = after.trim_start();
        if next.starts_with('[') || next.starts_with('{') {
            return Some(read_json_calls(text, at));
        }
        return Some(mistral_named(text, at));
    }
    if rest.starts_with(FUNCTION_OPEN) {
        return Some(function_tag(text, p));
    }
    if let Some(blob) = crate::gemma::read_gemma_call(text, p) {
        return Some(blob);
    }
    // A list, unless a bracketed marker opens it (`[TOOL_REQUEST]{…}`).
    if rest.starts_with('[') && json_call_marker_len(rest).is_none() {
        let inner = skip_space(text, p + 1);
        if text[inner..].starts_with('{') {
            return Some(read_json_calls(text, p));
        }
        return Some(python_list(text, p));
    }
    // Another family's marker before JSON calls (Granite, Nemotron,
    // Phi-4-mini…); tags that hold a step and Llama's tags are read by
    // their own readers.
    let own_reader = PYTHON_TAGS.iter().any(|tag| rest.starts_with(tag))
        || crate::xml_tags::opens_tag_step(rest);
    if !own_reader && let Some(json_at) = json_call_marker_len(rest) {
        // LFM2 writes a Python-style list after its marker.
        let at = p + json_at;
        let inner = skip_space(text, at + 1);
        if text[at..].starts_with('[') && python_call_name(&text[inner..]).is_some() {
            return Some(python_list(text, at));
        }
        return Some(read_json_calls(text, at));
    }
    None
}

/// A JSON array of calls (its first object is the step) or one call
/// object, starting at `at`.
fn read_json_calls(text: &str, at: usize) -> Blob {
    let (value, used) = match read_lenient(&text[at..]) {
        Ok(found) => found,
        Err(stop) => return Blob::Failed { stop: at + stop },
    };
    let end = at + used;
    let first = match value {
        Value::Array(calls) => calls.into_iter().find_map(|call| match call {
            Value::Object(object) => Some(object),
            _ => None,
        }),
        Value::Object(object) => Some(object),
        _ => None,
    };
    match first {
        Some(object) => from_object(object, end),
        None => Blob::NotAction { end },
    }
}

/// Mistral's `name[ARGS]{…}`, maybe with `[CALL_ID]id` before `[ARGS]`.
fn mistral_named(text: &str, at: usize) -> Blob {
    let rest = &text[at..];
    let Some(args) = window(rest, NAME_WINDOW).find("[ARGS]") else {
        return Blob::Failed { stop: at };
    };
    let head = &rest[..args];
    let name = head.split("[CALL_ID]").next().unwrap_or(head).trim();
    if !is_identifier(name) {
        return Blob::Failed { stop: at };
    }
    let json_at = skip_space(text, at + args + "[ARGS]".len());
    match read_lenient(&text[json_at..]) {
        Ok((input, used)) => Blob::Action {
            tool: name.to_string(),
            input,
            thought: None,
            end: json_at + used,
        },
        Err(stop) => Blob::Failed {
            stop: json_at + stop,
        },
    }
}

/// `<function=name>` followed by a JSON object or by `<parameter=key>`
/// elements, then `</function>` (and a `</tool_call>` around it), read on
/// through `text` by [`read_function_tag`]. Each parameter's value is read
/// as [`decode_input`] reads an `Action Input:` (JSON, or plain text), an
/// element without a key is dropped, and a JSON body is read leniently.
fn function_tag(text: &str, p: usize) -> Blob {
    let Some(tag) = read_function_tag(text, p, FunctionTagReading::Stream) else {
        return Blob::Failed { stop: p };
    };
    if !is_identifier(tag.name) {
        return Blob::Failed { stop: p };
    }
    let (input, after) = match tag.body {
        FunctionBody::Parameters {
            parameters, end, ..
        } => {
            let arguments = parameters
                .iter()
                .filter(|parameter| !parameter.key.is_empty())
                .map(|parameter| (parameter.key.to_string(), decode_input(parameter.value)))
                .collect();
            (Value::Object(arguments), end)
        }
        FunctionBody::Empty { end } => (Value::Object(Map::new()), end),
        FunctionBody::Json(span) => {
            let at = span.start;
            match read_lenient(&text[at..]) {
                Ok((input, used)) => (input, at + used),
                Err(stop) => return Blob::Failed { stop: at + stop },
            }
        }
    };
    let mut end = after;
    for closer in [FUNCTION_CLOSE, "</tool_call>"] {
        let next = skip_space(text, end);
        if text[next..].starts_with(closer) {
            end = next + closer.len();
        }
    }
    Blob::Action {
        tool: tag.name.to_string(),
        input,
        thought: None,
        end,
    }
}

/// `[name(key=value, …), …]`: the first call is the step.
fn python_list(text: &str, p: usize) -> Blob {
    let at = skip_space(text, p + 1);
    match python_call(text, at) {
        Ok((tool, input, after)) => {
            // More calls may follow after a comma: the step ends with the
            // first; a lone call ends with the list.
            let next = skip_space(text, after);
            let end = if text[next..].starts_with(']') {
                next + 1
            } else {
                after
            };
            Blob::Action {
                tool,
                input,
                thought: None,
                end,
            }
        }
        Err(stop) => Blob::Failed { stop },
    }
}

/// A Python-style call at `at` as the step: after Llama's
/// `<|python_tag|>`, or in Gemma's `tool_code` fence (`in_fence`), whose
/// closing fence the step then takes too.
pub(crate) fn python_step(text: &str, at: usize, in_fence: bool) -> Option<Blob> {
    let (tool, input, mut end) = python_call(text, at).ok()?;
    let next = skip_space(text, end);
    if in_fence && text[next..].starts_with("```") {
        end = next + 3;
    }
    Some(Blob::Action {
        tool,
        input,
        thought: None,
        end,
    })
}

/// A Python-style call `name(key=value, …)` at `at` (after a Llama
/// `<|python_tag|>` or inside a `tool_code` fence): the tool, its
/// arguments and the byte after `)`. A `.call` after the name (Llama's
/// built-in tools) is dropped. Unless every argument is a keyword
/// argument, `Err` with the byte reading got to: candidates before it
/// need no second look.
fn python_call(text: &str, at: usize) -> Result<(String, Value, usize), usize> {
    let rest = &text[at..];
    let name_len = python_call_name(rest).ok_or(at)?;
    let name = rest[..name_len].trim_end();
    let name = name.strip_suffix(".call").unwrap_or(name);
    // Gemini's `default_api.` before the tool's name.
    let name = name.strip_prefix("default_api.").unwrap_or(name);
    let open = at + name_len;
    let close = matching_paren(text, open)?;
    // `print(<call>)`, as Gemini writes its calls in a `tool_code` fence.
    if name == "print" {
        let inner = skip_space(text, open + 1);
        // One `print` around the call, not one inside another.
        if text[inner..].starts_with("print(") {
            return Err(close);
        }
        let (tool, input, end) = python_call(text, inner)?;
        return if skip_space(text, end) == close {
            Ok((tool, input, close + 1))
        } else {
            Err(close)
        };
    }
    let args = text[open + 1..close].trim();
    let input = if args.is_empty() {
        Value::Object(Map::new())
    } else {
        keyword_arguments(args).ok_or(close)?
    };
    Ok((name.to_string(), input, close + 1))
}

/// The length of `name` in `name(` at the start of `text` (a dotted
/// identifier), when a `(` follows it.
fn python_call_name(text: &str) -> Option<usize> {
    let len = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(text.len());
    let name = &text[..len];
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_');
    (starts_well && text[len..].starts_with('(')).then_some(len)
}

/// The byte of the `)` that closes the `(` at `open`, skipping quoted
/// strings and nested brackets; `Err` with the byte the search got to.
pub(crate) fn matching_paren(text: &str, open: usize) -> Result<usize, usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let region = window(&text[open..], CALL_WINDOW);
    for (i, c) in region.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1).ok_or(open + i)?;
                if depth == 0 {
                    return if c == ')' {
                        Ok(open + i)
                    } else {
                        Err(open + i)
                    };
                }
            }
            _ => {}
        }
    }
    Err(open + region.len())
}

/// The first `max` bytes of `text` (fewer, to end on a character).
pub(crate) fn window(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}
