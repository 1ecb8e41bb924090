//! Tool rounds: checking a model's calls (a name each, an id unique in
//! the run), deciding per call whether it runs, repeats an earlier call or
//! is skipped (tool-call budget, loop detection), and recording a round's
//! observations in call order.

use std::hash::BuildHasher;
use std::sync::Arc;

use foldhash::fast::FixedState;

use serde::{Deserialize, Serialize};

use crate::canonical::canonical_call_key;
use crate::message::{Message, ToolCall};
use crate::outcome::StopReason;
use crate::tool::{Observation, ToolErrorKind};
use crate::transport::Decision;

use super::{Phase, Run};

/// What happens to one call of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "plan", rename_all = "snake_case")]
pub(super) enum CallPlan {
    Run,
    /// Runs, and its observation notes it repeats an earlier call.
    Repeat,
    /// Not run; this text is its observation.
    Skip {
        reason: String,
    },
}

pub(super) fn skip(reason: &str) -> CallPlan {
    CallPlan::Skip {
        reason: reason.to_string(),
    }
}

impl Run {
    /// Rejects decisions no loop can act on, and gives every call an id no
    /// other call of the run has (servers that send none, or the same ones
    /// each turn, get fresh ones).
    pub(super) fn check_decision(&mut self, decision: &mut Decision, message: &mut Message) {
        let Decision::Act(calls) = decision else {
            return;
        };
        if calls.is_empty() {
            *decision =
                Decision::Malformed("the reply asked for an action but named no tool".into());
            return;
        }
        if calls.iter().any(|c| c.name.trim().is_empty()) {
            *decision = Decision::Malformed("a tool call had no tool name".into());
            return;
        }
        let steps = self.state.steps;
        // Unique here (just made by the transport), so no copy is made.
        for (i, call) in Arc::make_mut(calls).iter_mut().enumerate() {
            if call.id.trim().is_empty() || self.state.used_ids.contains(&call.id) {
                let mut n = i;
                let mut id = format!("call_{steps}_{n}");
                while self.state.used_ids.contains(&id) {
                    n += 1;
                    id = format!("call_{steps}_{n}");
                }
                call.id = id;
                if let Some(native) = message.tool_calls.get_mut(i) {
                    native.id = call.id.clone();
                }
            }
            self.state.used_ids.insert(call.id.clone());
        }
    }

    /// Decides, per call, whether it runs, repeats or is skipped.
    pub(super) fn plan_round(&mut self, calls: Arc<[ToolCall]>) {
        let state = &mut self.state;
        let mut budget_left = state.budget.max_tool_calls.saturating_sub(state.tool_calls);
        if budget_left == 0 {
            let plans = vec![skip("the tool-call budget is used up"); calls.len()];
            self.record_round(&calls, &plans, Vec::new());
            self.state.phase = Phase::Limit {
                reason: StopReason::MaxToolCalls,
            };
            return;
        }
        let mut plans = Vec::with_capacity(calls.len());
        let mut looped = false;
        for call in calls.iter() {
            let count = state
                .call_counts
                .entry(canonical_call_key(&call.name, &call.arguments))
                .or_insert(0);
            *count += 1;
            if *count >= state.budget.loop_threshold {
                looped = true;
                plans.push(skip(&format!(
                    "this exact call was already made {} times; use the results you have",
                    *count - 1
                )));
            } else if budget_left == 0 {
                plans.push(skip("the tool-call budget is used up"));
            } else {
                budget_left -= 1;
                plans.push(if *count > 1 {
                    CallPlan::Repeat
                } else {
                    CallPlan::Run
                });
            }
        }
        if looped {
            // No call of a looping round runs: answer them all and stop.
            let plans: Vec<CallPlan> = plans
                .into_iter()
                .map(|plan| match plan {
                    CallPlan::Skip { .. } => plan,
                    _ => skip("the run stopped: a repeated call was detected"),
                })
                .collect();
            self.record_round(&calls, &plans, Vec::new());
            self.state.phase = Phase::Limit {
                reason: StopReason::LoopDetected,
            };
            return;
        }
        self.state.phase = Phase::AwaitingTools { calls, plans };
    }

    /// Appends the observations of a round in call order: executed ones
    /// from `executed` (in order), skipped ones from their plan.
    pub(super) fn record_round(
        &mut self,
        calls: &[ToolCall],
        plans: &[CallPlan],
        executed: Vec<Observation>,
    ) {
        let mut executed = executed.into_iter();
        let mut round = Vec::with_capacity(calls.len());
        for (call, plan) in calls.iter().zip(plans) {
            match plan {
                CallPlan::Skip { reason } => round.push(Observation {
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    content: format!("Error ({}): {reason}", ToolErrorKind::Skipped.label()),
                    error: Some(ToolErrorKind::Skipped),
                }),
                CallPlan::Run | CallPlan::Repeat => {
                    let Some(mut observation) = executed.next() else {
                        continue;
                    };
                    let seen = self.count_result(&observation);
                    if *plan == CallPlan::Repeat {
                        observation.content.push_str(
                            "\n(Note: you already made this exact call and got this result. \
                             Do not call it again; if you have what you need, give the final answer.)",
                        );
                    } else if seen > 1 {
                        observation.content.push_str(
                            "\n(Note: an earlier call already gave this same result. \
                             If you have what you need, give the final answer.)",
                        );
                    }
                    round.push(observation);
                }
            }
        }
        if !round.is_empty() {
            let progress = &mut self.state.progress;
            progress.last_round_failed = round.iter().all(|o| o.error.is_some());
            progress.any_result |= round.iter().any(|o| o.error.is_none());
        }
        for message in self.transport.observations(&round) {
            self.push(message);
        }
    }

    /// Counts a successful result by its tool and content, and returns how
    /// often it has come back; at the loop threshold the work is stalled,
    /// however the calls' arguments differed.
    fn count_result(&mut self, observation: &Observation) -> u32 {
        if observation.error.is_some() {
            return 0;
        }
        let key = FixedState::with_seed(0).hash_one((&observation.tool, &observation.content));
        let threshold = self.state.budget.loop_threshold;
        let progress = &mut self.state.progress;
        let count = progress.result_counts.entry(key).or_insert(0);
        *count += 1;
        if *count >= threshold {
            progress.stalled = true;
        }
        *count
    }

    /// An answer given right after a round of failed calls, before any
    /// call of the run gave a result, is sent back once as malformed
    /// ([`Budget::retry_after_failed_calls`](crate::Budget)).
    pub(super) fn check_premature_answer(&mut self, decision: &mut Decision) {
        let progress = &mut self.state.progress;
        if matches!(decision, Decision::Final(_))
            && self.state.budget.retry_after_failed_calls
            && progress.last_round_failed
            && !progress.any_result
            && !progress.retry_asked
        {
            progress.retry_asked = true;
            *decision = Decision::Malformed(
                "that answer came right after a failed call, before any tool gave a result; \
                 read the error above and try another call first"
                    .into(),
            );
        }
    }
}
