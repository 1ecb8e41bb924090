//! [`RunControl`]: what the caller controls of one run: cancellation,
//! extra event sinks, and pausing before tool rounds.

use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::event::EventSink;

/// Per-run controls: cancellation, extra event sinks, pausing.
#[derive(Clone, Default)]
pub struct RunControl {
    /// Cancelling this token ends the run with `Cancelled`.
    pub cancel: CancellationToken,
    /// Sinks for this run only (on top of the agent's).
    pub sinks: Vec<Arc<dyn EventSink>>,
    /// [`Agent::drive`](crate::Agent::drive) returns before running a new
    /// round of tool calls.
    pub pause_before_tools: bool,
}

impl fmt::Debug for RunControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunControl")
            .field("cancelled", &self.cancel.is_cancelled())
            .field("sinks", &self.sinks.len())
            .field("pause_before_tools", &self.pause_before_tools)
            .finish()
    }
}

impl RunControl {
    /// Adds a sink (owned, or shared as an `Arc`).
    pub fn with_sink(mut self, sink: impl EventSink + 'static) -> Self {
        self.sinks.push(Arc::new(sink));
        self
    }

    /// Uses this cancellation token.
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }
}
