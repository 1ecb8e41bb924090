//! File tools confined to a [`FileRoot`]: `read_file`, `grep`,
//! `search_files`, `write_file` and `edit_file`. A read-only set leaves the
//! writing tools out. Binary files are reported, not dumped; outputs are
//! capped; writing tools are sequential (a barrier in a round). Turned on,
//! each tool opens a run with what the root holds
//! ([`overview`](super::overview)).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_core::tool::ToolErrorKind;
use agent_core::{Tool, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;

use super::dated;
use super::nearby::{self, walk};
use super::overview::overview;
use super::root::{Access, FileRoot, RootError};
use super::table::{cells, column_values, labelled_row, matching_rows_summary, table_separator};
use super::versions;
use super::words;
use crate::typed::{TypedTool, typed_tool};

/// Lines `read_file` returns at most per call.
pub const MAX_READ_LINES: usize = 400;
/// A file of at most this many lines is short: `read_file` shows it whole
/// whatever range was asked (small models ask for ranges that cut off
/// what they need), and a `grep` that finds nothing in it, or in a few
/// files this short together, shows them.
pub const SHORT_FILE_LINES: usize = 60;
/// Files a `grep` that finds nothing names, when it searched this few.
const MAX_NAMED_FILES: usize = 8;
/// Matches `grep` returns at most.
pub const MAX_GREP_MATCHES: usize = 100;
/// Files with a `grep` match shown whole at most, when they are short.
const MAX_MATCHED_FILES_WHOLE: usize = 2;
/// Lines of the files with a `grep` match shown whole at most, together:
/// tighter than [`SHORT_FILE_LINES`], since the matching lines came first.
const MAX_MATCHED_LINES_WHOLE: usize = SHORT_FILE_LINES / 2;
/// Paths `search_files` returns at most.
pub const MAX_LISTED_FILES: usize = 200;
/// Largest file read or written, in bytes.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

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

fn io_failure(what: &str, shown: &str, err: std::io::Error) -> ToolError {
    ToolError::failed(format!("cannot {what} `{shown}` ({})", err.kind())).with_source(err)
}

/// Reads a text file, or says why it is not shown.
fn read_text(root: &FileRoot, path: &Path, shown: &str) -> Result<String, ToolError> {
    let meta = std::fs::metadata(path).map_err(|e| io_failure("read", shown, e))?;
    if meta.is_dir() {
        let listing = nearby::listing(root, path);
        let listing = if listing.text.is_empty() {
            "it is empty".to_string()
        } else {
            format!("it has: {}", listing.text)
        };
        return Err(ToolError::invalid_args(format!(
            "that path is a directory, not a file; {listing}"
        )));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ToolError::failed(format!(
            "`{shown}` is too large ({} bytes; max {MAX_FILE_BYTES})",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| io_failure("read", shown, e))?;
    match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => Ok(text),
        Ok(text) => Err(binary(shown, text.len())),
        Err(e) => Err(binary(shown, e.as_bytes().len())),
    }
}

fn binary(shown: &str, len: usize) -> ToolError {
    ToolError::failed(format!(
        "`{shown}` is a binary file ({len} bytes); it is not shown"
    ))
}

/// Resolves a path to read. When it is not there (or is refused) and one
/// file inside the root is clearly the one meant, that file is read
/// instead, with a line saying so: small models guess names (`config.yml`
/// for `config/app.yaml`) and then ignore a list of similar paths.
fn resolve_or_closest(
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
fn with_note(note: Option<String>, body: String) -> String {
    match note {
        Some(note) => format!("{note}:\n{body}"),
        None => body,
    }
}

/// [`with_note`] on an output, keeping whether it found anything.
fn output_with_note(note: Option<String>, output: ToolOutput) -> ToolOutput {
    ToolOutput {
        content: with_note(note, output.content),
        ..output
    }
}

fn read_file(root: &FileRoot, args: ReadFileArgs) -> Result<String, ToolError> {
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

/// The files whose names look like `given`, a path that is not there,
/// each whole, when they are short together ([`SHORT_FILE_LINES`] lines at
/// most): a small model that guessed a name reads what the candidates
/// hold instead of guessing again (measured on a 1.5B model, it repeated
/// the failed call with a list of names in front of it). `None` when no
/// name looks like it or the files are too long to show.
fn similar_shown_whole(root: &FileRoot, given: &str) -> Option<String> {
    let similar = nearby::similar_paths(root, given);
    if similar.is_empty() {
        return None;
    }
    let mut files = Vec::new();
    let mut lines = 0usize;
    for shown in similar {
        let path = root.resolve(&shown, Access::Read).ok()?;
        let text = read_text(root, &path, &shown).ok()?;
        lines += text.lines().count();
        if lines > SHORT_FILE_LINES {
            return None;
        }
        files.push((shown, text));
    }
    let intro = if files.len() == 1 {
        "The file with a similar name is short; here it is whole:"
    } else {
        "The files with similar names are short; here they are whole:"
    };
    Some(format!("{intro}{}", files_whole(&files)))
}

/// Files each whole with line numbers, each after its path on a line.
fn files_whole(files: &[(String, String)]) -> String {
    let mut out = String::new();
    for (shown, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        out.push_str(&format!(
            "\n`{shown}`{}:\n{}",
            dated::weekday_note(shown),
            numbered(&lines, 1)
        ));
    }
    out
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

/// `lines` with their numbers, the first being `first`: "3| text".
fn numbered(lines: &[&str], first: usize) -> String {
    let width = (first + lines.len().saturating_sub(1)).to_string().len();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{:>width$}| {line}", first + i));
    }
    out.trim_end().to_string()
}

fn grep(root: &FileRoot, args: GrepArgs) -> Result<ToolOutput, ToolError> {
    if args.pattern.is_empty() {
        return Err(ToolError::invalid_args("`pattern` is empty"));
    }
    let is_regex = args.is_regex.unwrap_or(false);
    let pattern = if is_regex {
        args.pattern.clone()
    } else {
        regex::escape(&args.pattern)
    };
    // Plain text is found whatever its case: a model seldom knows it.
    let regex = regex::RegexBuilder::new(&pattern)
        .case_insensitive(!is_regex)
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
        .map_err(|e| {
            ToolError::invalid_args(format!(
                "invalid regular expression: {}",
                first_line(&e.to_string())
            ))
        })?;
    let (searched, note) = grep_scope(root, args.path.as_deref().unwrap_or("."))?;
    let output = match grep_in(
        root,
        &searched,
        &args,
        &LineMatch::Pattern(&regex),
        is_regex,
    ) {
        Grep::Found(output) => output,
        Grep::Missed(missed) => {
            // Plain text found nowhere: its words, each cut to a stem, may
            // be on a line in another form or order.
            let stems = (!is_regex).then(|| words::stems(&args.pattern)).flatten();
            let looser = stems
                .map(|stems| grep_in(root, &searched, &args, &LineMatch::Words(&stems), false));
            match looser {
                Some(Grep::Found(found)) => ToolOutput::new(format!(
                    "{}\n(no line has `{}` as written; these lines have each of its words)",
                    found.content, args.pattern
                )),
                _ => missed,
            }
        }
    };
    Ok(output_with_note(note, output))
}

/// The files a `grep` reads, and how its messages name them.
struct Searched {
    files: Vec<PathBuf>,
    /// `under `<dir>``, or `matching `<glob>``.
    named: String,
}

/// Where a `grep` looks: the files a glob given as its path matches (a
/// model writes `reports/2024/*.md` as a shell would expand it), or else
/// the path given, resolved as [`resolve_search_base`] does.
fn grep_scope(root: &FileRoot, given: &str) -> Result<(Searched, Option<String>), ToolError> {
    if let Some(files) = glob_files(root, given.trim()) {
        let named = format!("matching `{}`", given.trim());
        return Ok((Searched { files, named }, None));
    }
    let (base, note) = resolve_search_base(root, given)?;
    let named = format!("under `{}`", root.relative(&base));
    let files = if base.is_dir() {
        walk(&base)
    } else {
        vec![base]
    };
    Ok((Searched { files, named }, note))
}

/// Whether a path as given is written as a glob.
fn looks_like_glob(given: &str) -> bool {
    given.contains(['*', '?', '['])
}

/// The files under the root that `given` matches as a glob, when it is
/// written as one, names no existing path as written (`data[1].csv`), and
/// matches any; `None` otherwise.
fn glob_files(root: &FileRoot, given: &str) -> Option<Vec<PathBuf>> {
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

/// A glob whose `*` also crosses `/`, ignoring case.
fn case_blind_glob(glob: &str) -> Result<globset::GlobMatcher, globset::Error> {
    Ok(globset::GlobBuilder::new(glob)
        .literal_separator(false)
        .case_insensitive(true)
        .build()?
        .compile_matcher())
}

/// Whether `file`, found under `base`, matches `glob`: by its path from
/// the root or from `base`, or by its name alone (a glob without `/`
/// matches a name wherever it is).
fn glob_matches(glob: &globset::GlobMatcher, root: &FileRoot, base: &Path, file: &Path) -> bool {
    let from_base = file
        .strip_prefix(base)
        .map(|p| p.to_string_lossy().replace('\\', "/"));
    let name = file.file_name().map(|n| n.to_string_lossy());
    glob.is_match(root.relative(file))
        || from_base.as_deref().is_ok_and(|p| glob.is_match(p))
        || name.is_some_and(|n| glob.is_match(n.as_ref()))
}

/// Resolves where a `grep` or a `search_files` looks: the path given, or
/// the directory clearly meant, or, when the path given is not there at
/// all or is absolute, the whole working directory, with a note that
/// says so. A model guesses a folder (`src` where the code is in `lib`,
/// `/var/log`, `C:\Users\…`); what it wants is the text or the files,
/// wherever they are, and told only that the folder is missing or not
/// allowed, a 1.5B model went on guessing folders until its step limit.
fn resolve_search_base(
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
            let note = format!(
                "`{shown}` is not in the working directory; all of it was searched instead"
            );
            Ok((base, Some(note)))
        }
        other => other,
    }
}

/// What a `grep` line must match.
enum LineMatch<'a> {
    /// The pattern, as built from the arguments.
    Pattern(&'a regex::Regex),
    /// Each of these word stems, on the line or on a table row read with
    /// its column names.
    Words(&'a [String]),
}

/// What a `grep` in one base found.
enum Grep {
    /// Matching lines.
    Found(ToolOutput),
    /// No line matched: the message that says so.
    Missed(ToolOutput),
}

/// `grep` in the files of `scope`, once the pattern is built.
fn grep_in(
    root: &FileRoot,
    scope: &Searched,
    args: &GrepArgs,
    matcher: &LineMatch<'_>,
    is_regex: bool,
) -> Grep {
    let files = &scope.files;
    let searched = files.len();
    let mut out = Vec::new();
    let mut more = 0usize;
    // The files searched, while they are few and short together: shown
    // whole if nothing matches.
    let mut short_files = Some(Vec::new());
    let mut short_lines = 0usize;
    // The files with a match, while they are few and short together:
    // shown whole after the matching lines, so the lines around a match
    // (the constant a function uses, the section a key sits in) come
    // with it instead of costing another call.
    let mut matched_files = Some(Vec::new());
    let mut matched_lines = 0usize;
    let mut texts = Vec::new();
    for file in files {
        let shown = root.relative(file);
        let Ok(text) = read_text(root, file, &shown) else {
            continue;
        };
        if texts.len() <= MAX_NAMED_FILES {
            texts.push(shown.clone());
        }
        // A table's matching rows name their columns (`stock: 137`), so a
        // small model reads the right cell; rows that do not split into the
        // header's columns come after the header line instead.
        let separator = table_separator(file);
        let mut header = separator.and(text.lines().next());
        let header_cells = separator.zip(header).map(|(sep, h)| cells(h, sep));
        let mut only_header = separator.is_some();
        let before = out.len();
        // The table rows that matched, with their cells, for their sums.
        let mut matching_rows = Vec::new();
        for (n, line) in text.lines().enumerate() {
            // A table row's cells, split once: to match its labelled text,
            // to show it and to sum it.
            let in_table = separator.zip(header_cells.as_ref()).filter(|_| n > 0);
            let mut row = None;
            let matches = match matcher {
                LineMatch::Pattern(regex) => regex.is_match(line),
                LineMatch::Words(stems) => {
                    let labelled = in_table
                        .and_then(|(sep, names)| labelled_row(row.insert(cells(line, sep)), names));
                    words::holds_each(&labelled.unwrap_or_else(|| line.to_string()), stems)
                }
            };
            if matches {
                only_header &= n == 0;
                let mut labelled = None;
                if let Some((sep, names)) = in_table {
                    let row = row.take().unwrap_or_else(|| cells(line, sep));
                    if out.len() < MAX_GREP_MATCHES {
                        labelled = labelled_row(&row, names);
                    }
                    if row.len() == names.len() {
                        matching_rows.push((n + 1, row));
                    }
                }
                if out.len() < MAX_GREP_MATCHES {
                    if let Some(row) = labelled {
                        out.push(format!("{shown}:{}: {row}", n + 1));
                        continue;
                    }
                    if let Some(first) = header.take()
                        && n > 0
                    {
                        let first: String = first.chars().take(200).collect();
                        out.push(format!("{shown}:1: {first}"));
                    }
                    let line: String = line.chars().take(200).collect();
                    out.push(format!("{shown}:{}: {line}", n + 1));
                } else {
                    more += 1;
                }
            }
        }
        // A pattern found only in a table's header names a column: its
        // values come with it (small models grep a column to sum it).
        if only_header
            && out.len() > before
            && out.len() < MAX_GREP_MATCHES
            && let LineMatch::Pattern(regex) = matcher
            && let Some(values) = column_values(&text, file, regex)
        {
            out.push(format!("{shown}: {values}"));
        }
        let rows_summary = header_cells
            .as_ref()
            .and_then(|names| matching_rows_summary(&matching_rows, names));
        // A table's matching rows already name their columns, and a file
        // whose every line matches has nothing more to show.
        let matched = out.len() - before;
        if matched > 0
            && let Some(files) = matched_files.as_mut()
        {
            matched_lines += text.lines().count();
            if separator.is_none()
                && files.len() < MAX_MATCHED_FILES_WHOLE
                && matched_lines <= MAX_MATCHED_LINES_WHOLE
                && matched < text.lines().count()
            {
                files.push((shown.clone(), text.clone()));
            } else {
                matched_files = None;
            }
        }
        if let Some(summary) = rows_summary {
            out.push(format!("{shown}: {summary}"));
        }
        // Once the files are too many or too long, their lines are not
        // counted any more.
        if let Some(files) = short_files.as_mut() {
            short_lines += text.lines().count();
            if files.len() < MAX_NAMED_FILES && short_lines <= SHORT_FILE_LINES {
                files.push((shown, text));
            } else {
                short_files = None;
            }
        }
    }
    if out.is_empty() {
        let files_word = if searched == 1 { "file" } else { "files" };
        let case = if is_regex { "" } else { ", ignoring case" };
        let mut message = format!(
            "no matches for `{}` in {searched} {files_word} {}{case}",
            args.pattern, scope.named
        );
        // Short files shown whole are something found; a bare miss is not.
        let short_files = short_files.filter(|files| !files.is_empty());
        let shown_whole = short_files.is_some();
        if let Some(files) = short_files {
            message.push_str(". ");
            message.push_str(&shown_whole_text(&files));
        } else if (2..=MAX_NAMED_FILES).contains(&texts.len()) {
            message.push_str(&format!(
                "; read one of them with read_file, or grep another word: {}",
                texts.join(", ")
            ));
        } else {
            message.push_str("; try a shorter text or another word");
        }
        return Grep::Missed(ToolOutput {
            content: message,
            no_results: !shown_whole,
        });
    }
    if more > 0 {
        out.push(format!("[... {more} more matches not shown]"));
    } else if let Some(files) = matched_files.filter(|files| !files.is_empty()) {
        out.push(shown_whole_text(&files));
    }
    Grep::Found(ToolOutput::new(out.join("\n")))
}

/// The sentence of a `grep` that shows short files it searched, each
/// whole with its line numbers.
fn shown_whole_text(files: &[(String, String)]) -> String {
    match files {
        [(shown, text)] => format!(
            "`{shown}`{} is short; here it is whole:\n{}",
            dated::weekday_note(shown),
            numbered(&text.lines().collect::<Vec<_>>(), 1)
        ),
        _ => format!("They are short; here they are whole:{}", files_whole(files)),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().last().unwrap_or(text).trim()
}

fn search_files(root: &FileRoot, args: SearchFilesArgs) -> Result<ToolOutput, ToolError> {
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
/// it, ignoring case, with a line saying so. `None` when it has a
/// wildcard or no path holds it.
fn paths_containing(root: &FileRoot, base: &Path, pattern: &str) -> Option<String> {
    let part = pattern.trim_matches('/').to_lowercase();
    if part.is_empty() || part.contains(['*', '?', '[', '{']) {
        return None;
    }
    let found = listed_paths(
        walk(base)
            .iter()
            .map(|file| root.relative(file))
            .filter(|shown| shown.to_lowercase().contains(&part)),
    );
    (!found.is_empty())
        .then(|| format!("no file is named `{pattern}`; these paths contain it:\n{found}"))
}

fn write_file(root: &FileRoot, args: WriteFileArgs) -> Result<String, ToolError> {
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

fn edit_file(root: &FileRoot, args: EditFileArgs) -> Result<String, ToolError> {
    if args.old.is_empty() {
        return Err(ToolError::invalid_args(
            "`old` is empty; give the exact text to replace",
        ));
    }
    let path = root.resolve(&args.path, Access::Read)?;
    let shown = root.relative(&path);
    let text = read_text(root, &path, &shown)?;
    let count = text.matches(&args.old).count();
    match count {
        0 => Err(ToolError::failed(format!(
            "`old` was not found in `{shown}`; read the file and copy the text exactly"
        ))),
        1 => {
            let updated = text.replacen(&args.old, &args.new, 1);
            std::fs::write(&path, updated.as_bytes())
                .map_err(|e| io_failure("write", &shown, e))?;
            Ok(format!("edited `{shown}`: replaced 1 occurrence"))
        }
        n => Err(ToolError::failed(format!(
            "`old` matches {n} times in `{shown}`; include more surrounding text so it matches exactly once"
        ))),
    }
}
