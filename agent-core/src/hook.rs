//! Hooks: code that sees each tool call before it runs and may approve,
//! deny, edit or stop.

use async_trait::async_trait;
use serde_json::Value;

use crate::message::ToolCall;

/// What a hook decides for one tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum HookAction {
    /// Run the call as it is.
    Approve,
    /// Do not run it; the reason becomes the model's observation.
    Deny(String),
    /// Run it with these arguments instead.
    Edit(Value),
    /// Stop the whole run with `Halted(reason)`.
    Stop(String),
}

/// Called before every tool call, in call order, before the round runs.
///
/// ```
/// use agent_core::{Hook, HookAction, ToolCall};
///
/// struct NoDeletes;
///
/// #[async_trait::async_trait]
/// impl Hook for NoDeletes {
///     async fn before_tool_call(&self, call: &ToolCall) -> HookAction {
///         if call.name == "delete" {
///             HookAction::Deny("deleting is not allowed".into())
///         } else {
///             HookAction::Approve
///         }
///     }
/// }
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let call = ToolCall::new("1", "delete", serde_json::json!({}));
/// assert!(matches!(NoDeletes.before_tool_call(&call).await, HookAction::Deny(_)));
/// # });
/// ```
#[async_trait]
pub trait Hook: Send + Sync {
    /// Decides what happens to `call`.
    async fn before_tool_call(&self, call: &ToolCall) -> HookAction;
}

#[async_trait]
impl<T: Hook + ?Sized> Hook for std::sync::Arc<T> {
    async fn before_tool_call(&self, call: &ToolCall) -> HookAction {
        (**self).before_tool_call(call).await
    }
}

/// A hook made from a synchronous closure.
pub struct FnHook<F>(pub F);

impl<F> std::fmt::Debug for FnHook<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FnHook")
    }
}

#[async_trait]
impl<F> Hook for FnHook<F>
where
    F: Fn(&ToolCall) -> HookAction + Send + Sync,
{
    async fn before_tool_call(&self, call: &ToolCall) -> HookAction {
        (self.0)(call)
    }
}
