//! Grammar-constrained decoding on the wire. A request may carry a
//! [`Constraint`] (the text transport's ReAct grammar); whether it is sent,
//! and how, is decided here:
//!
//! - [`Constrain::Off`]: never. [`Constrain::On`]: always (in the dialect
//!   the server was found to speak, llama.cpp's otherwise).
//!   [`Constrain::Auto`] (the default): the first constrained request to a
//!   base URL and model probes the server once, with a tiny request whose
//!   grammar allows one made-up word, and the answer is remembered for the
//!   life of the process. A server that refuses the field (HTTP 400) or
//!   ignores it gets unconstrained requests, with a notice.
//! - Dialects: llama.cpp's `grammar` (GBNF), vLLM's
//!   `structured_outputs: {"grammar": …}` (the same GBNF), and a JSON
//!   schema as `response_format` (Ollama, OpenAI) with the transport's
//!   envelope, whose replies the text parser reads as the same steps.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use agent_core::message::Constraint;
use serde_json::{Map, Value, json};

/// Whether requests are sent with their grammar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Constrain {
    /// Probe the server once and send grammars only if it honours them.
    #[default]
    Auto,
    /// Always send grammars.
    On,
    /// Never send grammars.
    Off,
}

/// How a server takes a grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// llama.cpp's `grammar` field.
    LlamaCpp,
    /// vLLM's structured outputs.
    Vllm,
    /// A JSON schema in `response_format`.
    JsonSchema,
}

impl Dialect {
    /// The dialects a probe tries, in order.
    pub(crate) const ALL: [Dialect; 3] = [Dialect::LlamaCpp, Dialect::Vllm, Dialect::JsonSchema];

    fn name(self) -> &'static str {
        match self {
            Dialect::LlamaCpp => "llama.cpp grammar",
            Dialect::Vllm => "vLLM structured outputs",
            Dialect::JsonSchema => "JSON schema",
        }
    }
}

/// What a server does with grammars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Support {
    /// It honours them in this dialect.
    Honours(Dialect),
    /// It refuses or ignores them.
    Ignores,
}

/// The word the probe's grammar allows, and that no model says unasked.
const PROBE_WORD: &str = "zqxv";

/// What servers were found to do, per base URL and model, for the life of
/// the process.
fn learned() -> &'static Mutex<HashMap<String, Support>> {
    static LEARNED: OnceLock<Mutex<HashMap<String, Support>>> = OnceLock::new();
    LEARNED.get_or_init(|| Mutex::new(HashMap::new()))
}

fn key(base_url: &str, model: &str) -> String {
    format!("{base_url}\u{0}{model}")
}

/// What was learned of this server, if anything.
pub(crate) fn known(base_url: &str, model: &str) -> Option<Support> {
    learned()
        .lock()
        .ok()
        .and_then(|map| map.get(&key(base_url, model)).cloned())
}

/// Remembers what this server does.
pub(crate) fn remember(base_url: &str, model: &str, support: Support) {
    if let Ok(mut map) = learned().lock() {
        map.insert(key(base_url, model), support);
    }
}

/// Adds `constraint` to a request body in `dialect`.
pub(crate) fn apply(body: &mut Map<String, Value>, constraint: &Constraint, dialect: Dialect) {
    match dialect {
        Dialect::LlamaCpp => {
            body.insert("grammar".into(), json!(constraint.grammar));
        }
        Dialect::Vllm => {
            body.insert(
                "structured_outputs".into(),
                json!({"grammar": constraint.grammar}),
            );
        }
        Dialect::JsonSchema => {
            if let Some(schema) = &constraint.json_schema {
                body.insert(
                    "response_format".into(),
                    json!({"type": "json_schema", "json_schema": {"name": "react_step", "strict": true, "schema": schema}}),
                );
            }
        }
    }
}

/// The probe's constraint: one made-up word, as a grammar and as a schema.
pub(crate) fn probe_constraint() -> Constraint {
    Constraint {
        grammar: format!("root ::= \"{PROBE_WORD}\""),
        json_schema: Some(json!({
            "type": "object",
            "properties": {"word": {"type": "string", "enum": [PROBE_WORD]}},
            "required": ["word"],
            "additionalProperties": false
        })),
        answer_only: false,
    }
}

/// Whether a probe reply shows the constraint was honoured.
pub(crate) fn probe_honoured(reply: &str, dialect: Dialect) -> bool {
    let reply = reply.trim();
    match dialect {
        Dialect::LlamaCpp | Dialect::Vllm => reply == PROBE_WORD,
        Dialect::JsonSchema => serde_json::from_str::<Value>(reply)
            .ok()
            .is_some_and(|v| v["word"] == PROBE_WORD),
    }
}

/// The notice for a server that does not honour grammars.
pub(crate) fn ignored_notice(base_url: &str) -> String {
    format!(
        "the model server at {base_url} does not honour grammars: requests go unconstrained (the parser reads them as before)"
    )
}

/// The notice for a server that refused one request's grammar.
pub(crate) fn refused_notice(dialect: Dialect) -> String {
    format!(
        "the model server refused this request's {} (HTTP 400): it was sent again unconstrained",
        dialect.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dialect_puts_the_grammar_where_its_server_reads_it() {
        let constraint = probe_constraint();
        let mut llama = Map::new();
        apply(&mut llama, &constraint, Dialect::LlamaCpp);
        assert_eq!(llama["grammar"], json!("root ::= \"zqxv\""));
        let mut vllm = Map::new();
        apply(&mut vllm, &constraint, Dialect::Vllm);
        assert_eq!(vllm["structured_outputs"]["grammar"], llama["grammar"]);
        let mut schema = Map::new();
        apply(&mut schema, &constraint, Dialect::JsonSchema);
        assert_eq!(
            schema["response_format"]["json_schema"]["schema"]["required"],
            json!(["word"])
        );
        assert!(probe_honoured(" zqxv\n", Dialect::LlamaCpp));
        assert!(!probe_honoured("Yes", Dialect::LlamaCpp));
        assert!(probe_honoured("{\"word\": \"zqxv\"}", Dialect::JsonSchema));
    }
}
