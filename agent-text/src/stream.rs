//! [`ActionWatcher`]: an incremental scanner over streamed text that says
//! the moment an action is complete, so the driver can drop the stream
//! before the model rambles into a fake observation. An action is complete
//! when its JSON input's brackets close (string-aware), when a fenced
//! input's closing fence arrives, when the next label after a plain-text
//! input starts (an input may run over several lines, and a fenced block
//! it opens is its text, as the parser reads it), or when a paper-style
//! `Action: Tool[input]` line ends. A final answer is never cut.
//!
//! It recognises labels exactly as the parser does (at line starts or
//! mid-line, ASCII or full-width colons), keeps its scan position between
//! chunks, so each byte is examined once whatever the chunking, and only
//! slices the text at positions it found by searching it.

use agent_core::reasoning::REASONING_TAGS;
use agent_core::transport::StreamWatcher;

use crate::input::looks_like_json;
use crate::labels::{Label, colon_at, line_label, strict_label_before};
use crate::lenient_json::read_lenient;

/// Reasoning blocks that may open a turn (see [`agent_core::reasoning`]),
/// with gpt-oss's thinking channel, which ends at `<|end|>`.
const TURN_OPENING_REASONING: [(&str, &str); REASONING_TAGS.len() + 1] = {
    let mut all = [("<|channel|>analysis<|message|>", "<|end|>"); REASONING_TAGS.len() + 1];
    let mut i = 0;
    while i < REASONING_TAGS.len() {
        all[i] = REASONING_TAGS[i];
        i += 1;
    }
    all
};

/// Colons further than this from a line's first character are not checked
/// for a line-start label.
const LINE_LABEL_REACH: usize = 48;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start of the turn: a reasoning block may open it.
    Opening,
    /// Inside a reasoning block that opened the turn: a draft step in it
    /// is not cut; the scan resumes after `close`.
    Reasoning { close: &'static str },
    /// Looking for `Action Input:` (or a paper-style action line).
    Seeking,
    /// After `Action Input:`, before its first character.
    AwaitInput,
    /// Inside a JSON input that began at `start`.
    Json {
        start: usize,
        depth: u32,
        quote: Option<u8>,
        escaped: bool,
        /// The line where the JSON began.
        first_line: usize,
    },
    /// Inside a fenced input (`opener` is where its ```` ``` ```` starts).
    Fenced { opener: usize },
    /// Inside a plain-text input that began at `start` (`in_fence`: in a
    /// fenced block that the input opened, where labels are its text).
    Line { start: usize, in_fence: bool },
    /// A final answer: read to the end.
    Final,
}

/// Watches a streamed ReAct turn; see the module docs.
#[derive(Debug)]
pub struct ActionWatcher {
    text: String,
    /// Next byte to examine.
    pos: usize,
    /// Start of the line holding `pos`.
    line_start: usize,
    /// First non-whitespace byte of that line, once seen.
    content_start: Option<usize>,
    state: State,
}

impl Default for ActionWatcher {
    fn default() -> Self {
        Self::new()
    }
}

impl ActionWatcher {
    /// A watcher at the start of a turn.
    pub fn new() -> Self {
        Self {
            text: String::new(),
            pos: 0,
            line_start: 0,
            content_start: None,
            state: State::Opening,
        }
    }

    /// The label ending with the colon at `colon`, if there is one: at the
    /// start of the line (lenient) or mid-line (strict).
    fn label_at(&self, colon: usize, colon_len: usize, floor: usize) -> Option<(Label, usize)> {
        if let Some(content) = self.content_start {
            let first_colon = !self.text[content..colon].contains([':', '：']);
            if content >= floor
                && colon - content <= LINE_LABEL_REACH
                && first_colon
                && let Some((label, _)) = line_label(&self.text[content..colon + colon_len])
            {
                return Some((label, self.line_start));
            }
        }
        strict_label_before(&self.text, colon, floor)
    }

    /// Moves to the next line after the newline at `nl`.
    fn new_line(&mut self, nl: usize) {
        self.line_start = nl + 1;
        self.content_start = None;
    }

    /// Notes the first non-whitespace byte of the current line.
    fn note_content(&mut self, i: usize, b: u8) {
        if self.content_start.is_none() && !b.is_ascii_whitespace() {
            self.content_start = Some(i);
        }
    }

    /// Scans the bytes received so far; `Some(len)` once the step is complete.
    fn advance(&mut self) -> Option<usize> {
        while self.pos < self.text.len() {
            let done = match self.state {
                State::Opening => self.opening(),
                State::Reasoning { close } => self.scan_reasoning(close),
                State::Seeking => self.seek_label(),
                State::AwaitInput => self.await_input(),
                State::Json { .. } => self.scan_json(),
                State::Fenced { opener } => self.scan_fence(opener),
                State::Line { start, in_fence } => self.scan_line(start, in_fence),
                State::Final => {
                    self.pos = self.text.len();
                    None
                }
            };
            match done {
                Some(Progress::Cut(len)) => return Some(len),
                Some(Progress::Wait) => return None,
                None => {}
            }
        }
        None
    }

    /// At the turn's start: does a reasoning block (`<think>`…) open it?
    /// (`pos` stays past the whitespace already seen, so a long blank
    /// start is looked at once.)
    fn opening(&mut self) -> Option<Progress> {
        let head = self.text[self.pos..].trim_start();
        let open_at = self.text.len() - head.len();
        if head.is_empty() {
            self.pos = open_at;
            return Some(Progress::Wait);
        }
        for (open, close) in TURN_OPENING_REASONING {
            if head.starts_with(open) {
                self.pos = open_at + open.len();
                self.state = State::Reasoning { close };
                return None;
            }
            if open.starts_with(head) {
                self.pos = open_at;
                return Some(Progress::Wait);
            }
        }
        self.pos = 0;
        self.state = State::Seeking;
        None
    }

    /// Inside the opening reasoning block: skip to its closing tag.
    fn scan_reasoning(&mut self, close: &'static str) -> Option<Progress> {
        if let Some(n) = self.text[self.pos..].find(close) {
            self.pos += n + close.len();
            self.line_start = self.pos;
            self.content_start = None;
            self.state = State::Seeking;
            return None;
        }
        // Keep the bytes that may begin the closing tag for the next chunk.
        let mut keep = self
            .text
            .len()
            .saturating_sub(close.len() - 1)
            .max(self.pos);
        while !self.text.is_char_boundary(keep) {
            keep -= 1;
        }
        self.pos = keep.max(self.pos);
        Some(Progress::Wait)
    }

    /// Seeking: one byte (or a colon) at a time.
    fn seek_label(&mut self) -> Option<Progress> {
        let bytes = self.text.as_bytes();
        let i = self.pos;
        let b = bytes[i];
        if b == b'\n' {
            let line = &self.text[self.line_start..i];
            if is_paper_action(line) {
                return Some(Progress::Cut(i));
            }
            self.new_line(i);
            self.pos = i + 1;
            return None;
        }
        let colon = colon_at(bytes, i);
        self.note_content(i, b);
        let Some(colon_len) = colon else {
            self.pos = i + 1;
            return None;
        };
        self.pos = i + colon_len;
        match self.label_at(i, colon_len, self.line_start) {
            Some((Label::ActionInput, _)) => self.state = State::AwaitInput,
            Some((Label::FinalAnswer, _)) => self.state = State::Final,
            _ => {}
        }
        None
    }

    /// After `Action Input:`: what kind of input begins here.
    fn await_input(&mut self) -> Option<Progress> {
        let bytes = self.text.as_bytes();
        let i = self.pos;
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            if b == b'\n' {
                self.new_line(i);
            }
            self.pos = i + 1;
            return None;
        }
        self.note_content(i, b);
        if b == b'*' {
            // Bold markup before the value (`** {…}`) when a space follows
            // the stars, as the parser reads it; else the value's text.
            let rest = &self.text[i..];
            let stars = rest.len() - rest.trim_start_matches('*').len();
            if stars == rest.len() {
                return Some(Progress::Wait);
            }
            if rest.as_bytes()[stars].is_ascii_whitespace() {
                self.pos = i + stars;
                return None;
            }
        }
        match b {
            b'`' => {
                let rest = &self.text[i..];
                if rest.len() < 3 && "```".starts_with(rest) {
                    return Some(Progress::Wait);
                }
                if rest.starts_with("```") {
                    self.state = State::Fenced { opener: i };
                    self.pos = i + 3;
                } else {
                    self.state = State::Line {
                        start: i,
                        in_fence: false,
                    };
                }
            }
            b'{' | b'[' => {
                self.state = State::Json {
                    start: i,
                    depth: 0,
                    quote: None,
                    escaped: false,
                    first_line: self.line_start,
                };
            }
            _ => {
                self.state = State::Line {
                    start: i,
                    in_fence: false,
                }
            }
        }
        None
    }

    /// Inside JSON: brackets and strings, and a line-start label that ends
    /// an unclosed value (as the parser reads it).
    fn scan_json(&mut self) -> Option<Progress> {
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() {
            let i = self.pos;
            let b = bytes[i];
            let State::Json {
                start,
                depth,
                quote,
                escaped,
                first_line,
            } = &mut self.state
            else {
                return None;
            };
            self.pos += 1;
            if b == b'\n' {
                self.line_start = i + 1;
                self.content_start = None;
                continue;
            }
            if self.content_start.is_none() && !b.is_ascii_whitespace() {
                self.content_start = Some(i);
            }
            if let Some(q) = *quote {
                if *escaped {
                    *escaped = false;
                } else if b == b'\\' {
                    *escaped = true;
                } else if b == q {
                    *quote = None;
                }
                continue;
            }
            match b {
                b'"' | b'\'' => *quote = Some(b),
                b'{' | b'[' => *depth += 1,
                b'}' | b']' => {
                    *depth = depth.saturating_sub(1);
                    if *depth == 0 {
                        // Braces round prose (`{t} more`) are plain text
                        // to the parser, which reads on to the next label.
                        let start = *start;
                        let value = &self.text[start..=i];
                        if read_lenient(value).is_ok() || looks_like_json(value) {
                            return Some(Progress::Cut(i + 1));
                        }
                        self.state = State::Line {
                            start,
                            in_fence: false,
                        };
                        return None;
                    }
                }
                _ => {}
            }
            if let Some(colon_len) = colon_at(bytes, i) {
                let content = self.content_start.unwrap_or(i);
                let start = *start;
                if self.line_start > *first_line
                    && i - content <= LINE_LABEL_REACH
                    && line_label(&self.text[content..i + colon_len]).is_some()
                    && let Some(cut) = self.input_end(start, self.line_start)
                {
                    return Some(Progress::Cut(cut));
                }
            }
        }
        None
    }

    /// Inside a fence: complete at the closing ```` ``` ````.
    fn scan_fence(&mut self, opener: usize) -> Option<Progress> {
        let bytes = self.text.as_bytes();
        let i = self.pos;
        let b = bytes[i];
        if b == b'\n' {
            self.new_line(i);
            self.pos = i + 1;
            return None;
        }
        // (On a retry after waiting, this byte may already be noted.)
        let at_line_start = self.content_start.is_none_or(|c| c == i);
        self.note_content(i, b);
        if b != b'`' {
            self.pos = i + 1;
            return None;
        }
        let rest = &self.text[i..];
        if rest.len() < 3 && "```".starts_with(rest) {
            return Some(Progress::Wait);
        }
        let on_opening_line = !self.text[opener..i].contains('\n');
        if rest.starts_with("```") && (at_line_start || on_opening_line) {
            return Some(Progress::Cut(i + 3));
        }
        self.pos = i + 1;
        None
    }

    /// A plain-text input: complete where the next label starts, at a line
    /// start (leniently) or mid-line (strictly), as the parser reads it; the
    /// lines of a fenced block that the input opens are its text.
    fn scan_line(&mut self, start: usize, in_fence: bool) -> Option<Progress> {
        let bytes = self.text.as_bytes();
        let i = self.pos;
        let b = bytes[i];
        if b == b'\n' {
            let line = &self.text[self.line_start..i];
            let later_line = self.line_start > start;
            let fence_line = later_line && line.trim_start().starts_with("```");
            if fence_line && (in_fence || !line.trim_start()[3..].contains("```")) {
                self.state = State::Line {
                    start,
                    in_fence: !in_fence,
                };
            } else if later_line && !in_fence && line_label(line.trim()).is_some() {
                // A label line with no colon (`### Final Answer`).
                if let Some(cut) = self.input_end(start, self.line_start) {
                    return Some(Progress::Cut(cut));
                }
            }
            self.new_line(i);
            self.pos = i + 1;
            return None;
        }
        let colon = colon_at(bytes, i);
        self.note_content(i, b);
        match colon {
            Some(colon_len) if !in_fence => {
                self.pos = i + colon_len;
                if let Some((_, label_start)) = self.label_at(i, colon_len, start)
                    && let Some(cut) = self.input_end(start, label_start)
                {
                    return Some(Progress::Cut(cut));
                }
            }
            Some(colon_len) => self.pos = i + colon_len,
            None => self.pos = i + 1,
        }
        None
    }

    /// Where an input that starts at `start` ends, before a label at
    /// `label_start`: after its last non-space byte (at `start` when the
    /// label opens the input's own line). `None` when the text kept would
    /// read otherwise on its own: its last line alone a label word
    /// (`Thought` glued to an `Action:`) or the start of the stop word
    /// (`Obs`), which the parser drops; the stream is then not cut.
    fn input_end(&self, start: usize, label_start: usize) -> Option<usize> {
        let label_start = label_start.max(start);
        let end = start + self.text[start..label_start].trim_end().len();
        let line_from = self.text[..end].rfind('\n').map_or(0, |n| n + 1);
        let last_line = self.text[line_from..end].trim();
        let lowered = last_line.to_ascii_lowercase();
        let reads_otherwise = end > start
            && line_from >= start
            && (line_label(last_line).is_some()
                || (lowered.len() >= 3 && "observation".starts_with(&lowered)));
        (!reads_otherwise).then_some(end)
    }
}

/// What a scan step decided.
enum Progress {
    /// The step is complete: keep this many bytes.
    Cut(usize),
    /// More bytes are needed before scanning on.
    Wait,
}

/// `Action: Tool[input]` on one line.
fn is_paper_action(line: &str) -> bool {
    let trimmed = line.trim();
    let Some((Label::Action, value)) = line_label(trimmed) else {
        return false;
    };
    let value = trimmed[value..].trim();
    value.ends_with(']') && value.find('[').is_some_and(|open| open > 0)
}

impl StreamWatcher for ActionWatcher {
    fn push(&mut self, delta: &str) -> Option<usize> {
        self.text.push_str(delta);
        self.advance()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `text` in pieces of `chunk` characters; the cut, if any.
    fn feed(text: &str, chunk: usize) -> Option<usize> {
        let mut w = ActionWatcher::new();
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(chunk) {
            let piece: String = piece.iter().collect();
            if let Some(end) = w.push(&piece) {
                return Some(end);
            }
        }
        None
    }

    fn cut(text: &str, chunk: usize) -> &str {
        &text[..feed(text, chunk).unwrap_or(text.len())]
    }

    #[test]
    fn json_input_completes_when_its_braces_close() {
        let text = "Thought: add\nAction: add\nAction Input: {\"a\": \"}\", \"b\": {\"c\": 1}}\nObservation: fake";
        for chunk in [1, 3, 7, 100] {
            assert_eq!(
                cut(text, chunk),
                "Thought: add\nAction: add\nAction Input: {\"a\": \"}\", \"b\": {\"c\": 1}}"
            );
        }
    }

    #[test]
    fn line_input_completes_where_the_next_label_starts() {
        let text = "Action: calculator\nAction Input: 17*83 + 12**3\nObservation: 9";
        assert_eq!(
            cut(text, 2),
            "Action: calculator\nAction Input: 17*83 + 12**3"
        );
        // Over several lines, as the parser reads a plain input; a label
        // line without a colon ends it too.
        let text = "Action: note\nAction Input: line one\nline two\n\nThought: next";
        assert_eq!(
            cut(text, 3),
            "Action: note\nAction Input: line one\nline two"
        );
        let text = "Action: note\nAction Input: first\n### Final Answer\nx";
        assert_eq!(cut(text, 3), "Action: note\nAction Input: first");
        // Label lines inside a fenced block the input opens are its text.
        let text = "Action: save\nAction Input: the notes\n```\nThought: kept\n```\nObservation: x";
        assert_eq!(
            cut(text, 4),
            "Action: save\nAction Input: the notes\n```\nThought: kept\n```"
        );
        // A stream that ends inside the input is not cut.
        assert_eq!(feed("Action: note\nAction Input: one\ntwo", 2), None);
        let paper = "Thought: look\nAction: Search[Paris]\nObservation: x";
        assert_eq!(cut(paper, 4), "Thought: look\nAction: Search[Paris]");
    }

    #[test]
    fn final_answers_are_not_cut() {
        assert_eq!(feed("Thought: done\nFinal Answer: 42\nmore", 3), None);
        assert_eq!(
            feed("Final Answer: use Action Input: {\"a\": 1} here\n", 2),
            None
        );
    }

    #[test]
    fn one_line_steps_and_fences_on_one_line() {
        let text = "Thought: go Action: search Action Input: {\"q\": 1} Observation: fake";
        assert_eq!(
            cut(text, 3),
            "Thought: go Action: search Action Input: {\"q\": 1}"
        );
        let fenced = "Action: search\nAction Input: ```json{\"q\": 1}```\nObservation: x";
        assert_eq!(
            cut(fenced, 1),
            "Action: search\nAction Input: ```json{\"q\": 1}```"
        );
        let plain = "Action: search Action Input: population of Paris Observation: y";
        assert_eq!(
            cut(plain, 5),
            "Action: search Action Input: population of Paris"
        );
    }

    #[test]
    fn multi_byte_text_at_every_split_is_safe_and_cut_the_same() {
        let text = "Thought: 我需要先查一下法国的人口，然后再计算差值。🚀 Ça va être précis.\nAction：search\nAction Input：{\"query\": \"人口 é\"}\nObservation: 假的";
        let expected = "Thought: 我需要先查一下法国的人口，然后再计算差值。🚀 Ça va être précis.\nAction：search\nAction Input：{\"query\": \"人口 é\"}";
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|i| text.is_char_boundary(*i))
            .collect();
        for &split in &boundaries {
            let mut w = ActionWatcher::new();
            let first = w.push(&text[..split]);
            let end = first.or_else(|| w.push(&text[split..])).unwrap();
            assert_eq!(&text[..end], expected, "split at {split}");
        }
    }

    #[test]
    fn an_unclosed_json_input_ends_before_a_label_line() {
        let text = "Action: search\nAction Input: {\"query\": \"x\"\nObservation: fake";
        assert_eq!(
            cut(text, 2),
            "Action: search\nAction Input: {\"query\": \"x\""
        );
    }

    #[test]
    fn a_draft_inside_an_opening_reasoning_block_is_not_cut() {
        let step = "Thought: look it up\nAction: search\nAction Input: {\"query\": \"x\"}";
        for (open, close) in TURN_OPENING_REASONING {
            let text = format!(
                "\n{open}Maybe:\nAction: calculator\nAction Input: {{\"expression\": \"1\"}}\n{close}\n{step}\nObservation: fake"
            );
            for chunk in [1, 2, 5, 100] {
                let kept = cut(&text, chunk);
                assert!(
                    kept.ends_with(step),
                    "{open} in chunks of {chunk}: {kept:?}"
                );
            }
        }
    }

    #[test]
    fn replies_that_only_look_like_a_tag_are_scanned_as_usual() {
        let text = "<tool_call> no\nAction: search\nAction Input: {\"query\": \"x\"} more";
        for chunk in [1, 3, 100] {
            assert!(
                cut(text, chunk).ends_with("{\"query\": \"x\"}"),
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn blobs_under_a_comment_or_with_label_keys_are_kept_whole() {
        for text in [
            "Thought: two lookups\nAction: (for the first number)\n```\n{\"action\": \"search\", \"action_input\": \"x\"}\n```\nObservation: made up",
            "{\"Thought\": \"t\", \"Action\": \"search\",\n \"Action Input\": {\"query\": \"x\"}}\nObservation: made up",
        ] {
            for chunk in 1..8 {
                assert_eq!(
                    crate::parse(cut(text, chunk)).to_json(),
                    crate::parse(text).to_json(),
                    "chunks of {chunk}: {text}"
                );
            }
        }
    }
}
