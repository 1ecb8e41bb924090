//! Test doubles (feature `testing`): [`ScriptedModel`], which answers with
//! canned turns, and [`TestTransport`], the simplest transport there is.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use futures::stream;
use serde_json::Value;

use crate::message::{Completion, CompletionRequest, Message, ToolSpec};
use crate::model::{Complete, CompletionStream, ModelError, StreamDelta, completion_to_deltas};
use crate::tool::Observation;
use crate::transport::{Decision, Interpretation, Opening, RequestParts, Transport, Turn};

#[derive(Debug, Clone)]
enum Entry {
    Reply(Completion),
    Error(ModelError),
}

#[derive(Debug, Clone)]
struct Scripted {
    entry: Entry,
    delay: Option<Duration>,
}

/// A model that returns canned completions in order. It can stream them in
/// chunks, inject errors and delays, and it records every request.
///
/// ```
/// use agent_core::testing::ScriptedModel;
/// use agent_core::{Complete, CompletionRequest};
///
/// let model = ScriptedModel::new().text("first").text("second");
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let req = CompletionRequest::new(vec![]);
/// assert_eq!(model.complete(&req).await.unwrap().text, "first");
/// assert_eq!(model.complete(&req).await.unwrap().text, "second");
/// assert!(model.complete(&req).await.is_err()); // script exhausted
/// assert_eq!(model.requests().len(), 3);
/// # });
/// ```
#[derive(Debug, Default)]
pub struct ScriptedModel {
    script: Mutex<VecDeque<Scripted>>,
    requests: Mutex<Vec<CompletionRequest>>,
    chunk_chars: Option<usize>,
    split_points: Option<Vec<usize>>,
    chunk_delay: Option<Duration>,
    chunks_sent: Arc<AtomicUsize>,
    record: bool,
}

impl ScriptedModel {
    /// An empty script that records requests.
    pub fn new() -> Self {
        Self {
            record: true,
            ..Self::default()
        }
    }

    fn push(self, entry: Entry) -> Self {
        if let Ok(mut script) = self.script.lock() {
            script.push_back(Scripted { entry, delay: None });
        }
        self
    }

    /// Adds a completion.
    pub fn reply(self, completion: Completion) -> Self {
        self.push(Entry::Reply(completion))
    }

    /// Adds a text completion.
    pub fn text(self, text: impl Into<String>) -> Self {
        self.reply(Completion::text(text))
    }

    /// Adds a native tool-call completion with one call.
    pub fn call(self, id: &str, tool: &str, arguments: Value) -> Self {
        self.reply(Completion::tool_calls(vec![crate::message::ToolCall::new(
            id, tool, arguments,
        )]))
    }

    /// Adds an error.
    pub fn error(self, error: ModelError) -> Self {
        self.push(Entry::Error(error))
    }

    /// Delays the last added entry.
    pub fn delayed(self, delay: Duration) -> Self {
        if let Ok(mut script) = self.script.lock()
            && let Some(last) = script.back_mut()
        {
            last.delay = Some(delay);
        }
        self
    }

    /// Streams text in chunks of `chars` characters.
    pub fn chunked(mut self, chars: usize) -> Self {
        self.chunk_chars = Some(chars.max(1));
        self
    }

    /// Streams text, and each tool call's arguments, cut at these character
    /// offsets (offsets past the end are ignored): `split_at(vec![3])`
    /// streams `"añb€c"` as `"añb"` and `"€c"`. Overrides
    /// [`chunked`](Self::chunked).
    ///
    /// ```
    /// use agent_core::testing::ScriptedModel;
    /// use agent_core::Complete;
    /// use agent_core::model::StreamDelta;
    /// use futures::StreamExt;
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let model = ScriptedModel::new().text("añb€c").split_at(vec![3]);
    /// let req = agent_core::CompletionRequest::new(vec![]);
    /// let pieces: Vec<String> = model.stream(&req).await.unwrap()
    ///     .filter_map(|d| async move { match d { Ok(StreamDelta::Text { text }) => Some(text), _ => None } })
    ///     .collect().await;
    /// assert_eq!(pieces, ["añb", "€c"]);
    /// # });
    /// ```
    pub fn split_at(mut self, offsets: Vec<usize>) -> Self {
        self.split_points = Some(offsets);
        self
    }

    /// Waits this long before each streamed chunk.
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = Some(delay);
        self
    }

    /// Does not keep requests (keeps the loop's request sharing intact, for benches).
    pub fn without_recording(mut self) -> Self {
        self.record = false;
        self
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<CompletionRequest> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Entries not used yet.
    pub fn remaining(&self) -> usize {
        self.script.lock().map(|s| s.len()).unwrap_or(0)
    }

    /// Stream chunks handed out so far.
    pub fn chunks_sent(&self) -> usize {
        self.chunks_sent.load(Ordering::SeqCst)
    }

    /// Whether streamed text is cut into pieces.
    fn splits(&self) -> bool {
        self.split_points.is_some() || self.chunk_chars.is_some()
    }

    /// `text` cut at the split points, or in chunks of `chunk_chars`
    /// characters (never an empty piece, and one piece at least).
    fn pieces(&self, text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut pieces: Vec<String> = match (&self.split_points, self.chunk_chars) {
            (Some(points), _) => {
                let mut cuts: Vec<usize> = points
                    .iter()
                    .copied()
                    .filter(|&p| p > 0 && p < chars.len())
                    .collect();
                cuts.sort_unstable();
                cuts.dedup();
                cuts.push(chars.len());
                let mut start = 0;
                cuts.into_iter()
                    .map(|cut| {
                        let piece = chars[start..cut].iter().collect();
                        start = cut;
                        piece
                    })
                    .collect()
            }
            (None, Some(n)) => chars.chunks(n).map(|c| c.iter().collect()).collect(),
            (None, None) => vec![text.to_string()],
        };
        if pieces.is_empty() {
            pieces.push(String::new());
        }
        pieces
    }

    async fn next(&self, request: &CompletionRequest) -> Result<Completion, ModelError> {
        if self.record
            && let Ok(mut requests) = self.requests.lock()
        {
            requests.push(request.clone());
        }
        let next = self.script.lock().ok().and_then(|mut s| s.pop_front());
        let Some(scripted) = next else {
            return Err(ModelError::bad_response(
                "the scripted model has no more replies",
                "",
            ));
        };
        if let Some(delay) = scripted.delay {
            tokio::time::sleep(delay).await;
        }
        match scripted.entry {
            Entry::Reply(completion) => Ok(completion),
            Entry::Error(error) => Err(error),
        }
    }
}

#[async_trait]
impl Complete for ScriptedModel {
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, ModelError> {
        self.next(request).await
    }

    async fn stream(&self, request: &CompletionRequest) -> Result<CompletionStream, ModelError> {
        let completion = self.next(request).await?;
        let mut deltas = Vec::new();
        for delta in completion_to_deltas(completion) {
            match delta {
                StreamDelta::Text { text } if self.splits() => {
                    deltas.extend(
                        self.pieces(&text)
                            .into_iter()
                            .map(|text| StreamDelta::Text { text }),
                    );
                }
                StreamDelta::ToolCall {
                    index,
                    id,
                    name,
                    arguments,
                } if self.splits() => {
                    let mut first = Some((id, name));
                    for piece in self.pieces(&arguments) {
                        let (id, name) = first.take().unwrap_or((None, None));
                        deltas.push(StreamDelta::ToolCall {
                            index,
                            id,
                            name,
                            arguments: piece,
                        });
                    }
                }
                delta => deltas.push(delta),
            }
        }
        let counter = Arc::clone(&self.chunks_sent);
        let delay = self.chunk_delay;
        Ok(Box::pin(stream::iter(deltas).then(move |delta| {
            let counter = Arc::clone(&counter);
            async move {
                if let Some(delay) = delay {
                    tokio::time::sleep(delay).await;
                }
                counter.fetch_add(1, Ordering::SeqCst);
                Ok(delta)
            }
        })))
    }
}

/// The simplest transport: native tool calls are actions, any other text
/// is the final answer, and an empty turn is malformed. For tests and benches.
#[derive(Debug, Clone, Copy, Default)]
pub struct TestTransport;

impl Transport for TestTransport {
    fn name(&self) -> &str {
        "test"
    }

    fn opening(&self, task: &str, _tools: &[ToolSpec]) -> Opening {
        Opening {
            system: vec![Message::system("You are a test agent.")],
            task: Message::user(task),
        }
    }

    fn render(&self, parts: RequestParts<'_>) -> CompletionRequest {
        let mut request = parts.plain();
        if !parts.answer_only {
            request.tools = std::sync::Arc::clone(parts.tools);
        } else if !parts.answer_tools.is_empty() {
            // An answer turn's compute round offers the computing tools.
            request.tools = parts.answer_tools.into();
        }
        request
    }

    fn interpret(&self, completion: Completion, _tools: &[ToolSpec]) -> Interpretation {
        let decision = if !completion.tool_calls.is_empty() {
            Decision::Act(completion.tool_calls.as_slice().into())
        } else if completion.text.trim().is_empty() {
            Decision::Malformed("the reply was empty".into())
        } else {
            Decision::Final(completion.text.trim().to_string())
        };
        Interpretation {
            turn: Turn {
                thought: None,
                decision,
            },
            message: Message::assistant_with_calls(completion.text, completion.tool_calls),
        }
    }

    fn observations(&self, observations: &[Observation]) -> Vec<Message> {
        observations
            .iter()
            .map(|o| Message::tool(o.call_id.clone(), o.content.clone()))
            .collect()
    }

    fn malformed(&self, reason: &str, _tools: &[ToolSpec]) -> Vec<Message> {
        vec![Message::user(format!(
            "Error: {reason}. Answer or call a tool."
        ))]
    }
}
