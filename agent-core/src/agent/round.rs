//! Tool rounds: hooks first, in call order (approve, deny, edit, or stop
//! the run); then the calls run concurrently up to the agent's limit,
//! sequential tools alone as barriers, and the observations go back in
//! call order whatever the timing. Timeouts, caught panics and capped
//! output are the toolbox's (the `agent-tools` gateway); a panic that
//! escapes a toolbox or a hook stops the run instead of crashing it.

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use futures::stream::FuturesOrdered;
use futures::{FutureExt, StreamExt};

use crate::event::Event;
use crate::hook::HookAction;
use crate::message::ToolCall;
use crate::run::Run;
use crate::tool::{Observation, ToolError, panic_message};
use crate::trace::now_ms;

use super::driver::{Interrupted, millis};
use super::stream::Emitter;
use super::{Agent, RunControl};

/// A call after the hooks: to run, or already denied. Borrowed from the
/// round unless a hook edited it.
type Planned<'a> = (Cow<'a, ToolCall>, Option<ToolError>);

impl Agent {
    pub(super) async fn tool_round(
        &self,
        run: &mut Run,
        calls: Arc<[ToolCall]>,
        control: &RunControl,
        emitter: &Emitter<'_>,
    ) {
        let mut planned: Vec<Planned<'_>> = Vec::with_capacity(calls.len());
        for call in calls.iter() {
            match AssertUnwindSafe(self.apply_hooks(call))
                .catch_unwind()
                .await
            {
                Ok(Ok(entry)) => planned.push(entry),
                Ok(Err(reason)) => {
                    run.halt(reason, now_ms());
                    return;
                }
                Err(panic) => {
                    run.fail(
                        format!("a hook panicked: {}", panic_message(&*panic)),
                        now_ms(),
                    );
                    return;
                }
            }
        }
        let work = AssertUnwindSafe(self.execute(planned, emitter)).catch_unwind();
        let result = self.interruptible(run, control, work).await;
        let now = now_ms();
        match result {
            Interrupted::Finished(Ok(observations)) => {
                if let Err(error) = run.tool_results(observations, now) {
                    run.fail(format!("the run refused the tool results: {error}"), now);
                }
            }
            Interrupted::Finished(Err(panic)) => run.fail(
                format!("the toolbox panicked: {}", panic_message(&*panic)),
                now,
            ),
            Interrupted::Cancelled => run.cancel(now),
            Interrupted::TimedOut => run.time_out(now),
        }
    }

    /// Runs the hooks on one call, in the order added. `Err` carries the
    /// reason when a hook stops the run.
    async fn apply_hooks<'a>(&self, call: &'a ToolCall) -> Result<Planned<'a>, String> {
        let mut call = Cow::Borrowed(call);
        for hook in &self.hooks {
            match hook.before_tool_call(&call).await {
                HookAction::Approve => {}
                HookAction::Deny(reason) => return Ok((call, Some(ToolError::denied(reason)))),
                HookAction::Edit(arguments) => call.to_mut().arguments = arguments,
                HookAction::Stop(reason) => return Err(reason),
            }
        }
        Ok((call, None))
    }

    /// Runs a round: concurrent up to the limit, sequential tools alone,
    /// results in call order.
    async fn execute(&self, planned: Vec<Planned<'_>>, emitter: &Emitter<'_>) -> Vec<Observation> {
        let mut observations = Vec::with_capacity(planned.len());
        let mut batch: Vec<Planned<'_>> = Vec::new();
        for (call, denied) in planned {
            if denied.is_none() && self.toolbox.is_sequential(&call.name) {
                observations.extend(
                    self.execute_batch(std::mem::take(&mut batch), emitter)
                        .await,
                );
                observations.extend(self.execute_batch(vec![(call, None)], emitter).await);
            } else {
                batch.push((call, denied));
            }
        }
        observations.extend(self.execute_batch(batch, emitter).await);
        observations
    }

    async fn execute_batch(
        &self,
        batch: Vec<Planned<'_>>,
        emitter: &Emitter<'_>,
    ) -> Vec<Observation> {
        match batch.len() {
            0 => Vec::new(),
            1 => {
                let mut one = Vec::with_capacity(1);
                for (call, denied) in batch {
                    one.push(self.execute_one(call, denied, emitter).await);
                }
                one
            }
            n => {
                // At most `max_parallel` at once; results in call order.
                let mut waiting = batch.into_iter();
                let mut running = FuturesOrdered::new();
                for (call, denied) in waiting.by_ref().take(self.max_parallel.max(1)) {
                    running.push_back(self.execute_one(call, denied, emitter));
                }
                let mut observations = Vec::with_capacity(n);
                while let Some(observation) = running.next().await {
                    observations.push(observation);
                    if let Some((call, denied)) = waiting.next() {
                        running.push_back(self.execute_one(call, denied, emitter));
                    }
                }
                observations
            }
        }
    }

    async fn execute_one(
        &self,
        call: Cow<'_, ToolCall>,
        denied: Option<ToolError>,
        emitter: &Emitter<'_>,
    ) -> Observation {
        let call: &ToolCall = &call;
        emitter.emit(|| Event::ToolCallStarted { call: call.clone() });
        let started = emitter.active().then(Instant::now);
        let result = match denied {
            Some(err) => Err(err),
            None => self.toolbox.call(call).await,
        };
        if !emitter.active() {
            return match result {
                Ok(output) => Observation::ok(call, output),
                Err(err) => Observation::error(call, &err),
            };
        }
        let observation = Observation::from_result(call, &result);
        let duration_ms = started.map_or(0, |t| millis(t.elapsed()));
        emitter.emit(|| Event::ToolCallFinished {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            duration_ms,
            error: result.as_ref().err().map(ToolError::kind),
            detail: result.as_ref().err().map(ToolError::operator_detail),
        });
        emitter.emit(|| Event::Observation {
            observation: observation.clone(),
        });
        observation
    }
}
