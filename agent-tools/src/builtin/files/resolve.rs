//! From a path as given to the path meant: the closest file or
//! directory when the given one is not there, or the whole working
//! directory for a search, each with the note that says so.

use agent_core::tool::ToolErrorKind;
use agent_core::{ToolError, ToolOutput};

use super::glob::looks_like_glob;
use crate::builtin::dated;
use crate::builtin::nearby;
use crate::builtin::root::{Access, FileRoot};

/// Resolves a path to read. When it is not there (or is refused) and one
/// file inside the root is clearly the one meant, that file is read
/// instead, with a line saying so: small models guess names (`config.yml`
/// for `config/app.yaml`) and then ignore a list of similar paths.
pub(super) fn resolve_or_closest(
    root: &FileRoot,
    given: &str,
) -> Result<(std::path::PathBuf, Option<String>), ToolError> {
    match root.resolve(given, Access::Read) {
        Ok(path) => Ok((path, None)),
        Err(err) => {
            let Some(closest) = nearby::closest_file(root, given) else {
                return Err(err);
            };
            substitute(root, given, &closest, "file", err)
        }
    }
}

/// Resolves a directory to search, or, when it is not there and one
/// directory is clearly the one meant (`docs` for `documentation`), that
/// one, with a line saying so. A file given resolves as itself.
fn resolve_dir_or_closest(
    root: &FileRoot,
    given: &str,
) -> Result<(std::path::PathBuf, Option<String>), ToolError> {
    match root.resolve(given, Access::Read) {
        Ok(path) => Ok((path, None)),
        Err(err) => match nearby::closest_directory(root, given) {
            Some(closest) => substitute(root, given, &closest, "directory", err),
            None => resolve_or_closest(root, given),
        },
    }
}

/// `closest` in place of `given`, with the note that says so; `err` when
/// it cannot be resolved after all.
fn substitute(
    root: &FileRoot,
    given: &str,
    closest: &str,
    kind: &str,
    err: ToolError,
) -> Result<(std::path::PathBuf, Option<String>), ToolError> {
    match root.resolve(closest, Access::Read) {
        Ok(path) => {
            let given: String = given.chars().take(80).collect();
            let note = format!(
                "`{given}` is not a {kind} in the working directory; the closest one is `{closest}`{}",
                dated::weekday_note(closest)
            );
            Ok((path, Some(note)))
        }
        Err(_) => Err(err),
    }
}

/// `body` after the note of a substituted path, if any.
pub(super) fn with_note(note: Option<String>, body: String) -> String {
    match note {
        Some(note) => format!("{note}:\n{body}"),
        None => body,
    }
}

/// [`with_note`] on an output, keeping whether it found anything.
pub(super) fn output_with_note(note: Option<String>, output: ToolOutput) -> ToolOutput {
    ToolOutput {
        content: with_note(note, output.content),
        ..output
    }
}

/// Resolves where a `grep` or a `search_files` looks: the path given, or
/// the directory clearly meant, or, when the path given is not there at
/// all or is absolute, the whole working directory, with a note that
/// says so. A model guesses a folder (`src` where the code is in `lib`,
/// `/var/log`, `C:\Users\…`); what it wants is the text or the files,
/// wherever they are, and told only that the folder is missing or not
/// allowed, a 1.5B model went on guessing folders until its step limit.
pub(super) fn resolve_search_base(
    root: &FileRoot,
    given: &str,
) -> Result<(std::path::PathBuf, Option<String>), ToolError> {
    match resolve_dir_or_closest(root, given) {
        Err(err)
            if err.kind() == ToolErrorKind::Failed
                || (err.kind() == ToolErrorKind::Denied && FileRoot::is_absolute_path(given)) =>
        {
            let Ok(base) = root.resolve(".", Access::Read) else {
                return Err(err);
            };
            let shown: String = given.chars().take(80).collect();
            let note = if !looks_like_glob(given) && nearby::no_file_named_like(root, given) {
                format!(
                    "`{shown}` is not in the working directory and no file has a similar name; all of it was searched instead"
                )
            } else {
                format!("`{shown}` is not in the working directory; all of it was searched instead")
            };
            Ok((base, Some(note)))
        }
        other => other,
    }
}
