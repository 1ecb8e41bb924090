//! Versions of one file. Paths that differ only in a year or a version
//! tag (`contracts/support-2022.md` and `contracts/support-2024.md`,
//! `reports/2023/q3.md` and `reports/2024/q3.md`, `spec-v1.md` and
//! `spec-v2.md`) are versions of one document. Wherever a file tool's
//! output shows two or more of them, a note after it names the latest
//! by its name: file tools list paths in name order, so the oldest comes
//! first, and a small model answers "what is the current …" from the
//! first file it sees. A full date (`standups/2024-03-14.md`) names one
//! of a series, not a version: such paths are left alone (see `dated`).

use std::collections::BTreeMap;

use super::root::{Access, FileRoot};

/// The groups of versions one output names at most.
const MAX_NOTES: usize = 3;

/// Characters that end a path inside a tool's output (`file:10: text`,
/// `` `file` ``, `file (Thursday)`, `a, b`).
const PATH_ENDS: [char; 9] = ['`', ':', '(', ')', ',', '|', '"', '\'', ';'];

/// `output` with a note after it for each group of versions it names
/// (paths under `root` that differ only in a year or a version tag), or
/// as it is when it names none.
pub(crate) fn with_latest_noted(root: &FileRoot, output: String) -> String {
    match latest_notes(root, &output) {
        Some(notes) => format!("{output}\n{notes}"),
        None => output,
    }
}

/// The notes naming the latest of each group of versions `output` names.
fn latest_notes(root: &FileRoot, output: &str) -> Option<String> {
    // The key of a path (its text with its versions masked) to its
    // versions, each with the numbers it is ordered by.
    let mut groups: BTreeMap<String, BTreeMap<String, Vec<u64>>> = BTreeMap::new();
    for token in output.split(|c: char| c.is_whitespace() || PATH_ENDS.contains(&c)) {
        let token = token.trim_end_matches('.');
        if !token.contains(['/', '.']) {
            continue;
        }
        let Some((key, order)) = version_key(token) else {
            continue;
        };
        let exists = root
            .resolve(token, Access::Read)
            .is_ok_and(|path| path.is_file());
        if exists {
            groups
                .entry(key)
                .or_default()
                .insert(token.to_string(), order);
        }
    }
    let notes: Vec<String> = groups
        .values()
        .filter(|versions| versions.len() > 1)
        .take(MAX_NOTES)
        .filter_map(|versions| {
            let (latest, _) = versions.iter().max_by(|a, b| a.1.cmp(b.1))?;
            let named: Vec<String> = versions.keys().map(|p| format!("`{p}`")).collect();
            Some(format!(
                "(Note: {} are versions of one file; the latest by its name is `{latest}`.)",
                named.join(", ")
            ))
        })
        .collect();
    (!notes.is_empty()).then(|| notes.join("\n"))
}

/// A path with its years and version tags masked, and those numbers in
/// order; `None` when it has none, or holds a full date.
fn version_key(path: &str) -> Option<(String, Vec<u64>)> {
    let mut key = String::with_capacity(path.len());
    let mut order = Vec::new();
    let mut rest = path;
    let mut after_separator = true;
    while let Some(c) = rest.chars().next() {
        let tag = (c == 'v' || c == 'V') && after_separator;
        let digits_from = usize::from(tag);
        let run = digit_run(&rest[digits_from..]);
        if tag && !run.is_empty() {
            // `v2`, `v1.3`: each part in order.
            let (parts, len) = dotted_numbers(&rest[1..]);
            order.extend(parts);
            key.push_str("v#");
            rest = &rest[1 + len..];
            after_separator = false;
            continue;
        }
        if !tag && !run.is_empty() {
            let len = if is_year(run) {
                if starts_date(&rest[run.len()..]) {
                    return None;
                }
                order.push(run.parse().unwrap_or(0));
                key.push('#');
                run.len()
            } else {
                key.push_str(run);
                run.len()
            };
            rest = &rest[len..];
            after_separator = false;
            continue;
        }
        key.push(c);
        after_separator = !c.is_alphanumeric();
        rest = &rest[c.len_utf8()..];
    }
    (!order.is_empty()).then_some((key, order))
}

/// The ASCII digits `text` starts with.
fn digit_run(text: &str) -> &str {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    &text[..end]
}

/// A whole digit run that reads as a year of our era's documents.
fn is_year(run: &str) -> bool {
    run.len() == 4 && run.parse::<u16>().is_ok_and(|y| (1900..=2099).contains(&y))
}

/// The numbers of a dotted version (`1.3` of `1.3.md`: a part after a
/// dot counts only when digits follow it) and the bytes they take.
fn dotted_numbers(text: &str) -> (Vec<u64>, usize) {
    let mut parts = Vec::new();
    let mut len = 0;
    loop {
        let run = digit_run(&text[len..]);
        parts.push(run.parse().unwrap_or(u64::MAX));
        len += run.len();
        let next = &text[len..];
        if next.starts_with('.') && !digit_run(&next[1..]).is_empty() {
            len += 1;
        } else {
            return (parts, len);
        }
    }
}

/// Whether what follows a year makes it a date (`-03-14`, `_03`).
fn starts_date(after_year: &str) -> bool {
    after_year
        .strip_prefix(['-', '_'])
        .is_some_and(|rest| digit_run(rest).len() == 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::root::root_with;

    fn key(path: &str) -> Option<(String, Vec<u64>)> {
        version_key(path)
    }

    #[test]
    fn years_dates_and_tags_are_masked_and_ordered() {
        assert_eq!(
            key("contracts/support-2022.md"),
            Some(("contracts/support-#.md".into(), vec![2022]))
        );
        assert_eq!(
            key("reports/2024/q3.md"),
            Some(("reports/#/q3.md".into(), vec![2024]))
        );
        assert_eq!(key("spec-v1.3.md"), Some(("spec-v#.md".into(), vec![1, 3])));
        assert_eq!(
            key("docs/V2/api.md"),
            Some(("docs/v#/api.md".into(), vec![2]))
        );
    }

    #[test]
    fn other_numbers_are_not_versions() {
        // Runner numbers, quarters, ports, a `v` inside a word, dates.
        assert_eq!(key("ci/logs/build-01.log"), None);
        assert_eq!(key("reports/q3.md"), None);
        assert_eq!(key("config-8080.yaml"), None);
        assert_eq!(key("dev2/notes.md"), None);
        assert_eq!(key("ids/12024.txt"), None);
        assert_eq!(key("notes/2024-03-14.md"), None);
        assert_eq!(key("logs/2024_10_15.log"), None);
    }

    #[test]
    fn the_latest_of_the_versions_an_output_shows_is_named() {
        let (_dir, root) = root_with(&[
            "club/fees-2022.md",
            "club/fees-2024.md",
            "club/rules.md",
            "drafts/fees-2027.md",
        ]);
        let output =
            "`club/fees-2022.md`:\n1| old\n`club/fees-2024.md`:\n1| new\nclub/rules.md:1: text";
        let noted = with_latest_noted(&root, output.to_string());
        assert!(noted.starts_with(output), "{noted}");
        assert!(
            noted.ends_with(
                "(Note: `club/fees-2022.md`, `club/fees-2024.md` are versions of one file; \
                 the latest by its name is `club/fees-2024.md`.)"
            ),
            "{noted}"
        );
        // A draft in another folder is another file.
        assert!(!noted.contains("drafts"), "{noted}");
    }

    #[test]
    fn grep_lines_and_files_that_are_no_versions() {
        let (_dir, root) = root_with(&[
            "reports/2023/q3.md",
            "reports/2024/q3.md",
            "logs/2024-10-15.log",
            "logs/2024-10-16.log",
        ]);
        let output = "reports/2023/q3.md:3: revenue\nreports/2024/q3.md:3: revenue";
        let noted = with_latest_noted(&root, output.to_string());
        assert!(
            noted.contains("the latest by its name is `reports/2024/q3.md`"),
            "{noted}"
        );
        // One version shown, dated files (a series), or versions that do
        // not exist: no note.
        for output in [
            "reports/2023/q3.md:3: revenue",
            "logs/2024-10-15.log:3: error\nlogs/2024-10-16.log:9: error",
            "`docs/spec-v1.md` `docs/spec-v2.md`",
        ] {
            assert_eq!(with_latest_noted(&root, output.to_string()), output);
        }
    }
}
