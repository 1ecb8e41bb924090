//! The IO loop: asks the [`Run`] what to do, does it (calls the model,
//! streaming or not; hands tool rounds to `round`), feeds the results back
//! and emits events. It enforces the run's wall clock and cancellation,
//! and contains panics: a component that panics (model, transport, hook,
//! toolbox) stops the run with
//! [`StopReason::Internal`](crate::StopReason::Internal), and the outcome
//! is still the run's own, transcript and usage whole.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::task::Poll;
use std::time::{Duration, Instant};

use futures::{FutureExt, StreamExt};

use crate::event::Event;
use crate::message::{Completion, CompletionRequest, FinishReason, Message, Role};
use crate::model::{CompletionAccumulator, ModelError, StreamDelta};
use crate::run::{Run, RunError, Step};
use crate::tool::panic_message;
use crate::trace::now_ms;
use crate::transport::Decision;

use super::stream::{DropGuard, Emitter};
use super::{Agent, RunControl};

/// How a piece of work ended.
pub(super) enum Interrupted<T> {
    Finished(T),
    Cancelled,
    TimedOut,
}

/// Runs `step` on the run; a panic inside (in the transport) stops the run.
fn guarded<T>(run: &mut Run, what: &str, step: impl FnOnce(&mut Run) -> T) -> Option<T> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| step(&mut *run))) {
        Ok(value) => Some(value),
        Err(panic) => {
            run.fail(
                format!("{what} panicked: {}", panic_message(&*panic)),
                now_ms(),
            );
            None
        }
    }
}

/// The messages after the model's last turn in `transcript` (all of them
/// before its first): what the loop has told it since it last spoke.
fn told_since_reply(transcript: &[Message]) -> Vec<Message> {
    let start = transcript
        .iter()
        .rposition(|m| m.role == Role::Assistant)
        .map_or(0, |i| i + 1);
    transcript
        .get(start..)
        .map(<[Message]>::to_vec)
        .unwrap_or_default()
}

/// The detail of an internal stop caused by a run error.
fn internal(run: &mut Run, error: RunError) {
    run.fail(format!("the run refused an input: {error}"), now_ms());
}

impl Agent {
    pub(super) async fn drive_inner(
        &self,
        run: &mut Run,
        control: &RunControl,
        emitter: &Emitter<'_>,
    ) -> Result<Step, RunError> {
        let mut resuming_tools = run.awaiting_tools();
        let mut guard = DropGuard {
            emitter,
            armed: emitter.active(),
            steps: run.steps(),
            tool_calls: run.tool_calls(),
            usage: run.usage(),
            started_ms: run.started_ms(),
        };
        loop {
            guard.steps = run.steps();
            guard.tool_calls = run.tool_calls();
            guard.usage = run.usage();
            let step = match guard_next(run) {
                Some(step) => step?,
                None => continue,
            };
            match step {
                Step::CallModel(request) => self.model_step(run, request, control, emitter).await,
                Step::CallTools(calls) => {
                    if control.pause_before_tools && !resuming_tools {
                        guard.armed = false;
                        return Ok(Step::CallTools(calls));
                    }
                    resuming_tools = false;
                    self.tool_round(run, calls, control, emitter).await;
                }
                Step::Done(outcome) => {
                    guard.armed = false;
                    emitter.emit(|| Event::Stopped {
                        reason: outcome.stop_reason.clone(),
                        forced_answer: outcome.forced_answer,
                        ungrounded_numbers: outcome.ungrounded_numbers.clone(),
                        steps: outcome.steps,
                        tool_calls: outcome.tool_calls,
                        usage: outcome.usage,
                        elapsed_ms: outcome.elapsed_ms,
                    });
                    return Ok(Step::Done(outcome));
                }
            }
        }
    }

    /// One model call and what the run makes of it.
    async fn model_step(
        &self,
        run: &mut Run,
        request: CompletionRequest,
        control: &RunControl,
        emitter: &Emitter<'_>,
    ) {
        let step_no = run.steps();
        emitter.emit(|| Event::ModelRequestStarted {
            step: step_no,
            messages: request.messages.len(),
            answer_only: run.on_answer_turn(),
            constrained: request.constraint.is_some(),
            told: told_since_reply(run.transcript()),
        });
        let started = emitter.active().then(Instant::now);
        let call = AssertUnwindSafe(self.call_model(request, emitter)).catch_unwind();
        let result = self.interruptible(run, control, call).await;
        let now = now_ms();
        match result {
            Interrupted::Finished(Ok(Ok(completion))) => {
                for notice in &completion.notices {
                    tracing::info!(notice = %notice, "model request");
                    emitter.emit(|| Event::Notice {
                        message: notice.clone(),
                    });
                }
                emitter.emit(|| Event::ModelResponded {
                    step: step_no,
                    completion: completion.clone(),
                    duration_ms: started.map_or(0, |t| millis(t.elapsed())),
                });
                let turn = guarded(run, "the transport", |run| run.model_turn(completion, now));
                match turn {
                    Some(Ok(turn)) => {
                        if let Some(thought) = turn.thought {
                            emitter.emit(|| Event::Thought { text: thought });
                        }
                        match turn.decision {
                            Decision::Final(answer) => {
                                emitter.emit(|| Event::FinalAnswer { answer })
                            }
                            Decision::Malformed(reason) => {
                                emitter.emit(|| Event::Malformed { reason })
                            }
                            Decision::Act(_) => {}
                        }
                    }
                    Some(Err(error)) => internal(run, error),
                    None => {}
                }
            }
            Interrupted::Finished(Ok(Err(error))) => {
                if let Err(error) = run.model_error(error, now) {
                    internal(run, error);
                }
            }
            Interrupted::Finished(Err(panic)) => run.fail(
                format!("the model panicked: {}", panic_message(&*panic)),
                now,
            ),
            Interrupted::Cancelled => run.cancel(now),
            Interrupted::TimedOut => run.time_out(now),
        }
    }

    /// Runs `work` unless the run is cancelled or its wall clock runs out
    /// first. Work that finishes on its first poll (the common case for
    /// fast models and tools) never touches the timer or the token.
    pub(super) async fn interruptible<T>(
        &self,
        run: &Run,
        control: &RunControl,
        work: impl Future<Output = T>,
    ) -> Interrupted<T> {
        if control.cancel.is_cancelled() {
            return Interrupted::Cancelled;
        }
        let mut work = std::pin::pin!(work);
        if let Poll::Ready(value) = futures::poll!(work.as_mut()) {
            return Interrupted::Finished(value);
        }
        let deadline = match run.budget().timeout {
            Some(_) => run.remaining_ms(now_ms()).map(Duration::from_millis),
            None => None,
        };
        let timed = async {
            match deadline {
                Some(left) => match tokio::time::timeout(left, work).await {
                    Ok(value) => Interrupted::Finished(value),
                    Err(_) => Interrupted::TimedOut,
                },
                None => Interrupted::Finished(work.await),
            }
        };
        tokio::select! {
            biased;
            () = control.cancel.cancelled() => Interrupted::Cancelled,
            result = timed => result,
        }
    }

    /// Calls the model; when streaming, text deltas become events and the
    /// transport's watcher may end the turn early.
    async fn call_model(
        &self,
        request: CompletionRequest,
        emitter: &Emitter<'_>,
    ) -> Result<Completion, ModelError> {
        if !self.streaming {
            return self.model.complete(&request).await;
        }
        let mut stream = self.model.stream(&request).await?;
        drop(request);
        let mut watcher = self.transport.stream_watcher();
        let mut acc = CompletionAccumulator::new();
        while let Some(delta) = stream.next().await {
            let delta = delta?;
            if let StreamDelta::Text { text } = &delta {
                emitter.emit(|| Event::TextDelta { text: text.clone() });
                if let Some(watcher) = watcher.as_mut()
                    && let Some(keep) = watcher.push(text)
                {
                    acc.push(delta);
                    acc.truncate_text(keep);
                    acc.set_finish_reason(FinishReason::StreamCut);
                    return Ok(acc.finish());
                }
            }
            acc.push(delta);
            if acc.runs_away() {
                tracing::warn!("the model's output kept repeating itself; its stream was cut");
                acc.set_finish_reason(FinishReason::Repetition);
                return Ok(acc.finish());
            }
        }
        Ok(acc.finish())
    }
}

/// The run's next step; `None` when the transport panicked rendering it
/// (the run is then stopped and the next call hands out its outcome).
fn guard_next(run: &mut Run) -> Option<Result<Step, RunError>> {
    guarded(run, "the transport", |run| run.next_step(now_ms()))
}

pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
