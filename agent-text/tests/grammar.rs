//! The grammars as a contract with the model: GBNF snapshots of the
//! built-in tools and of typed tools (nested objects, arrays, enums,
//! optional fields), the Ollama envelope, a property test that every
//! schema-valid call is in the grammar, passes the gateway and parses
//! back the same, and the malformed steps the grammar refuses.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use agent_core::{Tool, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox};
use agent_text::grammar::{
    Grammar, final_envelope, final_grammar, final_grammar_with_numbers, ollama_envelope,
    react_grammar, react_grammar_with_numbers, schema_grammar,
};
use agent_text::{Parsed, parse};
use agent_tools::{ToolRegistry, ToolSet, builtin, typed_tool};
use async_trait::async_trait;
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Arguments of `schedule`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ScheduleArgs {
    /// What the event is called.
    title: String,
    /// When it starts.
    start: When,
    /// Who is invited (at least one).
    #[schemars(length(min = 1, max = 8))]
    attendees: Vec<String>,
    /// How urgent it is.
    priority: Option<Priority>,
    /// Reminders, in minutes before the start.
    reminders: Option<Vec<u32>>,
    /// Where it happens.
    place: Option<Place>,
}

/// A moment.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct When {
    /// The day, as written by the user.
    day: String,
    /// Hour of the day.
    #[schemars(range(max = 23))]
    hour: u8,
    /// Minute of the hour.
    #[schemars(range(max = 59))]
    minute: Option<u8>,
}

/// How urgent.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Priority {
    Low,
    Normal,
    High,
}

/// A room or a call.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
#[allow(dead_code)]
enum Place {
    /// A meeting room.
    Room {
        /// Its name.
        name: String,
    },
    /// A video call.
    Online {
        /// The link.
        link: String,
    },
}

/// Arguments of `list_notes`: everything optional.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ListNotesArgs {
    /// Only notes with this tag.
    tag: Option<String>,
    /// Most notes to return.
    limit: Option<u32>,
    /// Include archived notes.
    archived: Option<bool>,
    /// Smallest score.
    min_score: Option<f64>,
}

fn builtin_specs() -> Vec<ToolSpec> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    builtin::registry(&["calculator", "search", "files"], Some(dir), false)
        .unwrap()
        .allow_all()
        .specs()
}

fn typed_specs() -> Vec<ToolSpec> {
    let schedule = typed_tool(
        "schedule",
        "Put an event in the calendar.",
        |_: ScheduleArgs| async { Ok::<_, ToolError>("ok") },
    );
    let list = typed_tool("list_notes", "List notes.", |_: ListNotesArgs| async {
        Ok::<_, ToolError>("ok")
    });
    vec![schedule.spec(), list.spec()]
}

fn spec<'a>(specs: &'a [ToolSpec], name: &str) -> &'a ToolSpec {
    specs.iter().find(|s| s.name == name).unwrap()
}

#[test]
fn gbnf_of_the_builtin_tools() {
    insta::assert_snapshot!("react_builtin", react_grammar(&builtin_specs()).to_gbnf());
    let specs = builtin_specs();
    let two = [
        spec(&specs, "calculator").clone(),
        spec(&specs, "search").clone(),
    ];
    insta::assert_snapshot!("react_calculator_search", react_grammar(&two).to_gbnf());
    insta::assert_snapshot!("final", final_grammar().to_gbnf());
}

/// The numbers of the answer turn after a made-up number: the
/// conversation's, as written and without separators.
fn found_numbers() -> Vec<String> {
    ["1", "21,196", "21196", "300", "6.4"]
        .iter()
        .map(|n| n.to_string())
        .collect()
}

#[test]
fn gbnf_of_an_answer_bound_to_the_found_numbers() {
    insta::assert_snapshot!(
        "final_with_numbers",
        final_grammar_with_numbers(&found_numbers()).to_gbnf()
    );
    insta::assert_snapshot!(
        "final_with_no_numbers",
        final_grammar_with_numbers(&[]).to_gbnf()
    );
}

#[test]
fn an_answer_bound_to_the_found_numbers_writes_no_other() {
    let grammar = final_grammar_with_numbers(&found_numbers());
    let answer = |thought: &str, answer: &str| {
        grammar.matches(&format!("Thought: {thought}\nFinal Answer: {answer}"))
    };
    // Found numbers, words around them, a sentence's full stop after one.
    assert!(answer("the results say 21,196 km", "21,196 km."));
    assert!(answer(
        "the wall is long",
        "About 21196 kilometres (6.4 times 1 river)"
    ));
    assert!(answer(
        "the results do not say",
        "The results do not show it."
    ));
    // A number found nowhere, in the answer or in the thought.
    assert!(!answer("the results say so", "1300"));
    assert!(!answer("about 1300 km", "21,196"));
    // Two found numbers do not join into one that is not.
    assert!(!answer("joined", "1300"));
    assert!(!answer("joined", "1,300"));
    assert!(!answer("joined", "1.300"));
    assert!(!answer("joined", "21,1961"));
    // Nor does an answer start with a space, or a thought hide a label.
    assert!(!answer("fine", " 21196"));
    assert!(!answer("Action: search", "21196"));
    // With no numbers found, an answer in words stays open.
    let none = final_grammar_with_numbers(&[]);
    assert!(none.matches("Final Answer: The results do not show it."));
    assert!(!none.matches("Final Answer: 42"));
    // A compute round: the tool input follows its schema, its numbers
    // free; the final answer is bound.
    let specs = builtin_specs();
    let compute =
        react_grammar_with_numbers(&[spec(&specs, "calculator").clone()], &found_numbers());
    assert!(compute.matches(
        "Thought: divide them\nAction: calculator\nAction Input: {\"expression\": \"21196 / 6400\"}"
    ));
    assert!(compute.matches("Thought: found\nFinal Answer: 21,196"));
    assert!(!compute.matches("Thought: guessed\nFinal Answer: 3.31"));
}

#[test]
fn a_bound_number_may_be_written_grouped_by_thousands() {
    // A calculator result has no separators; the model that wrote the
    // looked-up numbers grouped writes its answer grouped too.
    let computed: Vec<String> = ["110000000", "110", "1082.73", "1889", "250"]
        .iter()
        .map(|n| n.to_string())
        .collect();
    let grammar = final_grammar_with_numbers(&computed);
    let answer = |text: &str| grammar.matches(&format!("Thought: computed\nFinal Answer: {text}"));
    assert!(answer("110,000,000 people"));
    assert!(answer("110000000 (110 million)"));
    assert!(answer("1,082.73 feet"));
    assert!(answer("1,889 or 1889"));
    // Only the number's own grouping: no other marks, no other places.
    assert!(!answer("11,0000,000"));
    assert!(!answer("110.000.000"));
    assert!(!answer("1,10"));
    assert!(!answer("2,50"));
}

#[test]
fn gbnf_of_typed_tools() {
    let specs = typed_specs();
    insta::assert_json_snapshot!(
        "typed_schemas",
        specs.iter().map(|s| &s.parameters).collect::<Vec<_>>()
    );
    insta::assert_snapshot!("react_typed", react_grammar(&specs).to_gbnf());
}

#[test]
fn ollama_envelope_of_two_tools() {
    let specs = builtin_specs();
    let two = [
        spec(&specs, "calculator").clone(),
        spec(&specs, "search").clone(),
    ];
    insta::assert_json_snapshot!("ollama_envelope", ollama_envelope(&two));
    assert_eq!(
        ollama_envelope(&[])["anyOf"],
        json!([final_envelope()]),
        "with no tools only the answer is left"
    );
}

/// The envelope, compiled back into a grammar, accepts the replies the
/// parser reads as the same steps, and refuses the rest.
#[test]
fn envelope_replies_are_the_same_steps() {
    let specs = [typed_specs(), builtin_specs()].concat();
    let envelope = schema_grammar(&ollama_envelope(&specs));
    let call = r#"{"thought": "I need the sum.", "action": "calculator", "action_input": {"expression": "2+2"}}"#;
    assert!(envelope.matches(call));
    assert_eq!(
        parse(call),
        Parsed::Action {
            tool: "calculator".into(),
            input: json!({"expression": "2+2"}),
            thought: Some("I need the sum.".into()),
            end: call.len()
        }
    );
    let nested = r#"{"thought":"book it","action":"schedule","action_input":{"title":"sync","start":{"day":"monday","hour":9},"attendees":["ann"],"place":{"kind":"room","name":"blue"}}}"#;
    assert!(envelope.matches(nested));
    assert!(matches!(parse(nested), Parsed::Action { tool, .. } if tool == "schedule"));
    let last = r#"{"thought": "I know it.", "final_answer": "4"}"#;
    assert!(envelope.matches(last));
    assert!(schema_grammar(&final_envelope()).matches(last));
    assert_eq!(
        parse(last),
        Parsed::Final {
            answer: "4".into(),
            thought: Some("I know it.".into()),
            end: last.len()
        }
    );
    for bad in [
        r#"{"thought": "x", "action": "fetch", "action_input": {}}"#,
        r#"{"thought": "x", "action": "calculator", "action_input": {"expr": "1"}}"#,
        r#"{"action": "calculator", "action_input": {"expression": "1"}}"#,
        r#"{"thought": "x", "final_answer": ""}"#,
        r#"{"thought": "x", "final_answer": "4", "extra": 1}"#,
    ] {
        assert!(!envelope.matches(bad), "{bad}");
    }
    assert!(!schema_grammar(&final_envelope()).matches(call));
}

fn step(thought: &str, tool: &str, input: &str) -> String {
    format!("Thought: {thought}\nAction: {tool}\nAction Input: {input}")
}

#[test]
fn malformed_steps_are_refused() {
    let specs = [builtin_specs(), typed_specs()].concat();
    let grammar = react_grammar(&specs);
    let ok = |input: &str, tool: &str| grammar.matches(&step("go", tool, input));
    assert!(ok(r#"{"expression":"1+1"}"#, "calculator"));
    assert!(ok(r#"{"path":"a.txt","start":1}"#, "read_file"));
    assert!(ok(
        r#"{"title":"t","start":{"day":"d","hour":1},"attendees":["a"],"priority":"high"}"#,
        "schedule"
    ));
    // An unknown tool.
    assert!(!ok(r#"{"expression":"1+1"}"#, "calculate"));
    assert!(!ok(r#"{"query":"x"}"#, "web_search"));
    // A missing required key, at the top and nested.
    assert!(!ok(r#"{}"#, "calculator"));
    assert!(!ok(r#"{"start":1}"#, "read_file"));
    assert!(!ok(
        r#"{"title":"t","start":{"day":"d"},"attendees":["a"]}"#,
        "schedule"
    ));
    // An extra key where additionalProperties is false.
    assert!(!ok(r#"{"expression":"1+1","precision":2}"#, "calculator"));
    assert!(!ok(
        r#"{"title":"t","start":{"day":"d","hour":1,"second":0},"attendees":["a"]}"#,
        "schedule"
    ));
    // A wrong type.
    assert!(!ok(r#"{"expression":12}"#, "calculator"));
    assert!(!ok(r#"{"path":"a","start":"1"}"#, "read_file"));
    assert!(!ok(r#"{"pattern":"x","is_regex":"yes"}"#, "grep"));
    assert!(!ok(
        r#"{"title":"t","start":{"day":"d","hour":1},"attendees":"a"}"#,
        "schedule"
    ));
    // An enum value not listed, and a tag no variant has.
    assert!(!ok(
        r#"{"title":"t","start":{"day":"d","hour":1},"attendees":["a"],"priority":"urgent"}"#,
        "schedule"
    ));
    assert!(!ok(
        r#"{"title":"t","start":{"day":"d","hour":1},"attendees":["a"],"place":{"kind":"car","name":"x"}}"#,
        "schedule"
    ));
    // Fewer items than minItems.
    assert!(!ok(
        r#"{"title":"t","start":{"day":"d","hour":1},"attendees":[]}"#,
        "schedule"
    ));
    // An Action with no Action Input, or with the input on the action line.
    assert!(!grammar.matches("Thought: go\nAction: calculator"));
    assert!(!grammar.matches("Thought: go\nAction: calculator\n"));
    assert!(!grammar.matches("Thought: go\nAction: calculator {\"expression\":\"1\"}"));
    // Not JSON.
    assert!(!ok("expression=1+1", "calculator"));
    assert!(!ok(r#"{'expression': '1+1'}"#, "calculator"));
    assert!(!ok(r#"{"expression":"1+1",}"#, "calculator"));
    // No thought, or an observation written by the model.
    assert!(!grammar.matches("Action: calculator\nAction Input: {\"expression\":\"1\"}"));
    assert!(!grammar.matches(&format!(
        "{}\nObservation: 2",
        step("go", "calculator", r#"{"expression":"1+1"}"#)
    )));
}

/// A tool that only has a spec: calls pass the gateway's checks and do
/// nothing.
#[derive(Debug)]
struct Noop(ToolSpec);

#[async_trait]
impl Tool for Noop {
    fn name(&self) -> &str {
        &self.0.name
    }
    fn description(&self) -> &str {
        &self.0.description
    }
    fn parameters(&self) -> Value {
        self.0.parameters.clone()
    }
    async fn call(&self, _: Value) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::new("done"))
    }
}

fn noop_tools(specs: &[ToolSpec]) -> ToolSet {
    let mut registry = ToolRegistry::new();
    for spec in specs {
        registry.register_arc(Arc::new(Noop(spec.clone()))).unwrap();
    }
    registry.allow_all()
}

/// Values `schema` allows, objects with their keys in schema order. It
/// knows what the tools above use.
fn arb_value(schema: &Value) -> BoxedStrategy<Value> {
    let map = schema.as_object().cloned().unwrap_or_default();
    if let Some(value) = map.get("const") {
        return Just(value.clone()).boxed();
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return proptest::sample::select(values.clone()).boxed();
    }
    if let Some(Value::Array(options)) = map.get("oneOf").or_else(|| map.get("anyOf")) {
        let options: Vec<BoxedStrategy<Value>> = options.iter().map(arb_value).collect();
        return proptest::strategy::Union::new(options).boxed();
    }
    let int = |key: &str, default: i64| map.get(key).and_then(Value::as_i64).unwrap_or(default);
    let len = |key: &str, default: usize| {
        map.get(key)
            .and_then(Value::as_u64)
            .map_or(default, |n| n as usize)
    };
    match map.get("type").and_then(Value::as_str) {
        Some("string") => match map.get("pattern").and_then(Value::as_str) {
            // A one-class pattern (`^[…]*$`): strings of its characters.
            Some(pattern) if pattern.starts_with("^[") && pattern.ends_with("]*$") => {
                let class = &pattern[1..pattern.len() - 2];
                proptest::string::string_regex(&format!("{class}{{0,12}}"))
                    .unwrap()
                    .prop_map(Value::from)
                    .boxed()
            }
            _ => "(?s).{0,12}".prop_map(Value::from).boxed(),
        },
        Some("integer") => (int("minimum", -1000)..=int("maximum", 100_000))
            .prop_map(Value::from)
            .boxed(),
        Some("number") => (-1e6f64..1e6).prop_map(Value::from).boxed(),
        Some("boolean") => any::<bool>().prop_map(Value::from).boxed(),
        Some("array") => {
            let items = arb_value(map.get("items").unwrap_or(&json!({"type": "string"})));
            let (min, max) = (len("minItems", 0), len("maxItems", 4).min(4));
            proptest::collection::vec(items, min..=max.max(min))
                .prop_map(Value::from)
                .boxed()
        }
        Some("object") => {
            let required: Vec<Value> = map
                .get("required")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let members: Vec<BoxedStrategy<Option<(String, Value)>>> = map
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(key, schema)| {
                    let key = key.clone();
                    let value = arb_value(schema);
                    if required.contains(&Value::from(key.as_str())) {
                        value.prop_map(move |v| Some((key.clone(), v))).boxed()
                    } else {
                        proptest::option::of(value.prop_map(move |v| (key.clone(), v))).boxed()
                    }
                })
                .collect();
            members
                .prop_map(|members| {
                    Value::Object(members.into_iter().flatten().collect::<Map<_, _>>())
                })
                .boxed()
        }
        other => panic!("no generator for {other:?} in {schema}"),
    }
}

fn arb_call(specs: Vec<ToolSpec>) -> impl Strategy<Value = (String, Value)> {
    let calls: Vec<BoxedStrategy<(String, Value)>> = specs
        .into_iter()
        .map(|spec| {
            let name = spec.name.clone();
            arb_value(&spec.parameters)
                .prop_map(move |args| (name.clone(), args))
                .boxed()
        })
        .collect();
    proptest::strategy::Union::new(calls)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every schema-valid call, written as the prompt teaches, is in the
    /// grammar, passes the gateway's validation and parses back as the
    /// same tool and input.
    #[test]
    fn valid_calls_are_in_the_grammar_pass_the_gateway_and_parse_back(
        (tool, args) in arb_call([builtin_specs(), typed_specs()].concat()),
        thought in "[A-Za-z0-9][^\\x00-\\x1f\\x7f:：<]{0,40}",
    ) {
        let specs = [builtin_specs(), typed_specs()].concat();
        let grammar: Grammar = react_grammar(&specs);
        let input = serde_json::to_string(&args).unwrap();
        let text = step(&thought, &tool, &input);
        prop_assert!(grammar.matches(&text), "not in the grammar: {text}");
        match parse(&text) {
            Parsed::Action { tool: parsed, input: parsed_input, thought: parsed_thought, .. } => {
                prop_assert_eq!(&parsed, &tool);
                prop_assert_eq!(&parsed_input, &args);
                let expected = thought.trim();
                prop_assert_eq!(parsed_thought.as_deref(), (!expected.is_empty()).then_some(expected));
            }
            other => prop_assert!(false, "parsed as {other:?}: {text}"),
        }
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let result = runtime.block_on(noop_tools(&specs).call(&ToolCall::new("1", &tool, args.clone())));
        prop_assert!(result.is_ok(), "the gateway refused {input}: {result:?}");
    }
}
