//! Action inputs: the value after `Action Input:` becomes a JSON value.
//!
//! - JSON of any kind (object, array, string, number) reaches the tool
//!   whole, read leniently (single quotes, Python literals, unquoted keys,
//!   trailing or missing commas, unclosed brackets at the end).
//! - A code fence is stripped when it holds JSON, with or without a
//!   language tag, the JSON on the fence line or the next. A fence holding
//!   anything else is kept as written.
//! - Input that opens like JSON (`{` then a key, or `[` then a value) but
//!   cannot be read even leniently is a format error the model can fix,
//!   never a string passed to the tool.
//! - Any other input is plain text, kept verbatim: only surrounding
//!   whitespace, one pair of wrapping quotes (when they wrap the whole
//!   input; typographic pairs such as `“…”`, `«…»` and `「…」` too) and
//!   fences are removed.

use serde_json::Value;

use crate::labels::{Mode, Scanner, line_label};
use crate::lenient_json::{read_lenient, read_loosely};

/// An input read from the text.
#[derive(Debug)]
pub(crate) struct Input {
    /// The value, or why the text is not a usable input.
    pub(crate) value: Result<Value, String>,
    /// Where the input ends in the text.
    pub(crate) end: usize,
}

/// Reads the input whose text starts at byte `start`. A plain-text input
/// ends at the next label `scanner` finds.
pub(crate) fn read_input(text: &str, start: usize, scanner: &mut Scanner<'_>) -> Input {
    let Some(p) = content_start(text, start) else {
        return Input {
            value: Ok(empty_object()),
            end: start,
        };
    };
    if text[p..].starts_with("```") {
        if let Some(input) = read_inline_code(text, p) {
            return input;
        }
        return read_fenced(text, p, scanner);
    }
    match read_json_at(text, p) {
        Some(Ok((value, end))) => Input {
            value: Ok(value),
            end,
        },
        Some(Err(reason)) => Input {
            value: Err(reason),
            end: line_end(text, p),
        },
        None => {
            if let Some(input) = read_wrapped_json(text, p) {
                return input;
            }
            let end = plain_input_end(text, p, scanner);
            let raw = without_stray_fence(text[p..end].trim());
            // A label right after `Action Input:` on its line: no input.
            let value = if raw.is_empty() {
                empty_object()
            } else {
                decode_plain(raw)
            };
            Input {
                value: Ok(value),
                end: p + raw.len(),
            }
        }
    }
}

/// Where the input's text begins: past whitespace and leading bold
/// markup, or `None` when it is empty (the next line is another label).
fn content_start(text: &str, start: usize) -> Option<usize> {
    let rest = &text[start..];
    let skipped = rest.len() - rest.trim_start().len();
    let mut p = start + skipped;
    if p >= text.len() {
        return None;
    }
    // A label on the line where the content would begin: no input.
    let line_begin = text[..p].rfind('\n').map_or(0, |n| n + 1);
    if line_begin > start && line_label(&text[line_begin..line_end(text, p)]).is_some() {
        return None;
    }
    // `** {…}`: markup before the value.
    let stars = text[p..].len() - text[p..].trim_start_matches('*').len();
    if stars > 0 && text[p + stars..].starts_with(char::is_whitespace) {
        let after = &text[p + stars..];
        p += stars + (after.len() - after.trim_start().len());
    }
    (p < text.len()).then_some(p)
}

/// The input of a call written with none: an empty object.
pub(crate) fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// The end of the line holding byte `p` (before its newline).
fn line_end(text: &str, p: usize) -> usize {
    text[p..].find('\n').map_or(text.len(), |n| p + n)
}

fn next_label_start(scanner: &mut Scanner<'_>) -> Option<usize> {
    use crate::labels::Event;
    match scanner.next(Mode::Value)? {
        Event::Label(found) => Some(found.start),
        Event::Blob(at) => Some(at),
    }
}

/// Where a plain-text input that starts at `p` ends: at the next label,
/// except that lines in a fenced block the input opens are the block's
/// text (a document with `Thought:` lines in it is input, not a step).
/// A block never closed runs to the end of a reply cut inside it.
fn plain_input_end(text: &str, p: usize, scanner: &mut Scanner<'_>) -> usize {
    let mut from = p;
    loop {
        scanner.seek(from);
        let label = next_label_start(scanner).unwrap_or(text.len());
        let Some(open) = fence_opening_between(text, from, label) else {
            return label;
        };
        match closing_fence_end(text, open) {
            Some(close) if close > label => from = close,
            Some(_) => return label,
            None => return text.len(),
        }
    }
}

/// The start of the first line after `from` and before `before` that
/// opens a fenced block (and does not close it on the same line).
fn fence_opening_between(text: &str, from: usize, before: usize) -> Option<usize> {
    let mut at = from;
    while let Some(n) = text.get(at..before)?.find('\n') {
        let line_start = at + n + 1;
        if line_start >= before {
            return None;
        }
        let line = text[line_start..].lines().next().unwrap_or_default();
        let opens = line
            .trim_start()
            .strip_prefix("```")
            .is_some_and(|rest| !rest.contains("```"));
        if opens {
            return Some(line_start);
        }
        at = line_start;
    }
    None
}

/// The end of the line that closes the fenced block opening on the line
/// at `open`, or `None` when it never closes.
fn closing_fence_end(text: &str, open: usize) -> Option<usize> {
    let after_open = open + text[open..].find('\n')? + 1;
    let mut at = after_open;
    for line in text[after_open..].split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            return Some(at + line.trim_end_matches(['\n', '\r']).len());
        }
        at += line.len();
    }
    None
}

/// `end`, moved back over trailing whitespace (but not before `start`).
fn trim_end_at(text: &str, start: usize, end: usize) -> usize {
    start + text[start..end].trim_end().len()
}

/// JSON at `p` when the text opens with `{` or `[`: `None` when it does not
/// look like JSON at all, `Some(Err)` when it looks like JSON but cannot be
/// read. On success, the value and where it ends.
pub(crate) fn read_json_at(text: &str, p: usize) -> Option<Result<(Value, usize), String>> {
    let rest = &text[p..json_limit(text, p)];
    if !rest.starts_with(['{', '[', '｛', '［']) {
        return None;
    }
    match read_lenient(rest) {
        Ok((value, used)) => Some(Ok((value, p + used))),
        Err(at) if looks_like_json(rest) => Some(Err(not_json(rest, at))),
        Err(_) => None,
    }
}

/// Where JSON starting at `p` must end at the latest: the next line that
/// starts with a label (an unclosed object before a hallucinated
/// `Observation:` line ends there, and is repaired).
fn json_limit(text: &str, p: usize) -> usize {
    let rest = &text[p..];
    let mut offset = 0;
    while let Some(nl) = rest[offset..].find('\n') {
        let line_start = offset + nl + 1;
        let line_end = rest[line_start..]
            .find('\n')
            .map_or(rest.len(), |n| line_start + n);
        if line_label(&rest[line_start..line_end]).is_some() {
            // Before the line break too: an unclosed string does not take it.
            return p + rest[..line_start].trim_end().len();
        }
        offset = line_start;
    }
    text.len()
}

/// Whether text opening with `{` or `[` was meant as JSON: an object that
/// starts with a quoted key or `key:`, or an array that starts with a
/// value. `{temperature in SF}` is prose in braces; `{query: x y}` is
/// broken JSON.
pub(crate) fn looks_like_json(text: &str) -> bool {
    const QUOTES: [char; 7] = ['"', '\'', '“', '„', '‘', '＂', '＇'];
    let mut chars = text.chars();
    let open = chars.next();
    let inner = chars.as_str().trim_start();
    match open {
        Some('{' | '｛') => {
            if inner.starts_with(QUOTES) {
                return true;
            }
            let key_len = inner
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(inner.len());
            key_len > 0 && inner[key_len..].trim_start().starts_with([':', '：'])
        }
        Some('[' | '［') => inner.starts_with(['{', '[', '｛', '［']) || inner.starts_with(QUOTES),
        _ => false,
    }
}

/// The error shown to the model for input that is meant as JSON but is
/// not: where reading stopped, and what to send instead; with the JSON
/// it meant, when its values read loosely (unquoted text, quotes inside
/// a string).
fn not_json(text: &str, at: usize) -> String {
    let line = text[..at].matches('\n').count() + 1;
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let column = text[line_start..at].chars().count() + 1;
    let near: String = text[at..].chars().take(12).collect();
    let near = near.lines().next().unwrap_or("").trim();
    let near = if near.is_empty() {
        "the end of the input".to_string()
    } else {
        format!("`{near}`")
    };
    let meant = read_loosely(text)
        .map(|value| spaced_json(&value))
        .filter(|json| json.chars().count() <= MAX_MEANT_CHARS)
        .map(|json| format!(": {json}"))
        .unwrap_or_default();
    format!(
        "the Action Input is not valid JSON (line {line}, column {column}, near {near}). \
         Write it as one JSON object with double-quoted keys and string values{meant}"
    )
}

/// `value` as JSON with a space after each `:` and `,` of its top
/// level, as the prompt writes an input.
fn spaced_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(key, value)| format!("{}: {value}", Value::String(key.clone())))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        other => other.to_string(),
    }
}

/// The longest JSON that a format error shows as the input meant.
const MAX_MEANT_CHARS: usize = 300;

/// ```` ```text``` ```` on one line: inline code, not a fence; its text
/// is the input. (JSON in it is left to [`read_fenced`].)
fn read_inline_code(text: &str, p: usize) -> Option<Input> {
    let line = text[p..line_end(text, p)].trim_end();
    let inner = line.strip_prefix("```")?.strip_suffix("```")?;
    if inner.trim().is_empty() || inner.contains(['{', '[', '`']) {
        return None;
    }
    Some(Input {
        value: Ok(decode_plain(inner.trim())),
        end: p + line.len(),
    })
}

/// `Name({…})` / `Name([…])`: JSON wrapped in a call, with nothing after
/// the closing parenthesis but whitespace.
fn read_wrapped_json(text: &str, p: usize) -> Option<Input> {
    let rest = &text[p..];
    let name_len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))?;
    if name_len == 0 || !rest[name_len..].starts_with('(') {
        return None;
    }
    let inner = &rest[name_len + 1..];
    let json_at = p + name_len + 1 + (inner.len() - inner.trim_start().len());
    let (value, end) = match read_json_at(text, json_at)? {
        Ok(found) => found,
        Err(reason) => {
            return Some(Input {
                value: Err(reason),
                end: line_end(text, p),
            });
        }
    };
    let after = text[end..].trim_start_matches([' ', '\t']);
    let after = after.strip_prefix(')')?;
    if !after
        .trim_start_matches([' ', '\t'])
        .starts_with(['\n', '\r'])
        && !after.trim().is_empty()
    {
        return None;
    }
    Some(Input {
        value: Ok(value),
        end: text.len() - after.len(),
    })
}

/// A fenced input: JSON inside is read as JSON; anything else is kept as
/// written, fences included.
fn read_fenced(text: &str, p: usize, scanner: &mut Scanner<'_>) -> Input {
    let after = &text[p + 3..];
    let tag_len = after
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+')))
        .unwrap_or(after.len());
    let body_at = p + 3 + tag_len;
    let body = &text[body_at..];
    let json_at = body_at + (body.len() - body.trim_start().len());
    let close = closing_fence(text, body_at);
    match read_json_at(text, json_at) {
        Some(Ok((value, json_end))) => {
            let end = match close {
                Some((_, close_end)) if text[json_end..].trim_start().starts_with("```") => {
                    close_end
                }
                _ => json_end,
            };
            Input {
                value: Ok(value),
                end,
            }
        }
        Some(Err(reason)) => Input {
            value: Err(reason),
            end: close.map_or_else(|| line_end(text, p), |(_, end)| end),
        },
        None => {
            let end = match close {
                Some((_, close_end)) => close_end,
                None => {
                    scanner.seek(body_at);
                    scanner_line_label(scanner).unwrap_or(text.len())
                }
            };
            Input {
                value: Ok(Value::String(text[p..end].trim().to_string())),
                end: trim_end_at(text, p, end),
            }
        }
    }
}

fn scanner_line_label(scanner: &mut Scanner<'_>) -> Option<usize> {
    use crate::labels::Event;
    match scanner.next(Mode::LineStart)? {
        Event::Label(found) => Some(found.start),
        Event::Blob(at) => Some(at),
    }
}

/// The closing fence after byte `from`: the start and end of its ```` ``` ````.
fn closing_fence(text: &str, from: usize) -> Option<(usize, usize)> {
    let rest = &text[from..];
    // On the opening line itself (```` ```json{…}``` ````)…
    let first_line = rest.find('\n').map_or(rest.len(), |n| n);
    if let Some(i) = rest[..first_line].find("```") {
        return Some((from + i, from + i + 3));
    }
    // …or a later line that starts with it.
    let mut offset = first_line;
    while offset < rest.len() {
        let line_start = offset + 1;
        let line = &rest[line_start.min(rest.len())..];
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            let at = from + line_start + (line.len() - trimmed.len());
            return Some((at, at + 3));
        }
        offset = line.find('\n').map_or(rest.len(), |n| line_start + n);
    }
    None
}

/// `text` without a closing fence that has no opening one (the model
/// wrapped its whole reply in a fence).
pub(crate) fn without_stray_fence(text: &str) -> &str {
    match text.strip_suffix("```") {
        Some(rest) if text.matches("```").count() % 2 == 1 => rest.trim_end(),
        _ => text,
    }
}

/// A plain-text input: a JSON scalar or string when the whole text is one,
/// otherwise the text itself without wrapping quotes. A string that holds
/// a whole JSON object (`` `{…}` ``, or JSON encoded twice) is that object.
pub(crate) fn decode_plain(text: &str) -> Value {
    let value = match serde_json::from_str::<Value>(text) {
        Ok(value) if !value.is_object() && !value.is_array() => value,
        _ => Value::String(unquote(text).to_string()),
    };
    match value {
        Value::String(inner) if inner.trim_start().starts_with('{') => {
            match serde_json::from_str::<Value>(&inner) {
                Ok(object @ Value::Object(_)) => object,
                _ => Value::String(inner),
            }
        }
        other => other,
    }
}

/// Decodes a complete raw input (rule 3 of the parser): fenced or bare
/// JSON, else plain text. Text that is meant as JSON but cannot be read is
/// kept as a string here; the parser reports it as an error instead.
pub fn decode_input(raw: &str) -> Value {
    let text = raw.trim();
    if text.is_empty() {
        return empty_object();
    }
    if text.starts_with("```") {
        let mut scanner = Scanner::new(text);
        return match read_fenced(text, 0, &mut scanner).value {
            Ok(value) => value,
            Err(_) => Value::String(text.to_string()),
        };
    }
    match read_json_at(text, 0) {
        Some(Ok((value, _))) => value,
        Some(Err(_)) => Value::String(text.to_string()),
        None => match read_wrapped_json(text, 0) {
            Some(Input {
                value: Ok(value), ..
            }) => value,
            _ => decode_plain(text),
        },
    }
}

/// Pairs of quotes a plain input may come wrapped in, besides ASCII ones:
/// English, German, French (and Russian), Swedish, and CJK corner
/// brackets and full-width quotes.
const TYPOGRAPHIC_QUOTES: [(char, char); 9] = [
    ('“', '”'),
    ('‘', '’'),
    ('„', '“'),
    ('‚', '‘'),
    ('«', '»'),
    ('»', '«'),
    ('”', '”'),
    ('「', '」'),
    ('＂', '＂'),
];

/// Removes one pair of quotes or backticks that wraps the whole text, or a
/// lone unbalanced quote at one end. A quote inside the text is never
/// removed.
pub(crate) fn unquote(text: &str) -> &str {
    // Typographic quotes, as other languages open and close them.
    for (open, close) in TYPOGRAPHIC_QUOTES {
        if let Some(inner) = text
            .strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
            && !inner.contains(open)
            && !inner.contains(close)
        {
            return inner.trim();
        }
    }
    for q in ['"', '\'', '`'] {
        if let Some(inner) = text.strip_prefix(q).and_then(|rest| rest.strip_suffix(q))
            && !inner.contains(q)
        {
            return inner.trim();
        }
    }
    for q in ['"', '\'', '`'] {
        if let Some(rest) = text.strip_prefix(q)
            && !rest.contains(q)
        {
            return rest.trim();
        }
        if let Some(rest) = text.strip_suffix(q)
            && !rest.contains(q)
        {
            return rest.trim();
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Result<Value, String> {
        let mut scanner = Scanner::new(text);
        read_input(text, 0, &mut scanner).value
    }

    #[test]
    fn json_of_any_kind_is_kept_whole() {
        assert_eq!(
            read("[{\"a\": 1}, {\"b\": 2}]"),
            Ok(json!([{"a": 1}, {"b": 2}]))
        );
        assert_eq!(read("\"hello\""), Ok(json!("hello")));
        assert_eq!(read("42"), Ok(json!(42)));
        assert_eq!(read("```json{\"q\": 1}```"), Ok(json!({"q": 1})));
        assert_eq!(read("Tool({\"a\": 1})"), Ok(json!({"a": 1})));
    }

    #[test]
    fn broken_json_is_an_error_and_prose_in_braces_is_text() {
        assert!(read("{\"query\": \"x\", \"limit\": }").is_err());
        assert!(read("{query: x y}").is_err());
        assert_eq!(
            read("{temperature in SF}"),
            Ok(json!("{temperature in SF}"))
        );
        assert_eq!(
            read("[temperature in {SF}]"),
            Ok(json!("[temperature in {SF}]"))
        );
    }

    #[test]
    fn plain_text_keeps_its_last_characters() {
        assert_eq!(read("df.head()"), Ok(json!("df.head()")));
        assert_eq!(read("'a' + 'b'"), Ok(json!("'a' + 'b'")));
        assert_eq!(
            read("print({1: 2}.get(1))"),
            Ok(json!("print({1: 2}.get(1))"))
        );
        assert_eq!(read("Paris."), Ok(json!("Paris.")));
    }
}
