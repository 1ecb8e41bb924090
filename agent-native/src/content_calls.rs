//! Tool calls that a local model writes into `content` instead of
//! `tool_calls`: a JSON object or array of `{"name", "arguments"}` (fenced
//! or not), `<tool_call>…</tool_call>` blocks (Hermes/Qwen style, around
//! JSON or Qwen3-Coder's `<function=name>` with `<parameter=key>`
//! elements), Llama 3.1's `<function=name>{…}</function>` (both read by
//! [`read_function_tag`], which the text transport shares) and
//! `<|python_tag|>` (Llama 4: `<|python_start|>…<|python_end|>`) around JSON,
//! GLM-4's offered tool name on a line of its own before its JSON
//! arguments, Kimi K2's `<|tool_call_begin|>…` tokens, the tagged formats of
//! DeepSeek, MiniMax, GLM and Functionary and the JSON after Granite's,
//! Nemotron's or Phi-4-mini's markers (see
//! [`family_calls`](agent_core::family_calls)), Llama 3.2's `[name(key=value)]` lists
//! (see [`agent_core::python_calls`]) and Gemma's `tool_code`
//! fence holding one such call, and Mistral's `[TOOL_CALLS]` before JSON
//! or `name[ARGS]{…}`: a server whose chat template does not know the
//! model's format hands it over as text.
//! OpenAI-style `{"tool_calls": […]}` or `{"function": {…}}` wrappers
//! printed as text are read for the calls inside them.
//! When the tool names are known, only those are recognised; otherwise an
//! object needs both `name` and `arguments` (or `parameters`). Ordinary
//! JSON answers stay answers.

use agent_core::ToolCall;
use agent_core::family_calls::{
    FUNCTION_CLOSE, FUNCTION_OPEN, FunctionBody, FunctionTagReading, find_json_call_marker,
    json_call_marker_len, read_family_calls, read_function_tag, strip_fence,
};
use agent_core::kimi::read_kimi_calls;

use agent_core::python_calls;
use serde_json::Value;

/// The tool calls in `content`, if it is made of them.
pub(crate) fn calls_in_content(content: &str, tool_names: &[&str]) -> Vec<ToolCall> {
    let text = content.trim();
    if text.is_empty() {
        return Vec::new();
    }
    let values = match call_values(text) {
        Some(values) if !values.is_empty() => values,
        _ => match named_json_call(text, tool_names) {
            Some(value) => vec![value],
            None => return Vec::new(),
        },
    };
    let calls: Vec<ToolCall> = values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let name = v.get("name").and_then(Value::as_str)?;
            let has_arguments = v.get("arguments").or_else(|| v.get("parameters")).is_some();
            let known = if tool_names.is_empty() {
                has_arguments
            } else {
                tool_names.contains(&name)
            };
            if !known {
                return None;
            }
            let arguments = v
                .get("arguments")
                .or_else(|| v.get("parameters"))
                .cloned()
                .unwrap_or(Value::Object(serde_json::Map::new()));
            let arguments = match arguments {
                Value::String(raw) => agent_core::model::parse_arguments(raw),
                // The arguments object wrapped in a list of one.
                Value::Array(mut items) if items.len() == 1 && items[0].is_object() => {
                    items.remove(0)
                }
                other => other,
            };
            Some(ToolCall::new(format!("content_call_{i}"), name, arguments))
        })
        .collect();
    // All or nothing: a half-recognised blob is not a tool call.
    if calls.len() == values.len() {
        calls
    } else {
        Vec::new()
    }
}

/// Calls written after prose (`I'll create the file.` then a
/// `<function=…>` block, or an apology then a JSON call): the first line
/// that opens a call, and all that follows it, must be calls to offered
/// tools; the prose before them is the model's thought. The calls must
/// end the reply (closing tags or tokens aside): a call between two pieces
/// of prose, or inside a fence the prose opened, is an example in an
/// answer. Only the first such line is tried, so reading stays linear.
/// `None` when no tools are offered: a call after prose is then an answer.
pub(crate) fn calls_after_prose(
    content: &str,
    tool_names: &[&str],
) -> Option<(String, Vec<ToolCall>)> {
    if tool_names.is_empty() {
        return None;
    }
    let at = content
        .match_indices('\n')
        .map(|(nl, _)| nl + 1)
        .map(|start| {
            let line = &content[start..];
            start + (line.len() - line.trim_start_matches([' ', '\t']).len())
        })
        .find(|&start| opens_call(&content[start..]))?;
    let in_fence = content[..at].matches("```").count() % 2 == 1;
    if in_fence || !ends_the_reply(&content[at..]) {
        return None;
    }
    let calls = calls_in_content(&content[at..], tool_names);
    (!calls.is_empty()).then(|| (content[..at].trim().to_string(), calls))
}

/// Whether the call that opens `text` runs to its end, closing tags and
/// tokens aside: a JSON value read whole, or a `<function=…>` block after
/// whose last `</function>` nothing but tags follows (one cut before its
/// closing tag runs to the end). Markers that only a call follows
/// (`[TOOL_CALLS]`, `<|python_tag|>`) end it by themselves.
fn ends_the_reply(text: &str) -> bool {
    if text.starts_with(['{', '[']) && !text.starts_with(MISTRAL_CALLS) {
        let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        return match values.next() {
            Some(Ok(_)) => only_tags(&text[values.byte_offset()..]),
            _ => false,
        };
    }
    if text.starts_with(FUNCTION_OPEN) {
        return text
            .rfind(FUNCTION_CLOSE)
            .is_none_or(|close| only_tags(&text[close + FUNCTION_CLOSE.len()..]));
    }
    true
}

/// Whether `line` opens a call in a format that must start the text it is
/// read from.
fn opens_call(line: &str) -> bool {
    [
        FUNCTION_OPEN,
        MISTRAL_CALLS,
        PYTHON_TAG,
        PYTHON_START,
        "{",
        "[",
    ]
    .iter()
    .any(|opener| line.starts_with(opener))
}

/// The name of the call `content` is, when it is one JSON call object
/// naming none of `tool_names`: a misspelled or made-up tool, which is no
/// answer either. A call object has `name`, an object (or JSON string) of
/// `arguments` or `parameters`, and at most an `id` and `type` besides,
/// so a function's schema or other data with a name stays an answer.
pub(crate) fn unknown_tool_call(content: &str, tool_names: &[&str]) -> Option<String> {
    if tool_names.is_empty() {
        return None;
    }
    let value = serde_json::from_str::<Value>(strip_fence(content.trim())).ok()?;
    let object = value.as_object()?;
    let name = object.get("name")?.as_str()?;
    let arguments = object
        .get("arguments")
        .or_else(|| object.get("parameters"))?;
    let only_call_keys = object.keys().all(|key| {
        matches!(
            key.as_str(),
            "name" | "arguments" | "parameters" | "id" | "type"
        )
    });
    let call_shaped = only_call_keys && (arguments.is_object() || arguments.is_string());
    (call_shaped && !tool_names.contains(&name)).then(|| name.to_string())
}

/// GLM-4's own call format: an offered tool's name alone on the first
/// line, its JSON arguments on the next (`NAME\n{…}`). Only a name the
/// run offers counts, so a word over a JSON answer stays an answer.
fn named_json_call(text: &str, tool_names: &[&str]) -> Option<Value> {
    let (name, rest) = text.split_once('\n')?;
    let name = name.trim();
    if !tool_names.contains(&name) {
        return None;
    }
    let arguments = serde_json::from_str::<Value>(strip_fence(rest)).ok()?;
    arguments.is_object().then(|| json_call(name, arguments))
}

/// The calls that end a model's reasoning, written in a family's own call
/// tokens or tags (DeepSeek V3.1 and V4, MiniMax and Qwen3.5 emit their
/// calls before closing their thinking, so a server puts them in the
/// reasoning): the prose before them, and the calls. Nothing but closing
/// tags may follow the calls, and every call must be whole; a JSON object
/// or a call mentioned mid-reasoning stays a draft, not a call.
pub(crate) fn calls_ending_reasoning(
    reasoning: &str,
    tool_names: &[&str],
) -> Option<(String, Vec<ToolCall>)> {
    let kimi = read_kimi_calls(reasoning)
        .filter(|read| read.complete)
        .and_then(|read| Some((read.prose_end, read.calls.last()?.end)));
    let family = || {
        read_family_calls(reasoning)
            .filter(|read| read.complete)
            .and_then(|read| Some((read.prose_end, read.calls.last()?.end)))
    };
    let (start, end) = kimi
        .or_else(family)
        .or_else(|| last_tool_call_blocks(reasoning))?;
    if !only_tags(&reasoning[end..]) {
        return None;
    }
    let calls = calls_in_content(&reasoning[start..], tool_names);
    (!calls.is_empty()).then(|| (reasoning[..start].trim().to_string(), calls))
}

/// The last run of `<tool_call>…</tool_call>` blocks in `text` (Hermes
/// and Qwen's tags, around JSON or `<function=…>`), with only space
/// between them: where it starts and ends. Each block is looked at once.
fn last_tool_call_blocks(text: &str) -> Option<(usize, usize)> {
    const OPEN: &str = "<tool_call>";
    const CLOSE: &str = "</tool_call>";
    let mut run: Option<(usize, usize)> = None;
    let mut search = 0;
    while let Some(n) = text[search..].find(OPEN) {
        let open = search + n;
        let close = open + text[open..].find(CLOSE)? + CLOSE.len();
        run = match run {
            Some((start, end)) if text[end..open].trim().is_empty() => Some((start, close)),
            _ => Some((open, close)),
        };
        search = close;
    }
    run
}

/// Whether `text` holds nothing but tags and tokens (`</…>`, `<｜…｜>`).
fn only_tags(text: &str) -> bool {
    let mut rest = text.trim();
    while let Some(after) = rest.strip_prefix('<') {
        let Some(close) = after.find('>') else {
            return false;
        };
        rest = after[close + 1..].trim_start();
    }
    rest.is_empty()
}

/// Whether `content` opens like a tool call written as text (a
/// `<tool_call>` tag or another family's call marker, or an object whose
/// first key is `name`) but could not be read as one: cut off at the token
/// limit, or broken JSON. Such a reply is no answer, whatever it holds.
pub(crate) fn looks_like_broken_call(content: &str) -> bool {
    let text = strip_fence(content.trim());
    if read_kimi_calls(text).is_some() || read_family_calls(text).is_some() {
        return true;
    }
    if [
        "<tool_call>",
        MISTRAL_CALLS,
        PYTHON_TAG,
        PYTHON_START,
        FUNCTION_OPEN,
    ]
    .iter()
    .any(|marker| text.starts_with(marker))
    {
        return true;
    }
    // After a family's marker, the JSON must open like a call too.
    let text = json_call_marker_len(text).map_or(text, |json_at| &text[json_at..]);
    let Some(rest) = text.strip_prefix('{').or_else(|| {
        text.strip_prefix('[')
            .and_then(|r| r.trim_start().strip_prefix('{'))
    }) else {
        return false;
    };
    let rest = rest.trim_start();
    rest.starts_with("\"name\"") && serde_json::from_str::<Value>(text).is_err()
}

/// Mistral's marker before its calls.
const MISTRAL_CALLS: &str = "[TOOL_CALLS]";
/// Llama 3.1's marker before a JSON call.
const PYTHON_TAG: &str = "<|python_tag|>";
/// Llama 4's markers around a JSON call.
const PYTHON_START: &str = "<|python_start|>";
const PYTHON_END: &str = "<|python_end|>";

/// The call objects (`name` with `arguments` or `parameters`) `text` is
/// made of, in whichever format it writes them; `None` when part of it
/// cannot be read.
fn call_values(text: &str) -> Option<Vec<Value>> {
    let mut values = Vec::new();
    if text.starts_with(MISTRAL_CALLS) {
        for piece in text.split(MISTRAL_CALLS).skip(1) {
            let piece = piece.trim();
            if piece.starts_with('[') || piece.starts_with('{') {
                push_json(&mut values, piece)?;
            } else {
                let (head, args) = piece.split_once("[ARGS]")?;
                let name = head.split("[CALL_ID]").next().unwrap_or(head).trim();
                let arguments = serde_json::from_str::<Value>(args.trim()).ok()?;
                values.push(json_call(name, arguments));
            }
        }
    } else if let Some(rest) = text.strip_prefix(PYTHON_TAG).or_else(|| {
        text.strip_prefix(PYTHON_START)
            .map(|rest| rest.split(PYTHON_END).next().unwrap_or(rest))
    }) {
        for value in serde_json::Deserializer::from_str(rest).into_iter::<Value>() {
            values.push(value.ok()?);
        }
    } else if let Some(read) = read_kimi_calls(text).filter(|read| !read.calls.is_empty()) {
        if !read.complete {
            return None;
        }
        for call in read.calls {
            let arguments = serde_json::from_str::<Value>(call.arguments).ok()?;
            values.push(json_call(call.name, arguments));
        }
    } else if let Some(read) = read_family_calls(text) {
        if !read.complete {
            return None;
        }
        for call in read.calls {
            values.push(json_call(&call.name, call.arguments));
        }
    } else if text.contains("<tool_call>") {
        for block in text.split("<tool_call>").skip(1) {
            let inner = block.split("</tool_call>").next().unwrap_or(block).trim();
            if inner.starts_with(FUNCTION_OPEN) {
                values.push(function_value(inner)?);
            } else if let Some(value) = leading_json(strip_fence(inner)) {
                push_value(&mut values, value);
            }
        }
    } else if text.starts_with(FUNCTION_OPEN) {
        // Each block runs to the next `<function=`.
        let starts: Vec<usize> = text
            .match_indices(FUNCTION_OPEN)
            .map(|(at, _)| at)
            .collect();
        let ends = starts.iter().skip(1).copied().chain([text.len()]);
        for (&start, end) in starts.iter().zip(ends) {
            values.push(function_value(&text[start..end])?);
        }
    } else if let Some((_, json_at)) = find_json_call_marker(text) {
        let rest = &text[json_at..];
        match leading_json(rest) {
            Some(value) => push_value(&mut values, value),
            // LFM2's Python-style list between its tokens.
            None => values = python_calls::call_list(rest.split("<|").next().unwrap_or(rest))?,
        }
    } else if let Some(calls) = python_calls::call_list(text) {
        values = calls;
    } else if text.starts_with("```tool_code") {
        // Gemma's fenced call: one Python-style call.
        values = python_calls::call_list(&format!("[{}]", strip_fence(text)))?;
    } else if let Some(value) = leading_json(strip_fence(text)) {
        push_value(&mut values, value);
    }
    Some(values)
}

/// Adds the call objects of one JSON text: an array's items, or itself.
fn push_json(values: &mut Vec<Value>, text: &str) -> Option<()> {
    push_value(values, leading_json(text)?);
    Some(())
}

/// The JSON value `text` opens with; text after it (a closing tag or
/// token) is left. A list of calls cut before its closing `]` is the
/// calls it holds whole, as models drop it.
fn leading_json(text: &str) -> Option<Value> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    if let Some(Ok(value)) = stream.next() {
        return Some(value);
    }
    let mut rest = text.strip_prefix('[')?;
    let mut items = Vec::new();
    loop {
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        let Some(Ok(item)) = stream.next() else {
            break;
        };
        items.push(item);
        rest = rest[stream.byte_offset()..].trim_start();
        match rest.strip_prefix(',') {
            Some(after) => rest = after,
            None => break,
        }
    }
    (!items.is_empty()).then_some(Value::Array(items))
}

/// Adds a call object, or each call of an array, or of an OpenAI-style
/// `{"tool_calls": […]}` wrapper printed as text.
fn push_value(values: &mut Vec<Value>, value: Value) {
    match value {
        Value::Array(items) => values.extend(items.into_iter().map(unwrapped_function)),
        Value::Object(mut object) if object.get("tool_calls").is_some_and(Value::is_array) => {
            if let Some(Value::Array(items)) = object.remove("tool_calls") {
                values.extend(items.into_iter().map(unwrapped_function));
            }
        }
        other => values.push(unwrapped_function(other)),
    }
}

/// The `{"name", "arguments"}` inside `{"type": "function", "function": …}`.
fn unwrapped_function(value: Value) -> Value {
    match value.get("function") {
        Some(function @ Value::Object(_)) if function.get("name").is_some_and(Value::is_string) => {
            function.clone()
        }
        _ => value,
    }
}

fn json_call(name: &str, arguments: Value) -> Value {
    serde_json::json!({"name": name, "arguments": arguments})
}

/// The call a `<function=name>` block is: `block` is cut out from one
/// `<function=` to the next (or inside `<tool_call>` tags), and read by
/// [`read_function_tag`] as a [`Block`](FunctionTagReading::Block). A
/// parameter's value is JSON when it reads as JSON, else its text; a
/// JSON body must be JSON to its end; a `<parameter=` without its `>`
/// makes it no call.
fn function_value(block: &str) -> Option<Value> {
    let tag = read_function_tag(block, 0, FunctionTagReading::Block)?;
    let arguments = match tag.body {
        FunctionBody::Empty { .. } => Value::Object(serde_json::Map::new()),
        FunctionBody::Parameters {
            parameters, whole, ..
        } => {
            if !whole {
                return None;
            }
            let arguments = parameters
                .iter()
                .map(|parameter| (parameter.key.to_string(), parameter.json_or_text()))
                .collect();
            Value::Object(arguments)
        }
        FunctionBody::Json(span) => serde_json::from_str::<Value>(&block[span]).ok()?,
    };
    Some(json_call(tag.name, arguments))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recognises_the_shapes_local_models_write() {
        let names = ["calculator"];
        let plain = calls_in_content(
            r#"{"name": "calculator", "arguments": {"expression": "2+2"}}"#,
            &names,
        );
        assert_eq!(plain[0].arguments, json!({"expression": "2+2"}));
        let fenced = calls_in_content(
            "```json\n{\"name\": \"calculator\", \"arguments\": \"{\\\"expression\\\": \\\"1\\\"}\"}\n```",
            &names,
        );
        assert_eq!(fenced[0].arguments, json!({"expression": "1"}));
        let tagged = calls_in_content(
            "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"3\"}}\n</tool_call>\n<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"4\"}}</tool_call>",
            &names,
        );
        assert_eq!(tagged.len(), 2);
        let array = calls_in_content(
            r#"[{"name": "calculator", "parameters": {"expression": "5"}}]"#,
            &names,
        );
        assert_eq!(array[0].arguments, json!({"expression": "5"}));
        // An OpenAI-style response part printed as text.
        let wrapped = calls_in_content(
            r#"{"tool_calls": [{"id": "1", "type": "function", "function": {"name": "calculator", "arguments": "{\"expression\": \"6\"}"}}]}"#,
            &names,
        );
        assert_eq!(wrapped[0].arguments, json!({"expression": "6"}));
        let function = calls_in_content(
            r#"{"type": "function", "function": {"name": "calculator", "arguments": {"expression": "7"}}}"#,
            &names,
        );
        assert_eq!(function[0].arguments, json!({"expression": "7"}));
    }

    #[test]
    fn other_families_formats_are_calls() {
        let names = ["calculator", "search"];
        let expected = json!({"query": "Berlin"});
        for content in [
            "[TOOL_CALLS] [{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}]",
            "[TOOL_CALLS]search[ARGS]{\"query\": \"Berlin\"}",
            "[TOOL_CALLS]search[CALL_ID]x1y2z3a4b[ARGS]{\"query\": \"Berlin\"}",
            "<|python_tag|>{\"name\": \"search\", \"parameters\": {\"query\": \"Berlin\"}}",
            "<|python_start|>{\"name\": \"search\", \"parameters\": {\"query\": \"Berlin\"}}<|python_end|>",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{\"query\": \"Berlin\"}<|tool_call_end|><|tool_calls_section_end|>",
            "<function=search>{\"query\": \"Berlin\"}</function>",
            "<tool_call>\n<function=search>\n<parameter=query>\nBerlin\n</parameter>\n</function>\n</tool_call>",
            "[search(query='Berlin')]",
            "```tool_code\nsearch(query=\"Berlin\")\n```",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{\"query\": \"Berlin\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            "<｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"query\": \"Berlin\"}<｜tool▁call▁end｜>",
            "<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"query\">Berlin</parameter>\n</invoke>\n</minimax:tool_call>",
            "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>Berlin</arg_value>\n</tool_call>",
            ">>>search\n{\"query\": \"Berlin\"}",
            "<|tool_call|>[{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}]",
            "<TOOLCALL>[{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}]</TOOLCALL>",
            "functools[{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}]",
            "<|assistant|>search\n```python\ntool_call(query=\"Berlin\")\n```",
            "[TOOL_REQUEST]\n{\"name\": \"search\", \"arguments\": {\"query\": \"Berlin\"}}\n[END_TOOL_REQUEST]",
            "<|tool_call_start|>[search(query=\"Berlin\")]<|tool_call_end|>",
            "{\"name\": \"search\", \"parameters\": [{\"query\": \"Berlin\"}]}",
            "Let me look.\nsearch\n```python\ntool_call(query='Berlin')\n```",
        ] {
            let calls = calls_in_content(content, &names);
            assert_eq!(calls.len(), 1, "{content}");
            assert_eq!(calls[0].name, "search");
            assert_eq!(calls[0].arguments, expected, "{content}");
        }
        // GLM-4: the name on its own line, then the arguments.
        let glm4 = calls_in_content("search\n{\"query\": \"Berlin\"}", &names);
        assert_eq!(
            (glm4[0].name.as_str(), &glm4[0].arguments),
            ("search", &expected)
        );
        assert!(calls_in_content("weather\n{\"query\": \"Berlin\"}", &names).is_empty());
        assert!(calls_in_content("search\n{\"query\": \"Berlin\"}", &[]).is_empty());
        let two = calls_in_content(
            "[TOOL_CALLS]search[ARGS]{\"query\": \"Berlin\"}[TOOL_CALLS]calculator[ARGS]{\"expression\": \"1 + 2\"}",
            &names,
        );
        assert_eq!(two.len(), 2);
        let typed = calls_in_content(
            "<function=calculator>\n<parameter=expression>\n6 * 7\n</parameter>\n<parameter=precise>\ntrue\n</parameter>\n</function>",
            &names,
        );
        assert_eq!(
            typed[0].arguments,
            json!({"expression": "6 * 7", "precise": true})
        );
        // Unknown names, and markers with nothing readable, are no calls.
        assert!(calls_in_content("[TOOL_CALLS]weather[ARGS]{}", &names).is_empty());
        assert!(calls_in_content("[TOOL_CALLS]search", &names).is_empty());
        assert!(calls_in_content("<|python_tag|>not json", &names).is_empty());
        assert!(looks_like_broken_call("[TOOL_CALLS]search[ARGS]{\"query"));
        assert!(looks_like_broken_call("<function=search>{\"query"));
    }

    #[test]
    fn ordinary_answers_stay_answers() {
        let names = ["calculator"];
        assert!(calls_in_content("The answer is 4.", &names).is_empty());
        assert!(calls_in_content(r#"{"name": "Alice", "age": 3}"#, &names).is_empty());
        assert!(calls_in_content(r#"{"result": 4}"#, &names).is_empty());
        assert!(calls_in_content(r#"{"name": "Alice"}"#, &[]).is_empty());
        assert_eq!(
            calls_in_content(r#"{"name": "lookup", "arguments": {}}"#, &[]).len(),
            1
        );
    }

    #[test]
    fn a_cut_off_call_is_told_from_an_answer() {
        assert!(looks_like_broken_call(
            r#"{"name": "calculator", "arguments": {"expression":"23.5 * 1000000"#
        ));
        assert!(looks_like_broken_call(
            "```json\n{\"name\": \"grep\", \"argu"
        ));
        assert!(looks_like_broken_call("<tool_call>\n{\"name\": \"grep\""));
        assert!(!looks_like_broken_call(r#"{"name": "Alice", "age": 3}"#));
        assert!(!looks_like_broken_call("The name is Alice {\"name\""));
        assert!(!looks_like_broken_call("42"));
        // Other families' formats, cut off; an answer in tags is no call.
        assert!(looks_like_broken_call(
            "<|tool_call|>[{\"name\": \"search\", \"argu"
        ));
        assert!(looks_like_broken_call(
            "<minimax:tool_call><invoke name=\"search\"><parameter name=\"query\">Ber"
        ));
        assert!(!looks_like_broken_call("<answer>{\"total\": 5}</answer>"));
        assert!(calls_in_content("<answer>{\"total\": 5}</answer>", &["search"]).is_empty());
    }

    #[test]
    fn calls_after_prose_are_calls_to_offered_tools() {
        let names = ["search"];
        for content in [
            "I'll look it up.\n\n<function=search>\n<parameter=query>\nBerlin\n</parameter>\n</function>\n</tool_call>",
            "Sorry about that. Here is the call:\n\n{\"name\": \"search\", \"parameters\": {\"query\": \"Berlin\"}}",
        ] {
            let (prose, calls) = calls_after_prose(content, &names).unwrap();
            assert!(prose.ends_with(['.', ':']), "{prose}");
            assert_eq!(calls[0].arguments, serde_json::json!({"query": "Berlin"}));
        }
        // Not an offered tool, no tools at all, or text after the call.
        let other = "Here it is:\n{\"name\": \"weather\", \"arguments\": {}}";
        assert!(calls_after_prose(other, &names).is_none());
        let offered = "Here it is:\n{\"name\": \"search\", \"arguments\": {}}";
        assert!(calls_after_prose(offered, &[]).is_none());
        for example in [
            "Here it is:\n{\"name\": \"search\", \"arguments\": {}}\nThat is the shape.",
            "Here it is:\n{\"name\": \"search\", \"arguments\": {}}\nSee the docs [1]",
            "Calls look like this:\n```\n<function=search>{\"query\": \"x\"}</function>\n```\nThat is the format.",
            "Calls look like this:\n```\n<function=search>{\"query\": \"x\"}</function>\n```",
        ] {
            assert!(calls_after_prose(example, &names).is_none(), "{example}");
        }
    }

    #[test]
    fn a_call_to_a_tool_that_is_not_offered_is_named() {
        let names = ["get_weather"];
        let call = "{\"name\": \"get_water\", \"parameters\": {\"city\": \"x\"}}";
        assert_eq!(
            unknown_tool_call(call, &names).as_deref(),
            Some("get_water")
        );
        // Data with a name is no call; an offered name is no unknown one.
        assert_eq!(
            unknown_tool_call("{\"name\": \"Bob\", \"age\": 25}", &names),
            None
        );
        let known = "{\"name\": \"get_weather\", \"arguments\": {}}";
        assert_eq!(unknown_tool_call(known, &names), None);
        assert_eq!(unknown_tool_call(call, &[]), None);
        // A function's schema, or a name with a list, is data.
        let schema = "{\"name\": \"get_time\", \"description\": \"Returns the time\", \"parameters\": {\"type\": \"object\"}}";
        assert_eq!(unknown_tool_call(schema, &names), None);
        assert_eq!(
            unknown_tool_call("{\"name\": \"x\", \"arguments\": [1]}", &names),
            None
        );
    }
}
