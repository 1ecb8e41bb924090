//! A lenient JSON reader for model-written tool inputs: single quotes,
//! Python literals (`True`, `False`, `None`), unquoted keys, trailing
//! commas, `//` and `/* */` comments, and unclosed strings, objects and
//! arrays at the end of the text. It reads one value and ignores what
//! follows. It runs in linear time with bounded nesting, and never panics.
//!
//! JSON that opens with a prompt template's escaped braces (`{{…}}`) is
//! read without them.
//!
//! JSON that cannot be read so is read again with its typographic quotes
//! (`“…”`, `„…“`, `‘…’`) and full-width punctuation (`｛`, `：`, `，`, as a
//! Chinese or Japanese input method writes them) taken as the ASCII ones
//! where they are JSON's own marks: a model writing in another language
//! types them into JSON too. Inside a string they stay as written, and
//! JSON that reads as it is keeps them wherever they are.

use serde_json::{Map, Number, Value};

/// Deepest nesting accepted.
const MAX_DEPTH: usize = 128;

/// Reads one JSON-ish value from the start of `text` (after whitespace).
/// Returns the value and the byte offset just after it.
pub fn parse_lenient(text: &str) -> Option<(Value, usize)> {
    read_lenient(text).ok()
}

/// [`parse_lenient`], or on failure the byte offset where reading stopped
/// (on a character boundary).
pub(crate) fn read_lenient(text: &str) -> Result<(Value, usize), usize> {
    let as_written = read_ascii(text, false);
    let Err(stopped) = as_written else {
        return as_written;
    };
    // Read with ASCII punctuation only when some stands where the reading
    // stopped or before it: otherwise it stops at the same place again,
    // and rewriting the whole rest of a long reply for every place a
    // value may start made parsing quadratic (a reply of many fences).
    // (An offset inside a character, or past the end, tells nothing: the
    // rewrite is tried as before.)
    let up_to_stop = text.get(stopped..).map(|rest| {
        rest.chars()
            .next()
            .map_or(stopped, |c| stopped + c.len_utf8())
    });
    let may_read_further = up_to_stop
        .and_then(|end| text.get(..end))
        .is_none_or(|read| read.chars().any(|c| ascii_punctuation(c).is_some()));
    if may_read_further
        && let Some((ascii, offsets)) = with_ascii_punctuation(text)
        && let Ok((value, used)) = read_ascii(&ascii, false)
    {
        // Offsets in `ascii` back to offsets in `text`.
        return Ok((value, offsets[used]));
    }
    read_template_braces(text).ok_or(stopped)
}

/// JSON written with a prompt template's escaped braces, as a model
/// copies them from a format string (`{{"query": "…"}}`, or the
/// `{{{ … }}}` of a placeholder wrapped in them): text that opens with
/// two braces, which no JSON does. Read with every doubled brace outside
/// strings read as one, and failing that with the extra opening braces
/// left out.
fn read_template_braces(text: &str) -> Option<(Value, usize)> {
    let start = text.len() - text.trim_start().len();
    let rest = &text[start..];
    if !rest.starts_with("{{") {
        return None;
    }
    let (single, offsets) = with_single_braces(rest);
    if let Ok((value, used)) = read_ascii(&single, false) {
        return Some((value, start + offsets[used]));
    }
    let extra = rest.len() - rest.trim_start_matches(['{', ' ', '\t', '\n', '\r']).len();
    let last_brace = rest[..extra].rfind('{')?;
    let (value, used) = read_ascii(&rest[last_brace..], false).ok()?;
    Some((value, start + last_brace + used))
}

/// `text` with each `{{` and `}}` outside strings written as one brace,
/// and for each byte offset of it (and its end) the offset in `text`.
fn with_single_braces(text: &str) -> (String, Vec<usize>) {
    let mut single = String::with_capacity(text.len());
    let mut offsets = Vec::with_capacity(text.len() + 1);
    let mut inside: Option<char> = None;
    let mut escaped = false;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match inside {
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(quote) if c == quote => inside = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => inside = Some(c),
            None if (c == '{' || c == '}') && chars.peek().map(|(_, n)| *n) == Some(c) => {
                chars.next();
            }
            None => {}
        }
        offsets.extend(std::iter::repeat_n(at, c.len_utf8()));
        single.push(c);
    }
    offsets.push(text.len());
    (single, offsets)
}

/// What JSON that [`read_lenient`] cannot read meant, with an object's
/// values read loosely (see `Reader::loose_value`: unquoted text, quotes
/// inside a string); `None` when even that fails. It is not taken as
/// the input (the contract makes such input a format error the model
/// mends) but shown to the model as the JSON to send: a small model
/// told only what is wrong writes the same again, and copies its own
/// call well.
pub(crate) fn read_loosely(text: &str) -> Option<Value> {
    match with_ascii_punctuation(text) {
        Some((ascii, _)) => read_ascii(&ascii, true).ok(),
        None => read_ascii(text, true).ok(),
    }
    .map(|(value, _)| value)
}

/// The ASCII character a typographic quote or a full-width JSON mark
/// stands for.
fn ascii_punctuation(c: char) -> Option<char> {
    Some(match c {
        '“' | '”' | '„' | '‟' | '＂' => '"',
        '‘' | '’' | '‚' | '‛' | '＇' => '\'',
        '｛' => '{',
        '｝' => '}',
        '［' => '[',
        '］' => ']',
        '：' => ':',
        '，' | '、' => ',',
        _ => return None,
    })
}

/// `text` with [`ascii_punctuation`] applied where the marks are JSON's
/// own (between values, and the quotes around a string), and for each
/// byte offset of it (and its end) the offset in `text`; `None` when there
/// is no such mark. Inside a string only its closing quote is mapped: a
/// value keeps its own apostrophes and full-width commas (`C’est l’été`,
/// `東京，人口`).
fn with_ascii_punctuation(text: &str) -> Option<(String, Vec<usize>)> {
    if !text.chars().any(|c| ascii_punctuation(c).is_some()) {
        return None;
    }
    let mut ascii = String::with_capacity(text.len());
    let mut offsets = Vec::with_capacity(text.len() + 1);
    // The ASCII quote that closes the string being read, if in one.
    let mut inside: Option<char> = None;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        let mapped = match inside {
            None => {
                let mapped = ascii_punctuation(c).unwrap_or(c);
                if matches!(mapped, '"' | '\'') {
                    inside = Some(mapped);
                }
                mapped
            }
            Some(_) if escaped => {
                escaped = false;
                c
            }
            Some(_) if c == '\\' => {
                escaped = true;
                c
            }
            Some(quote) if c == quote || ascii_punctuation(c) == Some(quote) => {
                inside = None;
                quote
            }
            Some(_) => c,
        };
        offsets.extend(std::iter::repeat_n(at, mapped.len_utf8()));
        ascii.push(mapped);
    }
    offsets.push(text.len());
    Some((ascii, offsets))
}

/// [`read_lenient`] of `text` as it is written; with `loose`, an
/// object's values are read loosely.
fn read_ascii(text: &str, loose: bool) -> Result<(Value, usize), usize> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
        loose,
    };
    match reader.value() {
        Some(value) => Ok((value, reader.pos)),
        None => {
            let mut at = reader.pos.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            Err(at)
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
    /// Whether an object's values are read loosely.
    loose: bool,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips whitespace and comments.
    fn skip(&mut self) {
        loop {
            match self.peek() {
                Some(b) if b.is_ascii_whitespace() => self.pos += 1,
                Some(b'/') if self.bytes.get(self.pos + 1) == Some(&b'/') => {
                    while let Some(b) = self.peek() {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                Some(b'/') if self.bytes.get(self.pos + 1) == Some(&b'*') => {
                    self.pos += 2;
                    while self.pos < self.bytes.len()
                        && !(self.bytes[self.pos] == b'*'
                            && self.bytes.get(self.pos + 1) == Some(&b'/'))
                    {
                        self.pos += 1;
                    }
                    self.pos = (self.pos + 2).min(self.bytes.len());
                }
                _ => return,
            }
        }
    }

    fn value(&mut self) -> Option<Value> {
        self.skip();
        match self.peek()? {
            b'{' => self.nested(Self::object),
            b'[' => self.nested(Self::array),
            b'"' | b'\'' => self.string().map(Value::String),
            b'-' | b'0'..=b'9' => self.number(),
            _ => self.word(),
        }
    }

    fn nested(&mut self, read: fn(&mut Self) -> Option<Value>) -> Option<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let value = read(self);
        self.depth -= 1;
        value
    }

    fn object(&mut self) -> Option<Value> {
        self.pos += 1; // {
        let mut map = Map::new();
        loop {
            self.skip();
            match self.peek() {
                None => return Some(Value::Object(map)), // unclosed: repaired
                Some(b'}') => {
                    self.pos += 1;
                    return Some(Value::Object(map));
                }
                Some(b',') => {
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            let key = match self.peek()? {
                b'"' | b'\'' => self.string()?,
                _ => self.identifier()?,
            };
            self.skip();
            if self.peek()? != b':' {
                return None;
            }
            self.pos += 1;
            let value = if self.loose {
                self.loose_value()?
            } else {
                self.value()?
            };
            map.insert(key, value);
            let value_end = self.pos;
            self.skip();
            match self.peek() {
                Some(b',') => self.pos += 1,
                // A missing comma before the next key: repaired.
                Some(b'"' | b'\'') => {}
                Some(b'}') | None => {}
                // Left open at the end of a line, with text that is no
                // key after it (the model went on in words): it ends
                // there, as it would at the end of the text. A key on the
                // next line (`limit: 3`, `limit=3`) is a broken object,
                // not an end.
                Some(_)
                    if self.text[value_end..self.pos].contains('\n')
                        && !self.key_starts_at(self.pos)
                        && !self.assignment_starts_at(self.pos) =>
                {
                    self.pos = value_end;
                    return Some(Value::Object(map));
                }
                Some(_) => return None,
            }
        }
    }

    fn array(&mut self) -> Option<Value> {
        self.pos += 1; // [
        let mut items = Vec::new();
        loop {
            self.skip();
            match self.peek() {
                None => return Some(Value::Array(items)),
                Some(b']') => {
                    self.pos += 1;
                    return Some(Value::Array(items));
                }
                Some(b',') => {
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            items.push(self.value()?);
            self.skip();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') | None => {}
                Some(_) => return None,
            }
        }
    }

    fn string(&mut self) -> Option<String> {
        self.string_closed_by(|_, _| true)
    }

    /// A string whose opening quote is at the reader's position, ended by
    /// the first matching quote at which `closes` (given the quote's
    /// offset) holds; its escapes decoded. Unclosed at the end of the
    /// text, it is repaired.
    fn string_closed_by(&mut self, closes: impl Fn(&Self, usize) -> bool) -> Option<String> {
        let quote = self.peek()?;
        self.pos += 1;
        let mut out = String::new();
        let mut run_start = self.pos;
        while let Some(b) = self.peek() {
            if b == quote && closes(self, self.pos) {
                out.push_str(&self.text[run_start..self.pos]);
                self.pos += 1;
                return Some(out);
            }
            if b == b'\\' {
                out.push_str(&self.text[run_start..self.pos]);
                self.pos += 1;
                let escaped = self.peek()?;
                self.pos += 1;
                match escaped {
                    b'n' => out.push('\n'),
                    b't' => out.push('\t'),
                    b'r' => out.push('\r'),
                    b'b' => out.push('\u{8}'),
                    b'f' => out.push('\u{c}'),
                    b'u' => {
                        let code = self.hex4()?;
                        out.push(self.unicode_escape(code));
                    }
                    _ => {
                        // \" \' \\ \/ and anything else: the character itself.
                        let ch = self.text[self.pos - 1..].chars().next()?;
                        out.push(ch);
                        self.pos += ch.len_utf8() - 1;
                    }
                }
                run_start = self.pos;
                continue;
            }
            self.pos += 1;
        }
        // Unclosed string at the end: repaired.
        out.push_str(&self.text[run_start..]);
        Some(out)
    }

    /// Four hex digits after `\u`.
    fn hex4(&mut self) -> Option<u32> {
        let hex = self.text.get(self.pos..self.pos + 4)?;
        let code = u32::from_str_radix(hex, 16).ok()?;
        self.pos += 4;
        Some(code)
    }

    /// The character of a `\u` escape: a surrogate pair (`\ud83d\ude00`)
    /// is one character; a lone surrogate is U+FFFD.
    fn unicode_escape(&mut self, code: u32) -> char {
        if (0xD800..0xDC00).contains(&code) && self.text[self.pos..].starts_with("\\u") {
            let save = self.pos;
            self.pos += 2;
            match self.hex4() {
                Some(low) if (0xDC00..0xE000).contains(&low) => {
                    let combined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    return char::from_u32(combined).unwrap_or('\u{fffd}');
                }
                _ => self.pos = save,
            }
        }
        char::from_u32(code).unwrap_or('\u{fffd}')
    }

    fn identifier(&mut self) -> Option<String> {
        let start = self.pos;
        while self.peek().is_some_and(is_identifier_byte) {
            self.pos += 1;
        }
        (self.pos > start).then(|| self.text[start..self.pos].to_string())
    }

    /// An object's value as a model means it when its JSON is broken: a
    /// value left unquoted (`{"query": Eiffel Tower height}`,
    /// `{"expression": 12,5 * 840}`) is its text, up to the `}` that
    /// closes the object or a `,` before the next key; and a quote inside
    /// a string that does not end it (`"say "hi" now"`, `'Paris's'`) is
    /// part of it. A string ends at a quote followed by the end of the
    /// object, of the text, or a `,` before the next key.
    fn loose_value(&mut self) -> Option<Value> {
        self.skip();
        let start = self.pos;
        match self.peek()? {
            b'{' | b'[' => return self.value(),
            b'"' | b'\'' => return self.loose_string().map(Value::String),
            _ => {}
        }
        if let Some(value) = self.value()
            && self.value_ends(self.pos)
        {
            return Some(value);
        }
        self.pos = start;
        self.bare_text()
    }

    /// Whether a value read up to `at` ends there: the object closes, the
    /// text ends, or a `,` comes before the next key.
    fn value_ends(&self, at: usize) -> bool {
        let at = self.after_blanks(at);
        match self.bytes.get(at) {
            None | Some(b'}') => true,
            Some(b',') => self.key_starts_at(at + 1),
            // A missing comma before the next key, as the strict reading
            // repairs it.
            Some(b'"' | b'\'') => self.key_starts_at(at),
            _ => false,
        }
    }

    /// A string whose quotes inside it are its own (see
    /// [`Self::loose_value`]).
    fn loose_string(&mut self) -> Option<String> {
        self.string_closed_by(|reader, at| reader.value_ends(at + 1))
    }

    /// Unquoted text up to where its value ends (see
    /// [`Self::loose_value`]), trimmed; `None` when there is none.
    fn bare_text(&mut self) -> Option<Value> {
        let start = self.pos;
        let mut at = start;
        let mut nested = 0usize;
        while at < self.bytes.len() {
            match self.bytes[at] {
                b'{' | b'[' | b'(' => nested += 1,
                b']' | b')' => nested = nested.saturating_sub(1),
                b'}' if nested == 0 => break,
                b'}' => nested -= 1,
                b',' if nested == 0 && self.key_starts_at(at + 1) => break,
                b'"' | b'\'' if nested == 0 && self.key_starts_at(at) => break,
                _ => {}
            }
            at += 1;
        }
        let text = self.text.get(start..at)?.trim();
        self.pos = at;
        (!text.is_empty() && !constructs_an_object(text)).then(|| Value::String(text.to_string()))
    }

    /// Whether a key and its `:` start at `at`, after blanks.
    fn key_starts_at(&self, at: usize) -> bool {
        let mut at = self.after_blanks(at);
        match self.bytes.get(at) {
            Some(&quote @ (b'"' | b'\'')) => {
                let Some(len) = self.bytes[at + 1..].iter().position(|&b| b == quote) else {
                    return false;
                };
                at += len + 2;
            }
            Some(&b) if is_identifier_byte(b) && !b.is_ascii_digit() => {
                while self.bytes.get(at).copied().is_some_and(is_identifier_byte) {
                    at += 1;
                }
            }
            _ => return false,
        }
        self.bytes.get(self.after_blanks(at)) == Some(&b':')
    }

    /// Whether `name=` starts at `at` (a Python keyword argument).
    fn assignment_starts_at(&self, mut at: usize) -> bool {
        if !self.bytes.get(at).copied().is_some_and(is_identifier_byte) {
            return false;
        }
        while self.bytes.get(at).copied().is_some_and(is_identifier_byte) {
            at += 1;
        }
        self.bytes.get(self.after_blanks(at)) == Some(&b'=')
    }

    /// The first offset from `at` that is not whitespace.
    fn after_blanks(&self, mut at: usize) -> usize {
        while self.bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        at
    }

    fn word(&mut self) -> Option<Value> {
        let word = self.identifier()?;
        match word.as_str() {
            "true" | "True" => Some(Value::Bool(true)),
            "false" | "False" => Some(Value::Bool(false)),
            "null" | "None" | "none" => Some(Value::Null),
            _ => None,
        }
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E') {
                self.pos += 1;
            } else {
                break;
            }
        }
        let text = &self.text[start..self.pos];
        // As serde_json: `-0` is the float -0.0.
        let negative_zero = text.starts_with('-') && text[1..].bytes().all(|b| b == b'0');
        if let (Ok(i), false) = (text.parse::<i64>(), negative_zero) {
            return Some(Value::Number(i.into()));
        }
        if let (Ok(u), false) = (text.parse::<u64>(), negative_zero) {
            return Some(Value::Number(u.into()));
        }
        let f = text.parse::<f64>().ok()?;
        Number::from_f64(f).map(Value::Number)
    }
}

/// Whether byte `b` may be part of an unquoted key (any non-ASCII byte
/// too: keys in other scripts).
fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Whether unquoted `text` starts by calling a constructor
/// (`AttributedDict([...])`, `Decimal('1.5')`: a name with a capital,
/// then `(`): a model copying a program's own objects, such as its tool
/// schema's repr, wrote no value of its own, and that is an error it can
/// mend, never a text for the tool. A function of an expression
/// (`sqrt(16) + 2`) is a value.
fn constructs_an_object(text: &str) -> bool {
    let name_end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(text.len());
    let name = &text[..name_end];
    text[name_end..].starts_with('(') && name.chars().any(|c| c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(s: &str) -> Option<Value> {
        parse_lenient(s).map(|(v, _)| v)
    }

    #[test]
    fn a_template_s_escaped_braces_are_read_as_json_s_own() {
        let read = |s: &str| parse_lenient(s);
        assert_eq!(
            read("{{\"query\": \"Cairo\"}}"),
            Some((json!({"query": "Cairo"}), 20))
        );
        // Every brace doubled, the inner object's too; the end is after
        // the last closing pair.
        let text = "{{\"action\": \"search\", \"action_input\": {{\"q\": \"x\"}}}} then";
        assert_eq!(
            read(text),
            Some((
                json!({"action": "search", "action_input": {"q": "x"}}),
                text.len() - 5
            ))
        );
        // A placeholder's three braces around one object.
        assert_eq!(
            parse(
                "{{{ \"action\": \"get_weather\", \"action_input\": {\"location\": \"Cairo\"}}}}$"
            ),
            Some(json!({"action": "get_weather", "action_input": {"location": "Cairo"}}))
        );
        // Braces inside strings stay as written, and a template that is
        // no JSON stays unread.
        assert_eq!(
            parse("{{\"text\": \"a {{b}} c\"}}"),
            Some(json!({"text": "a {{b}} c"}))
        );
        assert_eq!(parse("{{user_name}}"), None);
    }

    #[test]
    fn typographic_quotes_and_full_width_marks_read_as_ascii() {
        assert_eq!(
            parse("{“query”: “Tokyo population”}"),
            Some(json!({"query": "Tokyo population"}))
        );
        assert_eq!(
            parse("｛\"expression\"：\"12 * 3\"，｝"),
            Some(json!({"expression": "12 * 3"}))
        );
        assert_eq!(
            parse("{„query“: „Einwohner Berlin“}"),
            Some(json!({"query": "Einwohner Berlin"}))
        );
        assert_eq!(parse("{‘a’: [1，2]}"), Some(json!({"a": [1, 2]})));
        // Inside a string they stay: only its closing quote is mapped.
        assert_eq!(
            parse("{“content”: “C’est l’été, à 10：30、salle B”，“q”：“東京，人口”}"),
            Some(json!({"content": "C’est l’été, à 10：30、salle B", "q": "東京，人口"}))
        );
        assert_eq!(
            parse("{“q”: “say \\“hi\\” twice”}"),
            Some(json!({"q": "say “hi” twice"}))
        );
        // JSON that reads as written keeps them in its strings.
        assert_eq!(
            parse("{\"query\": \"the “Big Apple”，NY\"}"),
            Some(json!({"query": "the “Big Apple”，NY"}))
        );
        // The end is where the value ends in the text as written.
        let text = "{“q”: “東京”} and more";
        let (_, end) = parse_lenient(text).unwrap_or_default();
        assert_eq!(&text[end..], " and more");
    }

    #[test]
    fn repairs_what_models_write() {
        assert_eq!(
            parse("{'a': 1, 'b': [True, None],}"),
            Some(json!({"a": 1, "b": [true, null]}))
        );
        assert_eq!(parse("{query: \"x\"}"), Some(json!({"query": "x"})));
        assert_eq!(
            parse("{\"q\": \"temp in SF\""),
            Some(json!({"q": "temp in SF"}))
        );
        assert_eq!(parse("{\"q\": \"unclosed"), Some(json!({"q": "unclosed"})));
        assert_eq!(
            parse("{'a': 1 /* c */, // line\n 'b': 'it\\'s'}"),
            Some(json!({"a": 1, "b": "it's"}))
        );
        assert_eq!(
            parse("{\"a\": {\"b\": 1}} trailing prose"),
            Some(json!({"a": {"b": 1}}))
        );
        assert_eq!(
            parse("{\"s\": \"brace } inside\"}"),
            Some(json!({"s": "brace } inside"}))
        );
        assert_eq!(
            parse("{\"a\": 1 \"b\": \"x\"}"),
            Some(json!({"a": 1, "b": "x"}))
        );
        assert_eq!(
            parse("[1, [2, {\"é\": \"中\"}]]"),
            Some(json!([1, [2, {"é": "中"}]]))
        );
    }

    #[test]
    fn an_objects_values_are_read_loosely_only_when_asked() {
        let loose = read_loosely;
        // Unquoted text, up to the object's end or the next key.
        assert_eq!(
            loose("{\"query\": Eiffel Tower height}"),
            Some(json!({"query": "Eiffel Tower height"}))
        );
        assert_eq!(
            loose("{\"expression\": 12,5 * 840}"),
            Some(json!({"expression": "12,5 * 840"}))
        );
        assert_eq!(
            loose("{\"path\": notes/a.md, \"start\": 3}"),
            Some(json!({"path": "notes/a.md", "start": 3}))
        );
        assert_eq!(
            loose("{pattern: total (net), path: 'x.csv'}"),
            Some(json!({"pattern": "total (net)", "path": "x.csv"}))
        );
        // Quotes inside a string that do not end it.
        assert_eq!(
            loose("{\"pattern\": \"WLAN \"Gast\"\", \"path\": \"a.md\"}"),
            Some(json!({"pattern": "WLAN \"Gast\"", "path": "a.md"}))
        );
        assert_eq!(
            loose("{'query': 'Paris's population'}"),
            Some(json!({"query": "Paris's population"}))
        );
        assert_eq!(
            loose("{\"q\": \"say \"hi\" and\\n go"),
            Some(json!({"q": "say \"hi\" and\n go"}))
        );
        // A missing comma before the next key, as strictly.
        assert_eq!(
            loose("{\"path\": \"notes/a.md\" \"start\": 3, \"q\": foo}"),
            Some(json!({"path": "notes/a.md", "start": 3, "q": "foo"}))
        );
        assert_eq!(
            loose("{\"q\": Rome \"lang\": \"it\"}"),
            Some(json!({"q": "Rome", "lang": "it"}))
        );
        // Keys in other scripts.
        assert_eq!(
            loose("{名前: 東京 人口, 数: 3}"),
            Some(json!({"名前": "東京 人口", "数": 3}))
        );
        // Escapes read as JSON's, surrogate pairs too.
        assert_eq!(
            loose("{\"q\": \"a \"b\" \\u00e9 \\ud83d\\ude00\\tc"),
            Some(json!({"q": "a \"b\" é 😀\tc"}))
        );
        // A program's object copied in is no value.
        assert_eq!(
            loose("{'input': AttributedDict([('type', 'string')])}"),
            None
        );
        // (So is any capitalised name called: `Log(100)` shows no JSON.)
        assert_eq!(loose("{\"expression\": Log(100)}"), None);
        assert_eq!(
            loose("{\"expression\": sqrt(16) + 2}"),
            Some(json!({"expression": "sqrt(16) + 2"}))
        );
        // The lenient reading refuses them.
        assert_eq!(parse("{\"query\": Eiffel Tower height}"), None);
        assert_eq!(parse("{\"q\": \"say \"hi\" now\"}"), None);
        // What reads strictly reads the same.
        assert_eq!(
            loose("{\"a\": 1, \"b\": \"x, y\"}"),
            Some(json!({"a": 1, "b": "x, y"}))
        );
    }

    #[test]
    fn an_object_left_open_ends_before_words_but_not_before_a_key() {
        assert_eq!(
            parse("{\"a\": 1\nthen some words"),
            Some(serde_json::json!({"a": 1}))
        );
        assert_eq!(parse("{\"q\": \"a\"\n  limit: 3}"), None);
        assert_eq!(parse("{'q': 'a'\n limit=3}"), None);
    }

    #[test]
    fn failures_say_where_reading_stopped() {
        assert_eq!(read_lenient("{\"a\": }"), Err(6));
        assert_eq!(read_lenient("{\"中\": x y}"), Err(9));
    }

    #[test]
    fn refuses_what_is_not_json() {
        assert_eq!(parse("{temperature in SF}"), None);
        assert_eq!(parse("[temperature in {SF}]"), None);
        assert_eq!(parse("hello"), None);
        assert_eq!(parse(&"[".repeat(1000)), None);
    }
}
