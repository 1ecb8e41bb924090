//! Glob patterns over the root: `*` crosses `/`, case and accents are
//! ignored (`*reunion*` matches `reunión.md`), and a file matches by its
//! path or by its name alone.

use std::path::{Path, PathBuf};

use crate::builtin::fold::fold;
use crate::builtin::nearby::walk;
use crate::builtin::root::{Access, FileRoot};

/// Whether a path as given is written as a glob.
pub(super) fn looks_like_glob(given: &str) -> bool {
    given.contains(['*', '?', '['])
}

/// The files under the root that `given` matches as a glob, when it is
/// written as one, names no existing path as written (`data[1].csv`), and
/// matches any; `None` otherwise.
pub(super) fn glob_files(root: &FileRoot, given: &str) -> Option<Vec<PathBuf>> {
    if !looks_like_glob(given)
        || root
            .resolve(given, Access::Read)
            .is_ok_and(|path| path.exists())
    {
        return None;
    }
    let glob = case_blind_glob(given).ok()?;
    let base = root.resolve(".", Access::Read).ok()?;
    let files: Vec<PathBuf> = walk(&base)
        .into_iter()
        .filter(|file| glob_matches(&glob, root, &base, file))
        .collect();
    (!files.is_empty()).then_some(files)
}

/// A glob whose `*` also crosses `/`, ignoring case and accents: match it
/// with [`glob_matches`], which folds the paths the same way.
pub(super) fn case_blind_glob(glob: &str) -> Result<globset::GlobMatcher, globset::Error> {
    Ok(globset::GlobBuilder::new(&fold(glob))
        .literal_separator(false)
        .case_insensitive(true)
        .build()?
        .compile_matcher())
}

/// Whether `file`, found under `base`, matches `glob`: by its path from
/// the root or from `base`, or by its name alone (a glob without `/`
/// matches a name wherever it is).
pub(super) fn glob_matches(
    glob: &globset::GlobMatcher,
    root: &FileRoot,
    base: &Path,
    file: &Path,
) -> bool {
    let from_base = file
        .strip_prefix(base)
        .map(|p| fold(&p.to_string_lossy().replace('\\', "/")));
    let name = file.file_name().map(|n| fold(&n.to_string_lossy()));
    glob.is_match(fold(&root.relative(file)))
        || from_base.is_ok_and(|p| glob.is_match(p))
        || name.is_some_and(|n| glob.is_match(n))
}
