//! A `grep` or file search that missed, showing short files whole in a
//! match's place, made again the same way: it is no nearer the answer,
//! so its tool is set aside for a turn (the model reads the file it was
//! shown) rather than the work ending for an answer the model has not
//! found.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod forced;

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, StopReason};
use forced::{agent_with_files, call_step as call, folder};

#[tokio::test]
async fn a_grep_that_missed_again_sets_grep_aside_and_the_file_is_read() {
    let dir = folder(
        "missed",
        &[(
            "config/prod.toml",
            "[server]\nhost = \"0.0.0.0\"\nport = 8443\n",
        )],
    );
    let grep = call(
        "grep",
        r#"{"pattern": "listen", "path": "config/prod.toml"}"#,
    );
    let model = Arc::new(
        ScriptedModel::new()
            .text(grep.clone())
            .text(grep)
            .text(call("read_file", r#"{"path": "config/prod.toml"}"#))
            .text("Thought: It is there.\nFinal Answer: 8443"),
    );
    let outcome = agent_with_files(&model, &["files"], Budget::default(), Some(dir.path()))
        .run("What port does the prod server listen on?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert!(!outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("8443"));
    let requests = model.requests();
    let told = &requests[2].messages.last().unwrap().content;
    assert!(told.contains("port = 8443"), "{told}");
    assert!(
        told.contains(
            "this exact call found no match again. For the next turn, `grep` is set aside"
        ),
        "{told}"
    );
    // The turn after the repeat offers no grep; the one after that does.
    let offered = |request: usize| {
        requests[request]
            .constraint
            .as_ref()
            .map(|c| c.grammar.contains("\"grep\\nAction Input: \""))
    };
    assert_eq!(offered(2), Some(false));
    assert_eq!(offered(3), Some(true));
}

#[tokio::test]
async fn a_grep_for_a_translated_word_is_told_the_questions_own_word() {
    let dir = folder(
        "translated",
        &[(
            "comptes/2024/fevrier.csv",
            "date;categorie;libelle;montant\n01/02/2024;loyer;Loyer;780,00\n\
             02/02/2024;carburant;Station A;62,40\n05/02/2024;courses;Marché;84,17\n\
             11/02/2024;carburant;Station B;58,15\n",
        )],
    );
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("grep", r#"{"pattern": "fuel", "path": "comptes"}"#))
            .text(call(
                "grep",
                r#"{"pattern": "carburant", "path": "comptes"}"#,
            ))
            .text("Thought: Summed.\nFinal Answer: 120,55"),
    );
    let outcome = agent_with_files(&model, &["files"], Budget::default(), Some(dir.path()))
        .run("Combien ai-je dépensé en carburant en février 2024 ? Mes relevés sont dans le dossier comptes.")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let requests = model.requests();
    let told = &requests[1].messages.last().unwrap().content;
    assert!(
        told.contains(
            "(Note: this call found nothing, but the question's word `carburant` is in 2 lines above: \
             search for it as the question writes it.)"
        ),
        "{told}"
    );
    // The search with the question's word finds the rows; no note then.
    let found = &requests[2].messages.last().unwrap().content;
    assert!(
        found.contains("carburant") && !found.contains("found nothing"),
        "{found}"
    );
}
