//! ChatGLM3's `<|assistant|>NAME` header line (or `NAME` alone on its
//! line, when a server strips the special token) before a fenced
//! `tool_call(key=value, …)`, and [`opens_chatglm_call`] for readers that
//! cut a reply at a leaked `<|assistant|>`.

use crate::python_calls::keyword_call_arguments;

use super::shared::{NAME_WINDOW, is_name, skip_space, tail, window};
use super::{FamilyCall, Read};

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
pub(super) fn find_chatglm(text: &str, from: usize) -> Option<usize> {
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
pub(super) fn chatglm_call(text: &str, at: usize) -> Option<Read> {
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

#[cfg(test)]
mod tests {
    use crate::family_calls::read_family_calls;
    use crate::family_calls::tests::first;
    use serde_json::json;

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
}
