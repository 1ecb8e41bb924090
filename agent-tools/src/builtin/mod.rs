//! The built-in tools: [`Calculator`], [`Search`] and the root-confined
//! [`FileTools`], plus [`registry`], which registers the ones asked for.

mod calculator;
mod dated;
mod files;
mod fold;
mod names;
mod nearby;
mod overview;
mod root;
mod search;
mod table;
mod versions;
mod words;
mod written;

use std::path::Path;
use std::sync::Arc;

pub use calculator::{
    CalcError, Calculator, CalculatorArgs, MAX_DEPTH, MAX_EXPONENT, MAX_EXPRESSION_CHARS,
    MAX_MAGNITUDE, Number, evaluate, evaluate_as_written, in_words, to_cents,
};
pub use files::{
    EditFileArgs, FileTools, GrepArgs, MAX_FILE_BYTES, MAX_GREP_MATCHES, MAX_LISTED_FILES,
    MAX_READ_LINES, ReadFileArgs, SHORT_FILE_LINES, SearchFilesArgs, WriteFileArgs,
};
pub use root::{Access, FileRoot, MAX_COMPONENT_BYTES, MAX_PATH_BYTES, RootError};
pub use search::{
    DEFAULT_KNOWLEDGE_BASE, DEFAULT_MAX_RESULTS, Document, KnowledgeBaseError, Search, SearchArgs,
};

use crate::gateway::{ToolRegistry, ToolSetError};

/// Why the built-in registry could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BuiltinError {
    /// An unknown built-in name.
    #[error("unknown built-in tool group `{0}` (available: calculator, search, files)")]
    Unknown(String),
    /// File tools were asked for without a usable root.
    #[error(transparent)]
    Root(#[from] RootError),
    /// Registration failed.
    #[error(transparent)]
    Registry(#[from] ToolSetError),
}

/// How [`registry_with`] sets up the built-in tools.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuiltinOptions<'a> {
    /// Root directory of the file tools (`None`: the current directory).
    pub dir: Option<&'a Path>,
    /// Leave out the file tools that write (`write_file`, `edit_file`);
    /// `false` by default, as in [`registry`].
    pub read_only: bool,
    /// Open each run with what the file root holds
    /// ([`FileTools::overview`]).
    pub file_overview: bool,
}

/// A registry with the named built-in groups: `calculator`, `search`,
/// `files` (the file tools over `dir`, or the current directory). Each tool
/// is registered in its group, so an allowlist may say `files.*`.
/// [`registry_with`] takes the other options.
pub fn registry<S: AsRef<str>>(
    groups: &[S],
    dir: Option<&Path>,
    read_only: bool,
) -> Result<ToolRegistry, BuiltinError> {
    registry_with(
        groups,
        BuiltinOptions {
            dir,
            read_only,
            ..BuiltinOptions::default()
        },
    )
}

/// [`registry`] with every option of the built-in tools.
pub fn registry_with<S: AsRef<str>>(
    groups: &[S],
    options: BuiltinOptions<'_>,
) -> Result<ToolRegistry, BuiltinError> {
    let mut registry = ToolRegistry::new();
    for group in groups {
        match group.as_ref().trim() {
            "calculator" => {
                registry.register_in_group("calculator", Arc::new(Calculator::new()))?;
            }
            "search" => {
                registry.register_in_group("search", Arc::new(Search::new()))?;
            }
            "files" => {
                let files = FileTools::new(options.dir.unwrap_or(Path::new(".")))?
                    .read_only(options.read_only)
                    .overview(options.file_overview);
                for tool in files.tools() {
                    registry.register_in_group("files", tool)?;
                }
            }
            other => return Err(BuiltinError::Unknown(other.to_string())),
        }
    }
    Ok(registry)
}
