//! The model side of the loop: the [`Complete`] trait, streaming deltas,
//! the delta accumulator and the typed [`ModelError`].

use std::collections::BTreeMap;

use async_trait::async_trait;
use futures::future::BoxFuture;
use futures::stream::{self, BoxStream};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::{Completion, CompletionRequest, FinishReason, ToolCall, Usage};

/// Why a model call failed. Every variant is data, so it can be stored in
/// an [`Outcome`](crate::Outcome) and a trace. (A cancelled run is not a
/// model error: it stops with [`StopReason::Cancelled`](crate::StopReason).)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelError {
    /// HTTP 429 (after the provider's own retries).
    #[error("rate limited{}: {message}", retry_after_ms.map(|ms| format!(" (retry after {ms} ms)")).unwrap_or_default())]
    RateLimited {
        /// What the server asked us to wait, when it said.
        retry_after_ms: Option<u64>,
        /// The server's message.
        message: String,
    },
    /// HTTP 5xx (after retries).
    #[error("server error {status}: {message}")]
    Server {
        /// HTTP status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// No answer in time.
    #[error("model request timed out after {after_ms} ms")]
    Timeout {
        /// The timeout that expired.
        after_ms: u64,
    },
    /// 401/403: the key is missing or wrong.
    #[error("authentication failed: {message}")]
    Auth {
        /// The server's message.
        message: String,
    },
    /// The server could not be reached at all.
    #[error("cannot reach the model server: {message}")]
    Connection {
        /// What went wrong.
        message: String,
    },
    /// An answer arrived but could not be understood. `raw` keeps the body.
    #[error("bad response from the model: {message}")]
    BadResponse {
        /// What was wrong with it.
        message: String,
        /// The raw body, for the operator.
        raw: String,
    },
    /// Another client error (4xx other than 401/403/429), e.g. a bad request.
    #[error("request rejected ({status}): {message}")]
    Rejected {
        /// HTTP status.
        status: u16,
        /// The server's message.
        message: String,
    },
}

impl ModelError {
    /// A bad-response error keeping `raw`.
    pub fn bad_response(message: impl Into<String>, raw: impl Into<String>) -> Self {
        Self::BadResponse {
            message: message.into(),
            raw: raw.into(),
        }
    }
}

/// One piece of a streamed completion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StreamDelta {
    /// More generated text.
    Text {
        /// The new text.
        text: String,
    },
    /// More of the model's reasoning, sent apart from its text.
    Reasoning {
        /// The new reasoning text.
        text: String,
    },
    /// A fragment of tool call number `index`: the id and name usually come
    /// first, the arguments as string fragments to concatenate.
    ToolCall {
        /// Position of the call in the turn; fragments are merged by index.
        index: usize,
        /// The call id, when this fragment carries it.
        id: Option<String>,
        /// The tool name, when this fragment carries it.
        name: Option<String>,
        /// A fragment of the JSON arguments text.
        arguments: String,
    },
    /// Usage for the whole turn (usually in the last chunk).
    Usage {
        /// The usage.
        usage: Usage,
    },
    /// Why the turn ended.
    Finish {
        /// The reason.
        reason: FinishReason,
    },
    /// The request's constraint was sent to the server.
    Constrained,
    /// Something the provider wants the user to know about this turn.
    Notice {
        /// One line.
        message: String,
    },
}

/// A stream of deltas for one turn.
pub type CompletionStream = BoxStream<'static, Result<StreamDelta, ModelError>>;

/// A chat model. Implement [`complete`](Complete::complete); override
/// [`stream`](Complete::stream) when the provider streams.
///
/// ```
/// use agent_core::{Complete, Completion, CompletionRequest, ModelError};
///
/// struct Echo;
///
/// #[async_trait::async_trait]
/// impl Complete for Echo {
///     async fn complete(&self, req: &CompletionRequest) -> Result<Completion, ModelError> {
///         let last = req.messages.last().map(|m| m.content.clone()).unwrap_or_default();
///         Ok(Completion::text(last))
///     }
/// }
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let req = CompletionRequest::new(vec![agent_core::Message::user("hi")]);
/// assert_eq!(Echo.complete(&req).await.unwrap().text, "hi");
/// # });
/// ```
#[async_trait]
pub trait Complete: Send + Sync {
    /// Produces the next turn for `request`.
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, ModelError>;

    /// Streams the next turn. The default calls [`complete`](Complete::complete)
    /// and yields the whole answer as deltas.
    async fn stream(&self, request: &CompletionRequest) -> Result<CompletionStream, ModelError> {
        let completion = self.complete(request).await?;
        Ok(Box::pin(stream::iter(
            completion_to_deltas(completion).into_iter().map(Ok),
        )))
    }
}

/// A shared model is the model: its futures are handed on as they are,
/// not boxed a second time.
impl<T: Complete + ?Sized> Complete for std::sync::Arc<T> {
    fn complete<'life0, 'life1, 'async_trait>(
        &'life0 self,
        request: &'life1 CompletionRequest,
    ) -> BoxFuture<'async_trait, Result<Completion, ModelError>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        Self: 'async_trait,
    {
        (**self).complete(request)
    }

    fn stream<'life0, 'life1, 'async_trait>(
        &'life0 self,
        request: &'life1 CompletionRequest,
    ) -> BoxFuture<'async_trait, Result<CompletionStream, ModelError>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        Self: 'async_trait,
    {
        (**self).stream(request)
    }
}

/// Splits a finished completion into the deltas a stream would carry.
pub fn completion_to_deltas(completion: Completion) -> Vec<StreamDelta> {
    let mut deltas = Vec::with_capacity(completion.tool_calls.len() + 3);
    if completion.constrained {
        deltas.push(StreamDelta::Constrained);
    }
    for message in completion.notices {
        deltas.push(StreamDelta::Notice { message });
    }
    if !completion.reasoning.is_empty() {
        deltas.push(StreamDelta::Reasoning {
            text: completion.reasoning,
        });
    }
    if !completion.text.is_empty() {
        deltas.push(StreamDelta::Text {
            text: completion.text,
        });
    }
    for (index, call) in completion.tool_calls.into_iter().enumerate() {
        let arguments = match call.arguments {
            Value::String(raw) => raw,
            other => other.to_string(),
        };
        deltas.push(StreamDelta::ToolCall {
            index,
            id: Some(call.id),
            name: Some(call.name),
            arguments,
        });
    }
    if let Some(usage) = completion.usage {
        deltas.push(StreamDelta::Usage { usage });
    }
    if let Some(reason) = completion.finish_reason {
        deltas.push(StreamDelta::Finish { reason });
    }
    deltas
}

#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Builds a [`Completion`] from stream deltas. Tool-call fragments are
/// merged by index; arguments that are not valid JSON are kept as a JSON
/// string so the tool gateway can report them to the model.
#[derive(Debug, Default)]
pub struct CompletionAccumulator {
    constrained: bool,
    notices: Vec<String>,
    text: String,
    reasoning: String,
    calls: BTreeMap<usize, PartialCall>,
    usage: Option<Usage>,
    finish_reason: Option<FinishReason>,
}

impl CompletionAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one delta.
    pub fn push(&mut self, delta: StreamDelta) {
        match delta {
            StreamDelta::Text { text } => self.text.push_str(&text),
            StreamDelta::Reasoning { text } => self.reasoning.push_str(&text),
            StreamDelta::ToolCall {
                index,
                id,
                name,
                arguments,
            } => {
                let call = self.calls.entry(index).or_default();
                if let Some(id) = id.filter(|id| !id.is_empty()) {
                    call.id = Some(id);
                }
                if let Some(name) = name {
                    call.name.push_str(&name);
                }
                call.arguments.push_str(&arguments);
            }
            StreamDelta::Usage { usage } => self.usage = Some(usage),
            StreamDelta::Finish { reason } => self.finish_reason = Some(reason),
            StreamDelta::Constrained => self.constrained = true,
            StreamDelta::Notice { message } => self.notices.push(message),
        }
    }

    /// The text received so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Keeps only the first `len` bytes of the text (rounded down to a char boundary).
    pub fn truncate_text(&mut self, len: usize) {
        let mut len = len.min(self.text.len());
        while !self.text.is_char_boundary(len) {
            len -= 1;
        }
        self.text.truncate(len);
    }

    /// Whether the text or a call's arguments so far end in a runaway:
    /// one short pattern (at most [`RUNAWAY_PERIOD`] bytes, such as `0`,
    /// `, 0` or ` - 48000 * (1 - 0.12)^0`) repeated over the last
    /// [`RUNAWAY_BYTES`] bytes. Small
    /// models fall into such loops and stay in them until their token
    /// limit, which on a local server costs a minute of generation for
    /// nothing.
    pub fn runs_away(&self) -> bool {
        ends_in_repetition(&self.text)
            || self
                .calls
                .values()
                .any(|call| ends_in_repetition(&call.arguments))
    }

    /// Sets the finish reason.
    pub fn set_finish_reason(&mut self, reason: FinishReason) {
        self.finish_reason = Some(reason);
    }

    /// The completion assembled so far.
    pub fn finish(self) -> Completion {
        let tool_calls = self
            .calls
            .into_iter()
            .map(|(index, call)| ToolCall {
                id: call.id.unwrap_or_else(|| format!("call_{index}")),
                name: call.name,
                arguments: parse_arguments(call.arguments),
            })
            .collect();
        Completion {
            constrained: self.constrained,
            notices: self.notices,
            text: self.text,
            reasoning: self.reasoning,
            tool_calls,
            usage: self.usage,
            finish_reason: self.finish_reason,
        }
    }
}

/// How many bytes of one repeated pattern make a runaway output.
pub const RUNAWAY_BYTES: usize = 400;

/// The longest pattern, in bytes, whose repetition makes a runaway.
pub const RUNAWAY_PERIOD: usize = 32;

/// Whether `text` ends in one pattern of at most [`RUNAWAY_PERIOD`] bytes
/// repeated over [`RUNAWAY_BYTES`] bytes.
fn ends_in_repetition(text: &str) -> bool {
    let bytes = text.as_bytes();
    (1..=RUNAWAY_PERIOD).any(|period| {
        let Some(start) = bytes.len().checked_sub(RUNAWAY_BYTES + period) else {
            return false;
        };
        let tail = &bytes[start..];
        (period..tail.len()).all(|i| tail[i] == tail[i - period])
    })
}

/// Decodes a tool call's JSON arguments text. Empty text is `{}`; text that
/// is not JSON is kept as a JSON string (the gateway reports it).
pub fn parse_arguments(raw: String) -> Value {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(trimmed).unwrap_or(Value::String(raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runaway_is_a_short_pattern_repeated_for_hundreds_of_bytes() {
        let zeros = format!(
            "{{\"expression\": \"23.5 * 1{}",
            "0".repeat(RUNAWAY_BYTES + 8)
        );
        assert!(ends_in_repetition(&zeros));
        assert!(ends_in_repetition(&format!("[1{}", ", 0".repeat(200))));
        let term = " - 48000 * (1 - 0.12)^0";
        assert!(ends_in_repetition(&format!("48000{}", term.repeat(20))));
        assert!(!ends_in_repetition(&format!("48000{}", term.repeat(16))));
        assert!(!ends_in_repetition(&"0".repeat(RUNAWAY_BYTES)));
        // Long ordinary text, a long number and a table are not runaways.
        let prose = "The api talks to the worker through a Redis queue. ".repeat(20);
        assert!(!ends_in_repetition(&prose));
        let mut seed: u32 = 7;
        let digits: String = (0..600)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                char::from(b'0' + ((seed >> 16) % 10) as u8)
            })
            .collect();
        assert!(!ends_in_repetition(&digits));
        let table = (0..40)
            .map(|i| format!("| {i} | {} |\n", i * 3))
            .collect::<String>();
        assert!(!ends_in_repetition(&table));
    }
    use futures::StreamExt;

    #[test]
    fn accumulator_merges_tool_call_fragments_by_index() {
        let mut acc = CompletionAccumulator::new();
        let frag =
            |index, id: Option<&str>, name: Option<&str>, args: &str| StreamDelta::ToolCall {
                index,
                id: id.map(str::to_string),
                name: name.map(str::to_string),
                arguments: args.to_string(),
            };
        acc.push(frag(1, Some("b"), Some("search"), ""));
        acc.push(frag(0, Some("a"), Some("add"), "{\"a\":"));
        acc.push(frag(1, None, None, "{\"q\":\"x\"}"));
        acc.push(frag(0, None, None, "1}"));
        acc.push(frag(2, None, Some("bad"), "{not json"));
        let done = acc.finish();
        assert_eq!(done.tool_calls.len(), 3);
        assert_eq!(done.tool_calls[0].id, "a");
        assert_eq!(done.tool_calls[0].arguments, serde_json::json!({"a": 1}));
        assert_eq!(done.tool_calls[1].arguments, serde_json::json!({"q": "x"}));
        assert_eq!(done.tool_calls[2].id, "call_2");
        assert_eq!(
            done.tool_calls[2].arguments,
            Value::String("{not json".into())
        );
    }

    #[tokio::test]
    async fn default_stream_round_trips_a_completion() {
        struct Fixed;
        #[async_trait]
        impl Complete for Fixed {
            async fn complete(&self, _: &CompletionRequest) -> Result<Completion, ModelError> {
                Ok(Completion::tool_calls(vec![ToolCall::new(
                    "c1",
                    "add",
                    serde_json::json!({"a": 1}),
                )])
                .with_usage(Usage::new(3, 4)))
            }
        }
        let mut stream = Fixed.stream(&CompletionRequest::new(vec![])).await.unwrap();
        let mut acc = CompletionAccumulator::new();
        while let Some(delta) = stream.next().await {
            acc.push(delta.unwrap());
        }
        let expected = Fixed
            .complete(&CompletionRequest::new(vec![]))
            .await
            .unwrap();
        assert_eq!(acc.finish(), expected);
    }
}
