//! `grep`: the lines that hold a text or match a regex, with a table's
//! rows read with their column names, a looser search by word stems when
//! plain text is found nowhere, and short files shown whole.

use std::path::PathBuf;

use agent_core::script::is_latin_letter;
use agent_core::{ToolError, ToolOutput};

use super::glob::glob_files;
use super::resolve::{output_with_note, resolve_search_base};
use super::text::{files_whole, numbered, read_text};
use super::{GrepArgs, MAX_GREP_MATCHES, SHORT_FILE_LINES};
use crate::builtin::dated;
use crate::builtin::nearby::walk;
use crate::builtin::root::FileRoot;
use crate::builtin::table::{
    cells, column_values, decimal_comma_in, json_record, labelled_row, matching_records_summary,
    matching_rows_summary, pipe_column_values, pipe_tables, table_separator,
};
use crate::builtin::words;

/// Files a `grep` that finds nothing names, when it searched this few.
const MAX_NAMED_FILES: usize = 8;
/// Files with a `grep` match shown whole at most, when they are short.
const MAX_MATCHED_FILES_WHOLE: usize = 2;
/// Lines of the files with a `grep` match shown whole at most, together:
/// tighter than [`SHORT_FILE_LINES`], since the matching lines came first.
const MAX_MATCHED_LINES_WHOLE: usize = SHORT_FILE_LINES / 2;

pub(super) fn grep(root: &FileRoot, args: GrepArgs) -> Result<ToolOutput, ToolError> {
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
                regex_error_gist(&e.to_string())
            ))
        })?;
    let (searched, note) = grep_scope(root, args.path.as_deref().unwrap_or("."))?;
    // Plain text of several words also finds the lines that hold each of
    // them in another order or form: asked for `phase 1 budget`, the
    // notes that say `budget for phase 1` hold the answer as much as
    // those that say it as written.
    let stems = (!is_regex).then(|| words::stems(&args.pattern)).flatten();
    let several_words = stems.as_deref().filter(|stems| stems.len() > 1);
    let matcher = match several_words {
        Some(stems) => LineMatch::PatternOrWords(&regex, stems),
        None => LineMatch::Pattern(&regex),
    };
    let output = match grep_in(root, &searched, &args, &matcher, is_regex) {
        Grep::Found(output) if several_words.is_some() && !regex.is_match(&output.content) => {
            ToolOutput::new(format!(
                "{}\n(no line has `{}` as written; these lines have each of its words)",
                output.content, args.pattern
            ))
        }
        Grep::Found(output) => output,
        Grep::Missed {
            output: missed,
            non_ascii,
        } => {
            // Plain text found nowhere: cut to stems, its words may be on
            // a table row read with its column names (`region:North,Aug`),
            // and one word may be on a line in another form, or with other
            // accents (only files that are not all ASCII can hold those).
            let stems =
                stems.filter(|stems| non_ascii || words::looser_than_written(stems, &args.pattern));
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
    /// ``under `<dir>` ``, or ``matching `<glob>` ``.
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

/// What a `grep` line must match.
enum LineMatch<'a> {
    /// The pattern, as built from the arguments.
    Pattern(&'a regex::Regex),
    /// Each of these word stems, on the line or on a table row read with
    /// its column names.
    Words(&'a [String]),
    /// The pattern, or each of these word stems on the line as written
    /// (not a table row read with its column names).
    PatternOrWords(&'a regex::Regex, &'a [String]),
}

/// What a `grep` in one base found.
enum Grep {
    /// Matching lines.
    Found(ToolOutput),
    /// No line matched: the message that says so, and whether a file
    /// searched holds text that is not ASCII.
    Missed { output: ToolOutput, non_ascii: bool },
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
    let mut non_ascii = false;
    for file in files {
        let shown = root.relative(file);
        let Ok(text) = read_text(root, file, &shown) else {
            continue;
        };
        non_ascii |= !text.is_ascii();
        if texts.len() <= MAX_NAMED_FILES {
            texts.push(shown.clone());
        }
        // A table's matching rows name their columns (`stock: 137`), so a
        // small model reads the right cell; rows that do not split into the
        // header's columns come after the header line instead.
        let separator = table_separator(file, &text);
        let mut header = separator.and(text.lines().next());
        let header_cells = separator.zip(header).map(|(sep, h)| cells(h, sep));
        let mut only_header = separator.is_some();
        // Markdown tables in any other text, read the same way.
        let pipe_tables = if separator.is_none() {
            pipe_tables(&text)
        } else {
            Vec::new()
        };
        // Whether every match so far is a markdown table's header.
        let mut only_pipe_headers = !pipe_tables.is_empty();
        let before = out.len();
        // The table rows that matched, with their cells, for their sums,
        // and the markdown table they are in (the first one's only).
        let mut matching_rows = Vec::new();
        let mut matching_table = None;
        // The JSON records that matched, one per line, for their sums.
        let json_file = file.extension().and_then(|e| e.to_str()).is_some_and(|e| {
            ["json", "jsonl", "ndjson"].contains(&e.to_ascii_lowercase().as_str())
        });
        let mut matching_records = Vec::new();
        // The first markdown table not above the line read (they are in
        // line order).
        let mut next_table = 0;
        for (n, line) in text.lines().enumerate() {
            while pipe_tables.get(next_table).is_some_and(|t| t.rows.end <= n) {
                next_table += 1;
            }
            // A table row's cells, split once: to match its labelled text,
            // to show it and to sum it.
            let pipe_table = pipe_tables
                .get(next_table)
                .filter(|t| t.rows.contains(&n))
                .map(|_| next_table);
            let in_table = match (separator, pipe_table) {
                (Some(sep), _) => header_cells.as_deref().filter(|_| n > 0).map(|h| (sep, h)),
                (None, Some(t)) => Some(('|', pipe_tables[t].names.as_slice())),
                (None, None) => None,
            };
            let mut row = None;
            let mut holds_words = |stems: &[String]| {
                let labelled = in_table
                    .and_then(|(sep, names)| labelled_row(row.insert(cells(line, sep)), names));
                words::holds_each(&labelled.unwrap_or_else(|| line.to_string()), stems)
            };
            let matches = match matcher {
                LineMatch::Pattern(regex) => regex.is_match(line),
                LineMatch::Words(stems) => holds_words(stems),
                // The line as written: a table row read with its column
                // names would match words of the header on every row.
                LineMatch::PatternOrWords(regex, stems) => {
                    regex.is_match(line) || words::holds_each(line, stems)
                }
            };
            if matches {
                only_header &= n == 0;
                only_pipe_headers &= pipe_tables
                    .get(next_table)
                    .is_some_and(|t| t.rows.start == n + 2);
                if json_file && let Some(record) = json_record(line) {
                    matching_records.push((n + 1, record));
                }
                let mut labelled = None;
                if let Some((sep, names)) = in_table {
                    let row = row.take().unwrap_or_else(|| cells(line, sep));
                    if out.len() < MAX_GREP_MATCHES {
                        labelled = labelled_row(&row, names);
                    }
                    if row.len() == names.len()
                        && pipe_table.is_none_or(|t| *matching_table.get_or_insert(t) == t)
                    {
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
            && let LineMatch::Pattern(regex) | LineMatch::PatternOrWords(regex, _) = matcher
            && let Some(values) = column_values(&text, file, regex)
        {
            out.push(format!("{shown}: {values}"));
        }
        if only_pipe_headers
            && out.len() > before
            && out.len() < MAX_GREP_MATCHES
            && let LineMatch::Pattern(regex) | LineMatch::PatternOrWords(regex, _) = matcher
            && let Some(values) = pipe_column_values(&text, regex)
        {
            out.push(format!("{shown}: {values}"));
        }
        let summed_table = match (separator, matching_table) {
            (Some(sep), _) => header_cells
                .as_deref()
                .map(|h| (h, decimal_comma_in(sep, text.lines().skip(1)))),
            (None, Some(t)) => Some((
                pipe_tables[t].names.as_slice(),
                pipe_tables[t].decimal_comma,
            )),
            (None, None) => None,
        };
        let rows_summary = match summed_table {
            Some((names, decimal_comma)) => {
                matching_rows_summary(&matching_rows, names, decimal_comma)
            }
            None => matching_records_summary(&matching_records),
        };
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
        // Short files shown whole are something found; a bare miss is not.
        let short_files = short_files.filter(|files| !files.is_empty());
        let shown_whole = short_files.is_some();
        let missed = format!(
            "no matches for `{}` in {searched} {files_word} {}{case}",
            args.pattern, scope.named
        );
        let message = match short_files {
            Some(files) => format!(
                "{missed}{}. {}",
                other_script_note(&args.pattern, is_regex, &files),
                shown_whole_text(&files)
            ),
            None if (2..=MAX_NAMED_FILES).contains(&texts.len()) => format!(
                "{missed}; read one of them with read_file, or grep another word: {}",
                texts.join(", ")
            ),
            None => format!("{missed}; try a shorter text or another word"),
        };
        return Grep::Missed {
            output: ToolOutput {
                content: message,
                no_results: !shown_whole,
                missed: shown_whole,
            },
            non_ascii,
        };
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

/// What a `grep` that matched no line in short files, which it shows
/// whole, adds to its miss when the pattern's letters and the files' are
/// of different scripts (a plain pattern): the files hold the answer in
/// their own words, and the 1.5B model, shown a Russian or Korean sheet
/// after an English pattern, answered that they held nothing. Empty
/// otherwise. (Opening the message with "read them for what the
/// question asks" instead of the miss was measured and dropped: one task
/// of a probe set and two of the holdout turned wrong.)
fn other_script_note(pattern: &str, is_regex: bool, files: &[(String, String)]) -> &'static str {
    let text: String = files.iter().map(|(_, text)| text.as_str()).collect();
    let other_script = !is_regex
        && matches!(
            (mostly_latin(pattern), mostly_latin(&text)),
            (Some(a), Some(b)) if a != b
        );
    match (other_script, files.len()) {
        (false, _) => "",
        (true, 1) => {
            "; the file is written in another script: look for what the pattern means in its words"
        }
        (true, _) => {
            "; the files are written in another script: look for what the pattern means in their words"
        }
    }
}

/// Whether most letters of `text` are Latin; `None` when it has none.
fn mostly_latin(text: &str) -> Option<bool> {
    let (latin, other) =
        text.chars()
            .filter(|c| c.is_alphabetic())
            .fold((0usize, 0usize), |(latin, other), c| {
                if is_latin_letter(c) {
                    (latin + 1, other)
                } else {
                    (latin, other + 1)
                }
            });
    (latin + other > 0).then_some(latin >= other)
}

/// The gist of a regex error: its last line (the first lines repeat the
/// pattern and point at the fault).
fn regex_error_gist(text: &str) -> &str {
    text.lines().last().unwrap_or(text).trim()
}
