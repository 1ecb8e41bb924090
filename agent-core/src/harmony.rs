//! gpt-oss's "harmony" reply format, as a server that does not parse it
//! hands it over: messages of the form
//! `<|start|>assistant<|channel|>NAME<|message|>BODY<|end|>`, where the
//! `analysis` channel is the model's thinking, a message with a recipient
//! (`to=functions.NAME`, in the role or the channel header) is a tool call
//! ending in `<|call|>`, and the `final` channel is the reply.
//!
//! [`read_harmony`] reads the messages in order up to the first call or
//! final message. Both transports use it: the text transport reads the
//! final body as a ReAct reply of its own (a model asked for ReAct lines
//! writes them there), the native transport takes it as the answer.

use std::ops::Range;

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const MESSAGE: &str = "<|message|>";
/// Tokens that end a message's body.
const BODY_ENDS: [&str; 4] = ["<|end|>", "<|call|>", "<|return|>", START];
/// How far a message's header may run before its `<|message|>`, in bytes.
const HEADER_WINDOW: usize = 512;

/// What a harmony reply holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Harmony {
    /// The bodies of the thinking and commentary messages, in order.
    pub thought: String,
    /// The step, when a message made one.
    pub step: Option<HarmonyStep>,
    /// The body of the last message read, when no step was found.
    pub last_body: Option<Range<usize>>,
}

/// The message that ends the reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HarmonyStep {
    /// A message to a tool: its name and its body (the arguments).
    Call {
        /// The tool's name (without `functions.`).
        tool: String,
        /// Where the body is in the text.
        body: Range<usize>,
    },
    /// The `final` channel's body.
    Final {
        /// Where the body is in the text.
        body: Range<usize>,
    },
}

/// Reads `text` as harmony messages; `None` unless it opens with one.
pub fn read_harmony(text: &str) -> Option<Harmony> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with(CHANNEL) || trimmed.starts_with(START)) {
        return None;
    }
    let mut at = text.len() - trimmed.len();
    let mut reply = Harmony {
        thought: String::new(),
        step: None,
        last_body: None,
    };
    while let Some(header_end) = message_marker(text, at) {
        let header = &text[at..header_end];
        let body_start = header_end + MESSAGE.len();
        let body_end = body_end(text, body_start);
        let body = body_start..body_end;
        if let Some(tool) = recipient(header) {
            reply.step = Some(HarmonyStep::Call { tool, body });
            return Some(reply);
        }
        if channel(header) == Some("final") {
            reply.step = Some(HarmonyStep::Final { body });
            return Some(reply);
        }
        let said = text[body.clone()].trim();
        if !said.is_empty() {
            if !reply.thought.is_empty() {
                reply.thought.push('\n');
            }
            reply.thought.push_str(said);
        }
        reply.last_body = Some(body);
        at = skip_end_token(text, body_end);
    }
    Some(reply)
}

/// The position of the `<|message|>` that ends the header starting at `at`.
fn message_marker(text: &str, at: usize) -> Option<usize> {
    let rest = text[at..].trim_start();
    if !(rest.starts_with(CHANNEL) || rest.starts_with(START)) {
        return None;
    }
    let mut window = HEADER_WINDOW.min(text.len() - at);
    while !text.is_char_boundary(at + window) {
        window -= 1;
    }
    text[at..at + window].find(MESSAGE).map(|n| at + n)
}

/// Where the body starting at `from` ends: at the first token that ends
/// a body (each `<|` is looked at once, so reading stays linear).
fn body_end(text: &str, from: usize) -> usize {
    let mut i = from;
    while let Some(n) = text[i..].find("<|") {
        let at = i + n;
        if BODY_ENDS.iter().any(|end| text[at..].starts_with(end)) {
            return at;
        }
        i = at + 2;
    }
    text.len()
}

/// Past the token that ended a body (`<|start|>` is left for the next header).
fn skip_end_token(text: &str, body_end: usize) -> usize {
    BODY_ENDS[..3]
        .iter()
        .find(|end| text[body_end..].starts_with(*end))
        .map_or(body_end, |end| body_end + end.len())
}

/// The channel named in a header.
fn channel(header: &str) -> Option<&str> {
    let after = &header[header.find(CHANNEL)? + CHANNEL.len()..];
    after.split(|c: char| c.is_whitespace() || c == '<').next()
}

/// The tool a header addresses (`to=functions.NAME`, or `to=NAME`).
fn recipient(header: &str) -> Option<String> {
    let after = &header[header.find("to=")? + 3..];
    let name: String = after
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '<')
        .collect();
    let name = name.strip_prefix("functions.").unwrap_or(&name);
    (!name.is_empty()).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_then_a_call() {
        let text = "<|channel|>analysis<|message|>Need the population.<|end|><|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json<|message|>{\"query\":\"France\"}<|call|>";
        let reply = read_harmony(text).unwrap();
        assert_eq!(reply.thought, "Need the population.");
        let Some(HarmonyStep::Call { tool, body }) = reply.step else {
            panic!("no call: {reply:?}");
        };
        assert_eq!(
            (tool.as_str(), &text[body]),
            ("search", "{\"query\":\"France\"}")
        );
    }

    #[test]
    fn the_recipient_may_sit_in_the_role() {
        let text = "<|start|>assistant to=functions.calculator<|channel|>commentary json<|message|>{}<|call|>";
        let reply = read_harmony(text).unwrap();
        assert!(
            matches!(reply.step, Some(HarmonyStep::Call { ref tool, .. }) if tool == "calculator")
        );
    }

    #[test]
    fn the_final_channel_is_the_reply() {
        let text = "<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>It is 42.<|return|>";
        let reply = read_harmony(text).unwrap();
        let Some(HarmonyStep::Final { body }) = reply.step else {
            panic!("no final: {reply:?}");
        };
        assert_eq!(&text[body], "It is 42.");
    }

    #[test]
    fn thinking_alone_has_no_step() {
        let text = "<|channel|>analysis<|message|>Still thinking";
        let reply = read_harmony(text).unwrap();
        assert_eq!(reply.step, None);
        assert_eq!(reply.last_body.map(|b| &text[b]), Some("Still thinking"));
        assert_eq!(read_harmony("Thought: plain"), None);
    }
}
