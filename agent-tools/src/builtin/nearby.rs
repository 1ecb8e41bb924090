//! What is near a path that is not there, so that a failed file call
//! teaches the model the right path in one line: the paths whose names
//! look like the one it gave, or else what the nearest existing directory
//! holds. Also the bounded walk every file tool lists files with.
//!
//! Names are compared without case or accents (`reunion.md` finds
//! `reunión.md`), by whole name, by stem (the name without its
//! extension), by containment and by the words of the name (split on
//! `-`, `_`, `.`, spaces and glob characters), so a model that guesses
//! `config.json` is shown `config/server.toml`, and one that guesses
//! `Notes/Tuesday.md` is shown `notes/2024-05-14-tue.md` only when a
//! word matches. A name a typo apart (`reciepts.csv` for `receipts.csv`)
//! counts as close, just below one whose stem holds the other; one
//! whose word abbreviates a word of the other (`db.yaml` for
//! `database.conf`) is similar, below those, and by that alone never
//! read in place of the name given. Among
//! paths as alike by name, those that hold the numbers of the given name
//! (`q3`, `sprint14`, `2024-05-14`) come first.
//! Only paths inside the root are ever shown.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::dated;
use super::fold::fold;
use super::root::FileRoot;
use agent_core::typos::one_typo_apart;

/// Files visited at most by one walk.
pub(crate) const MAX_WALKED_FILES: usize = 20_000;
/// Similar paths shown at most.
const MAX_SIMILAR: usize = 5;
/// Directory entries shown at most.
const MAX_LISTED_ENTRIES: usize = 15;
/// A directory holding at most this many files, at any depth, is listed
/// file by file, with paths a model can pass on as they are.
const MAX_FLAT_FILES: usize = 12;
/// Words shorter than this do not count as a match.
const MIN_WORD_CHARS: usize = 3;
/// The score of a name one of whose words abbreviates a word of the
/// other (see `abbreviated`): below [`MIN_CLOSEST_SCORE`], so it is
/// shown or listed, never read in place of the name given.
const ABBREVIATION_SCORE: u32 = 30;
// Shared words and numbers add nine at most: still never read in place.
const _: () = assert!(ABBREVIATION_SCORE + 9 < MIN_CLOSEST_SCORE);
/// The least score of a path read in place of one that is not there: its
/// stem holds the given stem (or the reverse), or two words match.
const MIN_CLOSEST_SCORE: u32 = 40;

/// Files under `dir`, sorted; symlinks are not followed; at most
/// [`MAX_WALKED_FILES`].
pub(crate) fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                files.push(entry.path());
                if files.len() >= MAX_WALKED_FILES {
                    stack.clear();
                    break;
                }
            }
        }
    }
    files.sort();
    files
}

/// A sentence for a path the model gave that is not there (or not
/// allowed): `Similar paths: …` when some names look like it, otherwise
/// what the nearest existing directory along it holds. Starts with a
/// space; empty when the root is empty.
pub(crate) fn hint(root: &FileRoot, given: &str) -> String {
    let similar = similar_paths(root, given);
    if !similar.is_empty() {
        let list = similar
            .iter()
            .map(|p| format!("`{p}`{}", dated::weekday_note(p)))
            .collect::<Vec<_>>()
            .join(", ");
        return format!(" Similar paths: {list}. Read one with read_file.");
    }
    holds(root, &nearest_directory(root, given))
}

/// A sentence saying what the directory `dir` holds, naming it by its
/// path (the root as "the working directory"). Starts with a space.
pub(crate) fn holds(root: &FileRoot, dir: &Path) -> String {
    let place = match root.relative(dir).as_str() {
        "." => "The working directory".to_string(),
        shown => format!("The directory `{shown}`"),
    };
    let listing = listing(root, dir);
    if listing.text.is_empty() {
        return format!(" {place} is empty.");
    }
    format!(" {place} has: {}.{}", listing.text, listing.read_one())
}

/// The paths of files whose names look like `given`, best first (as
/// [`hint`] names them).
pub(crate) fn similar_paths(root: &FileRoot, given: &str) -> Vec<String> {
    let shown: Vec<String> = walk(root.path()).iter().map(|f| root.relative(f)).collect();
    similar(given, &without_sibling_folders(given, shown))
}

/// `paths` without those under a sibling of the folder `given` names (a
/// folder beside it, under the same parent), when that folder is there
/// and holds files of the kind `given` names (its extension): the file
/// meant would be in it, and a file of the same name in a folder beside
/// it is another thing (asked for `bills/electricity/2024-12.txt`, which
/// is not there, a read showed `bills/gas/2024-12.txt`, and the 1.5B
/// model gave the gas bill as the electricity bill; `comptes/2023/` is
/// not `comptes/2024/`). Files deeper in the folder or above it stay
/// (`logs/auth/2024-05-02.log` for `logs/2024-05-02.log`). The folder is
/// matched by its last parts (`/home/user/bills/electricity` is
/// `bills/electricity`).
fn without_sibling_folders(given: &str, paths: Vec<String>) -> Vec<String> {
    let Some(folder) = named_folder(given, &paths) else {
        return paths;
    };
    let parent = parent_of(&folder).unwrap_or("");
    let beside = |dir: &str| -> bool {
        if dir == folder || dir.starts_with(&format!("{folder}/")) {
            return false;
        }
        let rest = if parent.is_empty() {
            Some(dir)
        } else {
            dir.strip_prefix(&format!("{parent}/"))
        };
        rest.is_some_and(|rest| !rest.is_empty())
    };
    paths
        .into_iter()
        .filter(|path| !beside(&parent_of(path).map(fold).unwrap_or_default()))
        .collect()
}

/// The folder (folded) that `given` names and `paths` show holding a file
/// with `given`'s extension, by the longest run of `given`'s last folder
/// parts that one folder alone ends with; `None` when there is none or
/// more than one.
fn named_folder(given: &str, paths: &[String]) -> Option<String> {
    let given = fold(&given.trim().replace('\\', "/"));
    let parts: Vec<&str> = given
        .split('/')
        .filter(|p| !p.is_empty() && *p != "." && *p != "~" && !p.ends_with(':'))
        .collect();
    let (name, folders) = parts.split_last()?;
    let (_, extension) = name.rsplit_once('.')?;
    let kind = format!(".{extension}");
    for start in 0..folders.len() {
        let suffix = folders[start..].join("/");
        let mut matching: Vec<String> = paths
            .iter()
            .filter(|path| fold(path).ends_with(&kind))
            .filter_map(|path| parent_of(path).map(fold))
            .filter(|dir| *dir == suffix || dir.ends_with(&format!("/{suffix}")))
            .collect();
        matching.sort();
        matching.dedup();
        match matching.as_slice() {
            [one] => return Some(one.clone()),
            [] => continue,
            _ => return None,
        }
    }
    None
}

/// The folder part of a relative path, when it has one.
fn parent_of(path: &str) -> Option<&str> {
    path.rsplit_once('/').map(|(dir, _)| dir)
}

/// The one file that a read of `given`, a path that is not there, can
/// show instead: the most similar path, when no other is as similar and it
/// looks like `given` by more than one shared word. `None` when there is
/// no such single file.
pub(crate) fn closest_file(root: &FileRoot, given: &str) -> Option<String> {
    let files = walk(root.path());
    let shown: Vec<String> = files.iter().map(|f| root.relative(f)).collect();
    let shown = without_sibling_folders(given, shown);
    let scored = scored(given, &shown);
    match scored.as_slice() {
        [(best, path), rest @ ..]
            if *best >= MIN_CLOSEST_SCORE
                && rest.first().is_none_or(|(s, _)| s < best)
                && named_alike(given, path) =>
        {
            Some((*path).clone())
        }
        _ => None,
    }
}

/// Whether `given`, a path that is not there, names a file (its name has
/// an extension) that no file's name looks like: the file a task names is
/// then missing, and a note that leads with what was searched in its
/// place had a 1.5B model answer from another file as if it were that
/// one. A folder guessed (`src`) is no such path.
pub(crate) fn no_file_named_like(root: &FileRoot, given: &str) -> bool {
    let trimmed = given.trim().trim_end_matches(['/', '\\']);
    let name = trimmed.rsplit(['/', '\\']).next().unwrap_or(trimmed);
    stem(name) != name
        && !similar_paths(root, given)
            .iter()
            .any(|path| named_alike(given, path))
}

/// Whether `path` looks like the file name of `given`, not only like its
/// folders: the name matches, or a word of the given name is in the path
/// (`config/server.toml` for `config.json`, but not `docs/onboarding.md`
/// for `docs/deploy-checklist.md`, which shares only the folder).
pub(crate) fn named_alike(given: &str, path: &str) -> bool {
    let given = fold(&given.trim().replace('\\', "/"));
    let name = given.rsplit('/').next().unwrap_or(&given);
    let stem = stem(name);
    let name_words = words(stem);
    let only_the_name = Given {
        path: name,
        name,
        stem,
        words: &name_words,
        numbers: &[],
    };
    score(&fold(path), &only_the_name) > 0
}

/// The one directory that a search of `given`, a directory that is not
/// there, can search instead: one with the same name in another case or
/// deeper in the tree (`reports` for `data/reports`), or whose name and
/// the given one begin alike (`docs` for `documentation`, `conf` for
/// `config`, `test` for `tests`) under the same parent. `None` unless
/// exactly one directory is the best such match.
pub(crate) fn closest_directory(root: &FileRoot, given: &str) -> Option<String> {
    let given = fold(&given.trim().replace('\\', "/"));
    let given = given.trim_start_matches("./").trim_matches('/').to_string();
    if given.is_empty() || given.contains(['*', '?', '[']) {
        return None;
    }
    let (given_parent, given_name) = given.rsplit_once('/').unwrap_or(("", &given));
    let mut dirs: Vec<String> = walk(root.path())
        .iter()
        .filter_map(|file| file.parent().map(|dir| root.relative(dir)))
        .flat_map(|dir| {
            // Every ancestor of the file's directory, too.
            let parts: Vec<&str> = dir.split('/').collect();
            (1..=parts.len())
                .map(|n| parts[..n].join("/"))
                .collect::<Vec<_>>()
        })
        .filter(|dir| !dir.is_empty() && dir != ".")
        .collect();
    dirs.sort();
    dirs.dedup();
    let score = |dir: &str| -> u32 {
        let lower = fold(dir);
        let (parent, name) = lower.rsplit_once('/').unwrap_or(("", &lower));
        if lower == given {
            return 100;
        }
        if lower.ends_with(&format!("/{given}")) {
            return 90;
        }
        let common = name
            .chars()
            .zip(given_name.chars())
            .take_while(|(a, b)| a == b)
            .count();
        let shorter = name.chars().count().min(given_name.chars().count());
        if parent == given_parent && common >= MIN_WORD_CHARS && common * 4 >= shorter * 3 {
            return 60;
        }
        0
    };
    let mut scored: Vec<(u32, &String)> = dirs
        .iter()
        .map(|d| (score(d), d))
        .filter(|(s, _)| *s > 0)
        .collect();
    scored.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    match scored.as_slice() {
        [(best, dir), rest @ ..] if rest.first().is_none_or(|(s, _)| s < best) => {
            Some((*dir).clone())
        }
        _ => None,
    }
}

/// What a directory holds, in one line.
pub(crate) struct Listing {
    /// The entries, comma-separated; empty when the directory is.
    pub(crate) text: String,
    /// Whether every entry is a file (the directory holds few).
    pub(crate) files_only: bool,
}

impl Listing {
    /// The sentence after a listing of files only, saying to read one;
    /// empty after a listing that holds directories.
    pub(crate) fn read_one(&self) -> &'static str {
        if self.files_only {
            " Read one with read_file."
        } else {
            ""
        }
    }
}

/// What `dir` holds, in one line: every file by its path from the root
/// when it holds few ([`MAX_FLAT_FILES`]); otherwise its files, and its
/// directories with how many files each holds (`config/ (2 files)`).
pub(crate) fn listing(root: &FileRoot, dir: &Path) -> Listing {
    let files = walk(dir);
    if files.len() <= MAX_FLAT_FILES {
        let shown: Vec<String> = files
            .iter()
            .map(|file| dated::with_weekday(&root.relative(file)))
            .collect();
        return Listing {
            text: shown.join(", "),
            files_only: true,
        };
    }
    let mut entries: BTreeMap<String, Option<usize>> = BTreeMap::new();
    for file in files {
        let Ok(rest) = file.strip_prefix(dir) else {
            continue;
        };
        let mut parts = rest.components();
        let Some(first) = parts.next() else {
            continue;
        };
        let name = first.as_os_str().to_string_lossy().to_string();
        if parts.next().is_some() {
            *entries.entry(name).or_insert(Some(0)).get_or_insert(0) += 1;
        } else {
            entries.insert(name, None);
        }
    }
    let total = entries.len();
    let mut shown: Vec<String> = entries
        .into_iter()
        .take(MAX_LISTED_ENTRIES)
        .map(|(name, files)| match files {
            None => name,
            Some(1) => format!("{name}/ (1 file)"),
            Some(n) => format!("{name}/ ({n} files)"),
        })
        .collect();
    if total > MAX_LISTED_ENTRIES {
        shown.push(format!("and {} more", total - MAX_LISTED_ENTRIES));
    }
    Listing {
        text: shown.join(", "),
        files_only: false,
    }
}

/// The deepest existing directory along `given`, inside the root.
fn nearest_directory(root: &FileRoot, given: &str) -> PathBuf {
    let mut dir = root.path().to_path_buf();
    for part in given.replace('\\', "/").split('/') {
        if part.is_empty() || part == "." || part == ".." {
            continue;
        }
        let next = dir.join(part);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.is_dir() => dir = next,
            _ => break,
        }
    }
    dir
}

/// The paths (of `paths`) whose names look like `given`, best first.
fn similar(given: &str, paths: &[String]) -> Vec<String> {
    let scored = scored(given, paths);
    // Only the best kind of match: a whole-name match hides word matches.
    let best = scored.first().map_or(0, |(s, _)| *s);
    scored
        .into_iter()
        .filter(|(s, _)| *s * 2 >= best)
        .take(MAX_SIMILAR)
        .map(|(_, p)| p.clone())
        .collect()
}

/// The paths that look like `given` at all, with their scores, best first.
fn scored<'a>(given: &str, paths: &'a [String]) -> Vec<(u32, &'a String)> {
    let given = fold(&given.trim().replace('\\', "/"));
    let given = given.trim_start_matches(['/', '~', '.']);
    let name = given.rsplit('/').next().unwrap_or(given);
    let stem = stem(name);
    let given_words = words(given);
    let given_numbers = numbers(given);
    let mut scored: Vec<(u32, &String)> = paths
        .iter()
        .filter_map(|path| {
            let given = Given {
                path: given,
                name,
                stem,
                words: &given_words,
                numbers: &given_numbers,
            };
            let score = score(&fold(path), &given);
            (score > 0).then_some((score, path))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored
}

/// The path a model gave, lower case, and what [`score`] compares of it.
struct Given<'a> {
    path: &'a str,
    name: &'a str,
    stem: &'a str,
    words: &'a [&'a str],
    numbers: &'a [&'a str],
}

/// How much `path` (lower case) looks like what the model gave: the kind
/// of match of the name, and within one kind, how many of the given
/// path's words and numbers the whole path shares (`gateway` makes
/// `logs/gateway/2024-05-02.log` closer to `/var/log/gateway/2024-05-02.log`
/// than `logs/auth/2024-05-02.log`; `14` makes `retros/s14-retro.md`
/// closer to `sprint14-retro.md` than `retros/s13-retro.md`).
fn score(path: &str, given: &Given<'_>) -> u32 {
    let Given {
        path: given,
        name,
        stem,
        words,
        numbers,
    } = *given;
    let path_name = path.rsplit('/').next().unwrap_or(path);
    let path_stem = self::stem(path_name);
    let path_words = self::words(path);
    let shared = words
        .iter()
        .filter(|w| path_words.iter().any(|p| p == *w))
        .count();
    let shared = u32::try_from(shared).unwrap_or(u32::MAX);
    let path_numbers = self::numbers(path);
    let shared_numbers = numbers.iter().filter(|n| path_numbers.contains(n)).count();
    let shared_numbers = u32::try_from(shared_numbers).unwrap_or(u32::MAX);
    // Within a kind of name match, shared words and numbers only break
    // ties (the kinds are ten apart).
    let tie_break = shared.saturating_add(shared_numbers).min(9);
    if !given.is_empty() && (path == given || path.ends_with(&format!("/{given}"))) {
        return 100;
    }
    if !name.is_empty() && path_name == name {
        return 90 + tie_break;
    }
    if stem.chars().count() >= MIN_WORD_CHARS && path_stem == stem {
        return 70 + tie_break;
    }
    let long = |s: &str| s.chars().count() >= MIN_WORD_CHARS;
    if long(stem) && long(path_stem) && (path_stem.contains(stem) || stem.contains(path_stem)) {
        return 50 + tie_break;
    }
    if misspelt(stem, path_stem) {
        return 45 + tie_break;
    }
    // A shared number alone does not make a path look alike: every file
    // of a year would.
    let by_words = if shared == 0 {
        0
    } else {
        shared
            .saturating_mul(20)
            .saturating_add(shared_numbers.min(9))
    };
    if abbreviated(stem, path_stem) {
        return by_words.max(ABBREVIATION_SCORE + tie_break);
    }
    by_words
}

/// Whether a word of one stem is an abbreviation of a word of the other:
/// two to four letters (two only as the whole stem), the long word's
/// first letter first and then only consonants, all of them in the long
/// word in order, which is three letters longer at least (`db` for
/// `database`, `cfg` for `config`, `msg` for `messages`; not `to` for
/// `tomorrow`, nor `api` for `apricot`). A 1.5B model looking for the
/// database configuration read `app.yaml`, the first of a listing,
/// beside `db.yaml`.
fn abbreviated(stem: &str, path_stem: &str) -> bool {
    let split = |s: &str| -> Vec<Vec<char>> {
        s.split(|c: char| !c.is_alphabetic())
            .filter(|w| !w.is_empty())
            .map(|w| w.chars().collect())
            .collect()
    };
    let (given, path) = (split(stem), split(path_stem));
    let abbreviates = |short: &[char], whole_stem: bool, long: &[char]| {
        let length = (3..=4).contains(&short.len()) || (short.len() == 2 && whole_stem);
        let consonants = short
            .iter()
            .skip(1)
            .all(|c| c.is_ascii_alphabetic() && !"aeiouy".contains(*c));
        let mut rest = long.iter();
        length
            && consonants
            && long.len() >= short.len() + 3
            && short.first() == long.first()
            && short.iter().all(|c| rest.any(|l| l == c))
    };
    given.iter().any(|g| {
        path.iter()
            .any(|p| abbreviates(g, given.len() == 1, p) || abbreviates(p, path.len() == 1, g))
    })
}

/// Whether the name `stem` given is `path_stem` with a typo or two: word
/// for word the same (split at any mark that is no letter or digit),
/// each word equal or one typo apart, and one at least apart
/// (`reciepts` for `receipts`, `meeting-ntoes` for `meeting-notes`).
fn misspelt(stem: &str, path_stem: &str) -> bool {
    let split = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (given, path) = (split(stem), split(path_stem));
    given.len() == path.len()
        && given
            .iter()
            .zip(&path)
            .all(|(g, p)| g == p || one_typo_apart(g, p))
        && given.iter().zip(&path).any(|(g, p)| g != p)
}

/// The numbers written in `text` (runs of digits, without leading zeros),
/// each once: `sprint14-2024-04-26` has `14`, `2024`, `4` and `26`.
fn numbers(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .map(|run| match run.trim_start_matches('0') {
            "" => "0",
            number => number,
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// A file name without its last extension.
fn stem(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => name,
    }
}

/// The words of a path: split on separators and glob characters, at
/// least [`MIN_WORD_CHARS`] long, without common file extensions.
fn words(text: &str) -> Vec<&str> {
    const EXTENSIONS: &[&str] = &["txt", "md", "json", "toml", "yaml", "yml", "csv", "log"];
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= MIN_WORD_CHARS && !EXTENSIONS.contains(w))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::builtin::root::root_with;

    fn paths(list: &[&str]) -> Vec<String> {
        list.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn similar_names_are_found_by_name_stem_and_word() {
        let all = paths(&[
            "README.md",
            "config/logging.toml",
            "config/server.toml",
            "notes/2024-05-14-tue.md",
            "src/app.py",
        ]);
        assert_eq!(similar("app.py", &all), ["src/app.py"]);
        assert_eq!(similar("/project/src/APP.py", &all), ["src/app.py"]);
        assert_eq!(similar("server.json", &all), ["config/server.toml"]);
        assert_eq!(
            similar("config.json", &all),
            ["config/logging.toml", "config/server.toml"]
        );
        assert_eq!(similar("notes/tue.md", &all), ["notes/2024-05-14-tue.md"]);
        assert_eq!(similar("readme", &all), ["README.md"]);
        assert!(similar("nothing-like-it.txt", &all).is_empty());
        assert!(similar("", &all).is_empty());
        assert!(similar("a.md", &all).is_empty(), "short words do not match");
    }

    #[test]
    fn an_abbreviated_name_is_similar_but_never_the_closest() {
        let all = paths(&["config/app.yaml", "config/db.yaml", "notes/cfg-notes.md"]);
        assert_eq!(similar("database.conf", &all), ["config/db.yaml"]);
        assert_eq!(
            similar("/etc/configuration.toml", &all),
            ["notes/cfg-notes.md"]
        );
        assert!(named_alike("database.conf", "config/db.yaml"));
        // Not the first letter, too short a difference, or out of order.
        assert!(similar("bad.conf", &all).is_empty());
        assert!(similar("dab.yaml", &all).is_empty());
        assert!(similar("bdatase.conf", &all).is_empty());
        // A whole-name match hides it.
        let more = paths(&["config/db.yaml", "database.yaml"]);
        assert_eq!(similar("database.conf", &more), ["database.yaml"]);
        let (_dir, root) = root_with(&["config/app.yaml", "config/db.yaml"]);
        assert_eq!(closest_file(&root, "database.yaml"), None);
        // Two letters only as a whole stem; vowels after the first, no.
        let loose = paths(&["notes/to-do.md", "fruit/api.md", "2024-q3-sales-rpt.md"]);
        assert!(similar("tomorrow.md", &loose).is_empty());
        assert!(similar("apricot.md", &loose).is_empty());
        // Shared words still count in full beside an abbreviation.
        let (_dir, root) = root_with(&["2024-q3-sales-rpt.md"]);
        assert_eq!(
            closest_file(&root, "2024-q3-sales-report.md").as_deref(),
            Some("2024-q3-sales-rpt.md")
        );
    }

    #[test]
    fn a_path_is_named_alike_when_it_matches_the_name_not_only_the_folders() {
        assert!(named_alike("config.json", "config/server.toml"));
        assert!(named_alike("docs/deploy.md", "notes/deploy-steps.md"));
        assert!(named_alike("reciepts.csv", "data/receipts.csv"));
        assert!(named_alike("/home/me/src/APP.py", "src/app.py"));
        assert!(!named_alike(
            "docs/deploy-checklist.md",
            "docs/onboarding.md"
        ));
        assert!(!named_alike("src/lib/a.md", "src/lib/b.md"));
    }

    #[test]
    fn a_number_the_model_gave_puts_the_path_that_holds_it_first() {
        let retros = paths(&[
            "notes/retros/2024-04-12-s13-retro.md",
            "notes/retros/2024-04-26-s14-retro.md",
        ]);
        assert_eq!(
            similar("sprint14-retro-action-items", &retros),
            [
                "notes/retros/2024-04-26-s14-retro.md",
                "notes/retros/2024-04-12-s13-retro.md"
            ]
        );
        let sales = paths(&["data/sales_q2.csv", "data/sales_q3.csv"]);
        assert_eq!(
            similar("Q3_sales_sheet.xlsx", &sales),
            ["data/sales_q3.csv", "data/sales_q2.csv"]
        );
        // Leading zeros do not matter; without a number, the order is by name.
        assert_eq!(
            similar("sales_q03", &sales),
            ["data/sales_q3.csv", "data/sales_q2.csv"]
        );
        assert_eq!(
            similar("sales", &sales),
            ["data/sales_q2.csv", "data/sales_q3.csv"]
        );
        // A shared number alone does not make a path look alike.
        assert!(similar("budget-14.md", &retros).is_empty());
    }

    #[test]
    fn numbers_in_names_are_read_as_numbers() {
        assert_eq!(
            numbers("s14-2024-04-026/q3"),
            ["14", "2024", "26", "3", "4"]
        );
        assert_eq!(numbers("v0.10.0"), ["0", "10"]);
        assert!(numbers("readme.md").is_empty());
    }

    #[test]
    fn the_closest_file_is_one_clearly_best_match() {
        let (_dir, root) = root_with(&[
            "config/server.toml",
            "config/logging.toml",
            "notes/guest-wifi.md",
            "notes/wifi-setup.md",
        ]);
        let closest = |given: &str| closest_file(&root, given);
        assert_eq!(
            closest("config/webserver.conf").as_deref(),
            Some("config/server.toml")
        );
        assert_eq!(closest("server.ini").as_deref(), Some("config/server.toml"));
        assert_eq!(
            closest("/etc/logging.toml").as_deref(),
            Some("config/logging.toml")
        );
        // Two files as close: neither is read.
        assert_eq!(closest("config/settings.toml"), None);
        assert_eq!(closest("wifi.md"), None);
        // One shared word is too little.
        assert_eq!(closest("guest-list.txt"), None);
    }

    #[test]
    fn a_shared_number_tells_two_files_that_are_otherwise_as_close() {
        let (_dir, root) = root_with(&[
            "notes/retros/2024-04-12-s13-retro.md",
            "notes/retros/2024-04-26-s14-retro.md",
        ]);
        let closest = |given: &str| closest_file(&root, given);
        assert_eq!(
            closest("notes/retros/sprint-14-retro.md").as_deref(),
            Some("notes/retros/2024-04-26-s14-retro.md")
        );
        // A number neither holds, or none at all: neither is read.
        assert_eq!(closest("notes/retros/sprint-15-retro.md"), None);
        assert_eq!(closest("notes/retros/last-retro.md"), None);
    }

    #[test]
    fn among_files_of_one_name_the_folder_words_decide() {
        let (_dir, root) = root_with(&[
            "logs/auth/2024-05-02.log",
            "logs/gateway/2024-05-01.log",
            "logs/gateway/2024-05-02.log",
        ]);
        let closest = |given: &str| closest_file(&root, given);
        assert_eq!(
            closest("/var/log/gateway/2024-05-02.log").as_deref(),
            Some("logs/gateway/2024-05-02.log")
        );
        // No folder word to tell them apart: neither is read.
        assert_eq!(closest("2024-05-02.log"), None);
    }

    #[test]
    fn the_closest_directory_begins_alike_or_sits_deeper() {
        let dir = tempfile::tempdir().unwrap();
        let make = |p: &str| {
            let path = dir.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        };
        make("documentation/architecture.md");
        make("data/reports/q3.md");
        make("lib/pricing.py");
        make("tests/test_pricing.py");
        make("config/dev/http.yaml");
        make("config/prod/http.yaml");
        let root = FileRoot::new(dir.path()).unwrap();
        let closest = |g: &str| closest_directory(&root, g);
        assert_eq!(closest("docs").as_deref(), Some("documentation"));
        assert_eq!(closest("./docs/").as_deref(), Some("documentation"));
        assert_eq!(closest("reports").as_deref(), Some("data/reports"));
        assert_eq!(closest("Test").as_deref(), Some("tests"));
        assert_eq!(closest("configuration/prod").as_deref(), None);
        assert_eq!(closest("conf").as_deref(), Some("config"));
        // Nothing alike, or a pattern: no guess.
        assert_eq!(closest("src"), None);
        assert_eq!(closest("*.md"), None);
    }

    #[test]
    fn hints_list_the_nearest_directory_when_nothing_is_similar() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("config")).unwrap();
        std::fs::write(dir.path().join("config/a.toml"), "").unwrap();
        std::fs::write(dir.path().join("config/b.toml"), "").unwrap();
        std::fs::write(dir.path().join("README.md"), "").unwrap();
        std::fs::create_dir_all(dir.path().join("db/v1")).unwrap();
        std::fs::write(dir.path().join("db/v1/up.sql"), "").unwrap();
        let root = FileRoot::new(dir.path()).unwrap();
        assert_eq!(
            hint(&root, "zzz.txt"),
            " The working directory has: README.md, config/a.toml, config/b.toml, db/v1/up.sql. Read one with read_file.",
        );
        assert_eq!(
            hint(&root, "db/qq"),
            " The directory `db` has: db/v1/up.sql. Read one with read_file."
        );
        // More files are grouped by directory.
        for n in 0..12 {
            std::fs::write(dir.path().join(format!("db/v1/{n}.sql")), "").unwrap();
        }
        assert_eq!(
            hint(&root, "zzz.txt"),
            " The working directory has: README.md, config/ (2 files), db/ (13 files).",
        );
        assert_eq!(
            hint(&root, "config.ini"),
            " Similar paths: `config/a.toml`, `config/b.toml`. Read one with read_file."
        );
        let empty = tempfile::tempdir().unwrap();
        let root = FileRoot::new(empty.path()).unwrap();
        assert_eq!(hint(&root, "x"), " The working directory is empty.");
    }
}
