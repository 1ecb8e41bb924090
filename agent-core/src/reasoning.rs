//! Reasoning blocks in a model's reply: the `<think>…</think>` (and
//! kindred) text that reasoning models (DeepSeek-R1 and its distills,
//! Qwen3, QwQ, Phi-4-reasoning, Magistral…) write before their reply when
//! the server does not take it out into a separate field. The block is the
//! model's thinking, not its reply: a tool call or an answer inside it is
//! a draft. [`split_reasoning`] separates the two, so that both transports
//! read the reply and keep the reasoning as the turn's thought.
//!
//! Three shapes are recognised:
//!
//! - a block that opens the reply and is closed: the reply is what follows;
//! - a closing tag with no opening tag before it, at the end of its line
//!   (templates that put the opening tag into the prompt, as
//!   DeepSeek-R1's do): everything before it is reasoning;
//! - a block that opens the reply and is never closed (the model ran out of
//!   tokens, or a stop sequence ended the turn inside it): all of it is
//!   reasoning, and [`ReasoningSplit::closed`] is false so the caller can
//!   decide what a draft inside it is worth.

/// Opening and closing tags of the reasoning blocks models write.
pub const REASONING_TAGS: [(&str, &str); 7] = [
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<reasoning>", "</reasoning>"),
    ("<thought>", "</thought>"),
    ("[THINK]", "[/THINK]"),
    ("<|begin_of_thought|>", "<|end_of_thought|>"),
    ("◁think▷", "◁/think▷"),
];

/// A reply split into its reasoning and the reply proper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReasoningSplit<'a> {
    /// The reasoning, without its tags.
    pub reasoning: &'a str,
    /// Byte offset of [`reasoning`](Self::reasoning) in the whole text.
    pub reasoning_start: usize,
    /// The reply after the reasoning block (empty when it was not closed).
    pub reply: &'a str,
    /// Byte offset of [`reply`](Self::reply) in the whole text.
    pub reply_start: usize,
    /// Whether the block was closed.
    pub closed: bool,
}

/// Splits a leading reasoning block off `text` (see the module docs).
/// `None` when the text has none. Runs in linear time.
pub fn split_reasoning(text: &str) -> Option<ReasoningSplit<'_>> {
    // Every tag starts with `<`, `[` or `◁` (whose UTF-8 starts with 0xE2):
    // most replies hold none of these bytes.
    if !text.bytes().any(|b| matches!(b, b'<' | b'[' | 0xE2)) {
        return None;
    }
    let lead = text.len() - text.trim_start().len();
    let head = &text[lead..];
    if let Some((open, close)) = REASONING_TAGS
        .iter()
        .find(|(open, _)| head.starts_with(open))
    {
        let inner = lead + open.len();
        return Some(match text[inner..].find(close) {
            Some(at) => after_close(text, inner, inner + at, close.len()),
            None => ReasoningSplit {
                reasoning: &text[inner..],
                reasoning_start: inner,
                reply: "",
                reply_start: text.len(),
                closed: false,
            },
        });
    }
    // One pass over the bytes a closing tag can start with.
    let (at, open, close) = text.match_indices(['<', '[', '◁']).find_map(|(at, _)| {
        REASONING_TAGS
            .iter()
            .find(|(_, close)| text[at..].starts_with(close))
            .map(|(open, close)| (at, *open, *close))
    })?;
    // A closing tag after its own opening tag mid-reply is a block the
    // reply quotes or writes later, not reasoning that opened the turn.
    if text[..at].contains(open) {
        return None;
    }
    // Reasoning ends its line with the tag; a tag mid-sentence is one the
    // reply mentions.
    let after = text[at + close.len()..].trim_start_matches([' ', '\t', '\r']);
    if !(after.is_empty() || after.starts_with('\n')) {
        return None;
    }
    Some(after_close(text, 0, at, close.len()))
}

fn after_close(text: &str, inner: usize, close_at: usize, close_len: usize) -> ReasoningSplit<'_> {
    let reply_start = close_at + close_len;
    ReasoningSplit {
        reasoning: &text[inner..close_at],
        reasoning_start: inner,
        reply: &text[reply_start..],
        reply_start,
        closed: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tag_starts_with_a_byte_the_fast_path_looks_for() {
        for (open, close) in REASONING_TAGS {
            for tag in [open, close] {
                assert!(matches!(tag.as_bytes()[0], b'<' | b'[' | 0xE2), "{tag}");
            }
        }
    }

    #[test]
    fn a_closed_block_is_split_from_the_reply() {
        let text = "\n<think>\nI should look it up.\n</think>\n\nThe reply.";
        let split = split_reasoning(text).unwrap();
        assert_eq!(split.reasoning.trim(), "I should look it up.");
        assert_eq!(split.reply.trim(), "The reply.");
        assert_eq!(&text[split.reply_start..], split.reply);
        assert_eq!(
            &text[split.reasoning_start..][..split.reasoning.len()],
            split.reasoning
        );
        assert!(split.closed);
    }

    #[test]
    fn every_family_of_tags_is_known() {
        for (open, close) in REASONING_TAGS {
            let text = format!("{open}draft{close}reply");
            let split = split_reasoning(&text).unwrap();
            assert_eq!((split.reasoning, split.reply), ("draft", "reply"), "{open}");
        }
    }

    #[test]
    fn a_closing_tag_alone_ends_the_reasoning_before_it() {
        let split = split_reasoning("Okay, the user wants a sum.\n</think>\nThe reply.").unwrap();
        assert_eq!(split.reasoning.trim(), "Okay, the user wants a sum.");
        assert_eq!(split.reply.trim(), "The reply.");
    }

    #[test]
    fn an_unclosed_block_is_all_reasoning() {
        let split = split_reasoning("<think>Let me see. Maybe").unwrap();
        assert_eq!(split.reasoning, "Let me see. Maybe");
        assert_eq!(split.reply, "");
        assert!(!split.closed);
    }

    #[test]
    fn replies_without_a_leading_block_are_left_alone() {
        assert_eq!(split_reasoning("Thought: plain.\nFinal Answer: yes"), None);
        assert_eq!(
            split_reasoning("Use <think> and </think> to mark it."),
            None
        );
        assert_eq!(split_reasoning(""), None);
        assert_eq!(split_reasoning("Final Answer: <thinking> is a tag"), None);
        assert_eq!(
            split_reasoning("Final Answer: write </think> to end it."),
            None
        );
    }
}
