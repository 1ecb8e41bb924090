//! Runaways in the model's own replies: one character written again and
//! again until the reply was cut (`8000 * 1.0275 ** 6 * 1000000…`, four
//! hundred zeros). The message the run keeps, and sends back with every
//! later request, has each such run replaced by `…`: shown its own
//! runaway, a 1.5B model wrote it again on every later turn (a
//! compound-interest task: five calls, each with the same four hundred
//! zeros, and an answer of ten million); shown its first eight zeros,
//! it sent those eight again. The trace's `ModelResponded` event keeps
//! the reply as it came.

use serde_json::Value;

use crate::message::{Message, Role};

/// One character repeated this many times in a row is a runaway.
const RUNAWAY_CHARS: usize = 32;

/// Cuts the runaways of an assistant message: its text and the string
/// values of its tool calls' arguments.
pub(super) fn cut_runaways(message: &mut Message) {
    if message.role != Role::Assistant {
        return;
    }
    if let Some(cut) = without_runaways(&message.content) {
        message.content = cut;
    }
    for call in &mut message.tool_calls {
        cut_in_value(&mut call.arguments);
    }
}

fn cut_in_value(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let Some(cut) = without_runaways(text) {
                *text = cut;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(cut_in_value),
        Value::Object(map) => map.values_mut().for_each(cut_in_value),
        _ => {}
    }
}

/// `text` with every run of one character longer than [`RUNAWAY_CHARS`]
/// replaced by `…`; `None` when it has none (the common case, found
/// without allocating).
fn without_runaways(text: &str) -> Option<String> {
    let is_runaway = |&(c, run): &(char, usize)| run > RUNAWAY_CHARS && !c.is_whitespace();
    if !runs(text).any(|r| is_runaway(&r)) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for (c, run) in runs(text) {
        if is_runaway(&(c, run)) {
            out.push('…');
        } else {
            out.extend(std::iter::repeat_n(c, run));
        }
    }
    Some(out)
}

/// The runs of one character in `text`, in order: each character and how
/// many times in a row it comes.
fn runs(text: &str) -> impl Iterator<Item = (char, usize)> + '_ {
    let mut chars = text.chars().peekable();
    std::iter::from_fn(move || {
        let c = chars.next()?;
        let mut run = 1;
        while chars.next_if_eq(&c).is_some() {
            run += 1;
        }
        Some((c, run))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::json;

    #[test]
    fn a_character_repeated_past_the_limit_is_cut_short() {
        let runaway = format!(
            "Action Input: {{\"expression\": \"8000 * 1{}",
            "0".repeat(400)
        );
        assert_eq!(
            without_runaways(&runaway).as_deref(),
            Some("Action Input: {\"expression\": \"8000 * 1…")
        );
        // Ordinary text, and a markdown rule of a few dozen, stay whole.
        assert_eq!(without_runaways("1,000,000 and 2000000000"), None);
        assert_eq!(without_runaways(&"-".repeat(32)), None);
        assert_eq!(without_runaways(&" ".repeat(80)), None);
    }

    #[test]
    fn only_assistant_messages_are_cut_their_calls_included() {
        let zeros = format!("1{}", "0".repeat(100));
        let mut reply = Message::assistant(format!("Thought: {zeros}"));
        reply.tool_calls = vec![ToolCall::new(
            "c1",
            "calculator",
            json!({ "expression": format!("2 * {zeros}") }),
        )];
        cut_runaways(&mut reply);
        assert_eq!(reply.content, "Thought: 1…");
        assert_eq!(reply.tool_calls[0].arguments["expression"], "2 * 1…");
        let mut observation = Message::user(zeros.clone());
        cut_runaways(&mut observation);
        assert_eq!(observation.content, zeros);
    }
}
