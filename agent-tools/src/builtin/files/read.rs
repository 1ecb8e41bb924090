//! `read_file`: a file with line numbers, whole when it is short, a
//! range of lines otherwise.

use std::path::Path;

use agent_core::ToolError;

use super::resolve::{resolve_or_closest, with_note};
use super::text::{numbered, read_text, similar_shown_whole};
use super::{MAX_READ_LINES, ReadFileArgs, SHORT_FILE_LINES};
use crate::builtin::root::FileRoot;

pub(super) fn read_file(root: &FileRoot, args: ReadFileArgs) -> Result<String, ToolError> {
    let (path, note) = match resolve_or_closest(root, &args.path) {
        Ok(found) => found,
        Err(err) => {
            return match similar_shown_whole(root, &args.path) {
                Some(files) => {
                    let given: String = args.path.chars().take(80).collect();
                    Ok(format!(
                        "`{given}` is not a file in the working directory. {files}"
                    ))
                }
                None => Err(err),
            };
        }
    };
    read_lines(root, &path, &args).map(|body| with_note(note, body))
}

fn read_lines(root: &FileRoot, path: &Path, args: &ReadFileArgs) -> Result<String, ToolError> {
    let shown = root.relative(path);
    let text = read_text(root, path, &shown)?;
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    if total == 0 {
        return Ok(format!("`{shown}` is empty"));
    }
    if total <= SHORT_FILE_LINES {
        return Ok(numbered(&lines, 1));
    }
    let start = args.start.unwrap_or(1).max(1);
    if start > total {
        return Err(ToolError::invalid_args(format!(
            "`start` is {start} but `{shown}` has {total} lines"
        )));
    }
    let end = args.end.unwrap_or(total).min(total);
    if end < start {
        return Err(ToolError::invalid_args("`end` must not be before `start`"));
    }
    let shown_end = end.min(start + MAX_READ_LINES - 1);
    let mut out = numbered(&lines[start - 1..shown_end], start);
    if shown_end < end || start > 1 || end < total {
        out.push_str(&format!(
            "\n[lines {start}-{shown_end} of {total}; use start/end to read more]"
        ));
    }
    Ok(out)
}
