//! The demo's model: plays a scene's scripted turns in order, streamed in
//! small chunks with a short pause, so the demo shows a run exactly as the
//! live view shows a real one. No network, no key.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use agent_core::model::{CompletionStream, StreamDelta, completion_to_deltas};
use agent_core::{Complete, Completion, CompletionRequest, ModelError};
use async_trait::async_trait;
use futures::StreamExt;

/// Characters per streamed chunk.
const CHUNK_CHARS: usize = 12;
/// Pause before each chunk.
const CHUNK_DELAY: Duration = Duration::from_millis(2);

/// A model that answers with scripted turns, in order.
#[derive(Debug)]
pub(crate) struct DemoModel {
    turns: Mutex<VecDeque<Completion>>,
}

impl DemoModel {
    /// A model that plays `turns`.
    pub(crate) fn new(turns: impl IntoIterator<Item = Completion>) -> Self {
        Self {
            turns: Mutex::new(turns.into_iter().collect()),
        }
    }

    fn next(&self) -> Result<Completion, ModelError> {
        self.turns
            .lock()
            .ok()
            .and_then(|mut turns| turns.pop_front())
            .ok_or_else(|| ModelError::bad_response("the demo scene has no more turns", ""))
    }
}

/// Splits text deltas into chunks of a few characters.
fn chunked(delta: StreamDelta) -> Vec<StreamDelta> {
    match delta {
        StreamDelta::Text { text } => {
            let chars: Vec<char> = text.chars().collect();
            chars
                .chunks(CHUNK_CHARS)
                .map(|c| StreamDelta::Text {
                    text: c.iter().collect(),
                })
                .collect()
        }
        other => vec![other],
    }
}

#[async_trait]
impl Complete for DemoModel {
    async fn complete(&self, _request: &CompletionRequest) -> Result<Completion, ModelError> {
        self.next()
    }

    async fn stream(&self, _request: &CompletionRequest) -> Result<CompletionStream, ModelError> {
        let deltas: Vec<StreamDelta> = completion_to_deltas(self.next()?)
            .into_iter()
            .flat_map(chunked)
            .collect();
        Ok(Box::pin(futures::stream::iter(deltas).then(
            |delta| async move {
                tokio::time::sleep(CHUNK_DELAY).await;
                Ok(delta)
            },
        )))
    }
}
