//! File tools confined to a [`FileRoot`]: `read_file`, `grep`,
//! `search_files`, `write_file` and `edit_file`. A read-only set leaves the
//! writing tools out. Binary files are reported, not dumped; outputs are
//! capped; writing tools are sequential (a barrier in a round). Turned on,
//! each tool opens a run with what the root holds
//! ([`overview`](super::overview)).
//!
//! The parts: [`args`] (the tools' arguments), [`read`] (`read_file`),
//! [`grep`](mod@grep), [`search_files`](mod@search_files),
//! [`write`](mod@write) (`write_file` and `edit_file`), and what they
//! share: [`text`] (reading a file's text and showing it with line
//! numbers), [`resolve`] (a path given to the path meant) and [`glob`]
//! (glob patterns over the root).

mod args;
mod encoding;
mod glob;
mod grep;
mod read;
mod resolve;
mod search_files;
mod text;
mod write;

use std::path::Path;
use std::sync::Arc;

use agent_core::tool::ToolErrorKind;
use agent_core::{Tool, ToolError, ToolOutput};
use schemars::JsonSchema;

use super::overview::overview;
use super::root::{FileRoot, RootError};
use super::versions;
use crate::typed::{TypedTool, typed_tool};
use grep::grep;
use read::read_file;
use search_files::search_files;
use write::{edit_file, write_file};

pub use args::{EditFileArgs, GrepArgs, ReadFileArgs, SearchFilesArgs, WriteFileArgs};

/// Lines `read_file` returns at most per call.
pub const MAX_READ_LINES: usize = 400;
/// A file of at most this many lines is short: `read_file` shows it whole
/// whatever range was asked (small models ask for ranges that cut off
/// what they need), and a `grep` that finds nothing in it, or in a few
/// files this short together, shows them.
pub const SHORT_FILE_LINES: usize = 60;
/// Matches `grep` returns at most.
pub const MAX_GREP_MATCHES: usize = 100;
/// Paths `search_files` returns at most.
pub const MAX_LISTED_FILES: usize = 200;
/// Largest file read or written, in bytes.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The file tools over one root.
#[derive(Debug, Clone)]
pub struct FileTools {
    root: Arc<FileRoot>,
    read_only: bool,
    overview: bool,
}

impl FileTools {
    /// File tools over `root` (an existing directory).
    pub fn new(root: impl AsRef<Path>) -> Result<Self, RootError> {
        Ok(Self {
            root: Arc::new(FileRoot::new(root)?),
            read_only: false,
            overview: false,
        })
    }

    /// Whether a run opens with what the root holds, written after the
    /// task: its files by path when it holds few, its top-level entries
    /// otherwise. Off by default: on the 1.5B model it helped the text
    /// transport and hurt the native one (`docs/tools.md`).
    pub fn overview(mut self, on: bool) -> Self {
        self.overview = on;
        self
    }

    /// Leaves out `write_file` and `edit_file`.
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// The root.
    pub fn root(&self) -> &FileRoot {
        &self.root
    }

    /// The tools: read_file, grep, search_files, and unless read-only,
    /// write_file and edit_file.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut tools: Vec<Arc<dyn Tool>> = Vec::with_capacity(5);
        let root = Arc::clone(&self.root);
        tools.push(Arc::new(self.with_overview(typed_tool(
            "read_file",
            "Read a text file with line numbers. Short files come whole; page through long ones with start/end.",
            move |args: ReadFileArgs| {
                blocking(Arc::clone(&root), move |root| {
                    read_file(root, args).map(|out| versions::with_latest_noted(root, out))
                })
            },
        ))));
        let root = Arc::clone(&self.root);
        tools.push(Arc::new(self.with_overview(typed_tool(
            "grep",
            "Find lines containing a text (or regex) in files; prints file:line: text.",
            move |args: GrepArgs| {
                blocking(Arc::clone(&root), move |root| {
                    grep(root, args).map(|out| with_latest_noted(root, out))
                })
            },
        ))));
        let root = Arc::clone(&self.root);
        tools.push(Arc::new(self.with_overview(typed_tool(
            "search_files",
            "List the files whose path matches a glob pattern.",
            move |args: SearchFilesArgs| {
                blocking(Arc::clone(&root), move |root| {
                    search_files(root, args).map(|out| with_latest_noted(root, out))
                })
            },
        ))));
        if !self.read_only {
            let root = Arc::clone(&self.root);
            tools.push(Arc::new(
                self.with_overview(
                    typed_tool(
                        "write_file",
                        "Create or overwrite a text file with the given content.",
                        move |args: WriteFileArgs| {
                            blocking(Arc::clone(&root), move |root| write_file(root, args))
                        },
                    )
                    .sequential(),
                ),
            ));
            let root = Arc::clone(&self.root);
            tools.push(Arc::new(
                self.with_overview(
                    typed_tool(
                        "edit_file",
                        "Replace text in a file; `old` must match exactly once.",
                        move |args: EditFileArgs| {
                            blocking(Arc::clone(&root), move |root| edit_file(root, args))
                        },
                    )
                    .sequential(),
                ),
            ));
        }
        tools
    }

    /// `tool`, opening each run with the root's overview when that is on.
    /// The tools share one overview text, which the gateway writes once.
    fn with_overview<A: JsonSchema>(&self, tool: TypedTool<A>) -> TypedTool<A> {
        if !self.overview {
            return tool;
        }
        let root = Arc::clone(&self.root);
        tool.with_context(move || overview(&root))
    }
}

/// `output` with the latest of the versions it shows named (see `versions`).
fn with_latest_noted(root: &FileRoot, output: ToolOutput) -> ToolOutput {
    ToolOutput {
        content: versions::with_latest_noted(root, output.content),
        ..output
    }
}

/// Runs blocking file work off the async threads.
async fn blocking<F, O>(root: Arc<FileRoot>, work: F) -> Result<O, ToolError>
where
    F: FnOnce(&FileRoot) -> Result<O, ToolError> + Send + 'static,
    O: Send + 'static,
{
    tokio::task::spawn_blocking(move || work(&root))
        .await
        .unwrap_or_else(|e| {
            Err(ToolError::new(ToolErrorKind::Panicked, "the file tool crashed").with_source(e))
        })
}
