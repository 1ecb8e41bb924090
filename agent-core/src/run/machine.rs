//! The transitions of a [`Run`]: issuing requests within the budgets,
//! taking a model turn, taking a round's observations, answer turns at a
//! limit, and stopping (cancelled, halted, timed out, failed).

use std::sync::Arc;

use crate::message::{Completion, Usage};
use crate::model::ModelError;
use crate::outcome::{Outcome, StopReason};
use crate::tool::{Observation, ToolErrorKind};
use crate::transport::{Decision, Turn};

use super::answer::AnswerCompute;
use super::plan::{CallPlan, skip};
use super::window::json_len;
use super::{Phase, PromptAnchor, Run, RunError, Step};

/// The steps at the end of a budget of `max_steps` kept for the answer
/// turn: the ask and its one retry (a reply that is still a call, or no
/// answer, is asked once more, as at every other stop), or the ask alone
/// when the budget is too small to leave the work a step before both.
fn answer_turn_steps(max_steps: u32) -> u32 {
    if max_steps > 2 { 2 } else { 1 }
}

impl Run {
    /// What to do next. Idempotent while a request or tool round is
    /// pending: it issues the same step again (so a resumed run continues).
    pub fn next_step(&mut self, now_ms: u64) -> Result<Step, RunError> {
        self.tick(now_ms);
        match &self.state.phase {
            Phase::Finished => Err(RunError::Finished),
            Phase::Done { .. } => Ok(Step::Done(self.take_outcome())),
            Phase::AwaitingModel {
                answer_turn,
                compute,
            } => {
                let (answer_only, compute) = (answer_turn.is_some(), *compute);
                Ok(Step::CallModel(self.build_request(answer_only, compute)))
            }
            Phase::AwaitingTools { calls, plans } => Ok(Step::CallTools(
                if plans.iter().all(CallPlan::runs_as_written) {
                    Arc::clone(calls)
                } else {
                    calls
                        .iter()
                        .zip(plans)
                        .filter_map(|(call, plan)| plan.to_run(call))
                        .collect()
                },
            )),
            Phase::Limit { reason } => {
                let reason = reason.clone();
                Ok(self.reach_limit(reason))
            }
            Phase::Ready => Ok(self.ready_step(now_ms)),
        }
    }

    fn ready_step(&mut self, now_ms: u64) -> Step {
        if let Some(0) = self.remaining_ms(now_ms) {
            return self.finish(StopReason::Timeout);
        }
        let state = &self.state;
        if state.steps >= state.budget.max_steps {
            return self.finish(StopReason::MaxSteps);
        }
        // With answer turns on, the last steps of the budget are kept for
        // the answer turn and its one retry.
        if state.budget.answer_turn
            && !state.answer_turn_used
            && state.steps + answer_turn_steps(state.budget.max_steps) >= state.budget.max_steps
        {
            return self.answer_turn(StopReason::MaxSteps);
        }
        self.issue_request(None, false)
    }

    /// Whether the request just built passes a token budget.
    pub(super) fn over_token_budget(&self) -> bool {
        let state = &self.state;
        let per_request = state
            .budget
            .max_request_tokens
            .is_some_and(|max| state.last_request_tokens > max);
        let total = state.budget.max_total_tokens.is_some_and(|max| {
            state
                .usage
                .total_tokens
                .saturating_add(state.last_request_tokens)
                > max
        });
        per_request || total
    }

    /// Issues a model request, unless a token budget forbids it.
    pub(super) fn issue_request(&mut self, answer_turn: Option<StopReason>, compute: bool) -> Step {
        let request = self.build_request(answer_turn.is_some(), compute);
        if self.over_token_budget() {
            return self.finish(StopReason::TokenBudget);
        }
        self.state.steps += 1;
        self.state.phase = Phase::AwaitingModel {
            answer_turn,
            compute,
        };
        Step::CallModel(request)
    }

    /// The pending request's prompt size when the server did not say: the
    /// server's own count for an earlier request plus estimates of the
    /// messages appended since (requests only append), or else the
    /// estimate of the whole request.
    fn estimated_prompt_tokens(&self) -> u64 {
        let state = &self.state;
        match state.prompt_anchor {
            Some(anchor)
                if anchor.window_start == state.window_start
                    && anchor.request_len <= state.request_len =>
            {
                let added: u64 = state.estimates[anchor.request_len..state.request_len]
                    .iter()
                    .sum();
                anchor.prompt_tokens.saturating_add(added)
            }
            _ => state.last_request_tokens,
        }
    }

    fn tick(&mut self, now_ms: u64) {
        self.state.last_ms = self.state.last_ms.max(now_ms);
    }

    /// Feeds the model's answer to the pending request. Returns the turn as
    /// the run understood it (after its checks: an action naming no tool is
    /// malformed, call ids are made unique).
    pub fn model_turn(&mut self, completion: Completion, now_ms: u64) -> Result<Turn, RunError> {
        self.tick(now_ms);
        let Phase::AwaitingModel {
            answer_turn,
            compute,
        } = &self.state.phase
        else {
            return Err(self.unexpected("a model turn"));
        };
        let (answer_turn, compute) = (answer_turn.clone(), *compute);
        let usage = match completion.usage {
            Some(usage) => {
                self.state.prompt_anchor = Some(PromptAnchor {
                    prompt_tokens: usage.prompt_tokens,
                    request_len: self.state.request_len,
                    window_start: self.state.window_start,
                });
                usage
            }
            None => {
                let mut generated = self.estimator.estimate(&completion.text)
                    + self.estimator.estimate(&completion.reasoning);
                for call in &completion.tool_calls {
                    generated += json_len(&call.arguments).div_ceil(4);
                }
                Usage::new(self.estimated_prompt_tokens(), generated).estimate()
            }
        };
        self.state.usage.add(usage);

        let transport = Arc::clone(&self.transport);
        let mut interpretation = transport.interpret(completion, &self.state.tools);
        self.hear_plan(interpretation.turn.thought.as_deref());
        self.check_decision(
            &mut interpretation.turn.decision,
            &mut interpretation.message,
        );
        self.check_echo(&mut interpretation.turn.decision);
        if answer_turn.is_none() {
            self.check_premature_answer(&mut interpretation.turn.decision);
            self.check_false_arithmetic(
                &mut interpretation.turn.decision,
                &interpretation.message.content,
            );
            self.check_planned_compute(&mut interpretation.turn.decision);
            self.check_ratio(&mut interpretation.turn.decision);
            self.check_ungrounded_answer(&mut interpretation.turn.decision);
            self.check_unseen_names(&mut interpretation.turn.decision);
        }
        // What the run keeps of the reply, and sends back from now on.
        if super::runaway::cut_runaways(&mut interpretation.message) {
            self.state.progress.cut_runaway = true;
        }
        let turn = interpretation.turn;
        if let Some(limit) = answer_turn {
            let text = interpretation.message.content.clone();
            self.push(interpretation.message);
            self.answer_turn_reply(&turn.decision, &text, limit, compute);
            return Ok(turn);
        }
        self.push(interpretation.message);

        match &turn.decision {
            Decision::Final(answer) => {
                self.state.consecutive_malformed = 0;
                self.state.answer = Some(answer.clone());
                self.stop(StopReason::FinalAnswer);
            }
            Decision::Malformed(reason) => {
                self.state.consecutive_malformed += 1;
                for message in transport.malformed(reason, &self.state.tools) {
                    self.push_loop(message);
                }
                if self.state.consecutive_malformed >= self.state.budget.max_consecutive_malformed {
                    self.state.phase = Phase::Limit {
                        reason: StopReason::TooManyMalformed,
                    };
                } else {
                    self.state.phase = Phase::Ready;
                }
            }
            Decision::Act(calls) => {
                self.state.consecutive_malformed = 0;
                self.plan_round(Arc::clone(calls));
            }
        }
        Ok(turn)
    }

    /// Feeds the observations of the pending round, one per call returned
    /// by [`Step::CallTools`], in that order.
    pub fn tool_results(
        &mut self,
        observations: Vec<Observation>,
        now_ms: u64,
    ) -> Result<(), RunError> {
        self.tick(now_ms);
        let Phase::AwaitingTools { calls, plans } = &self.state.phase else {
            return Err(self.unexpected("tool results"));
        };
        let runnable: Vec<&crate::message::ToolCall> = calls
            .iter()
            .zip(plans)
            .filter(|(_, plan)| plan.runs())
            .map(|(call, _)| call)
            .collect();
        let matches = runnable.len() == observations.len()
            && runnable
                .iter()
                .zip(&observations)
                .all(|(c, o)| c.id == o.call_id);
        if !matches {
            return Err(RunError::ObservationMismatch {
                expected: runnable.iter().map(|c| c.id.clone()).collect(),
                got: observations.iter().map(|o| o.call_id.clone()).collect(),
            });
        }
        let Phase::AwaitingTools { calls, plans } =
            std::mem::replace(&mut self.state.phase, Phase::Ready)
        else {
            return Err(self.unexpected("tool results"));
        };
        let executed = observations
            .iter()
            .filter(|o| o.error != Some(ToolErrorKind::Denied))
            .count();
        self.state.tool_calls += u32::try_from(executed).unwrap_or(u32::MAX);
        self.record_round(&calls, &plans, observations);
        let repeated = std::mem::take(&mut self.state.progress.repeated);
        if let AnswerCompute::Offered { limit, .. } = &self.state.answer_compute {
            // The compute round of an answer turn: the answer comes next.
            self.state.phase = Phase::Limit {
                reason: limit.clone(),
            };
        } else if self.state.progress.stalled {
            self.state.phase = Phase::Limit {
                reason: StopReason::LoopDetected,
            };
        } else if repeated {
            self.state.phase = Phase::Limit {
                reason: StopReason::RepeatedCall,
            };
        }
        Ok(())
    }

    /// The model call failed: the run stops with `Model(error)`.
    pub fn model_error(&mut self, error: ModelError, now_ms: u64) -> Result<(), RunError> {
        self.tick(now_ms);
        if !matches!(self.state.phase, Phase::AwaitingModel { .. }) {
            return Err(self.unexpected("a model error"));
        }
        self.stop(StopReason::Model(error));
        Ok(())
    }

    /// Cancels the run. Pending tool calls are answered "not run".
    pub fn cancel(&mut self, now_ms: u64) {
        self.interrupt(StopReason::Cancelled, "the run was cancelled", now_ms);
    }

    /// Stops the run for a hook, with its reason.
    pub fn halt(&mut self, reason: impl Into<String>, now_ms: u64) {
        let reason = reason.into();
        let text = format!("the run was stopped: {reason}");
        self.interrupt(StopReason::Halted(reason), &text, now_ms);
    }

    /// The wall clock ran out while the caller was waiting (for the model or tools).
    pub fn time_out(&mut self, now_ms: u64) {
        self.interrupt(StopReason::Timeout, "the run ran out of time", now_ms);
    }

    /// The loop itself failed (a component panicked, or the caller could
    /// not go on): the run stops with `Internal(detail)`, its transcript
    /// whole.
    pub fn fail(&mut self, detail: impl Into<String>, now_ms: u64) {
        self.interrupt(
            StopReason::Internal(detail.into()),
            "the run stopped on an internal error",
            now_ms,
        );
    }

    fn interrupt(&mut self, reason: StopReason, text: &str, now_ms: u64) {
        self.tick(now_ms);
        if self.is_done() {
            return;
        }
        if let Phase::AwaitingTools { calls, .. } =
            std::mem::replace(&mut self.state.phase, Phase::Ready)
        {
            let plans = vec![skip(text); calls.len()];
            // The transport renders the answers; a panic there must not
            // lose the stop.
            let recorded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.record_round(&calls, &plans, Vec::new());
            }));
            if recorded.is_err() {
                tracing::error!("the transport panicked while recording skipped calls");
            }
        }
        self.stop(reason);
    }

    /// Ends the run; the outcome is handed out by the next `next_step`.
    pub(super) fn stop(&mut self, reason: StopReason) {
        self.state.phase = Phase::Done { reason };
    }

    /// Ends the run and hands out the outcome now.
    pub(super) fn finish(&mut self, reason: StopReason) -> Step {
        self.stop(reason);
        Step::Done(self.take_outcome())
    }

    /// The outcome whatever the phase: a run still going stops with an
    /// internal error first. For a driver that cannot go on.
    pub(crate) fn into_outcome(mut self) -> Outcome {
        if !self.is_done() {
            let now = self.state.last_ms;
            self.fail("the run was abandoned before it ended", now);
        }
        self.take_outcome()
    }

    fn take_outcome(&mut self) -> Outcome {
        let answer = self.state.answer.take();
        let ungrounded_numbers = answer
            .as_deref()
            .map(|answer| self.ungrounded_in_answer(answer))
            .unwrap_or_default();
        let state = &mut self.state;
        let reason = match std::mem::replace(&mut state.phase, Phase::Finished) {
            Phase::Done { reason } => reason,
            _ => StopReason::Internal("the outcome was taken before the run ended".into()),
        };
        let transcript = std::mem::take(&mut state.transcript);
        let transcript = Arc::try_unwrap(transcript).unwrap_or_else(|shared| (*shared).clone());
        Outcome {
            forced_answer: answer.is_some() && reason != StopReason::FinalAnswer,
            ungrounded_numbers,
            answer,
            stop_reason: reason,
            transcript,
            usage: state.usage,
            steps: state.steps,
            tool_calls: state.tool_calls,
            elapsed_ms: state.last_ms.saturating_sub(state.started_ms),
        }
    }
}
