//! The opening view of a file root: what the working directory holds, in
//! one line, written after the task when a run starts (the file tools'
//! [`Tool::context`](agent_core::Tool::context)). A small model that sees
//! the paths reads the right file first, where a task names it loosely
//! (another name, case or extension, a folder in another language, a
//! date for a weekday); without them it guesses a path. Few files are
//! listed by path, with the weekday of a dated one; more are summed up by
//! their top-level entries, as a missed path's hint does.

use super::nearby;
use super::root::FileRoot;

/// What `root` holds, as a sentence; `None` when it holds no file.
pub(crate) fn overview(root: &FileRoot) -> Option<String> {
    let listing = nearby::listing(root, root.path());
    if listing.text.is_empty() {
        return None;
    }
    Some(if listing.files_only {
        format!("Files in the working directory: {}.", listing.text)
    } else {
        format!("The working directory holds: {}.", listing.text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::root::root_with;

    #[test]
    fn few_files_are_listed_by_path_with_their_weekdays() {
        let (_dir, root) = root_with(&["notes/2024-05-14.md", "README.md", "data/stock.csv"]);
        assert_eq!(
            overview(&root).as_deref(),
            Some(
                "Files in the working directory: README.md, data/stock.csv, notes/2024-05-14.md (Tuesday)."
            )
        );
    }

    #[test]
    fn many_files_are_summed_up_by_their_top_level_entries() {
        let paths: Vec<String> = (0..20).map(|i| format!("src/part{i}.rs")).collect();
        let mut files: Vec<&str> = paths.iter().map(String::as_str).collect();
        files.push("Cargo.toml");
        let (_dir, root) = root_with(&files);
        assert_eq!(
            overview(&root).as_deref(),
            Some("The working directory holds: Cargo.toml, src/ (20 files).")
        );
    }

    #[test]
    fn an_empty_root_has_no_overview() {
        let (_dir, root) = root_with(&[]);
        assert_eq!(overview(&root), None);
    }
}
