//! The request side of a run: token estimates of each message, the history
//! window, and the request the transport renders from them.
//!
//! A request is the system prompt, the task, and the turns still in the
//! window. When a window is set and the estimate passes its maximum, the
//! oldest whole turns (earlier conversation first) leave the request in one
//! large chunk, so requests stay append-only between trims and servers that
//! cache prompt prefixes keep their cache. The transcript keeps everything.

use std::sync::Arc;

use crate::message::{CompletionRequest, Message, Role};
use crate::transport::{Findings, RequestParts};

use super::Run;

/// Tokens added per message on top of its text estimate (role, separators).
const MESSAGE_OVERHEAD_TOKENS: u64 = 4;

impl Run {
    /// Appends a message to the transcript with its token estimate.
    pub(super) fn push(&mut self, message: Message) {
        let mut tokens = MESSAGE_OVERHEAD_TOKENS + self.estimator.estimate(&message.content);
        for call in &message.tool_calls {
            tokens += self.estimator.estimate(&call.name) + json_len(&call.arguments).div_ceil(4);
        }
        let state = &mut self.state;
        state.estimates.push(tokens);
        state.window_tokens += tokens;
        Arc::make_mut(&mut state.transcript).push(message);
    }

    /// Appends a message the loop wrote (an error, a request for the
    /// answer), remembering its words: an answer that echoes them is none.
    pub(super) fn push_loop(&mut self, message: Message) {
        self.state
            .loop_words
            .learn(&message.content, &self.state.task);
        self.push(message);
    }

    /// Remembers the words of a text the loop wrote into an observation.
    pub(super) fn learn_loop_text(&mut self, text: &str) {
        self.state.loop_words.learn(text, &self.state.task);
    }

    /// Tokens always in a request: the system prompt, the tools when they
    /// are offered natively, and the task once the window has passed it.
    fn fixed_tokens(&self, window_start: usize) -> u64 {
        let state = &self.state;
        let tools = if state.tools_in_request {
            state.tools_tokens
        } else {
            0
        };
        let task = if window_start > state.task_index {
            state.estimates[state.task_index]
        } else {
            0
        };
        state.head_tokens + tools + task
    }

    /// Drops whole old turns from requests when the window overflows.
    fn trim_window(&mut self) {
        let Some(window) = self.state.budget.history_window else {
            return;
        };
        if self.fixed_tokens(self.state.window_start) + self.state.window_tokens
            <= window.max_tokens
        {
            return;
        }
        let transcript = &self.state.transcript;
        // Turn starts are assistant messages; the last turn always stays.
        let last_turn = (self.state.window_start..transcript.len())
            .rev()
            .find(|&i| transcript[i].role == Role::Assistant)
            .unwrap_or(self.state.window_start);
        let mut start = self.state.window_start;
        let mut tokens = self.state.window_tokens;
        while start < last_turn && self.fixed_tokens(start) + tokens > window.keep_tokens {
            tokens -= self.state.estimates[start];
            start += 1;
            while start < last_turn && transcript[start].role != Role::Assistant {
                tokens -= self.state.estimates[start];
                start += 1;
            }
        }
        self.state.window_start = start;
        self.state.window_tokens = tokens;
    }

    /// The next request, rendered by the transport, and its estimate;
    /// `compute` on an answer turn that may still call the computing tools.
    pub(super) fn build_request(&mut self, answer_only: bool, compute: bool) -> CompletionRequest {
        self.trim_window();
        let state = &self.state;
        let messages = if state.window_start == state.head {
            Arc::clone(&state.transcript)
        } else {
            let mut kept =
                Vec::with_capacity(state.head + 1 + state.transcript.len() - state.window_start);
            kept.extend_from_slice(&state.transcript[..state.head]);
            if state.window_start > state.task_index {
                kept.push(state.transcript[state.task_index].clone());
            }
            kept.extend_from_slice(&state.transcript[state.window_start..]);
            Arc::new(kept)
        };
        let answer_tools = if answer_only && compute {
            self.computing_tools()
        } else {
            Vec::new()
        };
        // Never on an answer turn that only answers: a forced call that
        // gave no result in the compute round is not forced again there.
        let offered = self.offered_tools(answer_only);
        // A lookup first, when both are due: the call the forced
        // computation made was sent back to look its numbers up.
        let look_up = if self.state.look_up.pending() && !answer_only {
            self.finding_tool_specs(offered.as_deref())
        } else {
            Vec::new()
        };
        let must_call = if !look_up.is_empty() {
            self.state.look_up.requested();
            look_up
        } else if self.state.planned.pending() && (!answer_only || compute) {
            self.computing_tools()
        } else {
            Vec::new()
        };
        let state = &self.state;
        let answer_numbers = match state.planned.binding() {
            Some(numbers) => Some(numbers.to_vec()),
            None => state
                .answer_numbers_bound
                .then(|| state.grounding.answer_numbers()),
        }
        .map(|numbers| state.grounding.with_local_forms(numbers));
        let request = self.transport.render(RequestParts {
            messages: &messages,
            tools: offered.as_ref().unwrap_or(&state.tools),
            answer_only,
            answer_tools: &answer_tools,
            must_call: &must_call,
            answer_retry: answer_only && state.answer_retry_used,
            answer_numbers: answer_numbers.as_deref(),
            found_nothing: answer_only && !compute && self.findings() == Findings::Nothing,
            max_tokens: state.options.max_tokens,
            temperature: state.options.temperature,
        });
        self.state.tools_in_request = !request.tools.is_empty();
        self.state.request_len = self.state.transcript.len();
        self.state.last_request_tokens =
            self.fixed_tokens(self.state.window_start) + self.state.window_tokens;
        request
    }
}

/// The length of `value` as compact JSON, approximately (strings are not
/// escaped), without serializing it.
pub(super) fn json_len(value: &serde_json::Value) -> u64 {
    use serde_json::Value;
    match value {
        Value::Null => 4,
        Value::Bool(_) => 5,
        Value::Number(_) => 8,
        Value::String(s) => s.len() as u64 + 2,
        Value::Array(items) => 2 + items.iter().map(|v| json_len(v) + 1).sum::<u64>(),
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| k.len() as u64 + 4 + json_len(v))
                .sum::<u64>()
        }
    }
}
