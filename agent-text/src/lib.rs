//! # agent-text
//!
//! The text ReAct transport: the tools and the output grammar go into the
//! prompt, the model writes `Thought:` / `Action:` / `Action Input:` or
//! `Final Answer:`, and a tolerant parser reads it. It works with any chat
//! or completion model, including small local ones with no function calling.
//!
//! - [`TextTransport`] implements [`agent_core::Transport`].
//! - [`PromptBuilder`]: named sections, each overridable or removable.
//! - [`parse`]: the parser, a pure function with a stable JSON form.
//! - [`ActionWatcher`]: the incremental stream watcher.
//! - [`grammar`]: grammar-constrained decoding (GBNF of a ReAct step with
//!   the run's tools, and the JSON-schema envelope for Ollama).

mod action;
mod blob;
mod foreign;
mod gemma;
pub mod grammar;
mod input;
mod labels;
mod lenient_json;
mod parser;
mod prompt;
mod stream;
mod transport;
mod xml_tags;

pub use input::decode_input;
pub use lenient_json::parse_lenient;
pub use parser::{ParseOptions, Parsed, parse, parse_with};
pub use prompt::{Dialect, PromptBuilder, Section, render_tools};
pub use stream::ActionWatcher;
pub use transport::{STOP_SEQUENCE, TextTransport};
