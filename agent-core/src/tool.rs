//! The tool side of the loop: the [`Tool`] and [`Toolbox`] traits, typed
//! [`ToolError`]s and the [`Observation`] a tool call becomes.

use std::fmt;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::{ToolCall, ToolSpec};

/// What a tool returns on success.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// The text the model reads.
    pub content: String,
    /// The tool ran and found nothing (a lookup without a match). The run
    /// treats it like a failed call when it asks for the answer: it tells
    /// the model that its calls found nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_results: bool,
    /// The lookup's own search matched nothing, and `content` shows what
    /// may hold the answer in its place (short files with similar names
    /// shown whole after a `grep` or a file search missed). It found
    /// something; but the same call made again finds no more, and the
    /// run sets its tool aside for a turn rather than ask for the answer
    /// ([`Budget::set_aside_failing_tool`](crate::Budget)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missed: bool,
}

impl ToolOutput {
    /// An output with this text.
    pub fn new(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            no_results: false,
            missed: false,
        }
    }

    /// The output of a lookup that ran and found nothing; `content` says
    /// so to the model.
    pub fn no_results(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            no_results: true,
            missed: false,
        }
    }

    /// The output of a lookup whose own search matched nothing, showing
    /// what may hold the answer in its place (see
    /// [`missed`](Self::missed)).
    pub fn missed(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            no_results: false,
            missed: true,
        }
    }
}

impl From<String> for ToolOutput {
    fn from(content: String) -> Self {
        Self::new(content)
    }
}

impl From<&str> for ToolOutput {
    fn from(content: &str) -> Self {
        Self::new(content)
    }
}

/// The kind of a tool failure. Each has a fixed, model-safe label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolErrorKind {
    /// The arguments did not fit the tool's schema or meaning.
    InvalidArgs,
    /// No tool of that name is available.
    NotFound,
    /// A policy (allowlist, hook, root confinement) refused the call.
    Denied,
    /// The tool took too long.
    Timeout,
    /// The tool ran and failed.
    Failed,
    /// The tool panicked; the panic was caught.
    Panicked,
    /// The call was not run (budget exhausted, run halted or cancelled).
    Skipped,
}

impl ToolErrorKind {
    /// The label shown to the model.
    pub fn label(self) -> &'static str {
        match self {
            Self::InvalidArgs => "invalid arguments",
            Self::NotFound => "unknown tool",
            Self::Denied => "denied",
            Self::Timeout => "timed out",
            Self::Failed => "tool failed",
            Self::Panicked => "tool crashed",
            Self::Skipped => "not run",
        }
    }
}

impl fmt::Display for ToolErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

type Source = Box<dyn std::error::Error + Send + Sync>;

/// A failed tool call.
///
/// `message` is what the model sees: short, actionable, and free of
/// internals. `source` is for the operator (events and traces) only.
#[derive(Debug, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
    #[source]
    source: Option<Source>,
}

impl ToolError {
    /// An error of `kind` with a model-visible `message`.
    pub fn new(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// Invalid arguments.
    pub fn invalid_args(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::InvalidArgs, message)
    }

    /// The tool ran and failed.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Failed, message)
    }

    /// A policy refused the call.
    pub fn denied(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Denied, message)
    }

    /// Attaches the operator-visible cause. It never reaches the model.
    pub fn with_source(mut self, source: impl Into<Source>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// The kind.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// The model-visible message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The text the model reads: `Error (kind): message`.
    pub fn model_text(&self) -> String {
        format!("Error ({}): {}", self.kind.label(), self.message)
    }

    /// The operator-visible detail: the message and the whole source chain.
    pub fn operator_detail(&self) -> String {
        let mut out = self.to_string();
        let mut next = self.source.as_deref().map(|e| e as &dyn std::error::Error);
        while let Some(err) = next {
            out.push_str(": ");
            out.push_str(&err.to_string());
            next = err.source();
        }
        out
    }
}

/// A tool the model can call.
///
/// Most users build tools with `agent-tools` (typed arguments, schema from
/// `schemars`); implementing this trait by hand is for full control.
///
/// ```
/// use agent_core::{Tool, ToolError, ToolOutput};
/// use serde_json::{json, Value};
///
/// struct Clock;
///
/// #[async_trait::async_trait]
/// impl Tool for Clock {
///     fn name(&self) -> &str { "clock" }
///     fn description(&self) -> &str { "Current time in UTC." }
///     fn parameters(&self) -> Value { json!({"type": "object", "properties": {}}) }
///     async fn call(&self, _args: Value) -> Result<ToolOutput, ToolError> {
///         Ok(ToolOutput::new("12:00"))
///     }
/// }
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// assert_eq!(Clock.call(json!({})).await.unwrap().content, "12:00");
/// # });
/// ```
#[async_trait]
pub trait Tool: Send + Sync {
    /// Unique name the model calls it by.
    fn name(&self) -> &str;
    /// What it does and when to use it.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments object.
    fn parameters(&self) -> Value;
    /// `true` if calls must not overlap with any other call of the round
    /// (the call becomes a barrier).
    fn sequential(&self) -> bool {
        false
    }
    /// `true` if the tool computes on the numbers it is given (a
    /// calculator): the numbers in a call must then come from the
    /// conversation, or the call is sent back once
    /// ([`Budget::ground_numbers`](crate::Budget)).
    fn needs_grounded_numbers(&self) -> bool {
        false
    }
    /// Runs the tool.
    async fn call(&self, args: Value) -> Result<ToolOutput, ToolError>;

    /// What the model should know before its first step, such as the files
    /// a working directory holds. Read when each run starts and written
    /// after the task in the run's opening message; `None` (the default)
    /// adds nothing.
    fn context(&self) -> Option<String> {
        None
    }

    /// The spec the model sees.
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: self.description().to_string(),
            parameters: self.parameters(),
        }
    }
}

/// The set of tools a run may use: their specs and the dispatch of one call.
///
/// `agent-tools`' `ToolSet` is the standard implementation (allowlist,
/// schema validation, timeouts, caught panics, capped output).
#[async_trait]
pub trait Toolbox: Send + Sync {
    /// The specs offered to the model, in a stable order.
    fn specs(&self) -> Vec<ToolSpec>;
    /// `true` if calls to `name` must run alone (a barrier in the round).
    fn is_sequential(&self, _name: &str) -> bool {
        false
    }
    /// `true` if the numbers in calls to `name` must come from the
    /// conversation (see [`Tool::needs_grounded_numbers`]).
    fn needs_grounded_numbers(&self, _name: &str) -> bool {
        false
    }
    /// Runs one call.
    async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError>;
    /// What the model should know before its first step (see
    /// [`Tool::context`]), read when each run starts; `None` adds nothing.
    fn context(&self) -> Option<String> {
        None
    }
}

#[async_trait]
impl<T: Toolbox + ?Sized> Toolbox for std::sync::Arc<T> {
    fn specs(&self) -> Vec<ToolSpec> {
        (**self).specs()
    }
    fn is_sequential(&self, name: &str) -> bool {
        (**self).is_sequential(name)
    }
    fn needs_grounded_numbers(&self, name: &str) -> bool {
        (**self).needs_grounded_numbers(name)
    }
    async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
        (**self).call(call).await
    }
    fn context(&self) -> Option<String> {
        (**self).context()
    }
}

/// The text of a caught panic's payload, for the operator.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        format!("panic: {s}")
    } else if let Some(s) = panic.downcast_ref::<String>() {
        format!("panic: {s}")
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// The result of one tool call as the run records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The id of the call it answers.
    pub call_id: String,
    /// The tool that was called.
    pub tool: String,
    /// What the model reads.
    pub content: String,
    /// The error kind, when the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolErrorKind>,
    /// The call succeeded and found nothing ([`ToolOutput::no_results`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_results: bool,
    /// The call's own search matched nothing and it shows what may hold
    /// the answer instead ([`ToolOutput::missed`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missed: bool,
}

impl Observation {
    /// A successful observation.
    pub fn ok(call: &ToolCall, output: ToolOutput) -> Self {
        Self {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            content: output.content,
            error: None,
            no_results: output.no_results,
            missed: output.missed,
        }
    }

    /// A failed observation with the error's model-visible text.
    pub fn error(call: &ToolCall, err: &ToolError) -> Self {
        Self {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            content: err.model_text(),
            error: Some(err.kind()),
            no_results: false,
            missed: false,
        }
    }

    /// From a tool result.
    pub fn from_result(call: &ToolCall, result: &Result<ToolOutput, ToolError>) -> Self {
        match result {
            Ok(output) => Self::ok(call, output.clone()),
            Err(err) => Self::error(call, err),
        }
    }

    /// `true` if the call failed.
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }

    /// `true` if the call succeeded and found something.
    pub fn found_something(&self) -> bool {
        self.error.is_none() && !self.no_results
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_text_hides_the_source_and_operator_detail_keeps_it() {
        let io = std::io::Error::other("/secret/path/config.toml: permission denied");
        let err = ToolError::failed("could not read the file").with_source(io);
        assert_eq!(
            err.model_text(),
            "Error (tool failed): could not read the file"
        );
        assert!(!err.model_text().contains("/secret"));
        assert!(err.operator_detail().contains("/secret/path/config.toml"));
    }
}
