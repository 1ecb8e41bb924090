//! A number copied into a calculator call with a dot between thousands
//! (`1.250` from a Spanish table, a German question) runs as the plain
//! number its text means, and the observation says so; where the text
//! writes a decimal point (`1.250` m in English), it runs as written.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod forced;

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Agent, Budget, StopReason};
use forced::{agent_with_files, call_step as call, folder};

fn agent(model: &Arc<ScriptedModel>, dir: Option<&std::path::Path>) -> Agent {
    agent_with_files(model, &["files", "calculator"], Budget::default(), dir)
}

/// The observations the model was shown, in order, without their fence.
fn observations(outcome: &agent_core::Outcome) -> Vec<String> {
    outcome
        .transcript
        .iter()
        .filter_map(|m| m.content.strip_prefix("Observation: ```\n"))
        .map(|text| text.trim_end_matches("\n```").to_string())
        .collect()
}

#[tokio::test]
async fn a_thousands_dot_copied_from_a_table_runs_as_thousands() {
    let dir = folder(
        "ventas",
        &[(
            "ventas.csv",
            "producto,unidades,importe\ncafé molido,50,1.250\ntazas,96,830\n",
        )],
    );
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("read_file", r#"{"path": "ventas.csv"}"#))
            .text(call("calculator", r#"{"expression": "1.250 + 830"}"#))
            .text("Thought: I have it.\nFinal Answer: 2.080 €"),
    );
    let outcome = agent(&model, Some(dir.path()))
        .run("¿Cuál es el importe total según ventas.csv?")
        .await;
    let seen = observations(&outcome);
    assert_eq!(
        seen[1],
        "2080\n(Note: this call ran with 1250 in place of 1.250: the text it comes from writes thousands with a dot.)"
    );
    // The answer written the same way is the computed number.
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("2.080 €"));
    assert_eq!(outcome.steps, 3);
}

#[tokio::test]
async fn a_question_in_german_reads_its_dot_as_thousands() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("calculator", r#"{"expression": "1.250 * 48"}"#))
            .text("Thought: Done.\nFinal Answer: 60000 €"),
    );
    let outcome = agent(&model, None)
        .run("Der Verein hat 1.250 Mitglieder, jedes zahlt 48 € im Jahr. Wie viel ist das insgesamt?")
        .await;
    assert!(
        observations(&outcome)[0]
            .starts_with("60000\n(Note: this call ran with 1250 in place of 1.250")
    );
    assert_eq!(outcome.answer.as_deref(), Some("60000 €"));
}

#[tokio::test]
async fn a_decimal_point_in_an_english_text_runs_as_written() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("calculator", r#"{"expression": "1.250 * 4"}"#))
            .text("Thought: Done.\nFinal Answer: 5 m"),
    );
    let outcome = agent(&model, None)
        .run("Each rod is 1.250 m long. How long are 4 rods laid end to end?")
        .await;
    assert_eq!(observations(&outcome)[0], "5");
    assert_eq!(outcome.answer.as_deref(), Some("5 m"));
}

#[tokio::test]
async fn a_tools_own_english_words_around_a_spanish_file_do_not_make_its_dots_decimal() {
    let dir = folder(
        "poblacion",
        &[(
            "poblacion.txt",
            "Toledo: 85.000 habitantes\nCuenca: 54.000 habitantes\n",
        )],
    );
    let model = Arc::new(
        ScriptedModel::new()
            .text(call(
                "grep",
                r#"{"pattern": "Toledo", "path": "poblacion.txt"}"#,
            ))
            .text(call("calculator", r#"{"expression": "85.000 + 54.000"}"#))
            .text("Thought: done.\nFinal Answer: 139.000"),
    );
    let outcome = agent(&model, Some(dir.path()))
        .run("Según poblacion.txt, ¿cuántos habitantes tienen juntas las dos ciudades?")
        .await;
    let seen = observations(&outcome);
    assert!(seen[0].contains("here it is whole"), "{seen:?}");
    assert!(
        seen[1].starts_with("139000\n(Note: this call ran with 85000 in place of 85.000 and 54000 in place of 54.000"),
        "{seen:?}"
    );
    assert_eq!(outcome.answer.as_deref(), Some("139.000"));
    assert_eq!(outcome.steps, 3);
}

#[tokio::test]
async fn a_decimal_comma_dropped_from_the_questions_number_runs_as_the_number() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("calculator", r#"{"expression": "1.25075 * 4 / 3"}"#))
            .text("Thought: I have it.\nFinal Answer: 1667,67"),
    );
    let outcome = agent(&model, None)
        .run("Quanto fa 1.250,75 moltiplicato per 4 e poi diviso per 3?")
        .await;
    let seen = observations(&outcome);
    assert_eq!(
        seen[0],
        "1667.66666667 (to 2 decimals: 1667.67)\n(Note: this call ran with 1250.75 in place of 1.25075: the text it comes from writes thousands with a dot.)"
    );
    assert_eq!(outcome.answer.as_deref(), Some("1667,67"));
}
