//! Every bound the grammars put on what a model may write, in one place.
//!
//! The bounds keep a small model from looping inside an unbounded rule (a
//! string that never closes, whitespace that never ends); `max_tokens`
//! still caps the whole reply. Each `{m,n}` that uses one becomes about `n`
//! rules inside llama.cpp, and newer llama.cpp refuses a repetition of
//! 2000 or more, so every bound stays well below that.

/// Longest reasoning on the `Thought:` line, in characters. Measured on
/// the Qwen2.5-Coder models of `evals/`: the 1.5B model's thoughts ran to
/// 283 characters at most and 88 at the median, while the 0.5B model
/// sometimes rambles in its first reply ("you can use the grep tool…
/// here's how") and, cut at 400, went on to a `Final Answer:` made up
/// before any call; cut at 250 it wrote the action (3 more of 32 tune
/// tasks right, none fewer on either model).
pub const MAX_THOUGHT_CHARS: u32 = 250;
/// Longest `Final Answer:` text, in characters (it may span lines).
pub const MAX_ANSWER_CHARS: u32 = 1500;
/// Longest JSON string, in characters (an escape counts as one), unless
/// the schema's `maxLength` is smaller.
pub const MAX_STRING_CHARS: u32 = 1500;
/// Most digits in the integer part of a JSON number (`i64` has 19).
pub const MAX_INTEGER_DIGITS: u32 = 19;
/// Most digits after a JSON number's decimal point: any `f64` as
/// `serde_json` writes it (up to four zeros, then 17 significant digits).
pub const MAX_FRACTION_DIGITS: u32 = 21;
/// Most digits in a JSON number's exponent: two keep every number the
/// grammar allows within `f64` (`1e999` would not parse).
pub const MAX_EXPONENT_DIGITS: u32 = 2;
/// Most items in a JSON array, unless the schema's `maxItems` is smaller.
pub const MAX_ARRAY_ITEMS: u32 = 32;
/// Most entries in a JSON object whose keys the schema does not declare.
pub const MAX_OBJECT_ENTRIES: u32 = 16;
/// Deepest nesting of a JSON value the schema says nothing about (and of
/// `$ref`s followed into each other): containers this deep hold scalars.
pub const MAX_JSON_DEPTH: u32 = 3;
/// Most spaces of indentation after a newline between JSON tokens.
pub const MAX_INDENT: u32 = 16;
