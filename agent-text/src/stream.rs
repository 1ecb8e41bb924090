//! [`ActionWatcher`]: an incremental scanner over streamed text that says
//! the moment an action is complete — when the JSON input's braces close
//! (string-aware), or when a non-JSON input line ends — so the driver can
//! drop the stream before the model rambles into a fake observation. Each
//! byte is scanned once.

use agent_core::StreamWatcher;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Looking for an `Action Input:` (or paper-style action) line.
    Seeking,
    /// After `Action Input:` with nothing on its line: the next non-empty line is the input.
    AwaitInput,
    /// Inside a JSON input.
    Json {
        depth: u32,
        quote: Option<u8>,
        escaped: bool,
    },
    /// Inside a fenced input: complete at the closing fence line.
    Fenced,
    /// Inside a one-line input: complete at the end of the line.
    Line,
}

/// Watches a streamed ReAct turn; see the module docs.
#[derive(Debug)]
pub struct ActionWatcher {
    text: String,
    /// Start of the first line not yet classified.
    line_start: usize,
    /// Next byte to scan in JSON state.
    scan: usize,
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
            line_start: 0,
            scan: 0,
            state: State::Seeking,
        }
    }

    fn is_input_label(line: &str) -> Option<usize> {
        let lower = line.trim_start().to_ascii_lowercase();
        let lower = lower.trim_start_matches('*');
        let offset = line.len() - line.trim_start().len() + (line.trim_start().len() - lower.len());
        let window = &lower[..lower.len().min(40)];
        let colon = window.find(':')?;
        let head: String = window[..colon]
            .chars()
            .filter(|c| !c.is_ascii_digit() && *c != '*')
            .map(|c| if c == '_' { ' ' } else { c })
            .collect();
        let head = head.split_whitespace().collect::<Vec<_>>().join(" ");
        (head == "action input" || head == "actioninput").then_some(offset + colon + 1)
    }

    fn is_paper_action(line: &str) -> bool {
        let lower = line.trim().to_ascii_lowercase();
        lower.starts_with("action")
            && lower.contains(':')
            && lower.ends_with(']')
            && lower.contains('[')
    }

    /// Starts reading an input that begins at byte `at` (absolute).
    fn begin_input(&mut self, at: usize, line_end: Option<usize>) -> Option<usize> {
        let rest = &self.text[at..line_end.unwrap_or(self.text.len())];
        let trimmed = rest.trim_start();
        if trimmed.is_empty() {
            self.state = State::AwaitInput;
            return None;
        }
        let start = at + (rest.len() - trimmed.len());
        if trimmed.starts_with("```") {
            self.state = State::Fenced;
            return None;
        }
        if trimmed.starts_with('{') {
            self.state = State::Json {
                depth: 0,
                quote: None,
                escaped: false,
            };
            self.scan = start;
            return self.scan_json();
        }
        self.state = State::Line;
        line_end
    }

    fn scan_json(&mut self) -> Option<usize> {
        let bytes = self.text.as_bytes();
        while self.scan < bytes.len() {
            let b = bytes[self.scan];
            self.scan += 1;
            let State::Json {
                depth,
                quote,
                escaped,
            } = &mut self.state
            else {
                return None;
            };
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
                        return Some(self.scan);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

impl StreamWatcher for ActionWatcher {
    fn push(&mut self, delta: &str) -> Option<usize> {
        self.text.push_str(delta);
        if matches!(self.state, State::Json { .. }) {
            return self.scan_json();
        }
        while let Some(nl) = self.text[self.line_start..].find('\n') {
            let line_end = self.line_start + nl;
            let line_start = self.line_start;
            self.line_start = line_end + 1;
            let line = &self.text[line_start..line_end];
            match self.state {
                State::Seeking => {
                    if Self::is_paper_action(line) {
                        return Some(line_end);
                    }
                    if let Some(at) = Self::is_input_label(line) {
                        if let Some(done) = self.begin_input(line_start + at, Some(line_end)) {
                            return Some(done);
                        }
                        if matches!(self.state, State::Json { .. }) {
                            return self.scan_json();
                        }
                    }
                }
                State::AwaitInput => {
                    if let Some(done) = self.begin_input(line_start, Some(line_end)) {
                        return Some(done);
                    }
                    if matches!(self.state, State::Json { .. }) {
                        return self.scan_json();
                    }
                }
                State::Fenced => {
                    if line.trim_start().starts_with("```") {
                        return Some(line_end);
                    }
                }
                State::Line => return Some(line_start.saturating_sub(1)),
                State::Json { .. } => return self.scan_json(),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(text: &str, chunk: usize) -> Option<usize> {
        let mut w = ActionWatcher::new();
        let chars: Vec<char> = text.chars().collect();
        let mut sent = String::new();
        for piece in chars.chunks(chunk) {
            let piece: String = piece.iter().collect();
            sent.push_str(&piece);
            if let Some(end) = w.push(&piece) {
                return Some(end);
            }
        }
        None
    }

    #[test]
    fn json_input_completes_when_its_braces_close() {
        let text = "Thought: add\nAction: add\nAction Input: {\"a\": \"}\", \"b\": {\"c\": 1}}\nObservation: fake";
        for chunk in [1, 3, 7, 100] {
            let end = feed(text, chunk).unwrap();
            assert_eq!(
                &text[..end],
                "Thought: add\nAction: add\nAction Input: {\"a\": \"}\", \"b\": {\"c\": 1}}"
            );
        }
    }

    #[test]
    fn line_input_completes_at_the_end_of_its_line() {
        let text = "Action: calculator\nAction Input: 17*83 + 12**3\nObservation: 9";
        let end = feed(text, 2).unwrap();
        assert_eq!(
            &text[..end],
            "Action: calculator\nAction Input: 17*83 + 12**3"
        );
        let paper = "Thought: look\nAction: Search[Paris]\nObservation: x";
        assert_eq!(
            &paper[..feed(paper, 4).unwrap()],
            "Thought: look\nAction: Search[Paris]"
        );
    }

    #[test]
    fn final_answers_are_not_cut() {
        assert_eq!(feed("Thought: done\nFinal Answer: 42\nmore", 3), None);
    }
}
