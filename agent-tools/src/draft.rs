//! `.tool(…)` on the agent builder: tools added one by one go into a
//! registry and reach the agent as a [`ToolSet`](crate::ToolSet) that
//! allows them all, so they get the same gateway as any other tool.

use std::any::Any;
use std::sync::Arc;

use agent_core::agent::{AgentBuilder, ToolboxDraft};
use agent_core::{Tool, Toolbox};

use crate::gateway::{ToolRegistry, ToolSetError};

/// The registry behind `.tool(…)`; errors wait for `build()`.
#[derive(Debug, Default)]
pub struct ToolDraft {
    registry: ToolRegistry,
    errors: Vec<ToolSetError>,
}

impl ToolDraft {
    /// Registers a tool, keeping any error for the build.
    pub fn add(&mut self, tool: Arc<dyn Tool>) {
        if let Err(err) = self.registry.register_arc(tool) {
            self.errors.push(err);
        }
    }
}

impl ToolboxDraft for ToolDraft {
    fn finish(self: Box<Self>) -> Result<Arc<dyn Toolbox>, String> {
        if !self.errors.is_empty() {
            let errors: Vec<String> = self.errors.iter().map(ToString::to_string).collect();
            return Err(errors.join("; "));
        }
        Ok(Arc::new(self.registry.allow_all()))
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Adds tools one by one to an [`AgentBuilder`], through the gateway.
///
/// ```
/// use agent_core::Agent;
/// use agent_core::testing::{ScriptedModel, TestTransport};
/// use agent_tools::AgentBuilderExt;
/// use agent_tools::builtin::{Calculator, Search};
///
/// let agent = Agent::builder()
///     .model(ScriptedModel::new().text("4"))
///     .transport(TestTransport)
///     .tool(Calculator::new())
///     .tool(Search::new())
///     .build()
///     .unwrap();
/// assert_eq!(agent.tools().len(), 2);
/// ```
pub trait AgentBuilderExt {
    /// Adds a tool. Name clashes and invalid schemas are errors at `build()`.
    fn tool(self, tool: impl Tool + 'static) -> Self;
    /// Adds shared tools (the file tools, an MCP server's tools).
    fn tools(self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self;
}

impl AgentBuilderExt for AgentBuilder {
    fn tool(self, tool: impl Tool + 'static) -> Self {
        self.with_toolbox_draft(|draft: &mut ToolDraft| draft.add(Arc::new(tool)))
    }

    fn tools(self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        self.with_toolbox_draft(|draft: &mut ToolDraft| {
            for tool in tools {
                draft.add(tool);
            }
        })
    }
}
