//! `search_files`: the paths that match a glob, or, when none does,
//! what the directory meant holds, similar files shown whole, or the
//! paths that contain the pattern.

use std::path::Path;

use agent_core::{ToolError, ToolOutput};

use super::glob::{case_blind_glob, glob_matches};
use super::resolve::{resolve_search_base, with_note};
use super::text::similar_shown_whole;
use super::{MAX_LISTED_FILES, SearchFilesArgs};
use crate::builtin::dated;
use crate::builtin::fold::fold;
use crate::builtin::nearby::{self, walk};
use crate::builtin::root::{Access, FileRoot};

pub(super) fn search_files(
    root: &FileRoot,
    args: SearchFilesArgs,
) -> Result<ToolOutput, ToolError> {
    let glob = case_blind_glob(args.glob.trim())
        .map_err(|e| ToolError::invalid_args(format!("invalid glob: {e}")))?;
    let (base, note) = resolve_search_base(root, args.dir.as_deref().unwrap_or("."))?;
    if !base.is_dir() {
        return Err(ToolError::invalid_args(format!(
            "`{}` is a file, not a directory; read it with read_file",
            root.relative(&base)
        )));
    }
    let found = listed_paths(
        walk(&base)
            .iter()
            .filter(|file| glob_matches(&glob, root, &base, file))
            .map(|file| root.relative(file)),
    );
    if found.is_empty() {
        // Hints look in the directory searched: what it holds, when no
        // name there looks like the pattern.
        // A pattern that already starts with the directory (`config/*.yaml`
        // in `config`) is not put under it twice.
        let glob = args.glob.trim();
        let within = match args.dir.as_deref().map(|d| d.trim().trim_end_matches('/')) {
            Some(dir)
                if !dir.is_empty()
                    && dir != "."
                    && !glob
                        .strip_prefix(dir)
                        .is_some_and(|rest| rest.starts_with('/')) =>
            {
                format!("{dir}/{glob}")
            }
            _ => glob.to_string(),
        };
        // A pattern that names a directory (`docs`) is answered with what
        // that directory, or the one clearly meant, holds.
        let named_dir = nearby::closest_directory(root, &within)
            .and_then(|dir| root.resolve(&dir, Access::Read).ok());
        // A directory's listing, or similar files shown whole, is
        // something found; a list of similar paths is not.
        let shown_whole = match &named_dir {
            Some(_) => None,
            None => similar_shown_whole(root, &within),
        };
        if named_dir.is_none()
            && shown_whole.is_none()
            && let Some(containing) = paths_containing(root, &base, glob)
        {
            return Ok(ToolOutput::new(with_note(note, containing)));
        }
        let listed = named_dir.is_some() || shown_whole.is_some();
        let hint = match named_dir {
            Some(path) => nearby::holds(root, &path),
            None => match shown_whole {
                Some(files) => format!(" {files}"),
                None => nearby::hint(root, &within),
            },
        };
        let body = with_note(
            note,
            format!(
                "no files match `{}` under `{}`, ignoring case.{hint}",
                args.glob,
                root.relative(&base),
            ),
        );
        return Ok(ToolOutput {
            content: body,
            no_results: !listed,
            missed: listed,
        });
    }
    Ok(ToolOutput::new(with_note(note, found)))
}

/// The lines of a file listing: each path with its weekday when it holds
/// a date, at most [`MAX_LISTED_FILES`] of them, then how many more there
/// are. Empty when there are none.
fn listed_paths(paths: impl Iterator<Item = String>) -> String {
    let mut lines = Vec::new();
    let mut more = 0usize;
    for path in paths {
        if lines.len() < MAX_LISTED_FILES {
            lines.push(dated::with_weekday(&path));
        } else {
            more += 1;
        }
    }
    if more > 0 {
        lines.push(format!("[... {more} more files not shown]"));
    }
    lines.join("\n")
}

/// A pattern with no wildcard that names no file (`meeting`, `budget`)
/// is taken as part of a name: the files under `base` whose path holds
/// it, ignoring case and accents, with a line saying so. `None` when it has a
/// wildcard or no path holds it.
fn paths_containing(root: &FileRoot, base: &Path, pattern: &str) -> Option<String> {
    let part = fold(pattern.trim_matches('/'));
    if part.is_empty() || part.contains(['*', '?', '[', '{']) {
        return None;
    }
    let found = listed_paths(
        walk(base)
            .iter()
            .map(|file| root.relative(file))
            .filter(|shown| fold(shown).contains(&part)),
    );
    (!found.is_empty())
        .then(|| format!("no file is named `{pattern}`; these paths contain it:\n{found}"))
}
