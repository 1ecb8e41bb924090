//! The file tools read text in the encodings users keep on disk (UTF-8
//! with a byte order mark, UTF-16, Windows-1252), and `edit_file` writes
//! a file back in the encoding it was read in.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use agent_core::{ToolCall, Toolbox};
use agent_tools::ToolSet;
use agent_tools::builtin::registry;
use serde_json::{Value, json};

fn files(root: &Path) -> ToolSet {
    registry(&["files"], Some(root), false).unwrap().allow_all()
}

async fn call(tools: &ToolSet, name: &str, args: Value) -> String {
    match tools.call(&ToolCall::new("t", name, args)).await {
        Ok(output) => output.content,
        Err(err) => format!("error: {}", err.message()),
    }
}

/// `text` in UTF-16 little-endian with its byte order mark.
fn utf16le(text: &str) -> Vec<u8> {
    [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect()
}

#[tokio::test]
async fn files_in_other_encodings_are_read_as_text() {
    let dir = tempfile::tempdir().unwrap();
    // `München;12,50 €` in Windows-1252: `ü` is 0xFC, `€` is 0x80.
    let mut latin = b"ville;prix\nM".to_vec();
    latin.extend([0xFC]);
    latin.extend(b"nchen;12,50 ");
    latin.extend([0x80, b'\n']);
    std::fs::write(dir.path().join("prix.csv"), &latin).unwrap();
    std::fs::write(
        dir.path().join("export.txt"),
        utf16le("Bestellung 4711: 38 Stück\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bom.csv"),
        [b"\xEF\xBB\xBF".as_slice(), b"sku,stock\nA-7,12\n"].concat(),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("image.png"),
        [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A],
    )
    .unwrap();
    let tools = files(dir.path());

    let read = call(&tools, "read_file", json!({"path": "prix.csv"})).await;
    assert_eq!(read, "1| ville;prix\n2| München;12,50 €");
    let found = call(&tools, "grep", json!({"pattern": "Stück"})).await;
    assert!(
        found.starts_with("export.txt:1: Bestellung 4711: 38 Stück"),
        "{found}"
    );
    // A byte order mark is not part of the first column's name.
    let row = call(&tools, "grep", json!({"pattern": "A-7", "path": "bom.csv"})).await;
    assert!(row.starts_with("bom.csv:2: sku: A-7 | stock: 12"), "{row}");
    let binary = call(&tools, "read_file", json!({"path": "image.png"})).await;
    assert!(binary.contains("is a binary file"), "{binary}");
}

#[tokio::test]
async fn an_edited_file_keeps_its_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, [b'c', b'a', b'f', 0xE9, b' ', b'1', b'\n']).unwrap();
    let tools = files(dir.path());
    let edited = call(
        &tools,
        "edit_file",
        json!({"path": "notes.txt", "old": "café 1", "new": "crème 2"}),
    )
    .await;
    assert!(edited.starts_with("edited"), "{edited}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        [b'c', b'r', 0xE8, b'm', b'e', b' ', b'2', b'\n']
    );
    // A character the encoding cannot hold leaves the file as it was.
    let refused = call(
        &tools,
        "edit_file",
        json!({"path": "notes.txt", "old": "crème", "new": "東京"}),
    )
    .await;
    assert!(
        refused.contains("a Windows-1252 file, cannot hold"),
        "{refused}"
    );
    assert_eq!(std::fs::read(&path).unwrap()[2], 0xE8);

    let wide = dir.path().join("wide.txt");
    std::fs::write(&wide, utf16le("total: 10\n")).unwrap();
    call(
        &tools,
        "edit_file",
        json!({"path": "wide.txt", "old": "10", "new": "12"}),
    )
    .await;
    assert_eq!(std::fs::read(&wide).unwrap(), utf16le("total: 12\n"));
}
