//! Typed tools: a `Deserialize + JsonSchema` arguments struct and an async
//! fn become a [`Tool`]; the schema, doc comments included, comes from
//! `schemars`, so ordinary tools need no hand-written JSON Schema. Typed
//! tools are strict by default: unknown argument keys are refused, by the
//! schema the gateway validates and by the tool itself when called
//! directly. [`TypedTool::allow_unknown_fields`] opts out.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use agent_core::{Tool, ToolError, ToolOutput};
use async_trait::async_trait;
use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::schema::{lenient_schema_for, schema_for};

type Handler<A> = Arc<dyn Fn(A) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync>;
type ContextFn = Arc<dyn Fn() -> Option<String> + Send + Sync>;

/// A tool made of an arguments type `A` and an async handler.
pub struct TypedTool<A> {
    name: String,
    description: String,
    parameters: Value,
    /// The keys the arguments may have, when unknown keys are refused.
    known_fields: Option<Vec<String>>,
    sequential: bool,
    grounded_numbers: bool,
    context: Option<ContextFn>,
    handler: Handler<A>,
    _args: PhantomData<fn(A)>,
}

impl<A> std::fmt::Debug for TypedTool<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedTool")
            .field("name", &self.name)
            .field("strict", &self.known_fields.is_some())
            .field("sequential", &self.sequential)
            .field("grounded_numbers", &self.grounded_numbers)
            .field("context", &self.context.is_some())
            .finish_non_exhaustive()
    }
}

impl<A: JsonSchema> TypedTool<A> {
    /// Marks the tool sequential: its calls never overlap others in a round.
    pub fn sequential(mut self) -> Self {
        self.sequential = true;
        self
    }

    /// Marks the tool as computing on the numbers it is given: a call whose
    /// numbers appear nowhere in the conversation is sent back once
    /// (`Budget::ground_numbers`).
    pub fn grounded_numbers(mut self) -> Self {
        self.grounded_numbers = true;
        self
    }

    /// Gives the tool a context ([`Tool::context`]): `context` runs when
    /// each run starts, and what it returns is written after the task.
    pub fn with_context(
        mut self,
        context: impl Fn() -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.context = Some(Arc::new(context));
        self
    }

    /// Accepts argument keys the arguments type does not declare (they are
    /// ignored) instead of refusing them. Off by default.
    pub fn allow_unknown_fields(mut self) -> Self {
        self.parameters = lenient_schema_for::<A>();
        self.known_fields = None;
        self
    }
}

/// The property names of an object schema.
fn property_names(schema: &Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Makes a tool from an arguments struct and an async function.
///
/// ```
/// use agent_core::{Tool, ToolError};
/// use agent_tools::typed_tool;
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// /// Arguments of `add`.
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs {
///     /// The first number.
///     a: i64,
///     /// The second number.
///     b: i64,
/// }
///
/// let add = typed_tool("add", "Add two integers.", |args: AddArgs| async move {
///     args.a.checked_add(args.b).map(|s| s.to_string()).ok_or_else(|| ToolError::failed("overflow"))
/// });
/// assert_eq!(add.parameters()["properties"]["a"]["description"], "The first number.");
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let out = add.call(serde_json::json!({"a": 2, "b": 3})).await.unwrap();
/// assert_eq!(out.content, "5");
/// # });
/// ```
pub fn typed_tool<A, F, Fut, O>(
    name: impl Into<String>,
    description: impl Into<String>,
    handler: F,
) -> TypedTool<A>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    O: Into<ToolOutput>,
{
    let handler: Handler<A> =
        Arc::new(move |args: A| handler(args).map(|r| r.map(Into::into)).boxed());
    let parameters = schema_for::<A>();
    TypedTool {
        name: name.into(),
        description: description.into(),
        known_fields: Some(property_names(&parameters)),
        parameters,
        sequential: false,
        grounded_numbers: false,
        context: None,
        handler,
        _args: PhantomData,
    }
}

#[async_trait]
impl<A> Tool for TypedTool<A>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn sequential(&self) -> bool {
        self.sequential
    }

    fn needs_grounded_numbers(&self) -> bool {
        self.grounded_numbers
    }

    fn context(&self) -> Option<String> {
        self.context.as_ref().and_then(|context| context())
    }

    async fn call(&self, args: Value) -> Result<ToolOutput, ToolError> {
        if let (Some(known), Value::Object(map)) = (&self.known_fields, &args)
            && let Some(unknown) = map.keys().find(|k| !known.contains(k))
        {
            return Err(ToolError::invalid_args(format!(
                "unexpected field `{}` (allowed: {})",
                unknown.chars().take(40).collect::<String>(),
                known.join(", ")
            )));
        }
        let args: A = serde_json::from_value(args)
            .map_err(|e| ToolError::invalid_args(e.to_string()).with_source(e))?;
        (self.handler)(args).await
    }
}
