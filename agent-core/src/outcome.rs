//! How a run ends: the [`StopReason`] and the [`Outcome`], which always
//! keeps the transcript and the usage, whatever the reason.

use serde::{Deserialize, Serialize};

use crate::message::{Message, Role, Usage};
use crate::model::ModelError;

/// Why a run stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum StopReason {
    /// The model gave a final answer.
    FinalAnswer,
    /// The step budget ran out.
    MaxSteps,
    /// The tool-call budget ran out.
    MaxToolCalls,
    /// A token budget (total, or one request before sending) ran out.
    TokenBudget,
    /// The wall-clock budget ran out.
    Timeout,
    /// The model repeated the same call too often.
    LoopDetected,
    /// The model repeated the call whose result it had just received
    /// (`Budget::answer_on_repeat`): it had what it needed, and the answer
    /// was asked for on the answer turn. The normal end of a run in which
    /// every turn must be a call.
    RepeatedCall,
    /// Too many malformed turns in a row (then the answer turn, when it
    /// is on).
    TooManyMalformed,
    /// The model call failed.
    Model(ModelError),
    /// The caller cancelled the run.
    Cancelled,
    /// A hook stopped the run, with its reason.
    Halted(String),
    /// The loop itself failed: a component (model, transport, toolbox,
    /// hook) panicked, or the state machine refused an input. The detail
    /// says which; the transcript is whole.
    Internal(String),
}

impl StopReason {
    /// A short snake_case label (`final_answer`, `max_steps`…).
    pub fn label(&self) -> &'static str {
        match self {
            Self::FinalAnswer => "final_answer",
            Self::MaxSteps => "max_steps",
            Self::MaxToolCalls => "max_tool_calls",
            Self::TokenBudget => "token_budget",
            Self::Timeout => "timeout",
            Self::LoopDetected => "loop_detected",
            Self::RepeatedCall => "repeated_call",
            Self::TooManyMalformed => "too_many_malformed",
            Self::Model(_) => "model_error",
            Self::Cancelled => "cancelled",
            Self::Halted(_) => "halted",
            Self::Internal(_) => "internal_error",
        }
    }

    /// `true` for the limits of a [`Budget`](crate::Budget).
    pub fn is_budget(&self) -> bool {
        matches!(
            self,
            Self::MaxSteps
                | Self::MaxToolCalls
                | Self::TokenBudget
                | Self::Timeout
                | Self::LoopDetected
                | Self::TooManyMalformed
        )
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Model(err) => write!(f, "model_error: {err}"),
            Self::Halted(reason) => write!(f, "halted: {reason}"),
            Self::Internal(detail) => write!(f, "internal_error: {detail}"),
            other => f.write_str(other.label()),
        }
    }
}

/// The result of a run. Every outcome carries the full transcript, the
/// usage and the counts, and the answer when there is one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The final answer, when the model gave one.
    pub answer: Option<String>,
    /// `true` when the answer came on a forced answer turn: a limit or a
    /// repeated call ended the work (`stop_reason` says which) and the
    /// model was then asked for its answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forced_answer: bool,
    /// The numbers of the answer, as it wrote them, that nothing the model
    /// was given holds: not the task, the system prompt nor any tool
    /// result ([`Budget::ground_numbers`](crate::Budget), which compares
    /// numbers by their significant digits and scale). Empty when every
    /// number of the answer is found there, and when the run does not
    /// ground numbers (the budget's switch is off, or it has no tools). A
    /// number listed here was made up or computed in the model's head:
    /// treat such an answer with care.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ungrounded_numbers: Vec<String>,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// Every message of the run, including trimmed history.
    pub transcript: Vec<Message>,
    /// Tokens used by all model calls.
    pub usage: Usage,
    /// Model calls made.
    pub steps: u32,
    /// Tool calls executed.
    pub tool_calls: u32,
    /// Wall-clock time of the run, in milliseconds (as passed in).
    pub elapsed_ms: u64,
}

impl Outcome {
    /// `true` if the run ended with a final answer.
    pub fn is_success(&self) -> bool {
        self.stop_reason == StopReason::FinalAnswer
    }

    /// The conversation so far without the system prompt: what a follow-up
    /// run continues from (see [`Task::follow_up`](crate::Task::follow_up)).
    pub fn conversation(&self) -> &[Message] {
        let system = self
            .transcript
            .iter()
            .take_while(|m| m.role == Role::System)
            .count();
        &self.transcript[system..]
    }
}

/// The answer (marked when it came on a forced turn), or the stop reason
/// when there is none.
impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.answer {
            Some(answer) if self.forced_answer => {
                write!(f, "{answer} (answered after {})", self.stop_reason)
            }
            Some(answer) => f.write_str(answer),
            None => write!(f, "no answer ({})", self.stop_reason),
        }
    }
}
