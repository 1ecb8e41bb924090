//! The tool gateway: [`ToolRegistry`] holds tools, optionally in named
//! groups; a [`ToolSet`] is the allowlisted view a run may call. Every call
//! goes through the same checks: name lookup, argument binding and
//! JSON-Schema validation (with a validator compiled once per tool), a
//! timeout, a caught panic, and an output cap. Model-visible errors are
//! short and leak no internals; the full cause stays in the error's source
//! for the operator.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use agent_core::tool::{ToolErrorKind, panic_message};
use agent_core::{Tool, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox, resolve_tool_name};
use async_trait::async_trait;
use futures::FutureExt;
use serde_json::{Map, Value};

use crate::named_args::read_named_arguments;
use crate::validate::{ArgsValidator, describe_type};

/// Default time a tool call may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default cap on an observation's length, in characters.
pub const DEFAULT_MAX_OBSERVATION_CHARS: usize = 8_000;

/// A registry that cannot take a tool, or an allowlist naming an unknown tool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolSetError {
    /// Two tools share a name.
    #[error("a tool named `{0}` is already registered")]
    Duplicate(String),
    /// The tool's name is empty or has characters models cannot call.
    #[error("invalid tool name `{0}`: use letters, digits, `_` and `-`")]
    InvalidName(String),
    /// The tool's parameters are not a valid JSON Schema.
    #[error("tool `{tool}` has an invalid parameter schema: {message}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong.
        message: String,
    },
    /// The allowlist names a tool that is not registered.
    #[error("unknown tool `{0}` in the allowlist (registered: {1})")]
    UnknownInAllowlist(String, String),
    /// A setting names a tool that is not registered.
    #[error("unknown tool `{0}` (registered: {1})")]
    UnknownTool(String, String),
    /// A group name is empty or has characters an allowlist cannot name.
    #[error("invalid tool group name `{0}`: use letters, digits, `_` and `-`")]
    InvalidGroup(String),
    /// The allowlist names a group (`group.*`) no tool belongs to.
    #[error("unknown tool group `{0}.*` in the allowlist (groups: {1})")]
    UnknownGroup(String, String),
}

/// `true` if `name` is 1 to 64 letters, digits, `_` or `-`: what models can
/// call and what an allowlist can name.
pub(crate) fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

struct Entry {
    tool: Arc<dyn Tool>,
    spec: ToolSpec,
    validator: ArgsValidator,
    timeout: Option<Duration>,
    group: Option<Arc<str>>,
}

/// All tools an application knows, with their compiled validators.
#[derive(Default, Clone)]
pub struct ToolRegistry {
    entries: Vec<Arc<Entry>>,
    index: foldhash::HashMap<String, usize>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a tool: checks its name and compiles its schema once.
    pub fn register(&mut self, tool: impl Tool + 'static) -> Result<&mut Self, ToolSetError> {
        self.register_arc(Arc::new(tool))
    }

    /// Registers a shared tool.
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> Result<&mut Self, ToolSetError> {
        self.insert(tool, None)
    }

    /// Registers a shared tool as a member of `group`: the allowlist entry
    /// `group.*` then allows it along with the rest of the group.
    pub fn register_in_group(
        &mut self,
        group: &str,
        tool: Arc<dyn Tool>,
    ) -> Result<&mut Self, ToolSetError> {
        if !is_valid_name(group) {
            return Err(ToolSetError::InvalidGroup(group.to_string()));
        }
        self.insert(tool, Some(Arc::from(group)))
    }

    fn insert(
        &mut self,
        tool: Arc<dyn Tool>,
        group: Option<Arc<str>>,
    ) -> Result<&mut Self, ToolSetError> {
        let spec = tool.spec();
        if !is_valid_name(&spec.name) {
            return Err(ToolSetError::InvalidName(spec.name));
        }
        if self.index.contains_key(&spec.name) {
            return Err(ToolSetError::Duplicate(spec.name));
        }
        let validator = ArgsValidator::compile(&spec.parameters).map_err(|message| {
            ToolSetError::InvalidSchema {
                tool: spec.name.clone(),
                message,
            }
        })?;
        self.index.insert(spec.name.clone(), self.entries.len());
        self.entries.push(Arc::new(Entry {
            tool,
            spec,
            validator,
            timeout: None,
            group,
        }));
        Ok(self)
    }

    /// Registers a tool, builder style.
    pub fn with(mut self, tool: impl Tool + 'static) -> Result<Self, ToolSetError> {
        self.register(tool)?;
        Ok(self)
    }

    /// Sets a per-tool timeout (overrides the tool set's default).
    pub fn set_timeout(
        &mut self,
        name: &str,
        timeout: Duration,
    ) -> Result<&mut Self, ToolSetError> {
        let i = *self
            .index
            .get(name)
            .ok_or_else(|| ToolSetError::UnknownTool(name.into(), self.names().join(", ")))?;
        let old = &self.entries[i];
        self.entries[i] = Arc::new(Entry {
            tool: Arc::clone(&old.tool),
            spec: old.spec.clone(),
            validator: old.validator.clone(),
            timeout: Some(timeout),
            group: old.group.clone(),
        });
        Ok(self)
    }

    /// Names of all registered tools, in registration order.
    pub fn names(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.spec.name.clone()).collect()
    }

    /// The group `name` was registered in, if any.
    pub fn group_of(&self, name: &str) -> Option<&str> {
        let i = *self.index.get(name)?;
        self.entries[i].group.as_deref()
    }

    /// Names of the groups, in order of first registration.
    pub fn groups(&self) -> Vec<&str> {
        let mut groups: Vec<&str> = Vec::new();
        for group in self.entries.iter().filter_map(|e| e.group.as_deref()) {
            if !groups.contains(&group) {
                groups.push(group);
            }
        }
        groups
    }

    /// A tool set allowing exactly what `entries` name (deny by default).
    /// An entry is a tool name, or `group.*` for every tool of a group.
    pub fn allow<I, S>(&self, entries: I) -> Result<ToolSet, ToolSetError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut allowed = vec![false; self.entries.len()];
        for entry in entries {
            let entry = entry.as_ref();
            if let Some(group) = entry.strip_suffix(".*") {
                let mut found = false;
                for (i, e) in self.entries.iter().enumerate() {
                    if e.group.as_deref() == Some(group) {
                        allowed[i] = true;
                        found = true;
                    }
                }
                if !found {
                    return Err(ToolSetError::UnknownGroup(
                        group.to_string(),
                        self.groups().join(", "),
                    ));
                }
                continue;
            }
            let i = self.index.get(entry).ok_or_else(|| {
                ToolSetError::UnknownInAllowlist(entry.to_string(), self.names().join(", "))
            })?;
            allowed[*i] = true;
        }
        Ok(self.toolset(&allowed))
    }

    /// A tool set allowing every registered tool.
    pub fn allow_all(&self) -> ToolSet {
        self.toolset(&vec![true; self.entries.len()])
    }

    fn toolset(&self, allowed: &[bool]) -> ToolSet {
        let entries: Vec<Arc<Entry>> = self
            .entries
            .iter()
            .zip(allowed)
            .filter(|(_, ok)| **ok)
            .map(|(e, _)| Arc::clone(e))
            .collect();
        let index = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.spec.name.clone(), i))
            .collect();
        ToolSet {
            entries: Arc::from(entries),
            index: Arc::new(index),
            default_timeout: DEFAULT_TIMEOUT,
            max_observation_chars: DEFAULT_MAX_OBSERVATION_CHARS,
        }
    }
}

/// The tools a run may call, behind the gateway's checks. Implements
/// [`Toolbox`]. Cheap to clone.
///
/// ```
/// use agent_tools::{ToolRegistry, builtin};
/// use agent_core::{ToolCall, Toolbox};
/// use serde_json::json;
///
/// let mut registry = ToolRegistry::new();
/// registry.register(builtin::Calculator::new()).unwrap();
/// let tools = registry.allow(["calculator"]).unwrap();
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// # rt.block_on(async {
/// let call = ToolCall::new("1", "calculator", json!({"expression": "(17 * 83) + (12 ** 3)"}));
/// assert_eq!(tools.call(&call).await.unwrap().content, "3139");
/// // A bare string binds to the one required string parameter.
/// let call = ToolCall::new("2", "calculator", json!("2 ** 10"));
/// assert_eq!(tools.call(&call).await.unwrap().content, "1024");
/// # });
/// ```
#[derive(Clone)]
pub struct ToolSet {
    entries: Arc<[Arc<Entry>]>,
    index: Arc<foldhash::HashMap<String, usize>>,
    default_timeout: Duration,
    max_observation_chars: usize,
}

impl std::fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSet")
            .field("tools", &self.names())
            .field("default_timeout", &self.default_timeout)
            .field("max_observation_chars", &self.max_observation_chars)
            .finish()
    }
}

impl ToolSet {
    /// Sets the timeout for tools without their own (default 30 s).
    pub fn with_default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// Caps observations at `chars` characters (default 8000); longer
    /// output is cut with a marker saying how much was left out.
    pub fn with_max_observation_chars(mut self, chars: usize) -> Self {
        self.max_observation_chars = chars.max(1);
        self
    }

    /// Names of the allowed tools.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.spec.name.as_str()).collect()
    }

    /// `true` if no tool is allowed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn lookup(&self, name: &str) -> Option<&Entry> {
        if let Some(&i) = self.index.get(name) {
            return Some(&self.entries[i]);
        }
        let meant = resolve_tool_name(name, self.entries.iter().map(|e| e.spec.name.as_str()))?;
        self.index.get(meant).map(|&i| &*self.entries[i])
    }

    fn unknown(&self, name: &str) -> ToolError {
        let names = self.names();
        let shown: String = name.chars().take(64).collect();
        let message = if names.is_empty() {
            format!("there is no tool named `{shown}`, and no tools are available")
        } else {
            format!(
                "there is no tool named `{shown}`. Available tools: {}",
                names.join(", ")
            )
        };
        ToolError::new(ToolErrorKind::NotFound, message)
    }

    /// Cuts `text` to the cap, with a visible marker.
    fn cap(&self, mut text: String) -> String {
        let max = self.max_observation_chars;
        if text.len() <= max {
            return text;
        }
        let Some((cut, _)) = text.char_indices().nth(max) else {
            return text;
        };
        let dropped = text[cut..].chars().count();
        text.truncate(cut);
        text.push_str(&format!(
            "\n[... output truncated: {dropped} more characters not shown]"
        ));
        text
    }
}

/// Turns the model's arguments into the object the schema validates.
fn bind_arguments(entry: &Entry, arguments: &Value) -> Result<Value, ToolError> {
    match arguments {
        Value::Object(_) => Ok(arguments.clone()),
        Value::Null => Ok(Value::Object(Map::new())),
        Value::String(raw) => {
            let trimmed = raw.trim();
            let named = || read_named_arguments(trimmed, &entry.validator.named_fields());
            if trimmed.starts_with('{') || trimmed.starts_with('[') {
                return match serde_json::from_str::<Value>(trimmed) {
                    Ok(value @ Value::Object(_)) => Ok(value),
                    Ok(_) => Err(expects_object(entry)),
                    Err(err) => match named() {
                        Some(map) => Ok(Value::Object(map)),
                        None => Err(ToolError::invalid_args(format!(
                            "the arguments are not valid JSON ({}). Send a JSON object{}",
                            json_error_position(&err),
                            fields_hint(entry)
                        ))),
                    },
                };
            }
            if let Some(map) = named() {
                return Ok(Value::Object(map));
            }
            match entry.validator.single_string_param() {
                Some(param) => {
                    let mut map = Map::new();
                    map.insert(param.to_string(), Value::String(trimmed.to_string()));
                    Ok(Value::Object(map))
                }
                None => Err(expects_object(entry)),
            }
        }
        Value::Number(_) | Value::Bool(_) if entry.validator.single_string_param().is_some() => {
            let param = entry.validator.single_string_param().unwrap_or_default();
            let mut map = Map::new();
            map.insert(param.to_string(), Value::String(arguments.to_string()));
            Ok(Value::Object(map))
        }
        other => match entry.validator.single_param() {
            Some(param) => {
                let mut map = Map::new();
                map.insert(param.to_string(), other.clone());
                Ok(Value::Object(map))
            }
            None => Err(ToolError::invalid_args(format!(
                "expected a JSON object of arguments, got {}{}",
                describe_type(other),
                fields_hint(entry)
            ))),
        },
    }
}

fn expects_object(entry: &Entry) -> ToolError {
    ToolError::invalid_args(format!(
        "this tool takes a JSON object of arguments{}",
        fields_hint(entry)
    ))
}

fn fields_hint(entry: &Entry) -> String {
    let fields = entry.validator.field_summary();
    if fields.is_empty() {
        String::new()
    } else {
        format!(" with fields {fields}")
    }
}

fn json_error_position(err: &serde_json::Error) -> String {
    format!("line {}, column {}", err.line(), err.column())
}

#[async_trait]
impl Toolbox for ToolSet {
    fn specs(&self) -> Vec<ToolSpec> {
        self.entries.iter().map(|e| e.spec.clone()).collect()
    }

    fn is_sequential(&self, name: &str) -> bool {
        self.lookup(name).is_some_and(|e| e.tool.sequential())
    }

    fn needs_grounded_numbers(&self, name: &str) -> bool {
        self.lookup(name)
            .is_some_and(|e| e.tool.needs_grounded_numbers())
    }

    /// The allowed tools' contexts, each once, in the tools' order. A tool
    /// whose context panics adds nothing (the panic is logged).
    fn context(&self) -> Option<String> {
        let mut parts: Vec<String> = Vec::new();
        for entry in self.entries.iter() {
            let context = match catch_unwind(AssertUnwindSafe(|| entry.tool.context())) {
                Ok(context) => context,
                Err(panic) => {
                    tracing::warn!(tool = %entry.spec.name, "{} in its context", panic_message(&*panic));
                    None
                }
            };
            if let Some(context) = context
                && !context.trim().is_empty()
                && !parts.contains(&context)
            {
                parts.push(context);
            }
        }
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }

    async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
        let entry = self
            .lookup(&call.name)
            .ok_or_else(|| self.unknown(&call.name))?;
        let mut arguments = bind_arguments(entry, &call.arguments)?;
        entry.validator.drop_optional_nulls(&mut arguments);
        entry.validator.rename_lone_stranger(&mut arguments);
        entry.validator.coerce_scalars(&mut arguments);
        entry.validator.check(&arguments)?;
        let timeout = entry.timeout.unwrap_or(self.default_timeout);
        let mut work = std::pin::pin!(AssertUnwindSafe(entry.tool.call(arguments)).catch_unwind());
        // A tool that finishes on its first poll needs no timer.
        let finished = match futures::poll!(work.as_mut()) {
            std::task::Poll::Ready(result) => Ok(result),
            std::task::Poll::Pending => tokio::time::timeout(timeout, work).await,
        };
        let output = match finished {
            Err(_) => {
                return Err(ToolError::new(
                    ToolErrorKind::Timeout,
                    format!(
                        "`{}` did not finish within {} ms; try a smaller request",
                        entry.spec.name,
                        timeout.as_millis()
                    ),
                ));
            }
            Ok(Err(panic)) => {
                return Err(ToolError::new(
                    ToolErrorKind::Panicked,
                    format!(
                        "`{}` crashed on these arguments; try different arguments",
                        entry.spec.name
                    ),
                )
                .with_source(panic_message(&*panic)));
            }
            Ok(Ok(result)) => result?,
        };
        let content = self.cap(output.content);
        Ok(ToolOutput { content, ..output })
    }
}
