//! The file and search tools find a name or a word written loosely:
//! whatever its accents (a model writes `Zurich`, `reunion.md` or `Sao
//! Paulo` where the files say `Zürich`, `reunión.md` or `São Paulo`, or
//! the other way round, and a file name may be stored decomposed, as macOS
//! writes it), or, for a file, with a typo (`reciepts.csv`) or in full
//! where the file's name abbreviates it (`database` for `db.yaml`); and a grep
//! that misses in files of another script says so.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use agent_core::{Tool, ToolCall, Toolbox};
use agent_tools::ToolSet;
use agent_tools::builtin::{Document, Search, registry};
use serde_json::{Value, json};

fn files(root: &Path) -> ToolSet {
    registry(&["files"], Some(root), true).unwrap().allow_all()
}

async fn call(tools: &ToolSet, name: &str, args: Value) -> String {
    match tools.call(&ToolCall::new("t", name, args)).await {
        Ok(output) => output.content,
        Err(err) => format!("error: {}", err.message()),
    }
}

/// A working directory whose names and text carry accents, one of them
/// written decomposed (`e` and a combining acute accent).
fn accented_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("notas")).unwrap();
    std::fs::write(
        root.join("notas/reunión-lunes.md"),
        "Presupuesto aprobado: 4200 euros\nPróxima reunión: jueves\n",
    )
    .unwrap();
    std::fs::write(
        root.join("notas/compras.md"),
        "Proveedor: Papelería Gómez\n",
    )
    .unwrap();
    std::fs::write(
        root.join("offices.csv"),
        "city,desks\nZürich,42\nSão Paulo,17\nKraków,23\n",
    )
    .unwrap();
    std::fs::write(
        root.join("re\u{301}sume\u{301}.txt"),
        "Years of experience: 9\n",
    )
    .unwrap();
    dir
}

#[tokio::test]
async fn a_file_named_without_its_accents_is_read() {
    let dir = accented_dir();
    let tools = files(dir.path());
    let read = call(
        &tools,
        "read_file",
        json!({"path": "notas/reunion-lunes.md"}),
    )
    .await;
    assert!(
        read.starts_with(
            "`notas/reunion-lunes.md` is not a file in the working directory; the closest one is `notas/reunión-lunes.md`"
        ),
        "{read}"
    );
    assert!(read.contains("4200 euros"), "{read}");
    // Composed accents find a name stored decomposed.
    let read = call(&tools, "read_file", json!({"path": "résumé.txt"})).await;
    assert!(read.contains("Years of experience: 9"), "{read}");
}

#[tokio::test]
async fn globs_and_name_parts_match_whatever_the_accents() {
    let dir = accented_dir();
    let tools = files(dir.path());
    let found = call(&tools, "search_files", json!({"glob": "*reunion*"})).await;
    assert_eq!(found, "notas/reunión-lunes.md");
    let found = call(&tools, "search_files", json!({"glob": "**/REUNIÓN-*.md"})).await;
    assert_eq!(found, "notas/reunión-lunes.md");
    let found = call(&tools, "search_files", json!({"glob": "resume"})).await;
    assert!(found.contains("re\u{301}sume\u{301}.txt"), "{found}");
}

#[tokio::test]
async fn grep_finds_a_word_written_with_other_accents() {
    let dir = accented_dir();
    let tools = files(dir.path());
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "Zurich", "path": "offices.csv"}),
    )
    .await;
    assert!(
        out.contains("offices.csv:2: city: Zürich | desks: 42"),
        "{out}"
    );
    let out = call(&tools, "grep", json!({"pattern": "Sao Paulo"})).await;
    assert!(out.contains("São Paulo"), "{out}");
    assert!(!out.contains("Zürich"), "{out}");
    let out = call(&tools, "grep", json!({"pattern": "papeleria gomez"})).await;
    assert!(
        out.contains("notas/compras.md:1: Proveedor: Papelería Gómez"),
        "{out}"
    );
    // Accents added where the file has none find it too.
    let out = call(&tools, "grep", json!({"pattern": "Presupuésto"})).await;
    assert!(out.contains("Presupuesto aprobado: 4200 euros"), "{out}");
    // A word the files do not hold in any form is still a miss, and a
    // regex is taken as written.
    let out = call(&tools, "grep", json!({"pattern": "Lisboa"})).await;
    assert!(out.starts_with("no matches"), "{out}");
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "Zurich", "is_regex": true}),
    )
    .await;
    assert!(out.starts_with("no matches"), "{out}");
}

#[tokio::test]
async fn search_finds_an_entry_whatever_the_accents_of_the_query() {
    let search = Search::from_documents(vec![
        Document::new("Zürich", "Zürich has about 420,000 inhabitants."),
        Document::new("São Paulo", "São Paulo has about 11.4 million inhabitants.")
            .with_names(["Sao Paulo Brazil"]),
        Document::new("Geneva", "Geneva has about 200,000 inhabitants.").with_names(["Genève"]),
    ]);
    let first = |query: &str| {
        search
            .query(query)
            .first()
            .map(|d| d.title.clone())
            .unwrap_or_default()
    };
    assert_eq!(first("population of Zurich"), "Zürich");
    assert_eq!(first("ZÜRICH inhabitants"), "Zürich");
    assert_eq!(first("Sao Paulo"), "São Paulo");
    assert_eq!(first("habitants de Geneve"), "Geneva");
    // A decomposed accent in a query is folded before words are split.
    assert_eq!(first("Zu\u{308}rich inhabitants"), "Zürich");
    let out = search
        .call(json!({"query": "Geneve"}))
        .await
        .map(|o| o.content)
        .unwrap_or_default();
    assert!(out.starts_with("Geneva (also called Genève): "), "{out}");
}

#[tokio::test]
async fn a_file_named_with_a_typo_is_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("finance")).unwrap();
    std::fs::write(
        dir.path().join("finance/receipts.csv"),
        "item,eur\ndesk,240\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("finance/budget.csv"),
        "item,eur\nchairs,900\n",
    )
    .unwrap();
    let tools = files(dir.path());
    let read = call(&tools, "read_file", json!({"path": "finance/reciepts.csv"})).await;
    assert!(
        read.starts_with("`finance/reciepts.csv` is not a file in the working directory; the closest one is `finance/receipts.csv`"),
        "{read}"
    );
    assert!(read.contains("desk,240"), "{read}");
    // Two typos in one word are another word: no file is read in its
    // place.
    let read = call(&tools, "read_file", json!({"path": "finance/recpiets.csv"})).await;
    assert!(!read.contains("the closest one is"), "{read}");

    // Search reads no typos: everyday words are one letter from a title
    // word too (`count`, `Mount`; `power`, `Tower`), and a query about
    // something the base does not cover must find nothing.
    let search = Search::new();
    for query in [
        "count the words",
        "power output of a plant",
        "pairs of socks",
    ] {
        assert!(search.query(query).is_empty(), "{query}");
    }
}

#[tokio::test]
async fn a_name_written_in_full_finds_the_file_that_abbreviates_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("config")).unwrap();
    std::fs::write(dir.path().join("config/app.yaml"), "app:\n  workers: 8\n").unwrap();
    std::fs::write(
        dir.path().join("config/db.yaml"),
        "db:\n  pool:\n    max_connections: 40\n",
    )
    .unwrap();
    let tools = files(dir.path());
    // A search shows the short file whole; a read is not made in its
    // place (an abbreviation is a guess), but shows it too.
    let found = call(&tools, "search_files", json!({"glob": "database.conf"})).await;
    assert!(found.contains("`config/db.yaml`:"), "{found}");
    assert!(found.contains("max_connections: 40"), "{found}");
    assert!(!found.contains("workers"), "{found}");
    let read = call(&tools, "read_file", json!({"path": "database.yaml"})).await;
    assert!(
        read.starts_with("`database.yaml` is not a file in the working directory."),
        "{read}"
    );
    assert!(read.contains("max_connections: 40"), "{read}");
}

#[tokio::test]
async fn a_miss_in_files_of_another_script_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("склад")).unwrap();
    std::fs::write(
        root.join("склад/остатки.csv"),
        "наименование,количество\nвинт оцинкованный,<count>\n",
    )
    .unwrap();
    let tools = files(root);
    let out = call(&tools, "grep", json!({"pattern": "zinc screws"})).await;
    // The miss says the file is in another script, and it follows whole.
    assert!(
        out.starts_with(
            "no matches for `zinc screws` in 1 file under `.`, ignoring case; the file is \
             written in another script: look for what the pattern means in its words. \
             `склад/остатки.csv` is short; here it is whole:\n1| наименование,количество"
        ),
        "{out}"
    );
    // A code typed with Cyrillic letters that look Latin, and a `×`, is
    // found as the model writes it.
    std::fs::write(
        root.join("склад/май.csv"),
        "Артикул;Наименование;Остаток\nВ-106;Винт М6×20, оцинк.;<count>\n",
    )
    .unwrap();
    let out = call(&tools, "grep", json!({"pattern": "M6x20"})).await;
    assert!(out.contains("Винт М6×20, оцинк."), "{out}");
    // A pattern without letters, or a regex, is told nothing about scripts.
    let out = call(&tools, "grep", json!({"pattern": "4608"})).await;
    assert!(!out.contains("another script"), "{out}");
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "zinc.*", "is_regex": true}),
    )
    .await;
    assert!(!out.contains("another script"), "{out}");
    // A pattern in the files' own script is told nothing about scripts.
    let out = call(&tools, "grep", json!({"pattern": "болт"})).await;
    assert!(out.starts_with("no matches for `болт`"), "{out}");
    assert!(!out.contains("another script"), "{out}");
}
