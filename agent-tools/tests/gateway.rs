//! The gateway's guarantees, through `ToolSet` directly and through a real
//! `Agent` round.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use agent_core::message::Role;
use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::tool::ToolErrorKind;
use agent_core::{Agent, Completion, StopReason, ToolCall, ToolError, Toolbox};
use agent_tools::builtin::{Document, Search};
use agent_tools::{ToolRegistry, ToolSet, ToolSetError, builtin, typed_tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Arguments of `add`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddArgs {
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
}

#[derive(Deserialize, JsonSchema)]
struct Nothing {}

#[derive(Deserialize, JsonSchema)]
struct Echo {
    /// Text to echo.
    text: String,
}

fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry
        .register(typed_tool(
            "add",
            "Add two integers.",
            |a: AddArgs| async move { Ok::<_, ToolError>((a.a + a.b).to_string()) },
        ))
        .unwrap();
    registry
        .register(typed_tool(
            "slow",
            "Sleeps for a minute.",
            |_: Nothing| async move {
                tokio::time::sleep(Duration::from_secs(60)).await;
                Ok::<_, ToolError>("woke up")
            },
        ))
        .unwrap();
    registry
        .register(typed_tool("crash", "Panics.", |_: Nothing| async move {
            if true {
                panic!("secret internal state 0xdeadbeef");
            }
            Ok::<_, ToolError>("unreachable")
        }))
        .unwrap();
    registry
        .register(typed_tool("echo", "Echoes text.", |e: Echo| async move {
            Ok::<_, ToolError>(e.text)
        }))
        .unwrap();
    registry.register(builtin::Calculator::new()).unwrap();
    registry
}

fn tools() -> ToolSet {
    registry()
        .allow_all()
        .with_default_timeout(Duration::from_millis(200))
}

async fn err(tools: &ToolSet, name: &str, args: serde_json::Value) -> ToolError {
    tools
        .call(&ToolCall::new("t", name, args))
        .await
        .unwrap_err()
}

#[tokio::test]
async fn schema_violations_give_distinct_clear_observations() {
    let tools = tools();
    let missing = err(&tools, "add", json!({"a": 1})).await;
    let wrong = err(&tools, "add", json!({"a": 1, "b": "two"})).await;
    let extra = err(&tools, "add", json!({"a": 1, "b": 2, "c": 3})).await;
    for e in [&missing, &wrong, &extra] {
        assert_eq!(e.kind(), ToolErrorKind::InvalidArgs);
    }
    assert!(
        missing.message().starts_with("missing required field `b`"),
        "{}",
        missing.message()
    );
    assert!(
        wrong
            .message()
            .starts_with("field `b` must be integer, got a string (\"two\")"),
        "{}",
        wrong.message()
    );
    assert!(
        extra
            .message()
            .starts_with("unexpected field `c` (allowed: a, b)"),
        "{}",
        extra.message()
    );
    // Each says what is expected.
    assert!(
        missing
            .message()
            .contains("`a` (integer, required), `b` (integer, required)")
    );
    assert_ne!(missing.message(), wrong.message());
    assert_ne!(wrong.message(), extra.message());
}

#[tokio::test]
async fn the_built_in_base_is_searched_in_the_question_s_language() {
    // Its entries have names in other scripts: a query in one finds them
    // (a small model calling tools natively searches in the question's
    // language, and cannot be made to translate).
    let tools = builtin::registry(&["search"], None, true)
        .unwrap()
        .allow_all();
    // The entry says which of its names the query used, if not its title.
    for (query, first) in [
        ("东京的人口", "Tokyo (also called 东京): Tokyo is"),
        ("Nippon population", "Japan (also called Nippon): Japan is"),
        ("Japan population", "Japan: Japan is"),
    ] {
        let found = tools
            .call(&ToolCall::new("t", "search", json!({ "query": query })))
            .await
            .unwrap();
        assert!(found.content.starts_with(first), "{}", found.content);
    }
}

#[tokio::test]
async fn a_query_of_a_latin_english_base_in_another_script_is_told_to_translate() {
    let base = Search::from_documents(vec![
        Document::new("Eiffel Tower", "The Eiffel Tower is in Paris.").with_names(["Tour Eiffel"]),
    ])
    .with_language("English");
    let tools = ToolRegistry::new().with(base).unwrap().allow_all();
    let chinese = err(&tools, "search", json!({"query": "长城长度"})).await;
    assert_eq!(chinese.kind(), ToolErrorKind::InvalidArgs);
    assert!(
        chinese.message().starts_with(
            "field `query` must be written in the Latin alphabet: translate it into English words"
        ),
        "{}",
        chinese.message()
    );
    // Latin letters with accents are fine.
    let found = tools
        .call(&ToolCall::new(
            "t",
            "search",
            json!({"query": "Tour Eiffel café"}),
        ))
        .await
        .unwrap();
    assert!(
        found.content.starts_with("Eiffel Tower"),
        "{}",
        found.content
    );
}

#[tokio::test]
async fn a_single_string_input_binds_to_the_one_required_string_parameter() {
    let tools = tools();
    let out = tools
        .call(&ToolCall::new("t", "calculator", json!("17*83 + 12**3")))
        .await
        .unwrap();
    assert_eq!(out.content, "3139");
    let out = tools
        .call(&ToolCall::new("t", "echo", json!("hello")))
        .await
        .unwrap();
    assert_eq!(out.content, "hello");
    // `add` has two integer parameters: a bare string cannot bind.
    let e = err(&tools, "add", json!("1 2")).await;
    assert_eq!(e.kind(), ToolErrorKind::InvalidArgs);
    assert!(e.message().contains("JSON object"), "{}", e.message());
    // A string that is JSON is decoded; broken JSON is reported as such.
    let out = tools
        .call(&ToolCall::new("t", "add", json!("{\"a\": 1, \"b\": 2}")))
        .await
        .unwrap();
    assert_eq!(out.content, "3");
    let e = err(&tools, "add", json!("{\"a\": 1, \"b\":")).await;
    assert!(e.message().contains("not valid JSON"), "{}", e.message());
}

#[tokio::test]
async fn arguments_written_as_named_text_bind_by_the_tools_own_names() {
    // `a=1, b=2`, `a: 1` per line and `{a: 1, b: 2}` (names unquoted) are
    // the arguments they name; a string argument keeps its whole text.
    let tools = tools();
    for written in [
        "a=1, b=2",
        "a: 1\nb: 2",
        "{a: 1, b: 2}",
        "\"a\": 1, \"b\": 2",
    ] {
        let out = tools
            .call(&ToolCall::new("t", "add", json!(written)))
            .await
            .unwrap();
        assert_eq!(out.content, "3", "{written}");
    }
    let out = tools
        .call(&ToolCall::new("t", "calculator", json!("expression = 6*7")))
        .await
        .unwrap();
    assert_eq!(out.content, "42");
    let out = tools
        .call(&ToolCall::new("t", "echo", json!("text: a, b = c: d")))
        .await
        .unwrap();
    assert_eq!(out.content, "a, b = c: d");
    // Names the tool does not have are not arguments: the text is what
    // it was (a type error for `add`, the whole text for `echo`).
    let e = err(&tools, "add", json!("x=1, y=2")).await;
    assert!(e.message().contains("JSON object"), "{}", e.message());
    let out = tools
        .call(&ToolCall::new("t", "echo", json!("note: hello")))
        .await
        .unwrap();
    assert_eq!(out.content, "note: hello");
}

#[tokio::test]
async fn an_argument_sent_under_another_name_fills_the_one_missing() {
    // One required argument missing, one the schema does not have, of
    // the missing one's type: the model meant it.
    let tools = tools();
    let out = tools
        .call(&ToolCall::new("t", "echo", json!({"message": "hi"})))
        .await
        .unwrap();
    assert_eq!(out.content, "hi");
    let out = tools
        .call(&ToolCall::new("t", "add", json!({"a": 1, "second": 2})))
        .await
        .unwrap();
    assert_eq!(out.content, "3");
    // A value of another type, two strangers or two missing arguments:
    // the model is told which fields the tool has.
    for arguments in [
        json!({"a": 1, "second": "two"}),
        json!({"a": 1, "x": 2, "y": 3}),
        json!({"x": 2}),
    ] {
        let e = err(&tools, "add", arguments.clone()).await;
        assert!(
            e.message().contains("Expected fields"),
            "{arguments}: {}",
            e.message()
        );
    }
}

#[tokio::test]
async fn unknown_tools_list_the_valid_names_and_prefixes_are_tolerated() {
    let tools = registry().allow(["add", "calculator"]).unwrap();
    let e = err(&tools, "greeting", json!({})).await;
    assert_eq!(e.kind(), ToolErrorKind::NotFound);
    assert_eq!(
        e.message(),
        "there is no tool named `greeting`. Available tools: add, calculator"
    );
    // Registered but not allowed looks exactly like unknown to the model.
    let e = err(&tools, "echo", json!({"text": "x"})).await;
    assert_eq!(e.kind(), ToolErrorKind::NotFound);
    let out = tools
        .call(&ToolCall::new(
            "t",
            "functions.Calculator",
            json!({"expression": "2+2"}),
        ))
        .await
        .unwrap();
    assert_eq!(out.content, "4");
    let names: Vec<String> = tools.specs().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["add", "calculator"]);
}

#[tokio::test]
async fn a_tool_name_with_other_separators_or_case_finds_its_tool() {
    let mut registry = registry();
    registry
        .register(typed_tool("read_file", "Reads.", |_: Nothing| async {
            Ok::<_, ToolError>("read")
        }))
        .unwrap();
    registry
        .register(typed_tool(
            "read_files",
            "Reads many.",
            |_: Nothing| async { Ok::<_, ToolError>("many") },
        ))
        .unwrap();
    let tools = registry.allow_all();
    for name in [
        "read-file",
        "ReadFile",
        "read file",
        "READ_FILE",
        "read_file tool",
    ] {
        let out = tools
            .call(&ToolCall::new("t", name, json!({})))
            .await
            .unwrap();
        assert_eq!(out.content, "read", "{name}");
    }
    assert_eq!(
        tools
            .call(&ToolCall::new("t", "Read-Files", json!({})))
            .await
            .unwrap()
            .content,
        "many"
    );
    // Letters that differ still name no tool.
    let e = err(&tools, "readfil", json!({})).await;
    assert_eq!(e.kind(), ToolErrorKind::NotFound);
    // The words of one tool name it; words of two name none.
    let out = tools
        .call(&ToolCall::new("t", "echo_text", json!({"text": "hi"})))
        .await
        .unwrap();
    assert_eq!(out.content, "hi");
    let e = err(&tools, "read", json!({})).await;
    assert_eq!(e.kind(), ToolErrorKind::NotFound);
}

#[tokio::test]
async fn the_allowlist_denies_by_default_and_refuses_unknown_names() {
    let registry = registry();
    let none = registry.allow(Vec::<&str>::new()).unwrap();
    assert!(none.is_empty());
    let e = err(&none, "add", json!({"a": 1, "b": 1})).await;
    assert_eq!(
        e.message(),
        "there is no tool named `add`, and no tools are available"
    );
    assert!(matches!(
        registry.allow(["add", "rm_rf"]),
        Err(ToolSetError::UnknownInAllowlist(name, _)) if name == "rm_rf"
    ));
}

#[tokio::test]
async fn an_allowlist_entry_may_name_a_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let mut registry = builtin::registry(&["calculator", "files"], Some(dir.path()), true).unwrap();
    registry
        .register(typed_tool("plain", "Ungrouped.", |_: Nothing| async {
            Ok::<_, ToolError>("")
        }))
        .unwrap();
    assert_eq!(registry.groups(), ["calculator", "files"]);
    assert_eq!(registry.group_of("grep"), Some("files"));
    assert_eq!(registry.group_of("plain"), None);
    assert_eq!(registry.group_of("missing"), None);

    let files = registry.allow(["files.*"]).unwrap();
    assert_eq!(files.names(), ["read_file", "grep", "search_files"]);
    let mixed = registry.allow(["plain", "files.*", "calculator"]).unwrap();
    assert_eq!(
        mixed.names(),
        ["calculator", "read_file", "grep", "search_files", "plain"]
    );
    assert!(matches!(
        registry.allow(["files.*", "net.*"]),
        Err(ToolSetError::UnknownGroup(group, groups)) if group == "net" && groups == "calculator, files"
    ));
    // A group name without `.*` is not a group entry.
    assert!(matches!(
        registry.allow(["files"]),
        Err(ToolSetError::UnknownInAllowlist(name, _)) if name == "files"
    ));
    let tool = std::sync::Arc::new(typed_tool("x", "x", |_: Nothing| async {
        Ok::<_, ToolError>("")
    }));
    assert!(matches!(
        registry.register_in_group("my.group", tool),
        Err(ToolSetError::InvalidGroup(group)) if group == "my.group"
    ));
}

#[tokio::test]
async fn registration_rejects_duplicates_bad_names_and_bad_schemas() {
    let mut registry = registry();
    assert_eq!(
        registry.register(builtin::Calculator::new()).err(),
        Some(ToolSetError::Duplicate("calculator".into()))
    );
    let bad_name = typed_tool("rm -rf", "x", |_: Nothing| async { Ok::<_, ToolError>("") });
    assert!(matches!(
        registry.register(bad_name),
        Err(ToolSetError::InvalidName(_))
    ));
    struct BadSchema;
    #[async_trait::async_trait]
    impl agent_core::Tool for BadSchema {
        fn name(&self) -> &str {
            "bad"
        }
        fn description(&self) -> &str {
            "bad schema"
        }
        fn parameters(&self) -> serde_json::Value {
            json!({"type": "no-such-type"})
        }
        async fn call(&self, _: serde_json::Value) -> Result<agent_core::ToolOutput, ToolError> {
            Ok("".into())
        }
    }
    assert!(matches!(
        registry.register(BadSchema),
        Err(ToolSetError::InvalidSchema { .. })
    ));
}

#[tokio::test]
async fn output_is_capped_with_a_visible_marker() {
    let tools = tools().with_max_observation_chars(10);
    let out = tools
        .call(&ToolCall::new("t", "echo", json!({"text": "é".repeat(25)})))
        .await
        .unwrap();
    assert_eq!(
        out.content,
        format!(
            "{}\n[... output truncated: 15 more characters not shown]",
            "é".repeat(10)
        )
    );
    let short = tools
        .call(&ToolCall::new("t", "echo", json!({"text": "short"})))
        .await
        .unwrap();
    assert_eq!(short.content, "short");
}

#[tokio::test]
async fn timeouts_and_panics_are_observations_and_sibling_calls_succeed() {
    let model = ScriptedModel::new()
        .reply(Completion::tool_calls(vec![
            ToolCall::new("s", "slow", json!({})),
            ToolCall::new("p", "crash", json!({})),
            ToolCall::new("a", "add", json!({"a": 2, "b": 3})),
        ]))
        .text("done");
    let agent = Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(tools())
        .build()
        .unwrap();
    let started = Instant::now();
    let outcome = agent.run("round").await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let answers: Vec<&str> = outcome
        .transcript
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(
        answers[0],
        "Error (timed out): `slow` did not finish within 200 ms; try a smaller request"
    );
    assert_eq!(
        answers[1],
        "Error (tool crashed): `crash` crashed on these arguments; try different arguments"
    );
    assert!(
        !answers[1].contains("deadbeef"),
        "no internals reach the model"
    );
    assert_eq!(answers[2], "5");
}

#[tokio::test]
async fn per_tool_timeouts_override_the_default() {
    let mut registry = registry();
    registry
        .set_timeout("slow", Duration::from_millis(50))
        .unwrap();
    let tools = registry
        .allow_all()
        .with_default_timeout(Duration::from_secs(30));
    let started = Instant::now();
    let e = err(&tools, "slow", json!({})).await;
    assert_eq!(e.kind(), ToolErrorKind::Timeout);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn typed_tool_schemas_carry_doc_comments() {
    let tools = tools();
    let spec = tools.specs().into_iter().find(|s| s.name == "add").unwrap();
    assert_eq!(
        spec.parameters["properties"]["a"]["description"],
        "First addend."
    );
    assert_eq!(spec.parameters["required"], json!(["a", "b"]));
    assert_eq!(spec.parameters["additionalProperties"], json!(false));
    assert!(spec.parameters.get("$schema").is_none());
}

#[tokio::test]
async fn a_number_binds_as_text_to_a_single_string_parameter() {
    let tools = tools();
    let out = tools
        .call(&ToolCall::new("t", "calculator", json!(2024)))
        .await
        .unwrap();
    assert_eq!(out.content, "2024");
}

#[tokio::test]
async fn values_in_another_json_type_are_taken_when_nothing_is_lost() {
    let tools = tools();
    let call = |name: &'static str, args: serde_json::Value| {
        let tools = &tools;
        async move { tools.call(&ToolCall::new("t", name, args)).await }
    };
    // Digits in a string and a whole float for integers, a number for text.
    assert_eq!(
        call("add", json!({"a": "2", "b": 3.0}))
            .await
            .unwrap()
            .content,
        "5"
    );
    assert_eq!(
        call("add", json!({"a": " -4 ", "b": 1}))
            .await
            .unwrap()
            .content,
        "-3"
    );
    assert_eq!(
        call("echo", json!({"text": 1984})).await.unwrap().content,
        "1984"
    );
    assert_eq!(
        call("echo", json!({"text": true})).await.unwrap().content,
        "true"
    );
    // A number as another language writes it, and one value in a list.
    assert_eq!(
        call("add", json!({"a": "1 250", "b": "١٥"}))
            .await
            .unwrap()
            .content,
        "1265"
    );
    assert_eq!(
        call("echo", json!({"text": ["hello"]}))
            .await
            .unwrap()
            .content,
        "hello"
    );
    // What would lose something, or means nothing, is still an error.
    for (args, field) in [
        (json!({"a": 2.5, "b": 1}), "`a`"),
        (json!({"a": "2 apples", "b": 1}), "`a`"),
        (json!({"a": "", "b": 1}), "`a`"),
    ] {
        let e = call("add", args).await.unwrap_err();
        assert_eq!(e.kind(), ToolErrorKind::InvalidArgs);
        assert!(e.message().contains(field), "{}", e.message());
    }
}

#[tokio::test]
async fn booleans_written_as_strings_are_taken() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "a.b\nab\n").unwrap();
    let tools = builtin::registry(&["files"], Some(dir.path()), false)
        .unwrap()
        .allow_all();
    // `is_regex: "false"` searches literally: the dot matches only itself.
    let out = tools
        .call(&ToolCall::new(
            "t",
            "grep",
            json!({"pattern": "a.b", "is_regex": "false"}),
        ))
        .await
        .unwrap();
    assert!(out.content.contains("notes.txt:1"), "{}", out.content);
    assert!(!out.content.contains("notes.txt:2"), "{}", out.content);
    let e = tools
        .call(&ToolCall::new(
            "t",
            "grep",
            json!({"pattern": "a.b", "is_regex": "maybe"}),
        ))
        .await
        .unwrap_err();
    assert!(
        e.message().contains("`is_regex` must be boolean"),
        "{}",
        e.message()
    );
}

/// Every built-in tool refuses an argument key it does not declare, and the
/// error names the key and the allowed ones.
#[tokio::test]
async fn every_built_in_tool_refuses_unknown_argument_keys() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let tools = builtin::registry(&["calculator", "search", "files"], Some(dir.path()), false)
        .unwrap()
        .allow_all();
    let valid = [
        ("calculator", json!({"expression": "1+1"})),
        ("search", json!({"query": "France"})),
        ("read_file", json!({"path": "a.txt"})),
        ("grep", json!({"pattern": "hello"})),
        ("search_files", json!({"glob": "*.txt"})),
        ("write_file", json!({"path": "b.txt", "content": "x"})),
        (
            "edit_file",
            json!({"path": "a.txt", "old": "hello", "new": "hi"}),
        ),
    ];
    assert_eq!(valid.len(), tools.names().len());
    for (tool, mut args) in valid {
        args["extra"] = json!(1);
        let err = tools
            .call(&ToolCall::new("1", tool, args))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidArgs, "{tool}");
        assert!(
            err.message().contains("`extra`"),
            "{tool}: {}",
            err.message()
        );
        assert!(
            err.message().contains("allowed:"),
            "{tool}: {}",
            err.message()
        );
    }
}

#[derive(Deserialize, JsonSchema)]
struct Loose {
    /// A name.
    name: String,
    /// How many, if given.
    count: Option<u32>,
}

#[tokio::test]
async fn typed_tools_are_strict_by_default_and_can_opt_out() {
    use agent_core::Tool;
    let strict = typed_tool("greet", "Greets.", |a: Loose| async move {
        Ok::<_, ToolError>(format!("{} x{}", a.name, a.count.unwrap_or(1)))
    });
    assert_eq!(strict.parameters()["additionalProperties"], json!(false));
    // Called directly, not only through the gateway.
    let err = strict
        .call(json!({"name": "a", "colour": "red"}))
        .await
        .unwrap_err();
    assert!(err.message().contains("`colour`"), "{}", err.message());
    let lenient = typed_tool("greet", "Greets.", |a: Loose| async move {
        Ok::<_, ToolError>(a.name)
    })
    .allow_unknown_fields();
    assert!(lenient.parameters().get("additionalProperties").is_none());
    assert_eq!(
        lenient
            .call(json!({"name": "a", "colour": "red"}))
            .await
            .unwrap()
            .content,
        "a"
    );
    // Through the gateway, `null` for an optional argument means absent.
    let mut registry = ToolRegistry::new();
    registry.register(strict).unwrap();
    let out = registry
        .allow_all()
        .call(&ToolCall::new(
            "1",
            "greet",
            json!({"name": "b", "count": null}),
        ))
        .await
        .unwrap();
    assert_eq!(out.content, "b x1");
}

#[tokio::test]
async fn free_text_arguments_are_bounded_with_a_clear_error() {
    // A small model that falls into repeating a phrase writes a query of
    // thousands of characters; the schema bounds it, the grammar of a
    // constrained text request follows, and an unconstrained one is told.
    let dir = tempfile::tempdir().unwrap();
    let tools = builtin::registry(&["calculator", "search", "files"], Some(dir.path()), false)
        .unwrap()
        .allow_all();
    let long = "unit: metres, ".repeat(40);
    for (tool, key) in [
        ("search", "query"),
        ("calculator", "expression"),
        ("grep", "pattern"),
    ] {
        let err = tools
            .call(&ToolCall::new("1", tool, json!({ key: long })))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidArgs, "{tool}");
        assert!(err.message().contains(key), "{tool}: {}", err.message());
    }
    let ok = tools
        .call(&ToolCall::new(
            "2",
            "search",
            json!({"query": "x".repeat(200)}),
        ))
        .await;
    assert!(ok.is_ok() || ok.unwrap_err().kind() != ToolErrorKind::InvalidArgs);
}

/// A unit to convert to.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Metres,
    Feet,
}

#[derive(Deserialize, JsonSchema)]
struct Convert {
    /// The unit to convert to.
    unit: Unit,
}

#[tokio::test]
async fn a_long_wrong_value_is_clipped_and_the_reason_kept() {
    let mut registry = ToolRegistry::new();
    registry
        .register(typed_tool("convert", "Convert.", |c: Convert| async move {
            Ok::<_, ToolError>(match c.unit {
                Unit::Metres => "m",
                Unit::Feet => "ft",
            })
        }))
        .unwrap();
    let tools = registry.allow_all();
    let long = "kilometres or maybe miles ".repeat(20);
    let e = err(&tools, "convert", json!({ "unit": long })).await;
    assert_eq!(e.kind(), ToolErrorKind::InvalidArgs);
    let message = e.message();
    assert!(
        message.starts_with("field `unit`: \"kilometres"),
        "{message}"
    );
    assert!(message.contains("is not one of"), "{message}");
    assert!(
        message.contains("metres") && message.contains("feet"),
        "{message}"
    );
    assert!(message.len() < 400, "{message}");
}
