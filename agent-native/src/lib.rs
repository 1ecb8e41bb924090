//! # agent-native
//!
//! The crate that talks to real models over HTTP.
//!
//! - [`OpenAiCompatible`]: a [`agent_core::Complete`] for any
//!   OpenAI-compatible endpoint (OpenAI, llama.cpp's `llama-server`,
//!   Ollama, vLLM), built on async-openai. It retries 429 and 5xx with
//!   backoff and jitter, honours `Retry-After`, has request timeouts,
//!   streams, and reads non-compliant servers tolerantly. Both transports
//!   use it (the text transport sends no `tools=`).
//! - [`NativeTransport`]: native function calling with `tools=`.
//! - With the `testing` feature: [`testing::CannedServer`].

mod content_calls;
mod provider;
mod retry;
mod sse;
mod transport;
mod wire;

#[cfg(feature = "testing")]
pub mod testing;

pub use content_calls::calls_in_content;
pub use provider::{
    DEFAULT_BASE_URL, DEFAULT_REQUEST_TIMEOUT, MAX_TIMEOUT, OpenAiCompatible, ProviderConfig,
    ProviderError,
};
pub use retry::{RetryPolicy, RetryService, parse_retry_after};
pub use transport::{DEFAULT_SYSTEM_PROMPT, NativeTransport};
pub use wire::{chunk_deltas, parse_response, request_body};
