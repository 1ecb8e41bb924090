//! The writing tools: `write_file` (create or overwrite, in UTF-8) and
//! `edit_file` (replace text that occurs exactly once, keeping the file's
//! encoding).

use agent_core::ToolError;

use super::encoding::encode;
use super::text::{io_failure, read_text_encoded};
use super::{EditFileArgs, MAX_FILE_BYTES, WriteFileArgs};
use crate::builtin::root::{Access, FileRoot};

pub(super) fn write_file(root: &FileRoot, args: WriteFileArgs) -> Result<String, ToolError> {
    if args.content.len() as u64 > MAX_FILE_BYTES {
        return Err(ToolError::invalid_args(format!(
            "the content is too large (max {MAX_FILE_BYTES} bytes)"
        )));
    }
    let path = root.resolve(&args.path, Access::Write)?;
    let shown = root.relative(&path);
    if path.is_dir() {
        return Err(ToolError::invalid_args(format!("`{shown}` is a directory")));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| io_failure("create the folder of", &shown, e))?;
    }
    // The parents now exist: check again that nothing leads outside.
    root.resolve(&args.path, Access::Write)?;
    std::fs::write(&path, args.content.as_bytes()).map_err(|e| io_failure("write", &shown, e))?;
    Ok(format!("wrote {} bytes to `{shown}`", args.content.len()))
}

pub(super) fn edit_file(root: &FileRoot, args: EditFileArgs) -> Result<String, ToolError> {
    if args.old.is_empty() {
        return Err(ToolError::invalid_args(
            "`old` is empty; give the exact text to replace",
        ));
    }
    let path = root.resolve(&args.path, Access::Read)?;
    let shown = root.relative(&path);
    let (text, encoding) = read_text_encoded(root, &path, &shown)?;
    let count = text.matches(&args.old).count();
    match count {
        0 => Err(ToolError::failed(format!(
            "`old` was not found in `{shown}`; read the file and copy the text exactly"
        ))),
        1 => {
            let updated = text.replacen(&args.old, &args.new, 1);
            // Written back as it was read: a Windows-1252 or UTF-16 file
            // stays one.
            let bytes = encode(&updated, encoding).ok_or_else(|| {
                ToolError::invalid_args(format!(
                    "`new` has characters that `{shown}`, a {} file, cannot hold; write them another way",
                    encoding.name()
                ))
            })?;
            std::fs::write(&path, bytes).map_err(|e| io_failure("write", &shown, e))?;
            Ok(format!("edited `{shown}`: replaced 1 occurrence"))
        }
        n => Err(ToolError::failed(format!(
            "`old` matches {n} times in `{shown}`; include more surrounding text so it matches exactly once"
        ))),
    }
}
