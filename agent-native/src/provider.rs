//! [`OpenAiCompatible`]: a [`Complete`] for any OpenAI-compatible chat
//! endpoint (OpenAI, llama.cpp's `llama-server`, Ollama, vLLM), built on
//! async-openai's client with JSON in and out (so servers that are not
//! fully compliant are read tolerantly), our retry layer underneath,
//! request timeouts, and typed [`ModelError`]s.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agent_core::model::{CompletionStream, StreamDelta};
use agent_core::{Complete, Completion, CompletionRequest, Message, ModelError};
use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::Value;

use crate::constrain::{self, Constrain, Dialect, Support};
use crate::retry::{RetryAfterSlot, RetryPolicy, RetryService};
use crate::wire::{chunk_deltas, parse_response, request_body};

/// The base URL used when none is configured.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The time limit of one model request (each attempt), by default.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// A provider configuration that cannot work.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// No model name.
    #[error("no model is configured: set AGENT_MODEL or pass a model name")]
    MissingModel,
    /// The base URL is not a valid http(s) URL.
    #[error("invalid base URL `{url}`: {reason}")]
    InvalidBaseUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The API key cannot be sent in an HTTP header.
    #[error("invalid API key: {0}")]
    InvalidApiKey(&'static str),
    /// A time limit that cannot work (zero, or too long to schedule).
    #[error("invalid {what}: {reason}")]
    InvalidTimeout {
        /// Which limit.
        what: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client")]
    Client(#[source] reqwest::Error),
}

/// The longest time limit accepted (about a year).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(366 * 24 * 3600);

fn check_timeout(what: &'static str, timeout: Duration) -> Result<(), ProviderError> {
    if timeout.is_zero() {
        Err(ProviderError::InvalidTimeout {
            what,
            reason: "it must be greater than zero",
        })
    } else if timeout > MAX_TIMEOUT {
        Err(ProviderError::InvalidTimeout {
            what,
            reason: "it must be at most a year",
        })
    } else {
        Ok(())
    }
}

/// Checks that `url` is an absolute http(s) URL with a valid host and port.
fn check_base_url(url: &str) -> Result<(), ProviderError> {
    let invalid = |reason: String| ProviderError::InvalidBaseUrl {
        url: url.to_string(),
        reason,
    };
    let parsed = reqwest::Url::parse(url).map_err(|e| invalid(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid("it must start with http:// or https://".into()));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(invalid("it has no host".into()));
    }
    Ok(())
}

/// Checks that `key` can be sent as a bearer token: printable ASCII, no
/// line breaks or other control characters.
fn check_api_key(key: &str) -> Result<(), ProviderError> {
    if key.chars().any(|c| c == '\r' || c == '\n') {
        return Err(ProviderError::InvalidApiKey("it contains a line break"));
    }
    if key.chars().any(|c| c.is_control() || !c.is_ascii()) {
        return Err(ProviderError::InvalidApiKey(
            "it contains a control or non-ASCII character",
        ));
    }
    Ok(())
}

/// Settings of an [`OpenAiCompatible`] provider.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    /// e.g. `http://127.0.0.1:8088/v1` (default: OpenAI's).
    pub base_url: String,
    /// Bearer key; local servers need none.
    pub api_key: Option<String>,
    /// The model name sent with each request.
    pub model: String,
    /// Time limit for one request (each attempt), and the idle limit between stream chunks.
    pub request_timeout: Duration,
    /// Time limit for connecting.
    pub connect_timeout: Duration,
    /// Retries of 429, 5xx and transport failures.
    pub retry: RetryPolicy,
    /// Whether requests that carry a grammar are sent with it.
    pub constrain: Constrain,
}

impl ProviderConfig {
    /// A configuration for `model` at `base_url`, with defaults for the rest.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            constrain: Constrain::Auto,
            connect_timeout: Duration::from_secs(10),
            retry: RetryPolicy::default(),
        }
    }

    /// From the conventional environment: `OPENAI_BASE_URL` (default
    /// OpenAI's), `OPENAI_API_KEY` (optional) and `AGENT_MODEL` (required).
    pub fn from_env() -> Result<Self, ProviderError> {
        let model = std::env::var("AGENT_MODEL")
            .ok()
            .filter(|m| !m.trim().is_empty());
        let mut config = Self::new(
            std::env::var("OPENAI_BASE_URL").unwrap_or_else(|_| DEFAULT_BASE_URL.to_string()),
            model.ok_or(ProviderError::MissingModel)?,
        );
        config.api_key = std::env::var("OPENAI_API_KEY")
            .ok()
            .filter(|k| !k.is_empty());
        Ok(config)
    }

    /// Sets the API key.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Sets the request timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets whether grammars are sent (default [`Constrain::Auto`]).
    pub fn with_constrain(mut self, constrain: Constrain) -> Self {
        self.constrain = constrain;
        self
    }

    /// Sets the retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The JSON body a provider with this configuration sends for
    /// `request`, without sending it: the messages, tool specs, stop
    /// sequences and options exactly as they go on the wire. The request's
    /// grammar is in the dialect already learned for this server, or
    /// before anything was learned in llama.cpp's `grammar` field (the
    /// first dialect a probe tries); none with [`Constrain::Off`].
    pub fn request_body(&self, request: &CompletionRequest, stream: bool) -> Value {
        let dialect = match self.constrain {
            Constrain::Off => None,
            Constrain::Auto | Constrain::On => {
                match constrain::known(&self.base_url, &self.model) {
                    Some(Support::Honours(dialect)) => Some(dialect),
                    Some(Support::Ignores) if self.constrain == Constrain::Auto => None,
                    _ => Some(Dialect::LlamaCpp),
                }
            }
        };
        request_body(&self.model, request, stream, dialect)
    }
}

/// A chat model behind an OpenAI-compatible HTTP API.
///
/// ```no_run
/// use agent_core::{Complete, CompletionRequest, Message};
/// use agent_native::{OpenAiCompatible, ProviderConfig};
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let model = OpenAiCompatible::new(ProviderConfig::new("http://127.0.0.1:8088/v1", "qwen2.5-coder-1.5b-instruct"))?;
/// let reply = model.complete(&CompletionRequest::new(vec![Message::user("Say hi")])).await?;
/// println!("{}", reply.text);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiCompatible {
    http: reqwest::Client,
    openai: OpenAIConfig,
    config: ProviderConfig,
    /// The notice of a server that ignores grammars was given.
    noticed: Arc<AtomicBool>,
}

impl OpenAiCompatible {
    /// A provider for `config`.
    pub fn new(config: ProviderConfig) -> Result<Self, ProviderError> {
        if config.model.trim().is_empty() {
            return Err(ProviderError::MissingModel);
        }
        let base = config.base_url.trim().trim_end_matches('/').to_string();
        check_base_url(&base)?;
        if let Some(key) = &config.api_key {
            check_api_key(key)?;
        }
        check_timeout("request timeout", config.request_timeout)?;
        check_timeout("connect timeout", config.connect_timeout)?;
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .read_timeout(config.request_timeout)
            .build()
            .map_err(ProviderError::Client)?;
        let openai = OpenAIConfig::new()
            .with_api_base(base)
            .with_api_key(config.api_key.clone().unwrap_or_default());
        Ok(Self {
            http,
            openai,
            config,
            noticed: Arc::new(AtomicBool::new(false)),
        })
    }

    /// A client for one call, whose retries leave an exhausted 429's
    /// `Retry-After` in `slot`. (Building one is a few reference counts.)
    fn client(&self, slot: &RetryAfterSlot) -> Client<OpenAIConfig> {
        Client::with_config(self.openai.clone()).with_http_service(RetryService::new(
            self.http.clone(),
            self.config.retry,
            Arc::clone(slot),
        ))
    }

    /// The configuration.
    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn timeout_error(&self) -> ModelError {
        ModelError::Timeout {
            after_ms: u64::try_from(self.config.request_timeout.as_millis()).unwrap_or(u64::MAX),
        }
    }

    fn map_error(&self, error: OpenAIError, slot: &RetryAfterSlot) -> ModelError {
        let retry_after = slot.lock().ok().and_then(|mut s| s.take());
        map_openai_error(error, self.timeout_error(), retry_after)
    }
}

/// Maps async-openai's errors to typed model errors.
fn map_openai_error(
    error: OpenAIError,
    timeout: ModelError,
    retry_after: Option<Duration>,
) -> ModelError {
    match error {
        OpenAIError::ApiError(api) => {
            let status = api.status_code.as_u16();
            let message = api.api_error.message.clone();
            match status {
                429 => ModelError::RateLimited {
                    retry_after_ms: retry_after
                        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                    message,
                },
                401 | 403 => ModelError::Auth { message },
                408 => timeout,
                500..=599 => ModelError::Server { status, message },
                _ => ModelError::Rejected { status, message },
            }
        }
        OpenAIError::Reqwest(e) if e.is_timeout() => timeout,
        // The server answered, but its body broke off (closed mid-body):
        // what arrived is not a response, and the server was reached.
        OpenAIError::Reqwest(e) if e.is_body() || e.is_decode() => ModelError::bad_response(
            format!("the response broke off before its end: {}", error_chain(&e)),
            String::new(),
        ),
        OpenAIError::Reqwest(e) if e.is_connect() => ModelError::Connection {
            message: error_chain(&e),
        },
        OpenAIError::Reqwest(e) => ModelError::Connection {
            message: error_chain(&e),
        },
        OpenAIError::JSONDeserialize(e, raw) => {
            ModelError::bad_response(format!("the response is not valid JSON ({e})"), raw)
        }
        OpenAIError::StreamError(e) => {
            ModelError::bad_response(format!("the stream broke: {e}"), String::new())
        }
        other => ModelError::bad_response(other.to_string(), String::new()),
    }
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut out = error.to_string();
    let mut next = error.source();
    while let Some(e) = next {
        out.push_str(": ");
        out.push_str(&e.to_string());
        next = e.source();
    }
    out
}

/// How one request goes out: the grammar dialect (if any) and notices.
struct Plan {
    dialect: Option<Dialect>,
    notices: Vec<String>,
}

impl OpenAiCompatible {
    /// Whether to send `request`'s constraint, and in which dialect.
    async fn plan(&self, request: &CompletionRequest) -> Plan {
        let mut plan = Plan {
            dialect: None,
            notices: Vec::new(),
        };
        if request.constraint.is_none() || self.config.constrain == Constrain::Off {
            return plan;
        }
        let support = match constrain::known(&self.config.base_url, &self.config.model) {
            Some(support) => Some(support),
            None => self.probe().await,
        };
        plan.dialect = match (support, self.config.constrain) {
            (Some(Support::Honours(dialect)), _) => Some(dialect),
            (_, Constrain::On) => Some(Dialect::LlamaCpp),
            (Some(Support::Ignores), _) => {
                if !self.noticed.swap(true, Ordering::Relaxed) {
                    plan.notices
                        .push(constrain::ignored_notice(&self.config.base_url));
                }
                None
            }
            (None, _) => None,
        };
        plan
    }

    /// Probes the server once: does it honour a grammar, in which dialect?
    /// `None` when it could not tell (the server did not answer); nothing
    /// is remembered then.
    async fn probe(&self) -> Option<Support> {
        let probe = CompletionRequest {
            max_tokens: Some(8),
            temperature: Some(0.0),
            constraint: Some(Arc::new(constrain::probe_constraint())),
            ..CompletionRequest::new(vec![Message::user("Reply with one word.")])
        };
        for dialect in Dialect::ALL {
            match self.send(&probe, Some(dialect)).await {
                Ok(reply) if constrain::probe_honoured(&reply.text, dialect) => {
                    tracing::info!(dialect = ?dialect, "the model server honours grammars");
                    let support = Support::Honours(dialect);
                    constrain::remember(&self.config.base_url, &self.config.model, support.clone());
                    return Some(support);
                }
                Ok(_) | Err(ModelError::Rejected { .. }) => {}
                Err(error) => {
                    tracing::info!(error = %error, "could not probe the model server for grammars");
                    return None;
                }
            }
        }
        tracing::info!("the model server refuses or ignores grammars");
        constrain::remember(&self.config.base_url, &self.config.model, Support::Ignores);
        Some(Support::Ignores)
    }

    /// Sends a whole (non-streamed) request.
    async fn send(
        &self,
        request: &CompletionRequest,
        dialect: Option<Dialect>,
    ) -> Result<Completion, ModelError> {
        let body = request_body(&self.config.model, request, false, dialect);
        let slot = RetryAfterSlot::default();
        let client = self.client(&slot);
        let chat = client.chat();
        let call = chat.create_byot::<Value, Value>(body);
        let deadline = self
            .config
            .request_timeout
            .saturating_mul(self.config.retry.max_retries + 1)
            + self
                .config
                .retry
                .max_delay
                .saturating_mul(self.config.retry.max_retries);
        let response = tokio::time::timeout(deadline, call)
            .await
            .map_err(|_| self.timeout_error())?
            .map_err(|e| self.map_error(e, &slot))?;
        parse_response(&response)
    }

    /// Opens a streamed request.
    async fn open_stream(
        &self,
        request: &CompletionRequest,
        dialect: Option<Dialect>,
    ) -> Result<CompletionStream, ModelError> {
        let body = request_body(&self.config.model, request, true, dialect);
        let slot = RetryAfterSlot::default();
        let stream = self
            .client(&slot)
            .chat()
            .create_stream_byot::<Value, Value>(body)
            .await
            .map_err(|e| self.map_error(e, &slot))?;
        let timeout = self.timeout_error();
        let idle = self.config.request_timeout;
        // A stream that ends before any finish reason was cut: an error, so
        // a truncated answer is never taken for a whole one.
        let chunks = futures::stream::unfold(Some((stream, false)), move |state| {
            let timeout = timeout.clone();
            async move {
                let (mut stream, finished) = state?;
                match tokio::time::timeout(idle, stream.next()).await {
                    Err(_) => Some((vec![Err(timeout)], None)),
                    Ok(None) if finished => None,
                    Ok(None) => Some((
                        vec![Err(ModelError::bad_response(
                            "the stream ended before the model finished its turn",
                            String::new(),
                        ))],
                        None,
                    )),
                    Ok(Some(Ok(chunk))) => {
                        let deltas = chunk_deltas(&chunk);
                        let finished = finished
                            || deltas
                                .iter()
                                .any(|d| matches!(d, StreamDelta::Finish { .. }));
                        Some((
                            deltas.into_iter().map(Ok).collect(),
                            Some((stream, finished)),
                        ))
                    }
                    Ok(Some(Err(e))) => Some((vec![Err(map_openai_error(e, timeout, None))], None)),
                }
            }
        })
        .flat_map(futures::stream::iter);
        Ok(Box::pin(chunks))
    }

    /// A server that refused this request's grammar (HTTP 400) in `Auto`
    /// mode: remembered, and the request goes again unconstrained.
    fn refused(&self, plan: &mut Plan, error: &ModelError) -> bool {
        let refused = matches!(error, ModelError::Rejected { status: 400, .. })
            && self.config.constrain == Constrain::Auto;
        if let (true, Some(dialect)) = (refused, plan.dialect) {
            tracing::info!(error = %error, "the model server refused a grammar");
            constrain::remember(&self.config.base_url, &self.config.model, Support::Ignores);
            plan.notices.push(constrain::refused_notice(dialect));
            plan.dialect = None;
            return true;
        }
        false
    }
}

#[async_trait]
impl Complete for OpenAiCompatible {
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, ModelError> {
        let mut plan = self.plan(request).await;
        let mut result = self.send(request, plan.dialect).await;
        if let Err(error) = &result
            && self.refused(&mut plan, error)
        {
            result = self.send(request, None).await;
        }
        let mut completion = result?;
        completion.constrained = plan.dialect.is_some();
        completion.notices = plan.notices;
        Ok(completion)
    }

    async fn stream(&self, request: &CompletionRequest) -> Result<CompletionStream, ModelError> {
        let mut plan = self.plan(request).await;
        let mut result = self.open_stream(request, plan.dialect).await;
        if let Err(error) = &result
            && self.refused(&mut plan, error)
        {
            result = self.open_stream(request, None).await;
        }
        let stream = result?;
        let mut first: Vec<Result<StreamDelta, ModelError>> = plan
            .notices
            .into_iter()
            .map(|message| Ok(StreamDelta::Notice { message }))
            .collect();
        if plan.dialect.is_some() {
            first.push(Ok(StreamDelta::Constrained));
        }
        Ok(Box::pin(futures::stream::iter(first).chain(stream)))
    }
}
