//! [`ReplayModel`]: answers with the model turns recorded in a trace, in
//! order, so a run can be reproduced deterministically.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Mutex;

use async_trait::async_trait;

use super::{TraceError, TraceRecord, read_trace};
use crate::event::Event;
use crate::message::{Completion, CompletionRequest};
use crate::model::{Complete, ModelError};
use crate::outcome::StopReason;

/// A model that replays a trace's model turns (and its model error, if the
/// run ended with one).
#[derive(Debug)]
pub struct ReplayModel {
    turns: Mutex<VecDeque<Result<Completion, ModelError>>>,
    task: Option<String>,
}

impl ReplayModel {
    /// Replays these records.
    pub fn from_records(records: &[TraceRecord]) -> Self {
        let mut turns = VecDeque::new();
        let mut task = None;
        for record in records {
            match &record.event {
                Event::RunStarted { task: t, .. } if task.is_none() => task = Some(t.clone()),
                Event::ModelResponded { completion, .. } => turns.push_back(Ok(completion.clone())),
                Event::Stopped {
                    reason: StopReason::Model(err),
                    ..
                } => turns.push_back(Err(err.clone())),
                _ => {}
            }
        }
        Self {
            turns: Mutex::new(turns),
            task,
        }
    }

    /// Replays the trace file at `path`.
    pub fn from_trace(path: impl AsRef<Path>) -> Result<Self, TraceError> {
        Ok(Self::from_records(&read_trace(path)?))
    }

    /// The task of the recorded run, if the trace has its start.
    pub fn task(&self) -> Option<&str> {
        self.task.as_deref()
    }

    /// Model turns not replayed yet.
    pub fn remaining(&self) -> usize {
        self.turns.lock().map(|t| t.len()).unwrap_or(0)
    }
}

#[async_trait]
impl Complete for ReplayModel {
    async fn complete(&self, _request: &CompletionRequest) -> Result<Completion, ModelError> {
        let next = self
            .turns
            .lock()
            .map_err(|_| ModelError::bad_response("replay state poisoned", ""))?
            .pop_front();
        next.unwrap_or_else(|| {
            Err(ModelError::bad_response(
                "the replayed trace has no more model turns",
                "",
            ))
        })
    }
}
