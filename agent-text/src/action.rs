//! The value of an `Action:` label: a tool name, maybe followed by its
//! arguments written as a call (`tool({…})`, `tool {…}`, `tool("…")`,
//! `tool(key=value)`, `tool: input`), the paper's `Tool[input]` /
//! `Finish[answer]`, or a JSON action blob. A sentence where a name should be is refused.

use agent_core::python_calls::is_word_name;
use serde_json::{Map, Value};

use crate::foreign;
use crate::input::{decode_plain, empty_object, read_json_at, unquote};
use crate::lenient_json::read_lenient;

/// Words at most in a tool name (`Intermediate Answer`, `Python REPL`,
/// crewAI's `Delegate work to coworker`, `Search a txt's content`).
const MAX_NAME_WORDS: usize = 5;

/// Words a sentence about the step starts with, and a tool's name does
/// not (`I will search`, `Let me look it up`, `Use the calculator`).
const SENTENCE_STARTS: [&str; 16] = [
    "i", "i'll", "i'm", "we", "we'll", "let", "let's", "you", "use", "using", "now", "then",
    "first", "next", "to", "my",
];

/// What an `Action:` value holds.
#[derive(Debug)]
pub(crate) enum ActionValue {
    /// A tool name, with arguments when the line also held a call.
    Named {
        /// The tool name as written, cleaned of markup.
        name: String,
        /// Arguments from the action line itself, and where they end.
        args: Option<(Result<Value, String>, usize)>,
        /// Where the name (and any arguments) end.
        end: usize,
    },
    /// Paper style: `Tool[input]`.
    Paper {
        /// The tool name.
        name: String,
        /// The bracketed input.
        input: Value,
        /// Where the step ends.
        end: usize,
    },
    /// Paper style `Finish[answer]`.
    Finish {
        /// The answer.
        answer: String,
        /// Where the step ends.
        end: usize,
    },
    /// A JSON action blob (fenced or not) starts at this byte.
    Blob(usize),
    /// The model said it takes no action (`None`, `N/A`).
    Nothing,
    /// Not usable, with the reason shown to the model.
    Invalid(String),
}

/// Reads the action whose value starts at byte `value` and runs at most to
/// `limit` (the next label; arguments in JSON may run past it).
pub(crate) fn read_action(text: &str, value: usize, limit: usize) -> ActionValue {
    let Some(name_at) = name_start(text, value, limit) else {
        return ActionValue::Invalid("the `Action:` line does not name a tool".into());
    };
    let line_end = text[name_at..]
        .find('\n')
        .map_or(text.len(), |n| name_at + n)
        .min(limit.max(name_at));
    let mut line = &text[name_at..line_end];
    // Where `line` starts in `text`.
    let mut line_at = name_at;
    // `[Search]`: the prompt's list brackets copied around the name.
    if let Some(inner) = wrapped(line, "[", "]", &['[', ']', '{', '"']) {
        line = inner;
        line_at += '['.len_utf8();
        if let Some(named) = bare_name(inner, line_end) {
            return named;
        }
    }
    // ```` ```search``` ````: a name in a fence that closes on its line.
    if let Some(named) = wrapped(line, "```", "```", &['{', '[', '`', '('])
        .and_then(|inner| bare_name(inner, line_end))
    {
        return named;
    }
    // `Action: (what it is for)` with the blob on the lines after it.
    if let Some(blob_at) = blob_after_comment(text, line, line_end, limit) {
        return ActionValue::Blob(blob_at);
    }
    if line.starts_with("```")
        || line.starts_with('{')
        || line.starts_with(crate::blob::TEMPLATE_BLOB)
        || line.starts_with("<tool_call>")
        || foreign::opens_call(line)
        || crate::xml_tags::opens_tag_step(line)
    {
        return ActionValue::Blob(name_at);
    }
    if let Some(paper) = paper_style(line, name_at) {
        return paper;
    }
    if let Some(finish) = long_finish(text, name_at, line, limit) {
        return finish;
    }
    if let Some(named) = colon_call(line, line_end) {
        return named;
    }
    let args_in_line = line.find(['(', '{', '[', '（']);
    let raw_name = &line[..args_in_line.unwrap_or(line.len())];
    let args_at = args_in_line.map(|i| line_at + i);
    let name = clean_name(raw_name);
    if name.is_empty() {
        return ActionValue::Invalid("the `Action:` line does not name a tool".into());
    }
    if is_no_action(&name) {
        return ActionValue::Nothing;
    }
    if is_sentence(&name) {
        return ActionValue::Invalid(
            "the `Action:` line holds a sentence; it must be only the name of one tool".into(),
        );
    }
    let spaced = raw_name.ends_with(char::is_whitespace);
    let args = args_at.and_then(|at| call_arguments(text, at, line_end, spaced));
    let end = args.as_ref().map_or(line_end, |(_, end)| *end);
    ActionValue::Named { name, args, end }
}

/// `name: input`, the action line of Simon Willison's widely copied ReAct
/// loop (`Action: <tool>: <input>`, then `PAUSE`): a one-word name, then
/// the rest of the line as its input. Not when the rest packs a second
/// call to the same name, or the name is a URL's scheme.
fn colon_call(line: &str, line_end: usize) -> Option<ActionValue> {
    let (name, input) = line.split_once(':')?;
    let name = name.trim();
    let input = input.trim();
    if !is_word_name(name) || input.is_empty() || input.starts_with("//") {
        return None;
    }
    if input.contains(&format!("{name}:")) {
        return None;
    }
    Some(ActionValue::Named {
        name: name.to_string(),
        args: Some((Ok(decode_plain(input)), line_end)),
        end: line_end,
    })
}

/// Where a fenced or bare JSON blob starts, on the line after an action
/// line that is only a comment in parentheses (`Action: (to find the
/// first number)`) or a copied placeholder (`Action: $JSON_BLOB`), before
/// `limit`.
fn blob_after_comment(text: &str, line: &str, line_end: usize, limit: usize) -> Option<usize> {
    let line = line.trim();
    let comment = line.starts_with('(') && line.ends_with(')');
    if !(comment || is_placeholder(line)) {
        return None;
    }
    let at = crate::blob::skip_space(text, line_end);
    let opens = ["```", "{", crate::blob::TEMPLATE_BLOB]
        .iter()
        .any(|open| text[at..].starts_with(open));
    (opens && at < limit).then_some(at)
}

/// Whether `line` is a prompt template's placeholder the model copied,
/// such as `$JSON_BLOB`: a `$` and a word in capitals.
fn is_placeholder(line: &str) -> bool {
    line.strip_prefix('$').is_some_and(|word| {
        word.chars().any(|c| c.is_ascii_uppercase())
            && word
                .chars()
                .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
    })
}

/// The text between `open` and `close` when they wrap the whole line and
/// it holds none of `not_inside`.
fn wrapped<'a>(line: &'a str, open: &str, close: &str, not_inside: &[char]) -> Option<&'a str> {
    line.trim_end()
        .strip_prefix(open)
        .and_then(|l| l.strip_suffix(close))
        .filter(|inner| !inner.contains(not_inside))
}

/// A lone tool name (no arguments) ending the step at `end`, unless the
/// text is empty or a sentence.
fn bare_name(text: &str, end: usize) -> Option<ActionValue> {
    let name = clean_name(text);
    (!name.is_empty() && !is_sentence(&name)).then_some(ActionValue::Named {
        name,
        args: None,
        end,
    })
}

/// Where the tool name begins: on the label's line, or on the next
/// non-empty line when the label's line holds nothing else.
fn name_start(text: &str, value: usize, limit: usize) -> Option<usize> {
    let region = &text[value..limit.max(value)];
    let trimmed = region.trim_start();
    // A list marker before the name: `Action: 1. search`, `Action: - search`.
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    let marker = match trimmed.as_bytes().get(digits) {
        Some(b'.' | b')') if (1..=2).contains(&digits) => digits + 1,
        Some(b'-') if digits == 0 => 1,
        _ => 0,
    };
    // The marker counts only with a space after it and a name on its line.
    let listed = &trimmed[marker..];
    let named = listed.trim_start_matches([' ', '\t']);
    let trimmed = if marker > 0
        && named.len() < listed.len()
        && !named.is_empty()
        && !named.starts_with(['\n', '\r'])
    {
        named
    } else {
        trimmed
    };
    (!trimmed.is_empty()).then_some(value + (region.len() - trimmed.len()))
}

/// `Finish[answer]` whose answer runs over several lines: up to the first
/// `]` that ends a line (else the last `]`) before the next label, or to
/// the end when the reply was cut.
fn long_finish(text: &str, at: usize, line: &str, limit: usize) -> Option<ActionValue> {
    let open = line.find('[')?;
    if !line[..open].trim().eq_ignore_ascii_case("finish") {
        return None;
    }
    let inner_at = at + open + 1;
    let region = text.get(inner_at..limit.max(inner_at))?;
    let mut line_start = 0;
    let mut line_end_close = None;
    for line in region.split_inclusive('\n') {
        let kept = line.trim_end();
        if kept.ends_with(']') {
            line_end_close = Some(line_start + kept.len() - 1);
            break;
        }
        line_start += line.len();
    }
    let (answer, end) = match line_end_close.or_else(|| region.rfind(']')) {
        Some(close) => (&region[..close], inner_at + close + 1),
        None => (region, inner_at + region.len()),
    };
    let answer = answer.trim();
    (!answer.is_empty()).then(|| ActionValue::Finish {
        answer: answer.to_string(),
        end,
    })
}

/// A reply whose first line is a paper-style step and nothing else
/// (`search[<query>]`, `Finish[<answer>]`), as a model writes it when the
/// prompt ended on its `Action:` label: the step, when the name is a plain
/// identifier (a sentence with brackets in it is no step).
pub(crate) fn bare_paper_step(text: &str) -> Option<ActionValue> {
    let at = text.len() - text.trim_start().len();
    let line = &text[at..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let name = &line[..line.find('[')?];
    let identifier = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        return None;
    }
    paper_style(line, at)
}

/// `Tool[input]` (no space before `[`) and `Finish[answer]`, maybe with a
/// code comment after it on the line (`calculator[<n>]  # <why>`). Empty
/// brackets are an empty input, an empty object as everywhere else.
fn paper_style(line: &str, at: usize) -> Option<ActionValue> {
    let trimmed = without_trailing_comment(line.trim_end());
    let open = trimmed.find('[')?;
    let inner = trimmed.strip_suffix(']')?.get(open + 1..)?;
    let name = &trimmed[..open];
    if name.is_empty() || name.contains(char::is_whitespace) || name.contains(['(', '{']) {
        return None;
    }
    let end = at + trimmed.len();
    if name.eq_ignore_ascii_case("finish") {
        return Some(ActionValue::Finish {
            answer: inner.trim().to_string(),
            end,
        });
    }
    let inner = inner.trim();
    let input = if inner.is_empty() {
        empty_object()
    } else {
        Value::String(unquote(inner).to_string())
    };
    Some(ActionValue::Paper {
        name: clean_name(name),
        input,
        end,
    })
}

/// The line up to its last `]` when only a `#` or `//` comment follows it.
fn without_trailing_comment(line: &str) -> &str {
    let Some(close) = line.rfind(']') else {
        return line;
    };
    let rest = line[close + 1..].trim_start();
    if rest.starts_with('#') || rest.starts_with("//") {
        &line[..=close]
    } else {
        line
    }
}

/// Drops markup around a name: quotes, backticks, bold, a `functions.` or
/// `tools.` prefix, and trailing punctuation.
pub(crate) fn clean_name(raw: &str) -> String {
    let mut name = raw.trim();
    loop {
        let next = name
            .trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | '*'))
            .trim_end_matches([':', '.', ',', ';', '：'])
            .trim();
        if next == name {
            break;
        }
        name = next;
    }
    let name = name
        .strip_prefix("functions.")
        .or_else(|| name.strip_prefix("tools."))
        .unwrap_or(name);
    // Markdown-escaped underscores: `read\_file`.
    name.replace("\\_", "_")
}

/// `None`, `N/A`, `null`: the model takes no action.
fn is_no_action(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "none" | "n/a" | "na" | "null" | "no action" | "nothing" | "-"
    )
}

/// A sentence rather than a name: more words than a name has, several
/// words ending like a sentence, or several words opening like one; or
/// the full-width punctuation of a CJK sentence, whose words no spaces
/// separate.
pub(crate) fn is_sentence(name: &str) -> bool {
    let words = name.split_whitespace().count();
    if words > MAX_NAME_WORDS || name.contains(['，', '。', '！', '？', '；', '、']) {
        return true;
    }
    let first = name
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_lowercase();
    words > 1
        && (name.contains(['.', '!', '?', ','])
            || name.chars().count() > 64
            || SENTENCE_STARTS.contains(&first.as_str()))
}

/// Arguments written on the action line, starting at `at` (a `(`, a
/// full-width `（`, `{` or `[`). `spaced` tells whether a space separated
/// them from the name: a spaced `(prose)` is a description, not
/// arguments.
fn call_arguments(
    text: &str,
    at: usize,
    line_end: usize,
    spaced: bool,
) -> Option<(Result<Value, String>, usize)> {
    let rest = &text[at..];
    if rest.starts_with('{') || rest.starts_with('[') {
        return match read_json_at(text, at)? {
            Ok((value, end)) => Some((Ok(value), end)),
            Err(reason) => Some((Err(reason), line_end)),
        };
    }
    // `(` …, or a full-width `（` as Chinese and Japanese input methods
    // type it, closed by either `）` or `)`. (An ASCII `(` is closed by
    // `)` only: a `）` inside the text is the text's own.)
    let opener = rest.chars().next()?;
    let closers: &[char] = if opener == '（' {
        &[')', '）']
    } else {
        &[')']
    };
    let inner_at = at + opener.len_utf8();
    let inner = &text[inner_at..];
    let json_at = inner_at + (inner.len() - inner.trim_start().len());
    if let Some(found) = read_json_at(text, json_at) {
        return match found {
            Ok((value, end)) => Some((Ok(value), close_paren(text, end)?)),
            Err(reason) => Some((Err(reason), line_end)),
        };
    }
    let Some(close) = text[inner_at..line_end].rfind(closers) else {
        // Keyword arguments whose strings run over several lines
        // (`finish(answer="<text>` and its `")` on a later line).
        if opener == '('
            && let Ok(close) = crate::foreign::matching_paren(text, at)
            && let Some(object) = keyword_arguments(text[inner_at..close].trim())
        {
            return Some((Ok(object), close + 1));
        }
        return cut_keyword_call(text, inner_at).map(|value| (Ok(value), text.len()));
    };
    let close = close + inner_at;
    let args = text[inner_at..close].trim();
    let end = close + text[close..].chars().next().map_or(1, char::len_utf8);
    if args.is_empty() {
        return Some((Ok(Value::Object(Map::new())), end));
    }
    if let Some(object) = keyword_arguments(args) {
        return Some((Ok(object), end));
    }
    let quoted = args.len() >= 2
        && ((args.starts_with('"') && args.ends_with('"'))
            || (args.starts_with('\'') && args.ends_with('\'')));
    if quoted || !spaced {
        return Some((Ok(decode_plain(args)), end));
    }
    None
}

/// A call cut off by the end of the reply inside its one keyword
/// argument's string (`finish(answer="…` at the token limit): that
/// argument, with the text it has.
fn cut_keyword_call(text: &str, inner_at: usize) -> Option<Value> {
    let args = text[inner_at..].trim_start();
    let eq = args.find('=')?;
    let key = args[..eq].trim();
    if !is_word_name(key) {
        return None;
    }
    let value = args[eq + 1..].trim_start();
    let quote = value.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let body = &value[1..];
    if body.contains(quote) {
        return None;
    }
    let mut map = Map::new();
    map.insert(key.to_string(), Value::String(body.trim_end().to_string()));
    Some(Value::Object(map))
}

/// The byte after the `)` that closes a call whose arguments end at `end`.
fn close_paren(text: &str, end: usize) -> Option<usize> {
    let after = &text[end..];
    let trimmed = after.trim_start();
    let paren = trimmed.chars().next().filter(|c| matches!(c, ')' | '）'))?;
    Some(end + (after.len() - trimmed.len()) + paren.len_utf8())
}

/// `key=value, key2="text"`: Python-style keyword arguments as an object.
pub(crate) fn keyword_arguments(args: &str) -> Option<Value> {
    let mut map = Map::new();
    let mut rest = args.trim();
    while !rest.is_empty() {
        let eq = rest.find('=')?;
        let key = rest[..eq].trim();
        if !is_word_name(key) {
            return None;
        }
        let after = rest[eq + 1..].trim_start();
        let (value, used) = match read_lenient(after) {
            Ok((value, used)) => (value, used),
            Err(_) => {
                let until = after.find(',').unwrap_or(after.len());
                (decode_plain(after[..until].trim()), until)
            }
        };
        map.insert(key.to_string(), value);
        rest = after[used..].trim_start();
        match rest.strip_prefix(',') {
            Some(next) => rest = next.trim_start(),
            None if rest.is_empty() => {}
            None => return None,
        }
    }
    (!map.is_empty()).then_some(Value::Object(map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn named(text: &str) -> (String, Option<Result<Value, String>>) {
        match read_action(text, 0, text.len()) {
            ActionValue::Named { name, args, .. } => (name, args.map(|a| a.0)),
            other => panic!("{other:?}"),
        }
    }

    fn paper(line: &str) -> (String, Value, usize) {
        match paper_style(line, 0) {
            Some(ActionValue::Paper { name, input, end }) => (name, input, end),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_paper_step_drops_a_trailing_comment_and_reads_empty_brackets_as_no_input() {
        let line = "calc[7 * 6]  # the product";
        assert_eq!(paper(line), ("calc".into(), json!("7 * 6"), 11));
        assert_eq!(paper("calc[7] // why").1, json!("7"));
        assert_eq!(paper("clock[]").1, json!({}));
        assert_eq!(paper("clock[  ]").1, json!({}));
        // Text after the bracket that is no comment is no paper step.
        assert!(paper_style("calc[7] and more", 0).is_none());
    }

    #[test]
    fn call_syntax_carries_the_arguments() {
        assert_eq!(
            named("search({\"query\": \"x\"})"),
            ("search".into(), Some(Ok(json!({"query": "x"}))))
        );
        assert_eq!(
            named("search {\"query\": \"x\"}"),
            ("search".into(), Some(Ok(json!({"query": "x"}))))
        );
        assert_eq!(
            named("search(query=\"x\", limit=3)"),
            ("search".into(), Some(Ok(json!({"query": "x", "limit": 3}))))
        );
        assert_eq!(
            named("calculator(2 + 2)"),
            ("calculator".into(), Some(Ok(json!("2 + 2"))))
        );
        assert_eq!(named("add (add two numbers)"), ("add".into(), None));
        // Full-width parentheses, as Chinese and Japanese input methods type them.
        assert_eq!(
            named("search（query=\"東京の人口\"）"),
            ("search".into(), Some(Ok(json!({"query": "東京の人口"}))))
        );
        assert_eq!(
            named("calculator（{\"expression\": \"2 + 2\"}）"),
            (
                "calculator".into(),
                Some(Ok(json!({"expression": "2 + 2"})))
            )
        );
        assert_eq!(
            named("calculator（12 * 3）"),
            ("calculator".into(), Some(Ok(json!("12 * 3"))))
        );
        assert_eq!(
            named("calculator（12 * 3)"),
            ("calculator".into(), Some(Ok(json!("12 * 3"))))
        );
        // In the prompt's list brackets, the name and arguments are read
        // where they are in the line.
        assert_eq!(
            named("[検索（東京，人口）]"),
            ("検索".into(), Some(Ok(json!("東京，人口"))))
        );
        assert_eq!(
            named("[search(a, b. c d)]"),
            ("search".into(), Some(Ok(json!("a, b. c d"))))
        );
    }

    #[test]
    fn sentences_are_not_names() {
        for text in [
            "I will use the search tool to look it up",
            "Search the knowledge base, then answer.",
            "I need to compute this first.",
            "没有使用工具的必要，因为我已经得到了完整的症状列表。",
        ] {
            assert!(
                matches!(read_action(text, 0, text.len()), ActionValue::Invalid(_)),
                "{text}"
            );
        }
        assert_eq!(named("Intermediate Answer").0, "Intermediate Answer");
        assert_eq!(named("个人资产查询工具").0, "个人资产查询工具");
        assert_eq!(named("`search`.").0, "search");
    }
}
