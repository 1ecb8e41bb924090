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

use serde_json::{Map, Value};

use crate::python_calls::keyword_call_arguments;

/// How far a call's name, or a tag's attributes, may run, in bytes.
const NAME_WINDOW: usize = 256;
/// How long a tag-name prefix (`minimax:`, `｜DSML｜`) may be, in bytes.
const PREFIX_WINDOW: usize = 32;
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

// ---- DeepSeek's tokens ----

/// A DeepSeek token in each spelling it comes in: `<｜…｜>` with `▁`
/// between words, and the same with ASCII `|` or `_`.
type Token = [&'static str; 4];

const CALLS_BEGIN: Token = [
    "<｜tool▁calls▁begin｜>",
    "<|tool▁calls▁begin|>",
    "<｜tool_calls_begin｜>",
    "<|tool_calls_begin|>",
];
const CALL_BEGIN: Token = [
    "<｜tool▁call▁begin｜>",
    "<|tool▁call▁begin|>",
    "<｜tool_call_begin｜>",
    "<|tool_call_begin|>",
];
const CALL_END: Token = [
    "<｜tool▁call▁end｜>",
    "<|tool▁call▁end|>",
    "<｜tool_call_end｜>",
    "<|tool_call_end|>",
];
const SEPARATOR: Token = [
    "<｜tool▁sep｜>",
    "<|tool▁sep|>",
    "<｜tool_sep｜>",
    "<|tool_sep|>",
];

/// The first `token`, in any of its spellings, at or after `from`: its
/// start and end.
fn find_token(text: &str, from: usize, token: Token) -> Option<(usize, usize)> {
    token
        .iter()
        .filter_map(|spelling| {
            text[from..]
                .find(spelling)
                .map(|n| (from + n, from + n + spelling.len()))
        })
        .min()
}

/// The DeepSeek call whose begin token starts at `at`. Arguments read
/// whole are the call, even when a token limit cut its end token.
fn deepseek_call(text: &str, at: usize) -> Option<Read> {
    let (_, body_at) = find_token(text, at, CALL_BEGIN)?;
    let call_end = find_token(text, body_at, CALL_END);
    let body_end = call_end.map_or(text.len(), |(start, _)| start);
    let body = &text[body_at..body_end];
    let (sep, after_sep) = find_token(body, 0, SEPARATOR)?;
    let before = body[..sep].trim();
    let (name, args_at) = if before == "function" {
        // V3/R1: the name on the line after the separator, then a fence.
        let after = &body[after_sep..];
        match after.split_once('\n') {
            Some((name, _)) => (name.trim(), body_at + after_sep + name.len() + 1),
            None => (after.trim(), body_end),
        }
    } else {
        (before, body_at + after_sep)
    };
    if !is_name(name) {
        return None;
    }
    let (mut call, whole) = json_body_call(
        &text[..body_end],
        skip_space(text, args_at).min(body_end),
        name.to_string(),
    );
    if let Some((_, end)) = call_end {
        call.end = end;
    }
    Some((call, whole))
}

/// The body of a fenced block (any language tag) that `text` is, or
/// `text` itself, trimmed.
pub fn strip_fence(text: &str) -> &str {
    let text = text.trim();
    let Some(after) = text.strip_prefix("```") else {
        return text;
    };
    let body = after.split_once('\n').map_or("", |(_, rest)| rest);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

// ---- `<invoke name="…">` elements ----

/// An `<invoke name="…">` (or `<function name="…">`) opening tag.
struct Invoke<'a> {
    /// Where its `<` is.
    lt: usize,
    /// The tool's name.
    name: &'a str,
    /// Where its body starts (after the tag's `>`).
    body_at: usize,
}

/// Element names of a call with a `name` attribute.
const CALL_ELEMENTS: [&str; 2] = ["invoke", "function"];
/// Element names of an argument with a `name` (or `key`) attribute.
const ARGUMENT_ELEMENTS: [&str; 3] = ["parameter", "param", "arg"];
/// The attributes that name a call.
const CALL_ATTRIBUTES: [&str; 1] = [" name"];
/// The attributes that name an argument (`key` in dspy's `<arg key=…>`).
const ARGUMENT_ATTRIBUTES: [&str; 2] = [" name", " key"];

/// The first `<…invoke name="…">` or `<…function name="…">` tag at or
/// after `from`.
fn find_invoke(text: &str, from: usize) -> Option<Invoke<'_>> {
    let mut search = from;
    loop {
        let (lt, name_at) = find_named_tag(text, search, &CALL_ELEMENTS, &CALL_ATTRIBUTES)?;
        search = name_at;
        let Some((name, attributes_at)) = quoted(text, name_at) else {
            continue;
        };
        let Some(close) = window(&text[attributes_at..], NAME_WINDOW).find('>') else {
            continue;
        };
        if is_name(name) {
            return Some(Invoke {
                lt,
                name,
                body_at: attributes_at + close + 1,
            });
        }
    }
}

/// The first tag at or after `from` whose element is one of `elements`
/// (after a tag-name prefix such as `minimax:` or `｜DSML｜`) with one of
/// `attributes` (each with its leading space): where its `<` is, and where
/// the attribute's value starts. Each `=` is looked at once.
fn find_named_tag(
    text: &str,
    from: usize,
    elements: &[&str],
    attributes: &[&str],
) -> Option<(usize, usize)> {
    let mut search = from;
    loop {
        let equals = search + text[search..].find('=')?;
        search = equals + 1;
        let Some(attribute) = attributes
            .iter()
            .find(|attribute| text[..equals].ends_with(**attribute))
        else {
            continue;
        };
        let Some((lt, tag)) = tag_name_before(text, equals - attribute.len()) else {
            continue;
        };
        if elements.iter().any(|element| tag.ends_with(element)) {
            return Some((lt, search));
        }
    }
}

/// The `<` and the tag name (prefix included) that end at `end`, when the
/// text from a `<` to there is a plain tag name.
fn tag_name_before(text: &str, end: usize) -> Option<(usize, &str)> {
    let before = tail(&text[..end], PREFIX_WINDOW);
    let lt = end - before.len() + before.rfind('<')?;
    let tag = &text[lt + 1..end];
    let plain = !tag.is_empty()
        && !tag
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '<' | '>' | '/'));
    plain.then_some((lt, tag))
}

/// The first closing tag at or after `from` whose element is one of
/// `elements`, after any prefix: where it starts and ends.
fn find_closing_tag(text: &str, from: usize, elements: &[&str]) -> Option<(usize, usize)> {
    let mut search = from;
    loop {
        let at = search + text[search..].find("</")?;
        search = at + 2;
        let Some(len) = window(&text[search..], PREFIX_WINDOW).find('>') else {
            continue;
        };
        let tag = &text[search..search + len];
        if elements.iter().any(|element| tag.ends_with(element)) {
            return Some((at, search + len + 1));
        }
    }
}

/// The text between quotes that open at `at` (`"` or `'`), and where the
/// text after the closing quote starts.
fn quoted(text: &str, at: usize) -> Option<(&str, usize)> {
    let rest = &text[at..];
    let quote = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let inner = &rest[1..];
    let len = window(inner, NAME_WINDOW).find(quote)?;
    Some((&inner[..len], at + 1 + len + 1))
}

/// The invoke call whose tag starts at `lt`. Its arguments are the
/// `<…parameter name="KEY">` (or `<param …>`) elements in its body; the
/// prefixes of opening and closing tags need not match, as models write
/// them.
fn invoke_call(text: &str, lt: usize) -> Option<Read> {
    let invoke = find_invoke(text, lt)?;
    let (body_end, end, complete) = match find_closing_tag(text, invoke.body_at, &CALL_ELEMENTS) {
        Some((start, end)) => (start, end, true),
        None => (text.len(), text.len(), false),
    };
    let body = &text[invoke.body_at..body_end];
    let (arguments, whole) = argument_elements(body);
    Some((
        FamilyCall {
            name: invoke.name.to_string(),
            arguments: Value::Object(arguments),
            end,
        },
        complete && whole,
    ))
}

/// The arguments written as `<parameter name="KEY">VALUE</parameter>`
/// elements (or `<param name=…>`, `<arg key=…>`, any tag prefix) in
/// `body`, or `None` when it holds none. A value is JSON when it reads as
/// JSON, else its text (always its text with `string="true"`).
pub fn read_argument_elements(body: &str) -> Option<Map<String, Value>> {
    let (arguments, _) = argument_elements(body);
    (!arguments.is_empty()).then_some(arguments)
}

/// The argument elements in `body`, and whether each was read to its
/// closing tag.
fn argument_elements(body: &str) -> (Map<String, Value>, bool) {
    let mut arguments = Map::new();
    let mut at = 0;
    while let Some((_, name_at)) =
        find_named_tag(body, at, &ARGUMENT_ELEMENTS, &ARGUMENT_ATTRIBUTES)
    {
        let Some((key, attributes_at)) = quoted(body, name_at) else {
            return (arguments, false);
        };
        let Some(tag_len) = window(&body[attributes_at..], NAME_WINDOW).find('>') else {
            return (arguments, false);
        };
        let tag_end = attributes_at + tag_len;
        let raw = body[attributes_at..tag_end].contains("string=\"true\"");
        let value_at = tag_end + 1;
        let Some((value_end, next)) = find_closing_tag(body, value_at, &ARGUMENT_ELEMENTS) else {
            arguments.insert(key.to_string(), element_value(&body[value_at..], raw));
            return (arguments, false);
        };
        arguments.insert(
            key.to_string(),
            element_value(&body[value_at..value_end], raw),
        );
        at = next;
    }
    (arguments, true)
}

/// Where a wrapper tag around the call at `lt` starts (`<function_calls>`,
/// `<minimax:tool_call>`), or `lt` when the call has none.
fn wrapper_start(text: &str, lt: usize) -> usize {
    let before = text[..lt].trim_end();
    if !before.ends_with('>') {
        return lt;
    }
    let tag_window = tail(before, MARKER_WINDOW);
    match tag_window.rfind('<') {
        Some(n) => {
            let start = before.len() - tag_window.len() + n;
            let tag = &before[start..];
            if tag.starts_with("</") || tag.contains(char::is_whitespace) {
                lt
            } else {
                start
            }
        }
        None => lt,
    }
}

// ---- `<tool_call>NAME` with `<arg_key>`/`<arg_value>` pairs or JSON ----

const CALL_TAG: &str = "tool_call>";
/// DeepSeek V4's degenerate `<｜DSML｜toolcall>NAME`.
const CALL_TAG_SHORT: &str = "toolcall>";

/// A `<…tool_call>NAME` head: the tag-name prefix its tags share (GLM
/// writes none, LongCat `longcat_`), the name, and where the arguments
/// start.
struct Head<'a> {
    prefix: &'a str,
    name: &'a str,
    args_at: usize,
}

/// The first `<…tool_call>NAME` followed by an argument pair, a JSON
/// object (maybe fenced) or the closing tag, at or after `from`.
fn find_glm(text: &str, from: usize) -> Option<usize> {
    let mut search = from;
    loop {
        let (at, tag) = [CALL_TAG, CALL_TAG_SHORT]
            .iter()
            .filter_map(|tag| text[search..].find(tag).map(|n| (search + n, *tag)))
            .min()?;
        search = at + 1;
        let tag_end = at + tag.len() - 1;
        if let Some((lt, _)) = tag_name_before(text, tag_end)
            && glm_head(text, lt).is_some()
        {
            return Some(lt);
        }
    }
}

/// The head of the call whose `<` is at `lt`.
fn glm_head(text: &str, lt: usize) -> Option<Head<'_>> {
    let close = lt + window(&text[lt..], PREFIX_WINDOW + CALL_TAG.len()).find('>')?;
    let tag = &text[lt + 1..close];
    let prefix = tag
        .strip_suffix("tool_call")
        .or_else(|| tag.strip_suffix("toolcall"))?;
    let name_at = close + 1;
    let rest = &text[name_at..];
    let len = window(rest, NAME_WINDOW).find(['<', '{', '`'])?;
    let after = &rest[len..];
    let opens_pair = after
        .strip_prefix('<')
        .and_then(|a| a.strip_prefix(prefix))
        .is_some_and(|a| a.starts_with("arg_key>"));
    let closes = after
        .strip_prefix("</")
        .and_then(|a| a.strip_prefix(prefix))
        .is_some_and(|a| a.starts_with("tool_call>"));
    if !(opens_pair || closes || after.starts_with('{') || after.starts_with("```")) {
        return None;
    }
    let name = rest[..len].trim();
    is_name(name).then_some(Head {
        prefix,
        name,
        args_at: name_at + len,
    })
}

/// The call whose `<` is at `lt`.
fn glm_call(text: &str, lt: usize) -> Option<Read> {
    let head = glm_head(text, lt)?;
    let name = head.name.to_string();
    let rest = &text[head.args_at..];
    if rest.starts_with('{') || rest.starts_with("```") {
        return Some(json_body_call(text, head.args_at, name));
    }
    let tags = |name: &str| {
        (
            format!("<{}{name}>", head.prefix),
            format!("</{}{name}>", head.prefix),
        )
    };
    let (key_open, key_close) = tags("arg_key");
    let (value_open, value_close) = tags("arg_value");
    let call_close = format!("</{}tool_call>", head.prefix);
    let mut arguments = Map::new();
    let mut p = head.args_at;
    let finish = |arguments: Map<String, Value>, end: usize, closed: bool| {
        Some((
            FamilyCall {
                name: name.clone(),
                arguments: Value::Object(arguments),
                end,
            },
            closed,
        ))
    };
    loop {
        p = skip_space(text, p);
        let rest = &text[p..];
        if rest.starts_with(&call_close) {
            return finish(arguments, p + call_close.len(), true);
        }
        let Some(key_rest) = rest.strip_prefix(&key_open) else {
            // Cut, or something else after the last pair: the call ends here.
            return finish(arguments, p, !rest.is_empty());
        };
        let Some(key_len) = key_rest.find(&key_close) else {
            return finish(arguments, text.len(), false);
        };
        let key = key_rest[..key_len].trim();
        let value_tag = skip_space(text, p + key_open.len() + key_len + key_close.len());
        let Some(value_rest) = text[value_tag..].strip_prefix(&value_open) else {
            return finish(arguments, value_tag, value_tag < text.len());
        };
        let value_at = value_tag + value_open.len();
        match value_rest.find(&value_close) {
            Some(n) => {
                arguments.insert(key.to_string(), element_value(&value_rest[..n], false));
                p = value_at + n + value_close.len();
            }
            None => {
                arguments.insert(key.to_string(), element_value(value_rest, false));
                return finish(arguments, text.len(), false);
            }
        }
    }
}

/// A call whose arguments are the JSON object (maybe fenced) at `at`; it
/// ends after the object (and its fence), and the text after it, such as
/// a made-up result, is not read.
fn json_body_call(text: &str, at: usize, name: String) -> Read {
    let fenced = text[at..].starts_with("```");
    let json_at = if fenced {
        text[at..]
            .find('\n')
            .map_or(text.len(), |n| skip_space(text, at + n))
    } else {
        at
    };
    let mut values = serde_json::Deserializer::from_str(&text[json_at..]).into_iter::<Value>();
    match values.next() {
        Some(Ok(arguments)) => {
            let mut end = json_at + values.byte_offset();
            if fenced {
                let after = skip_space(text, end);
                if text[after..].starts_with("```") {
                    end = after + 3;
                }
            }
            (
                FamilyCall {
                    name,
                    arguments,
                    end,
                },
                true,
            )
        }
        _ => (
            FamilyCall {
                name,
                arguments: Value::String(strip_fence(&text[at..]).to_string()),
                end: text.len(),
            },
            false,
        ),
    }
}

// ---- Functionary's `>>>NAME` ----

const FUNCTIONARY_OPEN: &str = ">>>";
/// Functionary's recipient for prose, not a call.
const FUNCTIONARY_PROSE: &str = "all";

/// The first `>>>NAME` line followed by a JSON object, at or after `from`:
/// at a line start, or right after the call that ends at `from`.
fn find_functionary(text: &str, from: usize) -> Option<usize> {
    let mut search = from;
    loop {
        let at = search + text[search..].find(FUNCTIONARY_OPEN)?;
        search = at + FUNCTIONARY_OPEN.len();
        // At a line start, right after the previous call, or anywhere in
        // a reply that opens Functionary's way (`>>>all` prose, then calls).
        let at_line_start = at == 0
            || text[..at].ends_with('\n')
            || (from > 0 && at == skip_space(text, from))
            || text.starts_with(FUNCTIONARY_OPEN);
        if at_line_start && functionary_head(text, at).is_some() {
            return Some(at);
        }
    }
}

/// The name of the Functionary call at `at`, and where its JSON starts.
fn functionary_head(text: &str, at: usize) -> Option<(&str, usize)> {
    let name_at = at + FUNCTIONARY_OPEN.len();
    let line = window(&text[name_at..], NAME_WINDOW);
    let len = line.find('\n')?;
    let name = line[..len].trim();
    let json_at = skip_space(text, name_at + len);
    let opens_object = text[json_at..].starts_with('{');
    (opens_object && is_name(name) && name != FUNCTIONARY_PROSE).then_some((name, json_at))
}

/// The prose of a reply that opens with Functionary's `>>>all` recipient
/// line (its words for the user, not a call), when nothing in it is a
/// call in these formats.
pub fn functionary_prose(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix(FUNCTIONARY_OPEN)?;
    let rest = rest.strip_prefix(FUNCTIONARY_PROSE)?;
    let (head, prose) = rest.split_once('\n')?;
    if !head.trim().is_empty() || read_family_calls(text).is_some() {
        return None;
    }
    Some(prose.trim())
}

/// The Functionary call at `at`.
fn functionary_call(text: &str, at: usize) -> Option<Read> {
    let (name, json_at) = functionary_head(text, at)?;
    Some(json_body_call(text, json_at, name.to_string()))
}

// ---- ChatGLM3's `<|assistant|>NAME` + fenced `tool_call(…)` ----

/// ChatGLM3's role header, which opens a call when a tool name follows it
/// on its line.
const CHATGLM_HEADER: &str = "<|assistant|>";
/// The function a ChatGLM3 call's fence calls.
const CHATGLM_CALL: &str = "tool_call";

/// Whether a ChatGLM3 call starts at `at` (its `<|assistant|>NAME` header
/// line): such a header continues the reply, it does not end the turn.
///
/// ```
/// use agent_core::family_calls::opens_chatglm_call;
///
/// let reply = "Let me look.\n<|assistant|>search\n```python\ntool_call(query=\"a topic\")\n```";
/// assert!(opens_chatglm_call(reply, reply.find('<').unwrap()));
/// assert!(!opens_chatglm_call("<|assistant|>Sure, here it is.", 0));
/// ```
pub fn opens_chatglm_call(text: &str, at: usize) -> bool {
    text[at..].starts_with(CHATGLM_HEADER) && chatglm_head(text, at).is_some()
}

/// The start of the first ChatGLM3 call at or after `from`: its header
/// (or bare name) before a fence that opens with `tool_call(`. Each fence
/// is looked at once, its name looked back for within a bounded window.
fn find_chatglm(text: &str, from: usize) -> Option<usize> {
    let mut search = from;
    loop {
        let fence = search + text[search..].find("```")?;
        search = fence + 3;
        if let Some(start) = chatglm_name_before(text, from, fence)
            && chatglm_head(text, start).is_some()
        {
            return Some(start);
        }
    }
}

/// Where the name of a ChatGLM3 call whose fence opens at `fence` would
/// start, at or after `from`: on the fence's own line (ChatGLM3 sometimes
/// writes no line break between them) or else on the last line before it
/// with text; at its `<|assistant|>` header when the line has one.
fn chatglm_name_before(text: &str, from: usize, fence: usize) -> Option<usize> {
    let before = text[from..fence].trim_end_matches([' ', '\t']);
    let before = if before.is_empty() || before.ends_with('\n') {
        before.trim_end()
    } else {
        before
    };
    let window = tail(before, NAME_WINDOW + CHATGLM_HEADER.len());
    let window_at = from + before.len() - window.len();
    let line = window.rfind('\n').map_or(0, |nl| nl + 1);
    // The whole line must be in the window (or start the searched text).
    if line == 0 && window_at != from {
        return None;
    }
    let header = window[line..]
        .rfind(CHATGLM_HEADER)
        .map_or(line, |h| line + h);
    (window_at + header < from + before.len()).then_some(window_at + header)
}

/// The tool name of the ChatGLM3 call whose header (or bare name) starts
/// at `at`, and where its `tool_call` starts (after the fence's opening
/// line).
fn chatglm_head(text: &str, at: usize) -> Option<(&str, usize)> {
    let rest = &text[at..];
    let name_at = at
        + rest
            .strip_prefix(CHATGLM_HEADER)
            .map_or(0, |_| CHATGLM_HEADER.len());
    let line = window(&text[name_at..], NAME_WINDOW);
    let len = line.find(['\n', '`'])?;
    let name = line[..len].trim();
    // A function's name: a word such as `Search:` on a line of its own
    // is a heading, not a call.
    let word = name.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !is_name(name) || !word {
        return None;
    }
    let fence = skip_space(text, name_at + len);
    let fence_line = text[fence..].strip_prefix("```")?;
    let lang_len = fence_line.find('\n')?;
    let lang = fence_line[..lang_len].trim();
    if !(lang.is_empty() || lang.eq_ignore_ascii_case("python")) {
        return None;
    }
    let call_at = skip_space(text, fence + 3 + lang_len);
    let after_call = text[call_at..].strip_prefix(CHATGLM_CALL)?;
    after_call
        .trim_start()
        .starts_with('(')
        .then_some((name, call_at))
}

/// The ChatGLM3 call whose header line starts at `at`: its arguments are
/// the `tool_call`'s keyword arguments; it ends after the closing fence.
fn chatglm_call(text: &str, at: usize) -> Option<Read> {
    let (name, call_at) = chatglm_head(text, at)?;
    let open = skip_space(text, call_at + CHATGLM_CALL.len());
    let (arguments, used) = keyword_call_arguments(&text[open..])?;
    let mut end = open + used;
    let after = skip_space(text, end);
    if text[after..].starts_with("```") {
        end = after + 3;
    }
    let call = FamilyCall {
        name: name.to_string(),
        arguments,
        end,
    };
    Some((call, true))
}

// ---- shared ----

/// An element's value: JSON when it reads as JSON, else its trimmed text;
/// always the text when `raw`.
fn element_value(text: &str, raw: bool) -> Value {
    let trimmed = text.trim();
    if raw {
        return Value::String(trimmed.to_string());
    }
    serde_json::from_str::<Value>(trimmed).unwrap_or_else(|_| Value::String(trimmed.to_string()))
}

/// A tool name as these formats write it: not empty, no spaces, no tags.
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_WINDOW
        && !name
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '<' | '>' | '{' | '[' | '"'))
}

/// The first `max` bytes of `text`, cut back to a character boundary.
pub(crate) fn window(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The last `max` bytes of `text`, cut forward to a character boundary.
fn tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// The first byte at or after `p` that is not whitespace.
fn skip_space(text: &str, p: usize) -> usize {
    p + (text[p..].len() - text[p..].trim_start().len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn first(text: &str) -> (String, Value, bool) {
        let read = read_family_calls(text).unwrap();
        let call = read.calls.first().unwrap();
        (call.name.clone(), call.arguments.clone(), read.complete)
    }

    #[test]
    fn deepseek_calls_in_both_generations_and_spellings() {
        let v3 = "Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{\"query\": \"Oslo\"}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>calculator\n```json\n{\"expression\": \"1+1\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
        let read = read_family_calls(v3).unwrap();
        assert_eq!(&v3[..read.prose_end], "Let me check.");
        assert!(read.complete);
        let names: Vec<&str> = read.calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["search", "calculator"]);
        assert_eq!(read.calls[0].arguments, json!({"query": "Oslo"}));
        let v31 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"query\": \"Oslo\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
        assert_eq!(
            first(v31),
            ("search".into(), json!({"query": "Oslo"}), true)
        );
        let ascii = "<|tool_call_begin|>search<|tool_sep|>{\"query\": \"Oslo\"}<|tool_call_end|>";
        assert_eq!(
            first(ascii),
            ("search".into(), json!({"query": "Oslo"}), true)
        );
        // Cut inside the arguments: read, but not complete; broken JSON
        // stays text for the gateway to reject.
        let (name, arguments, complete) =
            first("<｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"query\": \"Os");
        assert_eq!((name.as_str(), complete), ("search", false));
        assert!(arguments.is_string());
    }

    #[test]
    fn invoke_elements_with_any_prefix() {
        let minimax = "I will look it up.\n<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"query\">Oslo population</parameter>\n<parameter name=\"limit\">3</parameter>\n</invoke>\n</minimax:tool_call>";
        let read = read_family_calls(minimax).unwrap();
        assert_eq!(&minimax[..read.prose_end], "I will look it up.\n");
        assert_eq!(
            (
                read.calls[0].name.as_str(),
                &read.calls[0].arguments,
                read.complete
            ),
            (
                "search",
                &json!({"query": "Oslo population", "limit": 3}),
                true
            )
        );
        let dsml = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_file\">\n<｜DSML｜parameter name=\"path\" string=\"true\">2024</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"query\" string=\"true\">x</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
        let read = read_family_calls(dsml).unwrap();
        assert_eq!(read.prose_end, 0);
        assert_eq!(read.calls.len(), 2);
        assert_eq!(read.calls[0].arguments, json!({"path": "2024"}));
        let cut = "<function_calls><invoke name=\"search\"><parameter name=\"query\">Os";
        let (name, arguments, complete) = first(cut);
        assert_eq!(
            (name.as_str(), arguments, complete),
            ("search", json!({"query": "Os"}), false)
        );
    }

    #[test]
    fn glm_pairs_with_and_without_newlines() {
        let glm = "<think>Need data.</think>\n<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>Oslo</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>3</arg_value>\n</tool_call>";
        let read = read_family_calls(glm).unwrap();
        assert!(glm[..read.prose_end].ends_with("</think>\n"));
        assert_eq!(
            (
                read.calls[0].name.as_str(),
                &read.calls[0].arguments,
                read.complete
            ),
            ("search", &json!({"query": "Oslo", "limit": 3}), true)
        );
        let packed = "<tool_call>list_tools</tool_call><tool_call>search<arg_key>query</arg_key><arg_value>a b</arg_value></tool_call>";
        let read = read_family_calls(packed).unwrap();
        assert_eq!(read.calls.len(), 2);
        assert_eq!(read.calls[0].arguments, json!({}));
        assert_eq!(read.calls[1].arguments, json!({"query": "a b"}));
        // JSON inside <tool_call> is the Hermes format, not this one.
        assert!(read_family_calls("<tool_call>{\"name\": \"a\"}</tool_call>").is_none());
    }

    #[test]
    fn functionary_lines() {
        let text = ">>>search\n{\"query\": \"Oslo\"}>>>calculator\n{\"expression\": \"2\"}";
        let read = read_family_calls(text).unwrap();
        assert_eq!(read.calls.len(), 2);
        assert!(read.complete);
        // Prose for the user, a `>>>` inside a line, a quote: no calls.
        assert!(read_family_calls(">>>all\nHello there").is_none());
        assert!(read_family_calls("Python's prompt is >>>print\n{}").is_none());
    }

    #[test]
    fn chatglm_headers_before_fenced_tool_calls() {
        // As ChatGLM3 writes it with its special tokens kept: prose, then
        // the header naming the tool, then the fence.
        let text = "Let me look.\n<|assistant|>search\n```python\ntool_call(query=\"a topic\", limit=3)\n```<|observation|>";
        let read = read_family_calls(text).unwrap();
        assert_eq!(&text[..read.prose_end], "Let me look.\n");
        assert!(read.complete);
        assert_eq!(read.calls[0].name, "search");
        assert_eq!(
            read.calls[0].arguments,
            json!({"query": "a topic", "limit": 3})
        );
        assert_eq!(&text[read.calls[0].end..], "<|observation|>");
        // The token stripped, or no line break before the fence.
        for text in [
            "search\n```python\ntool_call(query='a topic')\n```",
            "search```python\ntool_call(query='a topic')\n```",
            "<|assistant|>search\n\n```\ntool_call(query='a topic')```",
        ] {
            assert_eq!(
                first(text),
                ("search".into(), json!({"query": "a topic"}), true),
                "{text}"
            );
        }
        // Not a call: a label line, another fence, another function, a
        // header before prose, a call cut before its `)`.
        for text in [
            "Thought: look\n```python\ntool_call(query='x')\n```",
            "search\n```json\ntool_call(query='x')\n```",
            "search\n```python\nprint(query='x')\n```",
            "<|assistant|>Sure, here it is.",
            "Search:\n```python\ntool_call(query='x')\n```",
            "1.\n```python\ntool_call(query='x')\n```",
            "---\n```python\ntool_call(query='x')\n```",
        ] {
            assert!(read_family_calls(text).is_none(), "{text}");
        }
        let cut = read_family_calls("search\n```python\ntool_call(query='a top").unwrap();
        assert!(cut.calls.is_empty() && !cut.complete);
    }

    #[test]
    fn functionary_prose_is_not_a_call() {
        assert_eq!(functionary_prose(">>>all\nIt is 42."), Some("It is 42."));
        assert_eq!(
            functionary_prose(">>>all\nLet me check.>>>search\n{\"q\": 1}"),
            None
        );
        assert_eq!(functionary_prose(">>>allow\nx"), None);
        assert_eq!(functionary_prose("It is 42."), None);
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
