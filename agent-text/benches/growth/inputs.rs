//! The adversarial inputs of the growth check, shared by the `growth`
//! bench and `cargo xtask growth` (which includes this file by path):
//! named patterns repeated up to a size, and the streamed parse — the
//! [`ActionWatcher`] fed small deltas, then [`parse`] on what it kept.

use agent_core::transport::StreamWatcher;
use agent_text::{ActionWatcher, Parsed, parse};

/// Input sizes, in bytes: 1 kB to 1 MB.
pub(crate) const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// Delta size of the streamed parse, in bytes.
pub(crate) const DELTA_BYTES: usize = 4;

/// An input family: `prefix`, then `open` × k, then `close` × k.
pub(crate) struct Pattern {
    /// Its name in tables and bench ids.
    pub(crate) name: &'static str,
    prefix: &'static str,
    open: &'static str,
    close: &'static str,
}

/// The patterns: repeated fence lines, `{` × n (on one line and one per
/// line), `Action:` × n, lines that open a Python-style call or a
/// Mistral `[TOOL_CALLS]` and never finish it, a `<think>` block full of
/// drafts that is never closed, reasoning tags over and over, harmony
/// messages without end, deeply nested brackets, one long line, and
/// other families' tagged calls that never close (`<invoke>` elements,
/// GLM pairs, DeepSeek tokens, Functionary lines, ChatGLM3 headers and
/// fences, markers before JSON), Willison action lines, DSPy field
/// headers and a fenced `final_answer(` call nested without end,
/// and a plain-text input that runs on, a colon at a time or a line (and
/// fence) at a time.
pub(crate) const PATTERNS: [Pattern; 27] = [
    Pattern {
        name: "input_colons",
        prefix: "Action: a\nAction Input: x",
        open: ":",
        close: "",
    },
    Pattern {
        name: "input_lines",
        prefix: "Action: a\nAction Input: x\n",
        open: "more: text\n```\n",
        close: "",
    },
    Pattern {
        name: "invoke_tags",
        prefix: "",
        open: "<invoke name=\"f\"><parameter name=\"k\">v</x>",
        close: "",
    },
    Pattern {
        name: "glm_pairs",
        prefix: "<tool_call>f",
        open: "<arg_key>k</arg_key><arg_value>v",
        close: "",
    },
    Pattern {
        name: "deepseek_tokens",
        prefix: "",
        open: "<｜tool▁call▁begin｜>f<|tool_sep|>{",
        close: "",
    },
    Pattern {
        name: "functionary_lines",
        prefix: ">>>all\n",
        open: ">>>f\n{\"a\": [",
        close: "",
    },
    Pattern {
        name: "willison_lines",
        prefix: "",
        open: "Action: f: f: f:\n",
        close: "",
    },
    Pattern {
        name: "dspy_headers",
        prefix: "",
        open: "[[ ## next_tool_name ## ]]\n[[ ## next_tool_args ## ]]\n",
        close: "",
    },
    Pattern {
        name: "fenced_answer_calls",
        prefix: "Final Answer:\n```py\n",
        open: "final_answer(",
        close: ")",
    },
    Pattern {
        name: "chatglm_calls",
        prefix: "",
        open: "<|assistant|>f\n```python\ntool_call(a=(",
        close: "",
    },
    Pattern {
        name: "chatglm_fences",
        prefix: "x\n",
        open: "f ```python\ntool_cal\n",
        close: "",
    },
    Pattern {
        name: "marker_runs",
        prefix: "",
        open: "<|a|><b>x",
        close: "",
    },
    Pattern {
        name: "fence_lines",
        prefix: "Thought: some code\n",
        open: "```\n",
        close: "",
    },
    Pattern {
        name: "braces",
        prefix: "",
        open: "{",
        close: "",
    },
    Pattern {
        name: "brace_lines",
        prefix: "",
        open: "{\n",
        close: "",
    },
    Pattern {
        name: "actions",
        prefix: "",
        open: "Action:",
        close: "",
    },
    Pattern {
        name: "action_lines",
        prefix: "",
        open: "Action:\n",
        close: "",
    },
    Pattern {
        name: "call_lines",
        prefix: "Thought: x\n",
        open: "[f(x=(\n",
        close: "",
    },
    Pattern {
        name: "mistral_lines",
        prefix: "",
        open: "[TOOL_CALLS]f\n",
        close: "",
    },
    Pattern {
        name: "nested",
        prefix: "Thought: deep\nAction: store\nAction Input: ",
        open: "{\"a\": [",
        close: "]}",
    },
    Pattern {
        name: "think_drafts",
        prefix: "<think>\n",
        open: "Action: f\nAction Input: {\n",
        close: "",
    },
    Pattern {
        name: "think_tags",
        prefix: "x",
        open: "</think><think>[THINK]",
        close: "",
    },
    Pattern {
        name: "harmony",
        prefix: "",
        open: "<|start|>assistant<|channel|>analysis<|message|>a<|end|>",
        close: "",
    },
    Pattern {
        name: "tag_lines",
        prefix: "Thought: x\n",
        open: "<tool>f</tool>\n<tool>",
        close: "",
    },
    Pattern {
        name: "heading_lines",
        prefix: "",
        open: "### Action\n**Thought** - \n",
        close: "",
    },
    Pattern {
        name: "blank_start",
        prefix: "",
        open: " \n",
        close: "<",
    },
    Pattern {
        name: "long_line",
        prefix: "Thought: ",
        open: "the quick brown fox jumps over the lazy dog ",
        close: "",
    },
];

impl Pattern {
    /// The pattern at about `size` bytes (never less).
    pub(crate) fn build(&self, size: usize) -> String {
        let unit = self.open.len() + self.close.len();
        let k = size.saturating_sub(self.prefix.len()).div_ceil(unit).max(1);
        let mut text = String::with_capacity(self.prefix.len() + k * unit);
        text.push_str(self.prefix);
        for _ in 0..k {
            text.push_str(self.open);
        }
        for _ in 0..k {
            text.push_str(self.close);
        }
        text
    }
}

/// The streamed parse: the watcher fed `DELTA_BYTES` deltas (cut at char
/// boundaries) until it calls the step complete, then `parse` on the step.
pub(crate) fn streamed_parse(text: &str) -> Parsed {
    let mut watcher = ActionWatcher::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + DELTA_BYTES).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        if let Some(len) = watcher.push(&text[start..end]) {
            return parse(text.get(..len).unwrap_or(text));
        }
        start = end;
    }
    parse(text)
}
