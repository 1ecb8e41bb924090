//! Arguments a model wrote as named text instead of a JSON object:
//! `path: notes/plan.md`, `pattern="timeout", path=logs`, one `name: value`
//! per line, or `{path: notes/plan.md}` with its names unquoted. Only the
//! tool's own argument names start a value, so commas, colons and equals
//! signs inside a value stay in it.

use serde_json::{Map, Value};

/// One argument of the tool: its name and whether the schema types it as
/// a string (a string argument keeps `1984` as text).
pub(crate) struct Field<'a> {
    /// The argument's name in the schema.
    pub(crate) name: &'a str,
    /// `true` when the schema says `"type": "string"`.
    pub(crate) is_string: bool,
}

/// The arguments `text` names, when it starts with one of `fields`'
/// names followed by `:` or `=`, and every value is introduced the same
/// way. `None` when the text is not written that way.
pub(crate) fn read_named_arguments(text: &str, fields: &[Field<'_>]) -> Option<Map<String, Value>> {
    let text = text.trim();
    let text = match (text.strip_prefix('{'), text.strip_prefix('(')) {
        (Some(inner), _) => inner.strip_suffix('}').unwrap_or(inner),
        (_, Some(inner)) => inner.strip_suffix(')').unwrap_or(inner),
        _ => text,
    };
    let starts = name_starts(text, fields);
    if starts.first().is_none_or(|start| start.at != 0) {
        return None;
    }
    let mut map = Map::new();
    for (i, start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(text.len(), |next| next.at);
        let raw = text[start.value..end]
            .trim()
            .trim_end_matches([',', ';'])
            .trim_end();
        let field = &fields[start.field];
        if raw.is_empty() || map.contains_key(field.name) {
            return None;
        }
        map.insert(field.name.to_string(), value_of(raw, field.is_string)?);
    }
    Some(map)
}

/// Where a `name:` or `name=` starts, and where its value starts.
struct NameStart {
    at: usize,
    value: usize,
    field: usize,
}

/// Every place in `text` where an argument's name, bare or quoted, is
/// followed by `:` or `=` and comes first or after a separator.
fn name_starts(text: &str, fields: &[Field<'_>]) -> Vec<NameStart> {
    let bytes = text.as_bytes();
    let mut starts = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let after_separator =
            at == 0 || matches!(bytes[at - 1], b' ' | b'\t' | b'\n' | b'\r' | b',' | b';');
        if after_separator && let Some((value, field)) = name_at(text, at, fields) {
            starts.push(NameStart { at, value, field });
            at = value;
            continue;
        }
        at += 1;
    }
    starts
}

/// The value start and field index when `text[at..]` opens with
/// `name:`, `name =`, `"name":` or `'name'=`.
fn name_at(text: &str, at: usize, fields: &[Field<'_>]) -> Option<(usize, usize)> {
    let rest = text.get(at..)?;
    let (quote, rest) = match rest.as_bytes().first() {
        Some(q @ (b'"' | b'\'')) => (Some(*q as char), &rest[1..]),
        _ => (None, rest),
    };
    fields.iter().enumerate().find_map(|(index, field)| {
        let mut after = rest.strip_prefix(field.name)?;
        if let Some(q) = quote {
            after = after.strip_prefix(q)?;
        }
        let spaced = after.trim_start_matches([' ', '\t']);
        let value = spaced.strip_prefix([':', '='])?;
        Some((text.len() - value.len(), index))
    })
}

/// A value as written: JSON when it reads as JSON of the right kind,
/// otherwise the text itself (single quotes around it dropped). A value
/// that opens a quote, bracket or brace it never closes is broken JSON,
/// not text: `None`.
fn value_of(raw: &str, is_string: bool) -> Option<Value> {
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::String(text)) => Some(Value::String(text)),
        Ok(value) if !is_string => Some(value),
        Ok(_) => Some(Value::String(raw.to_string())),
        Err(_) if raw.starts_with(['"', '{', '[']) => None,
        Err(_) => {
            let unquoted = match raw.strip_prefix('\'') {
                Some(inner) => inner.strip_suffix('\'')?,
                None => raw,
            };
            Some(Value::String(unquoted.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const GREP: [Field<'static>; 3] = [
        Field {
            name: "pattern",
            is_string: true,
        },
        Field {
            name: "path",
            is_string: true,
        },
        Field {
            name: "max_results",
            is_string: false,
        },
    ];

    fn read(text: &str) -> Option<Value> {
        read_named_arguments(text, &GREP).map(Value::Object)
    }

    #[test]
    fn names_with_colons_or_equals_read_as_arguments() {
        assert_eq!(
            read("pattern: timeout"),
            Some(json!({"pattern": "timeout"}))
        );
        assert_eq!(
            read("pattern=\"db_host\", path=config, max_results=5"),
            Some(json!({"pattern": "db_host", "path": "config", "max_results": 5}))
        );
        assert_eq!(
            read("pattern: error: disk full\npath: logs/app.log"),
            Some(json!({"pattern": "error: disk full", "path": "logs/app.log"}))
        );
        assert_eq!(
            read("{pattern: 'a, b', path: notes}"),
            Some(json!({"pattern": "a, b", "path": "notes"}))
        );
        assert_eq!(
            read("\"pattern\": \"x\", \"path\": \"y\""),
            Some(json!({"pattern": "x", "path": "y"}))
        );
        // A string argument keeps a number as text.
        assert_eq!(read("pattern: 1984"), Some(json!({"pattern": "1984"})));
    }

    #[test]
    fn other_text_is_not_named_arguments() {
        for text in [
            "timeout",
            "the pattern: timeout",
            "patterns: x",
            "pattern:",
            "pattern: x, pattern: y",
            "",
            "ünïcödé: x",
            // Broken JSON stays broken JSON.
            "{\"pattern\": \"tim",
            "pattern: [1, 2",
            "pattern: 'x",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }
}
