//! File tools: behaviour, and a table of path-escape attacks that must all
//! be refused without reading or writing anything outside the root.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use agent_core::tool::ToolErrorKind;
use agent_core::{ToolCall, Toolbox};
use agent_tools::ToolSet;
use agent_tools::builtin::{FileTools, registry};
use serde_json::{Value, json};

const SECRET: &str = "TOP SECRET outside the root";

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(root.join("a.txt"), "alpha\nbeta\ngamma\nbeta again\n").unwrap();
    std::fs::write(
        root.join("src/main.rs"),
        "fn main() {\n    println!(\"hi\");\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn answer() -> u32 {\n    41\n}\n",
    )
    .unwrap();
    std::fs::write(root.join("blob.bin"), [0u8, 159, 146, 150, 0, 1, 2]).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("link_out")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("link_file")).unwrap();
    std::os::unix::fs::symlink(outside.join("new.txt"), root.join("dangling")).unwrap();
    std::os::unix::fs::symlink("../..", root.join("sub/up")).unwrap();
    std::os::unix::fs::symlink(root.join("a.txt"), root.join("inner_link")).unwrap();
    Fixture {
        _dir: dir,
        root,
        outside,
    }
}

/// Two log files under `logs/`, too long together to be shown whole.
fn write_long_logs(root: &Path) {
    std::fs::create_dir_all(root.join("logs")).unwrap();
    for day in 1..=2 {
        let lines: String = (0..40).map(|i| format!("day {day} event {i}\n")).collect();
        std::fs::write(root.join(format!("logs/day-{day}.log")), lines).unwrap();
    }
}

fn tools(root: &Path, read_only: bool) -> ToolSet {
    registry(&["files"], Some(root), read_only)
        .unwrap()
        .allow_all()
}

async fn call(tools: &ToolSet, name: &str, args: Value) -> Result<String, (ToolErrorKind, String)> {
    tools
        .call(&ToolCall::new("t", name, args))
        .await
        .map(|o| o.content)
        .map_err(|e| (e.kind(), e.message().to_string()))
}

fn snapshot_outside(outside: &Path) -> Vec<(String, String)> {
    let mut entries: Vec<(String, String)> = std::fs::read_dir(outside)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let content = std::fs::read_to_string(e.path()).unwrap_or_default();
            (e.file_name().to_string_lossy().to_string(), content)
        })
        .collect();
    entries.sort();
    entries
}

#[tokio::test]
async fn path_escape_attacks_are_all_refused() {
    let f = fixture();
    let tools = tools(&f.root, false);
    // Created after the root was opened.
    std::os::unix::fs::symlink(&f.outside, f.root.join("late_link")).unwrap();
    let before = snapshot_outside(&f.outside);
    let secret_abs = f.outside.join("secret.txt").display().to_string();
    let long_path = "a/".repeat(600);
    let long_component = "x".repeat(300);

    let attacks: Vec<(&str, &str, Value)> = vec![
        (
            "absolute /etc/passwd",
            "read_file",
            json!({"path": "/etc/passwd"}),
        ),
        (
            "absolute path to the secret",
            "read_file",
            json!({"path": secret_abs}),
        ),
        ("../", "read_file", json!({"path": "../outside/secret.txt"})),
        (
            "nested sub/../../",
            "read_file",
            json!({"path": "sub/../../outside/secret.txt"}),
        ),
        (
            "nested a/../../",
            "read_file",
            json!({"path": "a/../../outside/secret.txt"}),
        ),
        (
            "./../",
            "read_file",
            json!({"path": "./../outside/secret.txt"}),
        ),
        (
            "windows ..\\",
            "read_file",
            json!({"path": "..\\outside\\secret.txt"}),
        ),
        (
            "windows nested",
            "read_file",
            json!({"path": "sub\\..\\..\\outside\\secret.txt"}),
        ),
        (
            "windows drive",
            "read_file",
            json!({"path": "C:\\Windows\\win.ini"}),
        ),
        (
            "UNC path",
            "read_file",
            json!({"path": "\\\\server\\share\\secret.txt"}),
        ),
        ("home ~", "read_file", json!({"path": "~/.ssh/id_rsa"})),
        (
            "symlinked directory",
            "read_file",
            json!({"path": "link_out/secret.txt"}),
        ),
        (
            "symlink to an outside file",
            "read_file",
            json!({"path": "link_file"}),
        ),
        (
            "symlink up the tree",
            "read_file",
            json!({"path": "sub/up/outside/secret.txt"}),
        ),
        (
            "symlink created after open",
            "read_file",
            json!({"path": "late_link/secret.txt"}),
        ),
        ("NUL byte", "read_file", json!({"path": "a.txt\u{0}.png"})),
        ("very long path", "read_file", json!({"path": long_path})),
        (
            "over-long component",
            "read_file",
            json!({"path": long_component}),
        ),
        (
            "url-encoded dots",
            "read_file",
            json!({"path": "%2e%2e/outside/secret.txt"}),
        ),
        (
            "grep outside",
            "grep",
            json!({"pattern": "SECRET", "path": "../outside"}),
        ),
        (
            "grep through a link",
            "grep",
            json!({"pattern": "SECRET", "path": "link_out"}),
        ),
        (
            "list through a link",
            "search_files",
            json!({"glob": "*", "dir": "link_out"}),
        ),
        (
            "write ../",
            "write_file",
            json!({"path": "../outside/evil.txt", "content": "x"}),
        ),
        (
            "write nested ../",
            "write_file",
            json!({"path": "sub/../../outside/evil.txt", "content": "x"}),
        ),
        (
            "write absolute",
            "write_file",
            json!({"path": f.outside.join("evil.txt"), "content": "x"}),
        ),
        (
            "write via dangling symlink",
            "write_file",
            json!({"path": "dangling", "content": "x"}),
        ),
        (
            "write under a symlinked parent",
            "write_file",
            json!({"path": "link_out/new_dir/evil.txt", "content": "x"}),
        ),
        (
            "write under a late symlink",
            "write_file",
            json!({"path": "late_link/evil.txt", "content": "x"}),
        ),
        (
            "edit through a symlink",
            "edit_file",
            json!({"path": "link_file", "old": "TOP", "new": "PWNED"}),
        ),
        (
            "edit ../",
            "edit_file",
            json!({"path": "../outside/secret.txt", "old": "TOP", "new": "PWNED"}),
        ),
    ];
    assert!(attacks.len() >= 19);
    for (label, tool, args) in &attacks {
        match call(&tools, tool, args.clone()).await {
            Ok(out) => panic!("{label}: not refused: {out}"),
            Err((kind, message)) => {
                assert!(
                    matches!(
                        kind,
                        ToolErrorKind::Denied | ToolErrorKind::Failed | ToolErrorKind::InvalidArgs
                    ),
                    "{label}: {kind:?}"
                );
                assert!(
                    !message.contains("TOP SECRET"),
                    "{label}: leaked the secret"
                );
                let root_text = f.root.display().to_string();
                assert!(
                    !message.contains(&root_text),
                    "{label}: leaked the root path: {message}"
                );
            }
        }
    }
    // An absolute folder to search is a guess: the working directory is
    // searched instead, and nothing outside it is listed or read.
    for (tool, args) in [
        ("search_files", json!({"glob": "**", "dir": "/"})),
        (
            "search_files",
            json!({"glob": "*secret*", "dir": f.outside}),
        ),
        ("grep", json!({"pattern": "SECRET", "path": f.outside})),
    ] {
        let out = call(&tools, tool, args.clone())
            .await
            .unwrap_or_else(|(_, m)| m);
        assert!(!out.contains("TOP SECRET"), "{args}: leaked the secret");
        assert!(!out.contains("outside/"), "{args}: listed outside: {out}");
        assert!(
            !out.contains(&f.root.display().to_string()),
            "{args}: leaked the root path: {out}"
        );
        assert!(
            out.contains("is not in the working directory; all of it was searched instead"),
            "{args}: {out}"
        );
    }
    assert_eq!(
        snapshot_outside(&f.outside),
        before,
        "nothing outside was written"
    );
    assert!(!f.outside.join("new_dir").exists());
}

#[tokio::test]
async fn links_inside_the_root_still_work() {
    let f = fixture();
    let tools = tools(&f.root, true);
    let out = call(&tools, "read_file", json!({"path": "inner_link"}))
        .await
        .unwrap();
    assert!(out.contains("alpha"));
}

#[tokio::test]
async fn read_file_numbers_lines_and_reads_ranges() {
    let f = fixture();
    let tools = tools(&f.root, true);
    let all = call(&tools, "read_file", json!({"path": "a.txt"}))
        .await
        .unwrap();
    assert_eq!(all, "1| alpha\n2| beta\n3| gamma\n4| beta again");
    // A short file comes whole whatever range is asked: small models ask
    // for ranges that cut off what they need.
    let range = call(
        &tools,
        "read_file",
        json!({"path": "a.txt", "start": 2, "end": 2}),
    )
    .await
    .unwrap();
    assert_eq!(range, all);
    // A long one is paged.
    let long: String = (1..=200).map(|n| format!("row {n}\n")).collect();
    std::fs::write(f.root.join("long.txt"), long).unwrap();
    let range = call(
        &tools,
        "read_file",
        json!({"path": "long.txt", "start": 99, "end": 100}),
    )
    .await
    .unwrap();
    assert_eq!(
        range,
        " 99| row 99\n100| row 100\n[lines 99-100 of 200; use start/end to read more]"
    );
    std::fs::remove_file(f.root.join("long.txt")).unwrap();
    let (kind, msg) = call(&tools, "read_file", json!({"path": "missing.txt"}))
        .await
        .unwrap_err();
    assert_eq!(kind, ToolErrorKind::Failed);
    // A path that is not there teaches the right one: similar names, or
    // what the nearest directory holds.
    assert_eq!(
        msg,
        "that path does not exist. The working directory has: a.txt, blob.bin, src/lib.rs, src/main.rs. Read one with read_file."
    );
    // A guessed name with one clearly closest file reads that file, and
    // says so.
    let read = call(&tools, "read_file", json!({"path": "lib.rs"}))
        .await
        .unwrap();
    assert_eq!(
        read,
        "`lib.rs` is not a file in the working directory; the closest one is `src/lib.rs`:\n1| pub fn answer() -> u32 {\n2|     41\n3| }"
    );
    let read = call(&tools, "read_file", json!({"path": "/home/me/src/main.rs"}))
        .await
        .unwrap();
    assert!(
        read.starts_with(
            "`/home/me/src/main.rs` is not a file in the working directory; the closest one is `src/main.rs`:\n1| fn main() {"
        ),
        "{read}"
    );
    // Two files as close, short together: both are shown whole.
    std::fs::write(f.root.join("src/lib.txt"), "notes\n").unwrap();
    let read = call(&tools, "read_file", json!({"path": "lib.md"}))
        .await
        .unwrap();
    assert_eq!(
        read,
        "`lib.md` is not a file in the working directory. The files with similar names are short; here they are whole:\n`src/lib.rs`:\n1| pub fn answer() -> u32 {\n2|     41\n3| }\n`src/lib.txt`:\n1| notes"
    );
    // Only the folder matches: the note says no file is named like it.
    std::fs::create_dir_all(f.root.join("docs")).unwrap();
    std::fs::write(f.root.join("docs/onboarding.md"), "1. Get a laptop.\n").unwrap();
    let read = call(
        &tools,
        "read_file",
        json!({"path": "docs/deploy-checklist.md"}),
    )
    .await
    .unwrap();
    assert_eq!(
        read,
        "`docs/deploy-checklist.md` is not a file in the working directory. No file has a similar name; the file whose path is most like it is short; here it is whole:\n`docs/onboarding.md`:\n1| 1. Get a laptop."
    );
    std::fs::remove_dir_all(f.root.join("docs")).unwrap();
    // Two files as close, too long to show: neither is read, both are named.
    write_long_logs(&f.root);
    let (_, msg) = call(&tools, "read_file", json!({"path": "day.log"}))
        .await
        .unwrap_err();
    assert_eq!(
        msg,
        "that path does not exist. Similar paths: `logs/day-1.log`, `logs/day-2.log`. Read one with read_file."
    );
    std::fs::remove_dir_all(f.root.join("logs")).unwrap();
    std::fs::remove_file(f.root.join("src/lib.txt")).unwrap();
    let (kind, msg) = call(&tools, "read_file", json!({"path": "/home/me/nothing.rs"}))
        .await
        .unwrap_err();
    assert_eq!(kind, ToolErrorKind::Denied);
    assert_eq!(
        msg,
        "absolute paths are not allowed; paths are relative to the working directory. The working directory has: a.txt, blob.bin, src/lib.rs, src/main.rs. Read one with read_file."
    );
    let (_, msg) = call(&tools, "read_file", json!({"path": "src"}))
        .await
        .unwrap_err();
    assert_eq!(
        msg,
        "that path is a directory, not a file; it has: src/lib.rs, src/main.rs"
    );
    let (_, msg) = call(&tools, "read_file", json!({"path": "blob.bin"}))
        .await
        .unwrap_err();
    assert_eq!(
        msg,
        "`blob.bin` is a binary file (7 bytes); it is not shown"
    );
}

#[tokio::test]
async fn grep_prints_file_line_text_and_search_files_globs() {
    let f = fixture();
    let tools = tools(&f.root, true);
    let out = call(&tools, "grep", json!({"pattern": "beta"}))
        .await
        .unwrap();
    // A match in a short file shows the file whole after it.
    assert_eq!(
        out,
        "a.txt:2: beta\na.txt:4: beta again\n`a.txt` is short; here it is whole:\n1| alpha\n2| beta\n3| gamma\n4| beta again"
    );
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "fn \\w+\\(", "path": "src", "is_regex": true}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        "src/lib.rs:1: pub fn answer() -> u32 {\nsrc/main.rs:1: fn main() {\nThey are short; here they are whole:\n`src/lib.rs`:\n1| pub fn answer() -> u32 {\n2|     41\n3| }\n`src/main.rs`:\n1| fn main() {\n2|     println!(\"hi\");\n3| }"
    );
    let (kind, _) = call(&tools, "grep", json!({"pattern": "(", "is_regex": true}))
        .await
        .unwrap_err();
    assert_eq!(kind, ToolErrorKind::InvalidArgs);
    let out = call(&tools, "search_files", json!({"glob": "**/*.rs"}))
        .await
        .unwrap();
    assert_eq!(out, "src/lib.rs\nsrc/main.rs");
    let out = call(
        &tools,
        "search_files",
        json!({"glob": "*.rs", "dir": "src"}),
    )
    .await
    .unwrap();
    assert_eq!(out, "src/lib.rs\nsrc/main.rs");
    // A folder that is not there, or an absolute one, is a guess: the
    // whole working directory is searched, and the first line says so.
    for dir in ["code", "/home/user/project"] {
        let out = call(&tools, "search_files", json!({"glob": "*.rs", "dir": dir}))
            .await
            .unwrap();
        assert_eq!(
            out,
            format!(
                "`{dir}` is not in the working directory; all of it was searched instead:\nsrc/lib.rs\nsrc/main.rs"
            )
        );
    }
    // Symlinks are not followed by walks: the secret never shows.
    let out = call(&tools, "grep", json!({"pattern": "SECRET"}))
        .await
        .unwrap();
    // Nothing found among a few files, short together, shows them whole
    // (the text ones).
    assert_eq!(
        out,
        "no matches for `SECRET` in 4 files under `.`, ignoring case. They are short; here they are whole:\n`a.txt`:\n1| alpha\n2| beta\n3| gamma\n4| beta again\n`src/lib.rs`:\n1| pub fn answer() -> u32 {\n2|     41\n3| }\n`src/main.rs`:\n1| fn main() {\n2|     println!(\"hi\");\n3| }"
    );
    // Nothing found among a few files too long to show names them.
    write_long_logs(&f.root);
    let out = call(&tools, "grep", json!({"pattern": "SECRET", "path": "logs"}))
        .await
        .unwrap();
    assert_eq!(
        out,
        "no matches for `SECRET` in 2 files under `logs`, ignoring case; read one of them with read_file, or grep another word: logs/day-1.log, logs/day-2.log"
    );
    // Nothing found in one short file shows it.
    let out = call(&tools, "grep", json!({"pattern": "delta", "path": "a.txt"}))
        .await
        .unwrap();
    assert_eq!(
        out,
        "no matches for `delta` in 1 file under `a.txt`, ignoring case. `a.txt` is short; here it is whole:\n1| alpha\n2| beta\n3| gamma\n4| beta again"
    );
    // A table's matching rows name their columns; a row that does not
    // split into them comes after the header row.
    std::fs::write(
        f.root.join("stock.csv"),
        "sku,item,count\nA1,bolt,40\nA2,nut,75\nA3,\"nut, large\",9,extra\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "nut", "path": "stock.csv"}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        "stock.csv:3: sku: A2 | item: nut | count: 75\nstock.csv:1: sku,item,count\nstock.csv:4: A3,\"nut, large\",9,extra"
    );
    // Plain text found nowhere as written is looked for by its words,
    // each cut to a stem, on a line or a row read with its column names.
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "count of nuts", "path": "stock.csv"}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        "stock.csv:3: sku: A2 | item: nut | count: 75\n(no line has `count of nuts` as written; these lines have each of its words)"
    );
    let out = call(&tools, "grep", json!({"pattern": "again betas"}))
        .await
        .unwrap();
    assert_eq!(
        out,
        "a.txt:4: beta again\n`a.txt` is short; here it is whole:\n1| alpha\n2| beta\n3| gamma\n4| beta again\n(no line has `again betas` as written; these lines have each of its words)"
    );
    // A regex is not loosened, nor is a word that has no other form.
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "again betas", "is_regex": true}),
    )
    .await
    .unwrap();
    assert!(out.starts_with("no matches"), "{out}");
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "bolt nuts", "path": "stock.csv"}),
    )
    .await
    .unwrap();
    assert!(out.starts_with("no matches"), "{out}");
    // A guessed file name with one clearly closest file searches that one.
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "nut", "path": "data/stock.tsv"}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        "`data/stock.tsv` is not a file in the working directory; the closest one is `stock.csv`:\nstock.csv:3: sku: A2 | item: nut | count: 75\nstock.csv:1: sku,item,count\nstock.csv:4: A3,\"nut, large\",9,extra"
    );
    // Plain text is found whatever its case; a regex keeps its own.
    let out = call(&tools, "grep", json!({"pattern": "BETA AGAIN"}))
        .await
        .unwrap();
    assert_eq!(
        out,
        "a.txt:4: beta again\n`a.txt` is short; here it is whole:\n1| alpha\n2| beta\n3| gamma\n4| beta again"
    );
    let out = call(&tools, "grep", json!({"pattern": "BETA", "is_regex": true}))
        .await
        .unwrap();
    assert!(out.starts_with("no matches"), "{out}");
    // A bare name is found wherever it is, whatever its case.
    let out = call(&tools, "search_files", json!({"glob": "MAIN.rs"}))
        .await
        .unwrap();
    assert_eq!(out, "src/main.rs");
    let out = call(&tools, "search_files", json!({"glob": "main.py"}))
        .await
        .unwrap();
    // Similar files short together are shown whole.
    assert_eq!(
        out,
        "no files match `main.py` under `.`, ignoring case. The file with a similar name is short; here it is whole:\n`src/main.rs`:\n1| fn main() {\n2|     println!(\"hi\");\n3| }"
    );
    // A pattern that starts with the directory searched gets the same
    // similar paths as without the directory.
    let configs = tempfile::tempdir().unwrap();
    for (path, text) in [
        ("config/dev/http.yaml", "backoff_ms: 100\n"),
        ("config/prod/http.yaml", "backoff_ms: 1500\n"),
        ("config/prod/db.yaml", "pool: 20\n"),
    ] {
        std::fs::create_dir_all(configs.path().join(path).parent().unwrap()).unwrap();
        std::fs::write(configs.path().join(path), text).unwrap();
    }
    let config_tools = self::tools(configs.path(), true);
    for dir in [None, Some("config"), Some("config/")] {
        let mut args = json!({"glob": "config/http_client.yaml"});
        if let Some(dir) = dir {
            args["dir"] = json!(dir);
        }
        let out = call(&config_tools, "search_files", args).await.unwrap();
        assert!(
            out.ends_with("are short; here they are whole:\n`config/dev/http.yaml`:\n1| backoff_ms: 100\n`config/prod/http.yaml`:\n1| backoff_ms: 1500"),
            "{dir:?}: {out}"
        );
    }
    // A directory that is not there, but is clearly meant, is searched.
    std::fs::create_dir_all(f.root.join("documentation")).unwrap();
    std::fs::write(
        f.root.join("documentation/overview.md"),
        "Written by Ada.\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "written by", "path": "docs"}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        "`docs` is not a directory in the working directory; the closest one is `documentation`:\ndocumentation/overview.md:1: Written by Ada."
    );
    let out = call(
        &tools,
        "search_files",
        json!({"glob": "*.md", "dir": "docs/"}),
    )
    .await
    .unwrap();
    assert!(out.ends_with("documentation/overview.md"), "{out}");
    // A pattern that names a directory lists what it holds.
    let out = call(&tools, "search_files", json!({"glob": "docs"}))
        .await
        .unwrap();
    assert!(
        out.ends_with(
            "The directory `documentation` has: documentation/overview.md. Read one with read_file."
        ),
        "{out}"
    );
    // A column's name found only in a table's header brings its values.
    std::fs::write(
        f.root.join("sales.csv"),
        "product,units,amount\ncoffee,50,1250\n\"mugs, large\",96,830\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "AMOUNT", "path": "sales.csv"}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        "sales.csv:1: product,units,amount\nsales.csv: column `amount` (2 rows): 1250, 830; sum 2080, mean 1040"
    );
    // A pattern in the rows is found there, as ever.
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "coffee", "path": "sales.csv"}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        "sales.csv:2: product: coffee | units: 50 | amount: 1250"
    );
    // The hints come from the directory searched, not the root.
    let out = call(
        &tools,
        "search_files",
        json!({"glob": "*.toml", "dir": "src"}),
    )
    .await
    .unwrap();
    assert!(
        out.starts_with("no files match `*.toml` under `src`")
            && out.contains("lib.rs")
            && out.contains("main.rs")
            && !out.contains("a.txt"),
        "{out}"
    );
}

#[tokio::test]
async fn grep_shows_a_short_matching_file_whole_but_not_many_or_long_ones() {
    let f = fixture();
    let tools = tools(&f.root, true);
    // The lines around a match answer what the match alone does not.
    std::fs::write(
        f.root.join("pricing.py"),
        "RATE = 0.15\n\n\ndef apply(price):\n    return price * (1 - RATE)\n",
    )
    .unwrap();
    let out = call(&tools, "grep", json!({"pattern": "def apply"}))
        .await
        .unwrap();
    assert_eq!(
        out,
        "pricing.py:4: def apply(price):\n`pricing.py` is short; here it is whole:\n1| RATE = 0.15\n2| \n3| \n4| def apply(price):\n5|     return price * (1 - RATE)"
    );
    // Matches in three files show only their lines.
    let out = call(&tools, "grep", json!({"pattern": "a"})).await.unwrap();
    assert!(!out.contains("whole"), "{out}");
    // Matches in a long file show only their lines.
    write_long_logs(&f.root);
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "event 7", "path": "logs/day-1.log"}),
    )
    .await
    .unwrap();
    assert_eq!(out, "logs/day-1.log:8: day 1 event 7");
    // A file whose every line matches is already all shown.
    let out = call(&tools, "grep", json!({"pattern": "0.15"}))
        .await
        .unwrap();
    assert!(
        out.ends_with("2| \n3| \n4| def apply(price):\n5|     return price * (1 - RATE)"),
        "{out}"
    );
    std::fs::write(f.root.join("one.txt"), "only line\n").unwrap();
    let out = call(&tools, "grep", json!({"pattern": "only line"}))
        .await
        .unwrap();
    assert_eq!(out, "one.txt:1: only line");
}

#[tokio::test]
async fn grep_sums_up_the_matching_rows_of_a_table() {
    let f = fixture();
    let tools = tools(&f.root, true);
    std::fs::write(
        f.root.join("sales.csv"),
        "month,region,units,revenue\n2024-04,North,12,300.50\n2024-05,North,10,250.00\n\
         2024-05,South,14,410.25\n2024-05,East,9,120\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "2024-05", "path": "sales.csv"}),
    )
    .await
    .unwrap();
    // The highest and lowest rows are named by the cells that tell them
    // apart (the region), not the month they share.
    assert_eq!(
        out.lines().last(),
        Some(
            "sales.csv: the 3 matching rows: `units` sum 33, mean 11, highest 14 (line 4: South), lowest 9 (line 5: East); \
             `revenue` sum 780.25, mean 260.0833, highest 410.25 (line 4: South), lowest 120 (line 5: East)"
        ),
        "{out}"
    );
    // One matching row has nothing to sum; a file that is no table is
    // never summed.
    let one = call(
        &tools,
        "grep",
        json!({"pattern": "South", "path": "sales.csv"}),
    )
    .await
    .unwrap();
    assert_eq!(
        one,
        "sales.csv:4: month: 2024-05 | region: South | units: 14 | revenue: 410.25"
    );
    std::fs::write(f.root.join("notes.txt"), "total 3\ntotal 4\n").unwrap();
    let text = call(
        &tools,
        "grep",
        json!({"pattern": "total", "path": "notes.txt"}),
    )
    .await
    .unwrap();
    assert!(!text.contains("matching rows"), "{text}");
}

#[tokio::test]
async fn grep_of_several_words_finds_them_in_another_order_too() {
    let f = fixture();
    let tools = tools(&f.root, true);
    std::fs::create_dir_all(f.root.join("notes")).unwrap();
    std::fs::write(
        f.root.join("notes/kickoff.md"),
        "# Kickoff\n- Budget for phase 1 agreed at <amount>\n- Phase 2 later\n",
    )
    .unwrap();
    std::fs::write(
        f.root.join("notes/sync.md"),
        "# Sync\n- asks to raise the phase 1 budget\n- phase 11 budget unknown\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "phase 1 budget", "path": "notes"}),
    )
    .await
    .unwrap();
    // Both notes' lines, and not the line of another number (`11`).
    assert!(
        out.contains("notes/kickoff.md:2: - Budget for phase 1 agreed"),
        "{out}"
    );
    assert!(
        out.contains("notes/sync.md:2: - asks to raise the phase 1 budget"),
        "{out}"
    );
    assert!(!out.contains("notes/sync.md:3:"), "{out}");
    assert!(!out.contains("as written"), "{out}");
    // Only in another order: said so.
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "agreed budget", "path": "notes"}),
    )
    .await
    .unwrap();
    assert!(
        out.starts_with("notes/kickoff.md:2: - Budget for phase 1 agreed at <amount>"),
        "{out}"
    );
    assert!(
        out.contains(
            "(no line has `agreed budget` as written; these lines have each of its words)"
        ),
        "{out}"
    );
}

#[tokio::test]
async fn grep_sums_up_matching_json_records() {
    let f = fixture();
    let tools = tools(&f.root, true);
    std::fs::write(
        f.root.join("shipments.json"),
        "[\n  {\"date\": \"2024-10-02\", \"item\": \"kettle, blue\", \"units\": 12},\n\
         {\"date\": \"2024-10-09\", \"item\": \"kettle, red\", \"units\": 25},\n\
         {\"date\": \"2024-10-15\", \"item\": \"kettle, blue\", \"units\": 30}\n]\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "blue", "path": "shipments.json"}),
    )
    .await
    .unwrap();
    assert!(
        out.contains(
            "shipments.json: the 2 matching rows, 2024-10-02 to 2024-10-15: `units` sum 42, mean 21, \
             highest 30 (line 4: 2024-10-15), lowest 12 (line 2: 2024-10-02)"
        ),
        "{out}"
    );
    // Text files are not read as records.
    std::fs::write(f.root.join("log.txt"), "{\"units\": 1}\n{\"units\": 2}\n").unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "units", "path": "log.txt"}),
    )
    .await
    .unwrap();
    assert!(!out.contains("matching rows"), "{out}");
}

#[tokio::test]
async fn grep_reads_a_markdown_table_in_a_note() {
    let f = fixture();
    let tools = tools(&f.root, true);
    std::fs::write(
        f.root.join("kosten.md"),
        "# Kosten 2024\n\n| Monat | Strom (€) | Gas (€) |\n|---|---|---|\n\
         | Januar | 92,10 | 131,00 |\n| Februar | 88,45 | 124,60 |\n| März | 81,30 | 102,75 |\n\n\
         Abschläge laut Vertrag.\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "uar", "path": "kosten.md"}),
    )
    .await
    .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "kosten.md:5: Monat: Januar | Strom (€): 92,10 | Gas (€): 131,00",
            "kosten.md:6: Monat: Februar | Strom (€): 88,45 | Gas (€): 124,60",
            "kosten.md: the 2 matching rows: `Strom (€)` sum 180.55, mean 90.275, \
             highest 92,10 (line 5: Januar), lowest 88,45 (line 6: Februar); \
             `Gas (€)` sum 255.6, mean 127.8, highest 131,00 (line 5: Januar), \
             lowest 124,60 (line 6: Februar)",
        ],
        "{out}"
    );
    // A column's name found only in the header gives its values.
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "strom", "path": "kosten.md"}),
    )
    .await
    .unwrap();
    assert!(
        out.contains(
            "kosten.md: column `Strom (€)` (3 rows): 92,10, 88,45, 81,30; sum 261.85, mean 87.2833"
        ),
        "{out}"
    );
}

#[tokio::test]
async fn grep_reads_a_table_written_the_european_way() {
    let f = fixture();
    let tools = tools(&f.root, true);
    // Cells split on `;`, numbers with a decimal comma and point groups.
    std::fs::write(
        f.root.join("gastos.csv"),
        "fecha;concepto;categoría;importe (€)\n12/08;Estación A;gasolina;61,35\n\
         12/08;Comida;comida;38,90\n14/08;Estación B;gasolina;1.047,80 €\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "gasolina", "path": "gastos.csv"}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        "gastos.csv:2: fecha: 12/08 | concepto: Estación A | categoría: gasolina | importe (€): 61,35\n\
         gastos.csv:4: fecha: 14/08 | concepto: Estación B | categoría: gasolina | importe (€): 1.047,80 €\n\
         gastos.csv: the 2 matching rows: `importe (€)` sum 1109.15, mean 554.575, \
         highest 1.047,80 € (line 4: 14/08, Estación B), lowest 61,35 (line 2: 12/08, Estación A)"
    );
}

#[tokio::test]
async fn edit_file_refuses_unless_old_matches_exactly_once() {
    let f = fixture();
    let tools = tools(&f.root, false);
    let (_, msg) = call(
        &tools,
        "edit_file",
        json!({"path": "a.txt", "old": "beta", "new": "B"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        msg,
        "`old` matches 2 times in `a.txt`; include more surrounding text so it matches exactly once"
    );
    let (_, msg) = call(
        &tools,
        "edit_file",
        json!({"path": "a.txt", "old": "delta", "new": "D"}),
    )
    .await
    .unwrap_err();
    assert!(msg.starts_with("`old` was not found in `a.txt`"));
    let out = call(
        &tools,
        "edit_file",
        json!({"path": "src/lib.rs", "old": "41", "new": "42"}),
    )
    .await
    .unwrap();
    assert_eq!(out, "edited `src/lib.rs`: replaced 1 occurrence");
    assert!(
        std::fs::read_to_string(f.root.join("src/lib.rs"))
            .unwrap()
            .contains("42")
    );
}

#[tokio::test]
async fn write_file_creates_folders_inside_the_root() {
    let f = fixture();
    let tools = tools(&f.root, false);
    let out = call(
        &tools,
        "write_file",
        json!({"path": "docs/new/notes.md", "content": "# Notes\n"}),
    )
    .await
    .unwrap();
    assert_eq!(out, "wrote 8 bytes to `docs/new/notes.md`");
    assert_eq!(
        std::fs::read_to_string(f.root.join("docs/new/notes.md")).unwrap(),
        "# Notes\n"
    );
}

#[tokio::test]
async fn read_only_mode_leaves_out_the_writing_tools() {
    let f = fixture();
    let names: Vec<String> = tools(&f.root, true)
        .specs()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, ["read_file", "grep", "search_files"]);
    let all: Vec<String> = FileTools::new(&f.root)
        .unwrap()
        .tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(
        all,
        [
            "read_file",
            "grep",
            "search_files",
            "write_file",
            "edit_file"
        ]
    );
    let (kind, _) = call(
        &tools(&f.root, true),
        "write_file",
        json!({"path": "x", "content": "y"}),
    )
    .await
    .unwrap_err();
    assert_eq!(kind, ToolErrorKind::NotFound);
    assert!(tools(&f.root, false).is_sequential("write_file"));
}

#[tokio::test]
async fn a_search_that_finds_nothing_says_so_to_the_run() {
    // The run tells the model on its answer turn that its calls found
    // nothing, and runs a repeat of such a call again instead of taking
    // it for the answer; a hint of similar paths is still nothing found,
    // but a file or a directory shown whole is something.
    let f = fixture();
    let tools = tools(&f.root, true);
    let found_nothing = |name: &'static str, args: Value| {
        let tools = &tools;
        async move {
            let out = tools.call(&ToolCall::new("t", name, args)).await.unwrap();
            (out.no_results, out.content)
        }
    };
    let (nothing, out) = found_nothing("grep", json!({"pattern": "SECRET"})).await;
    assert!(!nothing, "short files are shown whole: {out}");
    write_long_logs(&f.root);
    let (nothing, out) = found_nothing("grep", json!({"pattern": "SECRET", "path": "logs"})).await;
    assert!(nothing, "{out}");
    let (nothing, out) = found_nothing("search_files", json!({"glob": "main.py"})).await;
    assert!(!nothing, "the similar short file is shown whole: {out}");
    let (nothing, out) = found_nothing("search_files", json!({"glob": "day.log"})).await;
    assert!(nothing, "long similar files are only named: {out}");
    let (nothing, out) = found_nothing("grep", json!({"pattern": "delta", "path": "a.txt"})).await;
    assert!(!nothing, "the short file is shown whole: {out}");
    let (nothing, out) = found_nothing("search_files", json!({"glob": "src"})).await;
    assert!(
        !nothing && out.contains("main.rs"),
        "the directory is listed: {out}"
    );
    let (nothing, out) = found_nothing("grep", json!({"pattern": "beta"})).await;
    assert!(!nothing, "{out}");
}

#[tokio::test]
async fn dated_files_are_listed_with_their_weekday_and_read_back_with_it() {
    // "Thursday's standup" names a file by its weekday; the file's name
    // holds only the date.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("notes/standups")).unwrap();
    std::fs::write(
        root.join("notes/standups/2024-03-12.md"),
        "- Ana: invoices\n",
    )
    .unwrap();
    std::fs::write(
        root.join("notes/standups/2024-03-14.md"),
        "- Kenji: upgrade\n",
    )
    .unwrap();
    let tools = tools(root, true);
    let listed = call(&tools, "search_files", json!({"glob": "*.md"}))
        .await
        .unwrap();
    assert_eq!(
        listed,
        "notes/standups/2024-03-12.md (Tuesday)\nnotes/standups/2024-03-14.md (Thursday)"
    );
    let (_, missing) = call(&tools, "read_file", json!({"path": "standup.txt"}))
        .await
        .unwrap_err();
    assert!(
        missing.contains("notes/standups/2024-03-14.md (Thursday)"),
        "{missing}"
    );
    // A path copied with its weekday reads the file.
    let read = call(
        &tools,
        "read_file",
        json!({"path": "notes/standups/2024-03-14.md (Thursday)"}),
    )
    .await
    .unwrap();
    assert!(read.contains("Kenji"), "{read}");
}

#[tokio::test]
async fn grep_reads_field_value_pairs_as_the_values_of_one_row() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sales.csv"),
        "region,month,revenue\nNorth,Jul,61800\nNorth,Aug,64500\nSouth,Aug,69300\n",
    )
    .unwrap();
    let tools = tools(dir.path(), true);
    let out = call(&tools, "grep", json!({"pattern": "region:North,Aug"}))
        .await
        .unwrap();
    assert!(
        out.starts_with("sales.csv:3: region: North | month: Aug | revenue: 64500"),
        "{out}"
    );
    assert!(!out.contains("69300") && !out.contains("61800"), "{out}");
}

#[tokio::test]
async fn grep_in_a_folder_that_is_not_there_searches_the_whole_root() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("lib/http")).unwrap();
    std::fs::write(
        dir.path().join("lib/http/client.py"),
        "DEFAULT_CONNECT_TIMEOUT_MS = 2500\n",
    )
    .unwrap();
    let tools = tools(dir.path(), true);
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "CONNECT_TIMEOUT", "path": "src"}),
    )
    .await
    .unwrap();
    assert!(
        out.starts_with("`src` is not in the working directory; all of it was searched instead:\nlib/http/client.py:1: DEFAULT_CONNECT_TIMEOUT_MS = 2500"),
        "{out}"
    );
    // A file named in the call that no file's name looks like: the note
    // says so first, and the search is made all the same.
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "CONNECT_TIMEOUT", "path": "docs/timeouts.md"}),
    )
    .await
    .unwrap();
    assert!(
        out.starts_with("`docs/timeouts.md` is not in the working directory and no file has a similar name; all of it was searched instead:\nlib/http/client.py:1:"),
        "{out}"
    );
    // A file named like one that is there keeps the plain note.
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "CONNECT_TIMEOUT", "path": "http/client.txt"}),
    )
    .await
    .unwrap();
    assert!(!out.contains("no file has a similar name"), "{out}");
    // A path outside the root is still refused.
    let (kind, _) = call(&tools, "grep", json!({"pattern": "x", "path": "../.."}))
        .await
        .unwrap_err();
    assert_eq!(kind, ToolErrorKind::Denied);
}

#[tokio::test]
async fn grep_reads_a_glob_path_as_the_files_it_matches() {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        ("reports/2023/q4.md", "Revenue: <a>\n"),
        ("reports/2024/q1.md", "Revenue: <b>\n"),
        ("reports/2024/q2.md", "Revenue: <c>\n"),
        ("reports/2024/notes.txt", "Revenue: <d>\n"),
    ] {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let tools = tools(dir.path(), true);
    let grep = |pattern: &str, path: &str| {
        let tools = &tools;
        let args = json!({"pattern": pattern, "path": path});
        async move { call(tools, "grep", args).await.unwrap() }
    };
    // As a shell would expand it: those files only, and no note.
    let out = grep("revenue", "reports/2024/*.md").await;
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "reports/2024/q1.md:1: Revenue: <b>",
            "reports/2024/q2.md:1: Revenue: <c>"
        ],
        "{out}"
    );
    // A name glob matches names wherever they are; a miss names the glob.
    let out = grep("profit", "Q*.MD").await;
    assert!(
        out.starts_with("no matches for `profit` in 3 files matching `Q*.MD`, ignoring case"),
        "{out}"
    );
    // A glob that matches nothing: the whole root, as for a folder that
    // is not there.
    let out = grep("revenue", "quarterly/*.md").await;
    assert!(
        out.starts_with(
            "`quarterly/*.md` is not in the working directory; all of it was searched instead:\n"
        ),
        "{out}"
    );
    assert_eq!(out.matches("Revenue:").count(), 4, "{out}");
    // A path that exists as written is read as written.
    std::fs::write(dir.path().join("data[1].csv"), "revenue,<e>\n").unwrap();
    std::fs::write(dir.path().join("data1.csv"), "revenue,<f>\n").unwrap();
    let out = grep("revenue", "data[1].csv").await;
    assert!(out.contains("<e>") && !out.contains("<f>"), "{out}");
}

#[tokio::test]
async fn a_missing_name_shows_the_files_holding_its_numbers_first() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::write(
        root.join("data/sales_q2.csv"),
        "region,revenue\nNorth,100\n",
    )
    .unwrap();
    std::fs::write(
        root.join("data/sales_q3.csv"),
        "region,revenue\nNorth,200\n",
    )
    .unwrap();
    let tools = tools(root, true);
    // Both are as alike by name; the one holding the `3` comes first.
    for (tool, args) in [
        ("read_file", json!({"path": "Q3_sales_sheet.xlsx"})),
        ("search_files", json!({"glob": "Q3_sales_sheet.xlsx"})),
    ] {
        let out = call(&tools, tool, args).await.unwrap();
        let q3 = out.find("`data/sales_q3.csv`:").unwrap();
        let q2 = out.find("`data/sales_q2.csv`:").unwrap();
        assert!(q3 < q2, "{tool}: {out}");
    }
    // A name that holds only the other number puts that file first.
    let out = call(&tools, "read_file", json!({"path": "sales_sheet_q2.txt"}))
        .await
        .unwrap();
    assert!(
        out.find("sales_q2").unwrap() < out.find("sales_q3").unwrap(),
        "{out}"
    );
}

#[tokio::test]
async fn versions_of_one_file_are_shown_with_the_latest_named() {
    // "What is our current leave allowance?": two editions of the policy,
    // listed oldest first.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("hr")).unwrap();
    std::fs::write(root.join("hr/leave-policy-2021.md"), "Leave: <old> days\n").unwrap();
    std::fs::write(root.join("hr/leave-policy-2023.md"), "Leave: <new> days\n").unwrap();
    std::fs::write(root.join("hr/handbook.md"), "Leave is set by the policy.\n").unwrap();
    let tools = tools(root, true);
    let note = "(Note: `hr/leave-policy-2021.md`, `hr/leave-policy-2023.md` are versions of one \
                file; the latest by its name is `hr/leave-policy-2023.md`.)";
    let found = call(&tools, "grep", json!({"pattern": "leave:"}))
        .await
        .unwrap();
    assert!(found.ends_with(note), "{found}");
    let listed = call(&tools, "search_files", json!({"glob": "*policy*"}))
        .await
        .unwrap();
    assert_eq!(
        listed,
        format!("hr/leave-policy-2021.md\nhr/leave-policy-2023.md\n{note}")
    );
    // A path the model guessed: both editions come whole, then the note.
    let similar = call(&tools, "read_file", json!({"path": "leave_policy.txt"}))
        .await
        .unwrap();
    assert!(similar.contains("1| Leave: <new> days"), "{similar}");
    assert!(similar.ends_with(note), "{similar}");
    // One edition alone has no note.
    let read = call(
        &tools,
        "read_file",
        json!({"path": "hr/leave-policy-2021.md"}),
    )
    .await
    .unwrap();
    assert!(!read.contains("(Note:"), "{read}");
}

#[tokio::test]
async fn a_pattern_without_a_wildcard_finds_the_paths_that_hold_it() {
    // `meeting` names no file and no directory, but two paths hold it
    // (in any case): they are listed as found. With a wildcard, or when no
    // path holds the text, the miss is what it was.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("notes/Meetings")).unwrap();
    for (path, text) in [
        ("notes/Meetings/kickoff.md", "# Kickoff\n"),
        ("notes/Meetings/retro.md", "# Retro\n"),
        ("notes/ideas.md", "# Ideas\n"),
        ("budget.csv", "item,cost\n"),
    ] {
        std::fs::write(root.join(path), text).unwrap();
    }
    let tools = tools(root, true);
    let out = tools
        .call(&ToolCall::new(
            "t",
            "search_files",
            json!({"glob": "meeting"}),
        ))
        .await
        .unwrap();
    assert!(!out.no_results, "{}", out.content);
    assert_eq!(
        out.content,
        "no file is named `meeting`; these paths contain it:\nnotes/Meetings/kickoff.md\nnotes/Meetings/retro.md"
    );
    for glob in ["*meeting", "minutes"] {
        let out = tools
            .call(&ToolCall::new("t", "search_files", json!({"glob": glob})))
            .await
            .unwrap();
        assert!(
            out.content.starts_with(&format!("no files match `{glob}`")),
            "{}",
            out.content
        );
    }
}

#[tokio::test]
async fn a_search_that_missed_but_shows_files_in_its_place_says_it_missed() {
    // Found something (the files shown whole may answer), but the search
    // itself matched nothing: the run must not take it for a hit.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("budget")).unwrap();
    std::fs::write(
        root.join("budget/budget_2024.csv"),
        "department,approved\nMarketing,138500\n",
    )
    .unwrap();
    let tools = tools(root, true);
    let call = |name: &str, args: serde_json::Value| ToolCall::new("t", name, args);
    let listed = tools
        .call(&call(
            "search_files",
            json!({"glob": "2024*.txt", "dir": "budget"}),
        ))
        .await
        .unwrap();
    assert!(listed.content.contains("138500"), "{}", listed.content);
    assert!(listed.missed && !listed.no_results, "{listed:?}");
    let shown = tools
        .call(&call(
            "grep",
            json!({"pattern": "listen", "path": "budget"}),
        ))
        .await
        .unwrap();
    assert!(shown.content.contains("138500"), "{}", shown.content);
    assert!(shown.missed && !shown.no_results, "{shown:?}");
    // A hit is no miss.
    let hit = tools
        .call(&call("grep", json!({"pattern": "marketing"})))
        .await
        .unwrap();
    assert!(!hit.missed && !hit.no_results, "{hit:?}");
}

#[tokio::test]
async fn a_file_missing_from_the_folder_named_is_not_read_from_another_folder() {
    // The electricity bill for December is not there; the gas one is.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("bills/electricity")).unwrap();
    std::fs::create_dir_all(root.join("bills/gas")).unwrap();
    for (path, amount) in [
        ("bills/electricity/2024-10.txt", "84.12"),
        ("bills/electricity/2024-11.txt", "97.40"),
        ("bills/gas/2024-12.txt", "132.55"),
    ] {
        std::fs::write(root.join(path), format!("Amount due: {amount} EUR\n")).unwrap();
    }
    let tools = tools(root, true);
    let missing = call(
        &tools,
        "read_file",
        json!({"path": "/home/user/bills/electricity/2024-12.txt"}),
    )
    .await
    .unwrap();
    assert!(
        missing.starts_with(
            "`/home/user/bills/electricity/2024-12.txt` is not a file in the working directory."
        ),
        "{missing}"
    );
    assert!(
        missing.contains("bills/electricity/2024-11.txt"),
        "{missing}"
    );
    assert!(!missing.contains("132.55"), "{missing}");
    assert!(!missing.contains("bills/gas"), "{missing}");
    // Nor is the gas bill listed when the folder's own files are named
    // unlike the one asked for.
    std::fs::rename(
        root.join("bills/electricity/2024-10.txt"),
        root.join("bills/electricity/october.txt"),
    )
    .unwrap();
    std::fs::rename(
        root.join("bills/electricity/2024-11.txt"),
        root.join("bills/electricity/november.txt"),
    )
    .unwrap();
    let missing = call(
        &tools,
        "read_file",
        json!({"path": "bills/electricity/2024-12.txt"}),
    )
    .await;
    let text = match missing {
        Ok(text) | Err((_, text)) => text,
    };
    assert!(!text.contains("gas"), "{text}");
    // A file deeper in the folder named is still read in its place.
    std::fs::create_dir_all(root.join("logs/auth")).unwrap();
    std::fs::write(root.join("logs/app.log"), "started\n").unwrap();
    std::fs::write(root.join("logs/auth/2024-05-02.log"), "login ok\n").unwrap();
    let read = call(&tools, "read_file", json!({"path": "logs/2024-05-02.log"}))
        .await
        .unwrap();
    assert!(read.contains("login ok"), "{read}");
    // A folder that holds no file of the kind asked for is no lead: the
    // file of that name elsewhere is read, as before.
    let read = call(&tools, "read_file", json!({"path": "bills/2024-12.txt"}))
        .await
        .unwrap();
    assert!(
        read.starts_with("`bills/2024-12.txt` is not a file in the working directory; the closest one is `bills/gas/2024-12.txt`"),
        "{read}"
    );
}

#[tokio::test]
async fn grep_says_which_dates_the_sum_of_matching_rows_spans() {
    let f = fixture();
    let tools = tools(&f.root, true);
    std::fs::write(
        f.root.join("q1_orders.csv"),
        "month,product,colour,units\n2024-01,kettle,blue,112\n2024-01,kettle,red,96\n\
         2024-02,kettle,blue,128\n2024-03,kettle,blue,137\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "blue", "path": "q1_orders.csv"}),
    )
    .await
    .unwrap();
    assert!(
        out.contains("q1_orders.csv: the 3 matching rows, 2024-01 to 2024-03: `units` sum 377"),
        "{out}"
    );
    // Day-first dates are read too; rows of one date state no span.
    std::fs::write(
        f.root.join("fevrier.csv"),
        "date;categorie;montant\n02/02/2024;carburant;62,40\n23/02/2024;carburant;71,03\n\
         23/02/2024;courses;10,00\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "carburant", "path": "fevrier.csv"}),
    )
    .await
    .unwrap();
    assert!(
        out.contains("the 2 matching rows, 02/02/2024 to 23/02/2024: `montant` sum 133.43"),
        "{out}"
    );
    std::fs::write(
        f.root.join("day.csv"),
        "date,item,units\n2024-05-02,bolt,3\n2024-05-02,nut,4\n",
    )
    .unwrap();
    let out = call(
        &tools,
        "grep",
        json!({"pattern": "2024", "path": "day.csv"}),
    )
    .await
    .unwrap();
    assert!(out.contains("the 2 matching rows: `units` sum 7"), "{out}");
}
