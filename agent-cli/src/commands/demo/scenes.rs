//! The demo's scenes: a task, the model's scripted turns (rendered for
//! either transport), the tools and the budget of each.

use agent_core::{Budget, Completion, ToolCall, ToolError};
use agent_tools::{ToolRegistry, ToolSet, builtin, typed_tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::cli::TransportKind;
use crate::exit::CliError;

/// One scripted model turn, rendered for either transport.
pub(super) enum Beat {
    Call(&'static str, &'static str, Value),
    BrokenCall(&'static str, &'static str, &'static str),
    Final(&'static str, &'static str),
}

pub(super) struct Scene {
    pub(super) name: &'static str,
    pub(super) task: &'static str,
    pub(super) beats: Vec<Beat>,
    pub(super) tools: ToolSet,
    pub(super) budget: Budget,
    pub(super) expect_answer: bool,
}

/// The scenes' names, in order.
pub(super) const NAMES: [&str; 5] = ["multi-hop", "recovery", "refund", "files", "budget"];

pub(super) fn completion(beat: &Beat, kind: TransportKind, n: usize) -> Completion {
    match (beat, kind) {
        (Beat::Call(thought, tool, args), TransportKind::Text) => Completion::text(format!(
            "Thought: {thought}\nAction: {tool}\nAction Input: {args}"
        )),
        (Beat::BrokenCall(thought, tool, raw), TransportKind::Text) => Completion::text(format!(
            "Thought: {thought}\nAction: {tool}\nAction Input: {raw}"
        )),
        (Beat::Final(thought, answer), TransportKind::Text) => {
            Completion::text(format!("Thought: {thought}\nFinal Answer: {answer}"))
        }
        (Beat::Call(_, tool, args), TransportKind::Native) => {
            Completion::tool_calls(vec![ToolCall::new(
                format!("call_{n}"),
                *tool,
                args.clone(),
            )])
        }
        (Beat::BrokenCall(_, tool, raw), TransportKind::Native) => {
            Completion::tool_calls(vec![ToolCall::new(
                format!("call_{n}"),
                *tool,
                Value::String((*raw).to_string()),
            )])
        }
        (Beat::Final(_, answer), TransportKind::Native) => Completion::text(*answer),
    }
}

fn tools(groups: &[&str], dir: Option<&std::path::Path>) -> Result<ToolSet, CliError> {
    builtin::registry(groups, dir, false)
        .map(|r| r.allow_all())
        .map_err(|e| CliError::Failure(e.to_string()))
}

/// Arguments of the support tools.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UserArgs {
    /// The user's numeric id.
    user_id: u64,
}

/// Arguments of `search_policy`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PolicyArgs {
    /// What to look up in the policy.
    query: String,
}

/// The support agent's typed tools.
fn support_tools() -> Result<ToolSet, CliError> {
    let fail = |e: agent_tools::ToolSetError| CliError::Failure(e.to_string());
    let mut registry = ToolRegistry::new();
    registry
        .register(typed_tool("get_user_profile", "Look up a user's profile.", |a: UserArgs| async move {
            match a.user_id {
                42 => Ok("user 42: Ada Lovelace, plan Pro (monthly), customer since 2023-03-01, no refunds so far".to_string()),
                id => Err(ToolError::failed(format!("no user with id {id}"))),
            }
        }))
        .map_err(fail)?;
    registry
        .register(typed_tool("get_user_billing", "Look up a user's recent charges.", |a: UserArgs| async move {
            match a.user_id {
                42 => Ok("user 42: last charge USD 49.00 for Pro (monthly) on 2026-11-15, 7 days ago; paid by card".to_string()),
                id => Err(ToolError::failed(format!("no billing record for user {id}"))),
            }
        }))
        .map_err(fail)?;
    registry
        .register(typed_tool("search_policy", "Search the refund and billing policy.", |a: PolicyArgs| async move {
            let q = a.query.to_lowercase();
            Ok::<_, ToolError>(if q.contains("refund") {
                "Refund policy: a charge can be refunded in full within 14 days, once per customer per year. After 14 days, no refund.".to_string()
            } else {
                "No policy section matches; try `refund`.".to_string()
            })
        }))
        .map_err(fail)?;
    Ok(registry.allow_all())
}

pub(super) fn scenes(project: &std::path::Path) -> Result<Vec<Scene>, CliError> {
    let budget = Budget {
        max_steps: 8,
        ..Budget::default()
    };
    Ok(vec![
        Scene {
            name: "multi-hop",
            task: "How many more people live in France than in Paris?",
            beats: vec![
                Beat::Call(
                    "I need the population of France.",
                    "search",
                    json!({"query": "population of France"}),
                ),
                Beat::Call(
                    "Now the population of Paris.",
                    "search",
                    json!({"query": "population of Paris"}),
                ),
                Beat::Call(
                    "France has 68,000,000 and Paris 2,100,000: subtract.",
                    "calculator",
                    json!({"expression": "68000000 - 2100000"}),
                ),
                Beat::Final(
                    "I know the answer.",
                    "About 65,900,000 more people live in France than in Paris (68.0 million vs 2.1 million).",
                ),
            ],
            tools: tools(&["search", "calculator"], None)?,
            budget: budget.clone(),
            expect_answer: true,
        },
        Scene {
            name: "recovery",
            task: "What is the population of France minus the population of Paris?",
            beats: vec![
                Beat::Call(
                    "Let me look it up on the web.",
                    "web_search",
                    json!({"query": "population of France"}),
                ),
                Beat::Call(
                    "That tool does not exist; search is available.",
                    "search",
                    json!({"query": "population of France and Paris"}),
                ),
                Beat::BrokenCall(
                    "Subtract the two.",
                    "calculator",
                    "{\"expression\": 68000000 - 2100000}",
                ),
                Beat::Call(
                    "The expression must be a string.",
                    "calculator",
                    json!({"expression": "68000000 - 2100000"}),
                ),
                Beat::Final("I know the answer.", "65,900,000"),
            ],
            tools: tools(&["search", "calculator"], None)?,
            budget: budget.clone(),
            expect_answer: true,
        },
        Scene {
            name: "refund",
            task: "User 42 asks: can I get a refund for my last charge?",
            beats: vec![
                Beat::Call(
                    "First, who is user 42?",
                    "get_user_profile",
                    json!({"user_id": 42}),
                ),
                Beat::Call(
                    "Now their last charge.",
                    "get_user_billing",
                    json!({"user_id": 42}),
                ),
                Beat::Call(
                    "What does the policy say about refunds?",
                    "search_policy",
                    json!({"query": "refund window"}),
                ),
                Beat::Final(
                    "The charge is 7 days old, inside the 14-day window, and there was no earlier refund.",
                    "Yes: user 42 can get a refund of USD 49 for the Pro charge of 2026-11-15 — it is within the 14-day refund window.",
                ),
            ],
            tools: support_tools()?,
            budget: budget.clone(),
            expect_answer: true,
        },
        Scene {
            name: "files",
            task: "The answer() function should return 42. Find it and fix it.",
            beats: vec![
                Beat::Call(
                    "Which Rust files are there?",
                    "search_files",
                    json!({"glob": "**/*.rs"}),
                ),
                Beat::Call(
                    "Where is answer() defined?",
                    "grep",
                    json!({"pattern": "fn answer"}),
                ),
                Beat::Call("Read it.", "read_file", json!({"path": "src/lib.rs"})),
                Beat::Call(
                    "It returns 41: change it to 42.",
                    "edit_file",
                    json!({"path": "src/lib.rs", "old": "    41", "new": "    42"}),
                ),
                Beat::Call(
                    "Check the change.",
                    "grep",
                    json!({"pattern": "42", "path": "src"}),
                ),
                Beat::Final(
                    "The fix is in place.",
                    "Fixed: answer() in src/lib.rs now returns 42.",
                ),
            ],
            tools: tools(&["files"], Some(project))?,
            budget: budget.clone(),
            expect_answer: true,
        },
        Scene {
            name: "budget",
            task: "List every country in the world with its population.",
            beats: [
                "France", "Germany", "Japan", "Italy", "Paris", "Berlin", "Tokyo", "Rome",
            ]
            .iter()
            .map(|c| {
                Beat::Call(
                    "I need one more country.",
                    "search",
                    json!({"query": format!("population of {c}")}),
                )
            })
            .collect(),
            tools: tools(&["search"], None)?,
            budget: Budget {
                max_steps: 4,
                ..Budget::default()
            },
            expect_answer: false,
        },
    ])
}
