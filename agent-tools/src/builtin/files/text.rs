//! Reading a file's text under the size cap, in its encoding
//! (directories and binary files are reported, not read), and showing
//! files with line numbers, whole when they are short.

use std::path::Path;

use agent_core::ToolError;

use super::encoding::{Encoding, decode};
use super::{MAX_FILE_BYTES, SHORT_FILE_LINES};
use crate::builtin::dated;
use crate::builtin::nearby;
use crate::builtin::root::{Access, FileRoot};

pub(super) fn io_failure(what: &str, shown: &str, err: std::io::Error) -> ToolError {
    ToolError::failed(format!("cannot {what} `{shown}` ({})", err.kind())).with_source(err)
}

/// Reads a text file, or says why it is not shown.
pub(super) fn read_text(root: &FileRoot, path: &Path, shown: &str) -> Result<String, ToolError> {
    read_text_encoded(root, path, shown).map(|(text, _)| text)
}

/// [`read_text`], with the encoding the file was read in (see
/// [`decode`]).
pub(super) fn read_text_encoded(
    root: &FileRoot,
    path: &Path,
    shown: &str,
) -> Result<(String, Encoding), ToolError> {
    let meta = std::fs::metadata(path).map_err(|e| io_failure("read", shown, e))?;
    if meta.is_dir() {
        let listing = nearby::listing(root, path);
        let listing = if listing.text.is_empty() {
            "it is empty".to_string()
        } else {
            format!("it has: {}", listing.text)
        };
        return Err(ToolError::invalid_args(format!(
            "that path is a directory, not a file; {listing}"
        )));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ToolError::failed(format!(
            "`{shown}` is too large ({} bytes; max {MAX_FILE_BYTES})",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| io_failure("read", shown, e))?;
    let len = bytes.len();
    decode(bytes).ok_or_else(|| binary(shown, len))
}

fn binary(shown: &str, len: usize) -> ToolError {
    ToolError::failed(format!(
        "`{shown}` is a binary file ({len} bytes); it is not shown"
    ))
}

/// The files whose names look like `given`, a path that is not there,
/// each whole, when they are short together ([`SHORT_FILE_LINES`] lines at
/// most): a small model that guessed a name reads what the candidates
/// hold instead of guessing again (measured on a 1.5B model, it repeated
/// the failed call with a list of names in front of it). The caller says
/// first that `given` is not there: both times notes that led with what
/// was shown instead ("The files named most like …") were tried, tasks
/// the project was not tuned on were lost, right refusals of a missing
/// file among them (answered from another file). When only the
/// folders match (no file is named like the one asked for), the intro
/// says that too. `None` when no name looks like it or the files are too
/// long to show.
pub(super) fn similar_shown_whole(root: &FileRoot, given: &str) -> Option<String> {
    let similar = nearby::similar_paths(root, given);
    if similar.is_empty() {
        return None;
    }
    let mut files = Vec::new();
    let mut lines = 0usize;
    for shown in similar {
        let path = root.resolve(&shown, Access::Read).ok()?;
        let text = read_text(root, &path, &shown).ok()?;
        lines += text.lines().count();
        if lines > SHORT_FILE_LINES {
            return None;
        }
        files.push((shown, text));
    }
    let named = files
        .iter()
        .any(|(shown, _)| nearby::named_alike(given, shown));
    let intro = match (named, files.len()) {
        (true, 1) => "The file with a similar name is short; here it is whole:",
        (true, _) => "The files with similar names are short; here they are whole:",
        (false, 1) => {
            "No file has a similar name; the file whose path is most like it is short; here it is whole:"
        }
        (false, _) => {
            "No file has a similar name; the files whose paths are most like it are short; here they are whole:"
        }
    };
    Some(format!("{intro}{}", files_whole(&files)))
}

/// Files each whole with line numbers, each after its path on a line.
pub(super) fn files_whole(files: &[(String, String)]) -> String {
    let mut out = String::new();
    for (shown, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        out.push_str(&format!(
            "\n`{shown}`{}:\n{}",
            dated::weekday_note(shown),
            numbered(&lines, 1)
        ));
    }
    out
}

/// `lines` with their numbers, the first being `first`: "3| text".
pub(super) fn numbered(lines: &[&str], first: usize) -> String {
    let width = (first + lines.len().saturating_sub(1)).to_string().len();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{:>width$}| {line}", first + i));
    }
    out.trim_end().to_string()
}
