//! Canonical JSON for comparing tool calls: object keys sorted, no spaces,
//! whatever order the model wrote them in.

use std::fmt::Write;

use serde_json::Value;

/// The key loop detection counts: tool name plus canonical arguments.
pub(crate) fn canonical_call_key(name: &str, arguments: &Value) -> String {
    let mut out = String::with_capacity(name.len() + 32);
    out.push_str(name.trim());
    out.push('\u{0}');
    write_canonical(arguments, &mut out);
    out
}

/// Writes `value` as JSON with object keys in sorted order.
pub(crate) fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(key, out);
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::String(s) => write_json_string(s, out),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Null => out.push_str("null"),
    }
}

/// Writes `s` as a JSON string literal.
fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_change_the_canonical_key() {
        let a = canonical_call_key("add", &json!({"a": 1, "b": {"y": 2, "x": [1, 2]}}));
        let b = canonical_call_key("add", &json!({"b": {"x": [1, 2], "y": 2}, "a": 1}));
        assert_eq!(a, b);
        assert_ne!(a, canonical_call_key("add", &json!({"a": 2, "b": 1})));
    }

    #[test]
    fn canonical_output_is_valid_json() {
        let value = json!({"z\"q": "line\nbreak \\ \u{1}", "a": [1, 2.5, true, null, {"k": "v"}]});
        let mut out = String::new();
        write_canonical(&value, &mut out);
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, value);
        assert!(out.starts_with("{\"a\":"));
    }
}
