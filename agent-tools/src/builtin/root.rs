//! [`FileRoot`]: confines paths to a root directory. A path from the model
//! is refused when it is absolute (Unix, Windows drive or UNC, `~`), has a
//! `..` component (with `/` or `\` separators), contains NUL, is over-long,
//! or goes through a symlink that leads outside the root — including a
//! dangling symlink and a symlinked parent of a file that does not exist
//! yet. Checks run on every call, so a symlink created after the root was
//! opened is caught too. A path that is refused or not there gets a hint
//! from [`nearby`]: similar paths, or what the root holds.
//! Error messages name the path the model gave and paths inside the root,
//! never where the root itself is.
//!
//! Residual risk, documented: a local process that swaps a directory for a
//! symlink between the check and the open (a TOCTOU race) is out of scope;
//! the model itself has no tool that creates symlinks.

use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use agent_core::ToolError;

use super::dated;
use super::nearby;

/// Longest path accepted, in bytes.
pub const MAX_PATH_BYTES: usize = 1024;
/// Longest path component accepted, in bytes.
pub const MAX_COMPONENT_BYTES: usize = 255;

/// A root that cannot be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot use {path} as the file root: {reason}")]
pub struct RootError {
    path: String,
    reason: String,
}

/// What the caller will do with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// It must exist.
    Read,
    /// It may not exist yet (its missing parents will be created).
    Write,
}

/// A directory that file tools may not leave.
#[derive(Debug, Clone)]
pub struct FileRoot {
    root: PathBuf,
}

impl FileRoot {
    /// Opens `path` (it must be an existing directory).
    pub fn new(path: impl AsRef<Path>) -> Result<Self, RootError> {
        let path = path.as_ref();
        let error = |reason: String| RootError {
            path: path.display().to_string(),
            reason,
        };
        let root = path.canonicalize().map_err(|e| error(e.to_string()))?;
        if !root.is_dir() {
            return Err(error("not a directory".into()));
        }
        Ok(Self { root })
    }

    /// Whether `given` is an absolute path (Unix, Windows drive or UNC,
    /// `~`), which no file tool reads: a small model writes one it made up
    /// (`/var/log`, `C:\Users\…`).
    pub(crate) fn is_absolute_path(given: &str) -> bool {
        is_absolute(&given.trim().replace('\\', "/"))
    }

    /// The canonical root directory.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// `path` relative to the root, with `/` separators (for display).
    pub fn relative(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let text = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if text.is_empty() { ".".into() } else { text }
    }

    /// Resolves a model-given path inside the root, or refuses it.
    pub fn resolve(&self, given: &str, access: Access) -> Result<PathBuf, ToolError> {
        let shown: String = given.chars().take(80).collect();
        let deny = |why: &str| ToolError::denied(format!("{why}: `{shown}`"));
        if given.contains('\0') {
            return Err(ToolError::denied("the path contains a NUL byte"));
        }
        if given.len() > MAX_PATH_BYTES {
            return Err(ToolError::denied(format!(
                "the path is too long ({} bytes; max {MAX_PATH_BYTES})",
                given.len()
            )));
        }
        let normalized = dated::without_weekday(given.trim()).replace('\\', "/");
        if is_absolute(&normalized) {
            return Err(ToolError::denied(format!(
                "absolute paths are not allowed; paths are relative to the working directory.{}",
                nearby::hint(self, &normalized)
            )));
        }
        let mut resolved = self.root.clone();
        for part in normalized.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    return Err(ToolError::denied(format!(
                        "`..` is not allowed in paths: `{shown}`; paths stay inside the working directory.{}",
                        nearby::hint(self, &normalized)
                    )));
                }
                part if part.len() > MAX_COMPONENT_BYTES => {
                    return Err(deny("a path component is too long"));
                }
                part => resolved.push(part),
            }
        }
        // Any `..` or root that slipped through the string checks.
        if resolved
            .components()
            .skip(self.root.components().count())
            .any(|c| !matches!(c, Component::Normal(_)))
        {
            return Err(deny("the path leaves the working directory"));
        }
        self.check_links(&resolved, access, &deny)?;
        Ok(resolved)
    }

    /// Walks the path prefix by prefix: every symlink met must lead inside
    /// the root, and the existing part must canonicalize inside it.
    fn check_links(
        &self,
        resolved: &Path,
        access: Access,
        deny: &dyn Fn(&str) -> ToolError,
    ) -> Result<(), ToolError> {
        let outside = || deny("the path leads outside the working directory");
        let mut prefix = self.root.clone();
        let rest: Vec<_> = resolved
            .components()
            .skip(self.root.components().count())
            .collect();
        for (i, component) in rest.iter().enumerate() {
            prefix.push(component);
            match std::fs::symlink_metadata(&prefix) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    // A dangling link fails to canonicalize: refused too.
                    let target = prefix.canonicalize().map_err(|_| outside())?;
                    if !target.starts_with(&self.root) {
                        return Err(outside());
                    }
                }
                Ok(meta) => {
                    if i + 1 < rest.len() && !meta.is_dir() {
                        return Err(deny("a parent of the path is not a directory"));
                    }
                }
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    return match access {
                        Access::Read => {
                            // The wrong path is not repeated: a small model
                            // copies the last path it sees into its next call.
                            let shown = self.relative(resolved);
                            Err(ToolError::failed(format!(
                                "that path does not exist.{}",
                                nearby::hint(self, &shown)
                            )))
                        }
                        Access::Write => Ok(()),
                    };
                }
                Err(_) => return Err(deny("the path cannot be accessed")),
            }
        }
        let canonical = resolved.canonicalize().map_err(|_| outside())?;
        if canonical.starts_with(&self.root) {
            Ok(())
        } else {
            Err(outside())
        }
    }
}

/// Whether `normalized` (`/` separators) is absolute: it starts at `/`
/// (a UNC path too), at `~`, or at a Windows drive.
fn is_absolute(normalized: &str) -> bool {
    let bytes = normalized.as_bytes();
    let has_drive = bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic();
    normalized.starts_with('/') || normalized.starts_with('~') || has_drive
}

/// A root holding `files` (each with one line), and its directory, for
/// the file tools' unit tests.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) fn root_with(files: &[&str]) -> (tempfile::TempDir, FileRoot) {
    let dir = tempfile::tempdir().unwrap();
    for path in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x\n").unwrap();
    }
    let root = FileRoot::new(dir.path()).unwrap();
    (dir, root)
}
