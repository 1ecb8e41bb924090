//! Events on their way out: the [`Emitter`] that builds an event only when
//! someone listens and shields the loop from a panicking sink, the guard
//! that records a stop when a run's future is dropped, and [`RunStream`].

use std::collections::VecDeque;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures::Stream;
use futures::future::BoxFuture;

use crate::event::{Event, EventSink};
use crate::message::Usage;
use crate::outcome::{Outcome, StopReason};
use crate::tool::panic_message;
use crate::trace::now_ms;

/// The sinks of one run.
pub(super) struct Emitter<'a> {
    agent: &'a [Arc<dyn EventSink>],
    run: &'a [Arc<dyn EventSink>],
}

impl<'a> Emitter<'a> {
    pub(super) fn new(agent: &'a [Arc<dyn EventSink>], run: &'a [Arc<dyn EventSink>]) -> Self {
        Self { agent, run }
    }

    pub(super) fn active(&self) -> bool {
        !self.agent.is_empty() || !self.run.is_empty()
    }

    /// Builds the event (only when someone listens) and hands it to every
    /// sink. A sink that panics is reported and skipped.
    pub(super) fn emit(&self, make: impl FnOnce() -> Event) {
        if !self.active() {
            return;
        }
        let event = make();
        for sink in self.agent.iter().chain(self.run) {
            let delivered = std::panic::catch_unwind(AssertUnwindSafe(|| sink.emit(&event)));
            if let Err(panic) = delivered {
                tracing::error!(detail = %panic_message(&*panic), "an event sink panicked");
            }
        }
    }
}

/// Emits a `Stopped` event if the run's future is dropped mid-way, so a
/// trace is complete even then.
pub(super) struct DropGuard<'a> {
    pub(super) emitter: &'a Emitter<'a>,
    pub(super) armed: bool,
    pub(super) steps: u32,
    pub(super) tool_calls: u32,
    pub(super) usage: Usage,
    pub(super) started_ms: u64,
}

impl Drop for DropGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            let reason = if std::thread::panicking() {
                StopReason::Internal("the run's task panicked".into())
            } else {
                StopReason::Cancelled
            };
            self.emitter.emit(|| Event::Stopped {
                reason,
                forced_answer: false,
                ungrounded_numbers: Vec::new(),
                steps: self.steps,
                tool_calls: self.tool_calls,
                usage: self.usage,
                elapsed_ms: now_ms().saturating_sub(self.started_ms),
            });
        }
    }
}

/// Collects events for a [`RunStream`].
#[derive(Default)]
pub(super) struct QueueSink(Mutex<VecDeque<Event>>);

impl EventSink for QueueSink {
    fn emit(&self, event: &Event) {
        if let Ok(mut queue) = self.0.lock() {
            queue.push_back(event.clone());
        }
    }
}

impl QueueSink {
    fn pop(&self) -> Option<Event> {
        self.0.lock().ok().and_then(|mut q| q.pop_front())
    }
}

/// The stream returned by [`Agent::stream`](crate::Agent::stream): the
/// run's events as they happen. Once it ends, [`outcome`](RunStream::outcome)
/// hands out the outcome. Dropping it cancels the run.
pub struct RunStream<'a> {
    future: Option<BoxFuture<'a, Outcome>>,
    queue: Arc<QueueSink>,
    outcome: Option<Outcome>,
}

impl fmt::Debug for RunStream<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunStream")
            .field("running", &self.future.is_some())
            .field("outcome", &self.outcome.is_some())
            .finish()
    }
}

impl<'a> RunStream<'a> {
    pub(super) fn new(future: BoxFuture<'a, Outcome>, queue: Arc<QueueSink>) -> Self {
        Self {
            future: Some(future),
            queue,
            outcome: None,
        }
    }

    /// The outcome, once the stream has ended (taken once).
    pub fn outcome(&mut self) -> Option<Outcome> {
        self.outcome.take()
    }

    /// Runs to the end, dropping the events not read yet, and returns the
    /// outcome.
    pub async fn finish(mut self) -> Outcome {
        if let Some(future) = self.future.take() {
            self.outcome = Some(future.await);
        }
        match self.outcome.take() {
            Some(outcome) => outcome,
            None => Outcome {
                answer: None,
                forced_answer: false,
                ungrounded_numbers: Vec::new(),
                stop_reason: StopReason::Internal("the outcome was already taken".into()),
                transcript: Vec::new(),
                usage: Usage::default(),
                steps: 0,
                tool_calls: 0,
                elapsed_ms: 0,
            },
        }
    }
}

impl Stream for RunStream<'_> {
    type Item = Event;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let this = self.get_mut();
        if let Some(event) = this.queue.pop() {
            return Poll::Ready(Some(event));
        }
        if let Some(future) = this.future.as_mut() {
            match future.as_mut().poll(cx) {
                Poll::Ready(outcome) => {
                    this.future = None;
                    this.outcome = Some(outcome);
                }
                Poll::Pending => {
                    return match this.queue.pop() {
                        Some(event) => Poll::Ready(Some(event)),
                        None => Poll::Pending,
                    };
                }
            }
        }
        Poll::Ready(this.queue.pop())
    }
}
