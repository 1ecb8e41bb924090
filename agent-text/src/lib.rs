//! # agent-text
//!
//! The text ReAct transport: the tools and the output grammar go into the
//! prompt, the model writes `Thought:` / `Action:` / `Action Input:` or
//! `Final Answer:`, and a tolerant parser reads it. It works with any chat
//! or completion model, including small local ones with no function calling.

mod lenient_json;
mod parser;

pub use lenient_json::parse_lenient;
pub use parser::{ParseOptions, Parsed, decode_input, parse, parse_with};
