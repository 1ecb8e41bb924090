//! Typed tools: a `Deserialize + JsonSchema` arguments struct and an async
//! fn become a [`Tool`]; the schema, doc comments included, comes from
//! `schemars`, so ordinary tools need no hand-written JSON Schema.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use agent_core::{Tool, ToolError, ToolOutput};
use async_trait::async_trait;
use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::Value;

type Handler<A> = Arc<dyn Fn(A) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync>;

/// The compact JSON Schema of `T`: subschemas inlined, no `$schema` or
/// `title`, doc comments as descriptions.
pub fn schema_for<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Some(map) = schema.as_object_mut() {
        map.remove("title");
        map.remove("$schema");
    }
    schema
}

/// A tool made of an arguments type `A` and an async handler.
pub struct TypedTool<A> {
    name: String,
    description: String,
    parameters: Value,
    sequential: bool,
    handler: Handler<A>,
    _args: PhantomData<fn(A)>,
}

impl<A> TypedTool<A> {
    /// Marks the tool sequential: its calls never overlap others in a round.
    pub fn sequential(mut self) -> Self {
        self.sequential = true;
        self
    }
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
    TypedTool {
        name: name.into(),
        description: description.into(),
        parameters: schema_for::<A>(),
        sequential: false,
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

    async fn call(&self, args: Value) -> Result<ToolOutput, ToolError> {
        let args: A = serde_json::from_value(args)
            .map_err(|e| ToolError::invalid_args(e.to_string()).with_source(e))?;
        (self.handler)(args).await
    }
}
