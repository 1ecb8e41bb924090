//! Kimi K2's tool-call tokens, as a server that does not parse them hands
//! them over: after the model's prose, `<|tool_calls_section_begin|>`,
//! then per call `<|tool_call_begin|>functions.NAME:INDEX
//! <|tool_call_argument_begin|>{…}<|tool_call_end|>`, then
//! `<|tool_calls_section_end|>`. A server that strips the begin tokens as
//! special tokens leaves `NAME:INDEX<|tool_call_argument_begin|>{…}`, each
//! call ended by the section's end token (seen from Kimi K2.6).
//!
//! [`read_kimi_calls`] reads them in one pass. Both transports use it:
//! the text transport takes the first call as the step, the native
//! transport executes them all.

use crate::family_calls::window;

const SECTION_BEGIN: &str = "<|tool_calls_section_begin|>";
const CALL_BEGIN: &str = "<|tool_call_begin|>";
const ARGUMENT_BEGIN: &str = "<|tool_call_argument_begin|>";
const CALL_END: &str = "<|tool_call_end|>";
const SECTION_END: &str = "<|tool_calls_section_end|>";
/// How far a call's name, with its prefix and index, may run, in bytes.
const NAME_WINDOW: usize = 256;

/// The calls of a reply written in Kimi K2's tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KimiCalls<'a> {
    /// Where the prose before the calls ends.
    pub prose_end: usize,
    /// The calls, in order, up to the first one that could not be read.
    pub calls: Vec<KimiCall<'a>>,
    /// `true` when every call the reply opened was read.
    pub complete: bool,
}

/// One call: the tool and its raw arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KimiCall<'a> {
    /// The tool, without its `functions.` prefix and `:INDEX` suffix.
    pub name: &'a str,
    /// The arguments as written (JSON, trimmed).
    pub arguments: &'a str,
    /// Where the call ends (after its end token, or the end of a reply
    /// cut inside it).
    pub end: usize,
}

/// The calls in `text`, or `None` when it opens none.
pub fn read_kimi_calls(text: &str) -> Option<KimiCalls<'_>> {
    let (first, head_at) = next_call(text, 0)?;
    let prose_end = text[..first].rfind(SECTION_BEGIN).unwrap_or(first);
    let mut calls = Vec::new();
    let mut head_at = head_at;
    loop {
        let Some(call) = read_call(text, head_at) else {
            return Some(KimiCalls {
                prose_end,
                calls,
                complete: false,
            });
        };
        let end = call.end;
        calls.push(call);
        match next_call(text, end) {
            Some((_, next)) => head_at = next,
            None => {
                return Some(KimiCalls {
                    prose_end,
                    calls,
                    complete: true,
                });
            }
        }
    }
}

/// The next call at or after `from`: where it starts and where its header
/// starts. A call opens with its begin token; when a server strips the
/// begin tokens as special tokens, the header is the word before an
/// argument token (`NAME:INDEX<|tool_call_argument_begin|>`).
fn next_call(text: &str, from: usize) -> Option<(usize, usize)> {
    let rest = &text[from..];
    if let Some(at) = rest.find(CALL_BEGIN) {
        return Some((from + at, from + at + CALL_BEGIN.len()));
    }
    let argument = rest.find(ARGUMENT_BEGIN)?;
    let before = &rest[..argument];
    let word_start = before
        .rfind(|c: char| c.is_whitespace() || c == '>')
        .map_or(0, |n| {
            n + before[n..].chars().next().map_or(1, char::len_utf8)
        });
    let start = from + word_start;
    Some((start, start))
}

/// The call whose header starts at `head_at` (just after its begin token).
fn read_call(text: &str, head_at: usize) -> Option<KimiCall<'_>> {
    let rest = &text[head_at..];
    let name_len = window(rest, NAME_WINDOW).find(ARGUMENT_BEGIN)?;
    let written = rest[..name_len].trim();
    let written = written.strip_prefix("functions.").unwrap_or(written);
    let name = written
        .rsplit_once(':')
        .filter(|(_, index)| index.chars().all(|c| c.is_ascii_digit()))
        .map_or(written, |(name, _)| name);
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let args_at = head_at + name_len + ARGUMENT_BEGIN.len();
    let ends = [CALL_END, SECTION_END]
        .iter()
        .filter_map(|token| text[args_at..].find(token).map(|n| (n, n + token.len())))
        .min();
    let (args_len, end) = match ends {
        Some((n, after)) => (n, args_at + after),
        None => (text.len() - args_at, text.len()),
    };
    Some(KimiCall {
        name,
        arguments: text[args_at..args_at + args_len].trim(),
        end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_after_prose_are_read_in_order() {
        let text = "Let me look.<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{\"query\": \"Oslo\"}<|tool_call_end|><|tool_call_begin|>functions.calculator:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>";
        let read = read_kimi_calls(text).unwrap();
        assert_eq!(&text[..read.prose_end], "Let me look.");
        assert!(read.complete);
        let calls: Vec<(&str, &str)> = read.calls.iter().map(|c| (c.name, c.arguments)).collect();
        assert_eq!(
            calls,
            [("search", "{\"query\": \"Oslo\"}"), ("calculator", "{}")]
        );
    }

    #[test]
    fn cut_and_broken_calls() {
        // Cut inside the arguments: the call runs to the end.
        let read =
            read_kimi_calls("<|tool_call_begin|>f:0<|tool_call_argument_begin|>{\"a\": 1").unwrap();
        assert_eq!(
            (read.calls[0].name, read.calls[0].arguments),
            ("f", "{\"a\": 1")
        );
        // A header with no argument token, or a name with spaces: not read.
        let read =
            read_kimi_calls("<|tool_call_begin|>functions.a b:0<|tool_call_argument_begin|>{}")
                .unwrap();
        assert!(read.calls.is_empty() && !read.complete);
        assert!(read_kimi_calls("no calls here").is_none());
    }

    #[test]
    fn calls_whose_begin_tokens_were_stripped() {
        let text = "channel_reply:0<|tool_call_argument_begin|>{\"text\": \"a\"}<|tool_calls_section_end|>\nsearch:1<|tool_call_argument_begin|>{\"query\": \"b\"}<|tool_calls_section_end|>";
        let read = read_kimi_calls(text).unwrap();
        assert!(read.complete);
        let calls: Vec<(&str, &str)> = read.calls.iter().map(|c| (c.name, c.arguments)).collect();
        assert_eq!(
            calls,
            [
                ("channel_reply", "{\"text\": \"a\"}"),
                ("search", "{\"query\": \"b\"}")
            ]
        );
        let read =
            read_kimi_calls("I will search: search:0<|tool_call_argument_begin|>{}").unwrap();
        assert_eq!((read.prose_end, read.calls[0].name), (15, "search"));
    }
}
