//! Budgets: every limit a run checks, and the pluggable token estimator.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Estimates how many tokens a text costs, to check the per-request budget
/// before a request is sent.
pub trait TokenEstimator: Send + Sync {
    /// Estimated tokens for `text`.
    fn estimate(&self, text: &str) -> u64;
}

/// The default estimator: one token per 4 bytes of UTF-8, rounded up, plus
/// 4 tokens of overhead per message (added by the run).
///
/// Four bytes per token is the usual rule of thumb for English prose and
/// code with GPT- and Qwen-style tokenizers. Non-ASCII text takes more bytes
/// per character, so it is over- rather than under-estimated, the safe side
/// for a budget. It costs O(1): it reads the length only.
#[derive(Debug, Clone, Copy, Default)]
pub struct BytesPerToken;

impl TokenEstimator for BytesPerToken {
    fn estimate(&self, text: &str) -> u64 {
        (text.len() as u64).div_ceil(4)
    }
}

/// A shareable estimator; defaults to [`BytesPerToken`].
#[derive(Clone)]
pub struct Estimator(Arc<dyn TokenEstimator>);

impl Estimator {
    /// Shares `estimator`.
    pub fn new(estimator: impl TokenEstimator + 'static) -> Self {
        Self(Arc::new(estimator))
    }

    /// Estimated tokens for `text`.
    pub fn estimate(&self, text: &str) -> u64 {
        self.0.estimate(text)
    }
}

impl Default for Estimator {
    fn default() -> Self {
        Self(Arc::new(BytesPerToken))
    }
}

impl std::fmt::Debug for Estimator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Estimator")
    }
}

/// The longest wall clock a budget accepts (about a year).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(366 * 24 * 3600);

/// Keeps requests bounded: when the estimated request passes `max_tokens`,
/// the oldest middle turns are dropped (whole turns, never the system
/// prompt and the task) until it is under `keep_tokens`. Trimming in a
/// large chunk keeps requests append-only between trims, so servers that
/// cache prompt prefixes keep their cache. The transcript keeps everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryWindow {
    /// Trim when the request is estimated above this.
    pub max_tokens: u64,
    /// Trim down to at most this.
    pub keep_tokens: u64,
}

/// The limits of a run. Reaching any of them ends the run with a
/// [`StopReason`](crate::StopReason); the work done is always kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Budget {
    /// Model calls at most (default 10). With [`answer_turn`](Self::answer_turn)
    /// on, the last two are kept for the answer turn and its one retry
    /// (the last one alone when this is 2 or less).
    pub max_steps: u32,
    /// Tool calls executed at most (default 50). A round asking for more
    /// runs the calls that fit; the rest are answered "not run".
    pub max_tool_calls: u32,
    /// Total tokens (prompt + completion) over the run.
    pub max_total_tokens: Option<u64>,
    /// Estimated tokens of one request, checked before it is sent.
    pub max_request_tokens: Option<u64>,
    /// Wall clock for the whole run. (A model request's own time limit is
    /// the provider's; a tool call's is the tool gateway's.)
    #[serde(with = "duration_ms")]
    pub timeout: Option<Duration>,
    /// This many malformed turns in a row stop the run (default 3).
    pub max_consecutive_malformed: u32,
    /// The same tool with the same canonical arguments this many times
    /// stops the run with `LoopDetected` (default 3; with the answer turn
    /// on, the stop becomes a request for the answer). Repeats below the
    /// threshold run, and their observation tells the model it already has
    /// that result. The same successful result (same tool, same content)
    /// coming back this many times counts as a loop too, however the
    /// arguments differed: a small model that rewords one query keeps
    /// getting the answer it already has. 2 ends the work at the first
    /// repeat: measured on a 1.5B model, that helps native tool calling and
    /// hurts text ReAct on file tasks, where a repeated read is often
    /// followed by the right answer.
    pub loop_threshold: u32,
    /// A call that repeats, with the same canonical arguments, a call of
    /// the round just before that succeeded is not run: it gets the same
    /// result again, and the work ends (`RepeatedCall`, and the answer
    /// turn when it is on). The model already has that result in front of
    /// it, and small models that repeat it once repeat it again. A repeat
    /// further back runs, and when it comes right after a round that found
    /// something and gets the same result again, the model is going round
    /// in circles: the work ends the same way. Repeats of failed calls,
    /// and repeats after a failed round (a model recovering), count
    /// towards `loop_threshold` instead. Default on.
    pub answer_on_repeat: bool,
    /// A call to a tool that computes on the numbers it is given (the
    /// calculator; see `Tool::needs_grounded_numbers`) is sent back once
    /// when its arguments hold a number found nowhere in the system
    /// prompt, the task or the tool results: the observation names the
    /// numbers and says to look them up, or to make the same call again if
    /// they are right. Small models otherwise compute with made-up facts.
    /// Once per run, when the run has tools that find things and the
    /// round made no lookup that ran, the turn after such a call must
    /// call one of them (a grammar on the text transport, `tool_choice:
    /// "required"` on the native one, where a call to another tool on
    /// that turn is not run): told in words, a small model makes the same
    /// call again.
    /// A final answer with such a number is sent back once too; before any
    /// tool has given a result, every number of the answer must be in the
    /// system prompt or the task (small ones included). A computing call
    /// that puts the last computing result back into the computation that
    /// gave it (`a * b` gave `r`, then `a * b * r`, or `r + r + r + r`) is not
    /// run either: the observation says what the last call gave. Default
    /// on.
    pub ground_numbers: bool,
    /// When the question names something in code form (words joined by
    /// `_`: a column, a key, a function) and the model answers before any
    /// tool result has shown that name, the answer is sent back once: the
    /// observation names it and says to look for it, or to say that it is
    /// not there. Small models that find no such column answer from
    /// another one. A second answer stands; on the answer turn the answer
    /// is asked for once more (`Transport::answer_retry` gets the reason).
    /// Default on.
    pub ground_names: bool,
    /// When a thought of the model said the answer is worked out
    /// ("calculate the difference", "add them up", the computing tool's
    /// name), no computing tool has been called, and the model
    /// answers with a number (on any turn, the answer turn included), or,
    /// after some tool found something, a computing call ran whose
    /// arguments its tool refused (words for numbers), none has given a
    /// result, and the model answers anything (a refusal included), the
    /// answer is sent back once and the next turn must call a computing
    /// tool: the text transport sends a grammar without the final answer
    /// where the server takes one, the native one `tool_choice:
    /// "required"`. Small models plan a sum and then answer with one of
    /// the looked-up numbers; told so in words, they answer the same
    /// again. So too, once per such call, when a computing call was sent
    /// back for arithmetic worked out in the model's head and shown the
    /// call to make instead, and an answer sent back for a number no tool
    /// gave comes before any computing call has given a result: the
    /// message shows that call again. Needs a computing tool
    /// ([`RunConfig::grounded_tools`](crate::run::RunConfig)). Default on.
    pub compute_when_planned: bool,
    /// When the work stops on the step or tool-call budget, on a repeated
    /// call or on too many malformed replies in a row, one last answer
    /// turn (within the step budget, with no tools) asks the model to
    /// answer with what it has, so an answer already in
    /// the transcript is not lost. The outcome says it was forced. With
    /// `ground_numbers` and a computing tool, an answer that did a sum in
    /// its head (a number no tool gave, or a false `a + b = c`) gets one
    /// turn that may call the computing tools, then the answer turn again.
    /// Default on.
    pub answer_turn: bool,
    /// When the model answers right after a round in which every call
    /// failed, before any tool call of the run has given a result, the
    /// answer is sent back once as a malformed turn that asks for another
    /// call: small models otherwise reply "I cannot find it" to the first
    /// error. A second such answer stands. Default on.
    pub retry_after_failed_calls: bool,
    /// When a call that failed is made again the same way and fails again,
    /// the next request does not offer its tool (when the run has others):
    /// the model must call another one. A small model, asked at a low
    /// temperature, otherwise makes the same failing call until loop
    /// detection ends the work (a calculator given names for numbers it
    /// never looked up, a path that does not exist). The text transport
    /// keeps its prompt and drops the tool from its grammar; the native
    /// one lists the other tools (which costs that request and the next
    /// their prefix cache, on servers that render tools into the prompt).
    /// A call to the set-aside tool in that turn is not run. The same
    /// happens when `loop_threshold` calls of one tool in a row fail with
    /// the same kind of error, whatever their arguments: a model stepping
    /// `..`, `../..`, `../../..` out of the root makes no repeat, and a
    /// 1.5B model did so until its step limit. Default on.
    pub set_aside_failing_tool: bool,
    /// Optional history window for requests.
    pub history_window: Option<HistoryWindow>,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            max_steps: 10,
            max_tool_calls: 50,
            max_total_tokens: None,
            max_request_tokens: None,
            timeout: None,
            max_consecutive_malformed: 3,
            loop_threshold: 3,
            answer_on_repeat: true,
            ground_numbers: true,
            ground_names: true,
            compute_when_planned: true,
            answer_turn: true,
            retry_after_failed_calls: true,
            set_aside_failing_tool: true,
            history_window: None,
        }
    }
}

/// A budget that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BudgetError {
    /// A limit that must be positive is zero.
    #[error("budget field `{0}` must be greater than zero")]
    Zero(&'static str),
    /// A time limit too long to schedule.
    #[error("budget field `{0}` is too long (at most a year)")]
    TooLong(&'static str),
    /// The loop threshold must allow one repeat at least.
    #[error("budget field `loop_threshold` must be at least 2 (got {0})")]
    LoopThreshold(u32),
    /// The window must keep less than it allows.
    #[error("history window: keep_tokens ({keep}) must be below max_tokens ({max})")]
    Window {
        /// `keep_tokens`.
        keep: u64,
        /// `max_tokens`.
        max: u64,
    },
}

impl Budget {
    /// Checks that the budget can work. `max_tool_calls` may be zero (a run
    /// that may not use tools); the other limits may not.
    pub fn validate(&self) -> Result<(), BudgetError> {
        if self.max_steps == 0 {
            return Err(BudgetError::Zero("max_steps"));
        }
        if self.max_consecutive_malformed == 0 {
            return Err(BudgetError::Zero("max_consecutive_malformed"));
        }
        if self.max_total_tokens == Some(0) {
            return Err(BudgetError::Zero("max_total_tokens"));
        }
        if self.max_request_tokens == Some(0) {
            return Err(BudgetError::Zero("max_request_tokens"));
        }
        if self.timeout == Some(Duration::ZERO) {
            return Err(BudgetError::Zero("timeout"));
        }
        if self.timeout.is_some_and(|t| t > MAX_TIMEOUT) {
            return Err(BudgetError::TooLong("timeout"));
        }
        if self.loop_threshold < 2 {
            return Err(BudgetError::LoopThreshold(self.loop_threshold));
        }
        if let Some(w) = self.history_window
            && w.keep_tokens >= w.max_tokens
        {
            return Err(BudgetError::Window {
                keep: w.keep_tokens,
                max: w.max_tokens,
            });
        }
        Ok(())
    }
}

/// Serde for `Option<Duration>` as whole milliseconds.
pub(crate) mod duration_ms {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        value: &Option<Duration>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => s.serialize_some(&u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            None => s.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_budgets_are_typed_errors() {
        let zero_steps = Budget {
            max_steps: 0,
            ..Budget::default()
        };
        assert_eq!(zero_steps.validate(), Err(BudgetError::Zero("max_steps")));
        let zero_timeout = Budget {
            timeout: Some(Duration::ZERO),
            ..Budget::default()
        };
        assert_eq!(zero_timeout.validate(), Err(BudgetError::Zero("timeout")));
        let zero_tools = Budget {
            max_tool_calls: 0,
            ..Budget::default()
        };
        assert_eq!(zero_tools.validate(), Ok(()));
    }

    #[test]
    fn budget_round_trips_through_json_with_millisecond_durations() {
        let budget = Budget {
            timeout: Some(Duration::from_millis(1500)),
            ..Budget::default()
        };
        let json = serde_json::to_value(&budget).unwrap();
        assert_eq!(json["timeout"], 1500);
        let back: Budget = serde_json::from_value(json).unwrap();
        assert_eq!(back, budget);
    }
}
