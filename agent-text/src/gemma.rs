//! Gemma's own call syntax, which Gemma 3n/4 models write in their text
//! when a server does not parse it: `call:name{key:value,…}`, maybe
//! inside `<|tool_call>` … `<tool_call|>`, or FunctionGemma's
//! `<start_function_call>name{…}<end_function_call>`. String values are
//! either bare (`path:a.txt`, up to the next `,` or `}`) or quoted with
//! Gemma's `<|"|>` token; values may nest objects and lists.

use serde_json::{Map, Value};

use crate::blob::{Blob, skip_space};
use crate::foreign::{CALL_WINDOW, window};

/// Gemma 4's call wrapper.
const TOOL_CALL_OPEN: &str = "<|tool_call>";
const TOOL_CALL_CLOSE: &str = "<tool_call|>";
/// FunctionGemma's wrapper (its closing tag is written either way).
const FUNCTION_CALL_OPEN: &str = "<start_function_call>";
const FUNCTION_CALL_CLOSES: [&str; 2] = ["<end_function_call>", "</end_function_call>"];
/// Gemma's string quote token.
const QUOTE: &str = "<|\"|>";
/// How deep values may nest (deeper is no call: the reader recurses).
const MAX_DEPTH: usize = 64;

/// Whether a line (trimmed at its start) opens a Gemma call.
pub(crate) fn opens_gemma_call(line: &str) -> bool {
    line.starts_with(TOOL_CALL_OPEN)
        || line.starts_with(FUNCTION_CALL_OPEN)
        || line
            .strip_prefix("call:")
            .is_some_and(|rest| name_len(rest).is_some())
}

/// The Gemma call at byte `p` (its first non-space byte), if one is
/// there: the step, or `Failed` when it opens one and does not hold it.
pub(crate) fn read_gemma_call(text: &str, p: usize) -> Option<Blob> {
    if !opens_gemma_call(&text[p..]) {
        return None;
    }
    let mut at = p;
    let mut closes: &[&str] = &[];
    if text[at..].starts_with(TOOL_CALL_OPEN) {
        at = skip_space(text, at + TOOL_CALL_OPEN.len());
        closes = &[TOOL_CALL_CLOSE];
    } else if text[at..].starts_with(FUNCTION_CALL_OPEN) {
        at = skip_space(text, at + FUNCTION_CALL_OPEN.len());
        closes = &FUNCTION_CALL_CLOSES;
    }
    if text[at..].starts_with("call:") {
        at += "call:".len();
    }
    let Some(len) = name_len(&text[at..]) else {
        return Some(Blob::Failed { stop: at });
    };
    let tool = text[at..at + len].to_string();
    // A call runs at most so far: reading stays linear on text full of
    // lines that open one and never close it.
    let window = at + window(&text[at..], CALL_WINDOW).len();
    let mut reader = Reader {
        text: &text[..window],
        pos: at + len,
        depth: 0,
    };
    let Some(Value::Object(input)) = reader.object() else {
        return Some(Blob::Failed {
            stop: reader.pos.max(at),
        });
    };
    let mut end = reader.pos;
    let after = skip_space(text, end);
    if let Some(close) = closes.iter().find(|c| text[after..].starts_with(**c)) {
        end = after + close.len();
    }
    Some(Blob::Action {
        tool,
        input: Value::Object(input),
        thought: None,
        end,
    })
}

/// The length of a tool name at the start of `text`, when `{` follows it.
fn name_len(text: &str) -> Option<usize> {
    let len = text
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(text.len());
    let starts_well = text.chars().next().is_some_and(char::is_alphabetic);
    (starts_well && text[len..].starts_with('{')).then_some(len)
}

/// Reads Gemma's values from `pos` on.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
    /// How many objects and lists are open.
    depth: usize,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn skip_space(&mut self) {
        self.pos = skip_space(self.text, self.pos);
    }

    /// `{key:value,…}` at `pos`.
    fn object(&mut self) -> Option<Value> {
        self.pos += 1; // {
        let mut map = Map::new();
        loop {
            self.skip_space();
            if self.rest().starts_with('}') {
                self.pos += 1;
                return Some(Value::Object(map));
            }
            let key_end = self.rest().find([':', '}', ','])?;
            let key = self.rest()[..key_end].trim().trim_matches(['"', '\'']);
            if key.is_empty() || !self.rest()[key_end..].starts_with(':') {
                return None;
            }
            let key = key.to_string();
            self.pos += key_end + 1;
            let value = self.value(&['}', ','])?;
            map.insert(key, value);
            self.skip_space();
            if self.rest().starts_with(',') {
                self.pos += 1;
            } else if !self.rest().starts_with('}') {
                return None;
            }
        }
    }

    /// `[value,…]` at `pos`.
    fn list(&mut self) -> Option<Value> {
        self.pos += 1; // [
        let mut items = Vec::new();
        loop {
            self.skip_space();
            if self.rest().starts_with(']') {
                self.pos += 1;
                return Some(Value::Array(items));
            }
            items.push(self.value(&[']', ','])?);
            self.skip_space();
            if self.rest().starts_with(',') {
                self.pos += 1;
            } else if !self.rest().starts_with(']') {
                return None;
            }
        }
    }

    /// A value, bare ones ending before one of `ends`.
    fn value(&mut self, ends: &[char]) -> Option<Value> {
        self.skip_space();
        let rest = self.rest();
        if let Some(quoted) = rest.strip_prefix(QUOTE) {
            let close = quoted.find(QUOTE)?;
            let value = quoted[..close].to_string();
            self.pos += QUOTE.len() + close + QUOTE.len();
            return Some(Value::String(value));
        }
        let opens_object = rest.starts_with('{');
        if opens_object || rest.starts_with('[') {
            if self.depth >= MAX_DEPTH {
                return None;
            }
            self.depth += 1;
            let value = if opens_object {
                self.object()
            } else {
                self.list()
            };
            self.depth -= 1;
            return value;
        }
        let len = rest.find(ends).unwrap_or(rest.len());
        // A quote token the model closed a bare value with.
        let bare = rest[..len].trim();
        let value = bare_value(bare.strip_suffix(QUOTE).unwrap_or(bare));
        self.pos += len;
        Some(value)
    }
}

/// A bare value: a number, `true`, `false` or `null` as such, else text
/// (without the quotes a model may add).
fn bare_value(bare: &str) -> Value {
    match bare {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" => Value::Null,
        _ => match serde_json::from_str::<serde_json::Number>(bare) {
            Ok(number) => Value::Number(number),
            Err(_) => {
                let unquoted = bare
                    .strip_prefix('"')
                    .and_then(|b| b.strip_suffix('"'))
                    .unwrap_or(bare);
                Value::String(unquoted.to_string())
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn action(text: &str) -> Option<(String, Value, usize)> {
        match read_gemma_call(text, 0)? {
            Blob::Action {
                tool, input, end, ..
            } => Some((tool, input, end)),
            _ => None,
        }
    }

    #[test]
    fn calls_in_gemmas_syntax() {
        let text = "call:write_file{content:hello,path:a.txt}";
        assert_eq!(
            action(text),
            Some((
                "write_file".into(),
                json!({"content": "hello", "path": "a.txt"}),
                text.len()
            ))
        );
        let text = "<|tool_call>call:get_weather{location:<|\"|>Paris, FR<|\"|>,days:3,exact:true}<tool_call|> then";
        let (tool, input, end) = action(text).unwrap();
        assert_eq!(tool, "get_weather");
        assert_eq!(
            input,
            json!({"location": "Paris, FR", "days": 3, "exact": true})
        );
        assert_eq!(&text[end..], " then");
        let text = "<start_function_call>overview{}</end_function_call>";
        assert_eq!(
            action(text),
            Some(("overview".into(), json!({}), text.len()))
        );
        assert_eq!(
            action("call:f{a:{b:<|\"|>x<|\"|>},c:[1,<|\"|>y<|\"|>]}").map(|a| a.1),
            Some(json!({"a": {"b": "x"}, "c": [1, "y"]}))
        );
    }

    #[test]
    fn long_and_deep_calls_end_reading_without_harm() {
        let long = format!("call:f{{ab:{}}}", "é".repeat(9000));
        assert!(read_gemma_call(&long, 0).is_some());
        let deep = format!("call:f{{a:{}", "[".repeat(8000));
        assert!(matches!(
            read_gemma_call(&deep, 0),
            Some(Blob::Failed { .. })
        ));
    }

    #[test]
    fn what_is_no_gemma_call() {
        assert!(read_gemma_call("call: me later", 0).is_none());
        assert!(read_gemma_call("calling:f{a:1}", 0).is_none());
        assert!(matches!(
            read_gemma_call("call:f{a:<|\"|>never closed", 0),
            Some(Blob::Failed { .. })
        ));
        assert!(matches!(
            read_gemma_call("call:f{a 1}", 0),
            Some(Blob::Failed { .. })
        ));
    }
}
