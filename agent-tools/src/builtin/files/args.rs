//! The arguments of the file tools, with the schemas the model sees.

use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// Path of the file, relative to the working directory.
    pub path: String,
    /// First line to show in a long file, counting from 1 (default: the first).
    pub start: Option<usize>,
    /// Last line to show in a long file (default: the last).
    pub end: Option<usize>,
}

/// Arguments of `grep`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepArgs {
    /// Text to find (a regular expression when `is_regex` is true).
    #[schemars(length(max = 200))]
    pub pattern: String,
    /// File or directory to search, relative to the working directory (default: all of it).
    pub path: Option<String>,
    /// Treat `pattern` as a regular expression (default false).
    pub is_regex: Option<bool>,
}

/// Arguments of `search_files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilesArgs {
    /// Glob pattern matched against file paths relative to the working
    /// directory: `*` matches within a name, `**` across directories.
    pub glob: String,
    /// Directory to search in, relative to the working directory (default: all of it).
    pub dir: Option<String>,
}

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// Path of the file, relative to the working directory.
    pub path: String,
    /// The whole new content.
    pub content: String,
}

/// Arguments of `edit_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileArgs {
    /// Path of the file, relative to the working directory.
    pub path: String,
    /// Exact text to replace; it must occur exactly once.
    pub old: String,
    /// Replacement text.
    pub new: String,
}
