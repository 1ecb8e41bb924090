//! # agent-native
//!
//! The crate that talks to real models over HTTP.
//!
//! - [`OpenAiCompatible`]: a [`agent_core::Complete`] for any
//!   OpenAI-compatible endpoint (OpenAI, llama.cpp's `llama-server`,
//!   Ollama, vLLM), built on async-openai. It retries 429 and 5xx with
//!   backoff and jitter, honours `Retry-After`, has request timeouts,
//!   streams, and reads non-compliant servers tolerantly. Both transports
//!   use it (the text transport sends no `tools=`). It also retries
//!   transport failures (refused, reset, closed early).
//! - [`NativeTransport`]: native function calling with `tools=`.
//! - With the `testing` feature: `testing::CannedServer`.

mod answer_tool;
mod constrain;
mod content_calls;
mod provider;
mod retry;
mod sse;
mod transport;
mod wire;
mod words;

#[cfg(feature = "testing")]
pub mod testing;

pub use answer_tool::ANSWER_TOOL;
pub use constrain::Constrain;
pub use provider::{
    DEFAULT_BASE_URL, DEFAULT_REQUEST_TIMEOUT, MAX_TIMEOUT, OpenAiCompatible, ProviderConfig,
    ProviderError,
};
pub use retry::RetryPolicy;
pub use transport::{
    ANSWER_TOOL_SYSTEM_PROMPT, AnswerMode, DEFAULT_SYSTEM_PROMPT, NativeTransport,
    WORDS_SYSTEM_PROMPT,
};

/// The README and the user guide, compiled and run as doctests so their
/// examples cannot rot.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../../README.md")]
    struct Readme;
    #[doc = include_str!("../../docs/loop.md")]
    struct Loop;
    #[doc = include_str!("../../docs/tools.md")]
    struct Tools;
    #[doc = include_str!("../../docs/text.md")]
    struct Text;
    #[doc = include_str!("../../docs/native.md")]
    struct Native;
    #[doc = include_str!("../../docs/cli.md")]
    struct Cli;
    #[doc = include_str!("../../docs/mcp.md")]
    struct Mcp;
    #[doc = include_str!("../../docs/benchmarks.md")]
    struct Benchmarks;
    #[doc = include_str!("../../docs/fuzzing.md")]
    struct Fuzzing;
}
