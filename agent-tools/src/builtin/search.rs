//! `search`: keyword search over a small offline knowledge base of
//! `{title, text}` documents. The default base ships inside the crate and
//! covers the demo scenes; users can load their own JSON file.
//!
//! Ranking: each query term (folded: lower case, no accents; stop words
//! dropped) scores by inverse document frequency, three times over for a
//! title hit. An
//! entry may also have other names (what its subject is called in other
//! languages and scripts, see [`names`](super::names)): one found in the
//! query counts as a title hit, so a question asked in another language
//! finds the entry written in English. Results
//! are capped. A query whose only hits are common words while another of
//! its words is in no document finds nothing, and says which word: the
//! entries it would list are about something else (a country the base
//! does not have gets the countries it has), and a small model answers
//! from them.

use std::collections::HashSet;
use std::path::Path;

use agent_core::{Tool, ToolError, ToolOutput};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::fold::fold;
use super::names::Name;
use crate::schema::{LATIN_TEXT_PATTERN, is_latin_text, schema_for, without_property_descriptions};
use agent_core::script::is_latin_letter;

/// The knowledge base shipped with the crate.
pub const DEFAULT_KNOWLEDGE_BASE: &str = include_str!("../../data/knowledge_base.json");

/// Results returned at most by default.
pub const DEFAULT_MAX_RESULTS: usize = 3;

const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "of", "in", "on", "is", "are", "was", "what", "who", "how", "many", "much",
    "does", "do", "to", "and", "or", "for", "by", "with", "about", "live", "lives", "people",
];

/// One document.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Document {
    /// Its title.
    pub title: String,
    /// Its text.
    pub text: String,
    /// Other names of its subject, in any language or script (optional
    /// in the JSON). A name written without spaces (Han, kana, Hangul,
    /// Thai) should be two characters or more: it is found anywhere in a
    /// query.
    #[serde(default)]
    pub names: Vec<String>,
}

impl Document {
    /// A document with a title and a text, and no other names.
    pub fn new(title: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            text: text.into(),
            names: Vec::new(),
        }
    }

    /// The document with these other names of its subject.
    pub fn with_names<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.names = names.into_iter().map(Into::into).collect();
        self
    }
}

/// A knowledge base that cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum KnowledgeBaseError {
    /// The file cannot be read.
    #[error("cannot read knowledge base {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a JSON array of `{title, text}` objects.
    #[error(
        "knowledge base {path} is not a JSON array of {{\"title\", \"text\"}} objects: {message}"
    )]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

struct Indexed {
    doc: Document,
    title_terms: HashSet<String>,
    /// The title words a query must hold to name the entry by its title.
    naming_terms: HashSet<String>,
    text_terms: HashSet<String>,
    names: Vec<Name>,
}

impl Indexed {
    /// Whether a query whose words pass `in_query` names this entry by
    /// its title: it holds each of the title's naming words.
    fn titled(&self, in_query: impl Fn(&str) -> bool) -> bool {
        !self.naming_terms.is_empty() && self.naming_terms.iter().all(|t| in_query(t))
    }
}

/// The words of `title` that name its subject: not the stop words and not
/// a qualifier in parentheses, so that "speed of light" names `Speed of
/// light` and "Rust" names `Rust (programming language)`. A title made
/// only of such words keeps them all.
fn naming_terms(title: &str) -> HashSet<String> {
    let mut depth = 0usize;
    let unqualified: String = title
        .chars()
        .map(|c| match c {
            '(' => {
                depth += 1;
                ' '
            }
            ')' => {
                depth = depth.saturating_sub(1);
                ' '
            }
            _ if depth == 0 => c,
            _ => ' ',
        })
        .collect();
    let naming: HashSet<String> = terms(&unqualified)
        .filter(|t| !STOP_WORDS.contains(&t.as_str()))
        .collect();
    if naming.is_empty() {
        terms(title).collect()
    } else {
        naming
    }
}

/// The `search` tool.
pub struct Search {
    docs: Vec<Indexed>,
    max_results: usize,
    language: Option<String>,
    /// Every title and other name is written in the Latin alphabet.
    latin_names: bool,
}

impl std::fmt::Debug for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Search")
            .field("documents", &self.docs.len())
            .field("max_results", &self.max_results)
            .finish()
    }
}

/// The words of `text`, folded (lower case, no accents: `Zurich` finds
/// `Zürich`). A number keeps its inner `.` and
/// `,` (`1.0`, `2,100,000`), so a query for version 1.0 does not match
/// every entry holding a 1 or a 0.
fn terms(text: &str) -> impl Iterator<Item = String> {
    // Folded first: a decomposed accent is no letter, and would split
    // its word.
    let text = fold(text);
    let mut words = Vec::new();
    let mut start = 0;
    let mut previous = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, next)| next);
        let in_number = matches!(c, '.' | ',')
            && previous.is_some_and(|p: char| p.is_ascii_digit())
            && next.is_some_and(|n| n.is_ascii_digit());
        if !c.is_alphanumeric() && !in_number {
            words.push(text[start..i].to_string());
            start = i + c.len_utf8();
        }
        previous = Some(c);
    }
    words.push(text[start..].to_string());
    words.into_iter().filter(|w| !w.is_empty())
}

impl Search {
    /// Search over the built-in knowledge base.
    pub fn new() -> Self {
        // The built-in base is checked by a test; an empty base is the
        // worst case if it were ever broken.
        Self::from_json("built-in", DEFAULT_KNOWLEDGE_BASE)
            .unwrap_or_else(|_| Self::from_documents(Vec::new()))
            .with_language("English")
    }

    /// Search over these documents.
    pub fn from_documents(docs: Vec<Document>) -> Self {
        let latin_names = docs
            .iter()
            .all(|d| is_latin_text(&d.title) && d.names.iter().all(|n| is_latin_text(n)));
        let docs = docs
            .into_iter()
            .map(|doc| Indexed {
                title_terms: terms(&doc.title).collect(),
                naming_terms: naming_terms(&doc.title),
                text_terms: terms(&doc.text).collect(),
                names: doc.names.iter().filter_map(|n| Name::new(n)).collect(),
                doc,
            })
            .collect();
        Self {
            docs,
            max_results: DEFAULT_MAX_RESULTS,
            language: None,
            latin_names,
        }
    }

    /// Names the language the documents are written in. A query in
    /// another script that finds nothing is then told to search in it
    /// (small models search in the question's language).
    pub fn with_language(mut self, language: impl Into<String>) -> Self {
        self.language = Some(language.into());
        self
    }

    /// Search over a JSON file of `[{"title": …, "text": …}]`, each entry
    /// optionally with `"names": […]`, the other names of its subject.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, KnowledgeBaseError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let json = std::fs::read_to_string(path).map_err(|source| KnowledgeBaseError::Io {
            path: shown.clone(),
            source,
        })?;
        Self::from_json(&shown, &json)
    }

    fn from_json(name: &str, json: &str) -> Result<Self, KnowledgeBaseError> {
        let docs: Vec<Document> =
            serde_json::from_str(json).map_err(|e| KnowledgeBaseError::Format {
                path: name.to_string(),
                message: e.to_string(),
            })?;
        Ok(Self::from_documents(docs))
    }

    /// Returns at most `n` results per query.
    pub fn with_max_results(mut self, n: usize) -> Self {
        self.max_results = n.max(1);
        self
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// `true` if the base has no documents.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The query's terms with the number of documents that hold each.
    fn weighed_terms(&self, query: &str) -> Vec<(String, usize)> {
        let mut query_terms: Vec<String> = terms(query)
            .filter(|t| !STOP_WORDS.contains(&t.as_str()))
            .collect();
        query_terms.sort();
        query_terms.dedup();
        if query_terms.is_empty() {
            query_terms = terms(query).collect();
        }
        query_terms
            .into_iter()
            .map(|term| {
                let df = self.frequency(&term);
                (term, df)
            })
            .collect()
    }

    /// How many documents hold `term`.
    fn frequency(&self, term: &str) -> usize {
        self.docs
            .iter()
            .filter(|d| d.title_terms.contains(term) || d.text_terms.contains(term))
            .count()
    }

    /// Whether a word held by `df` documents says little about which one
    /// is meant: at least three, and at least a quarter of them.
    fn is_common(&self, df: usize) -> bool {
        df >= 3 && df * 4 >= self.docs.len()
    }

    /// The words of `query` no document holds, when the rest are only
    /// common words and the query names no entry by another name: then
    /// nothing is found, and these words say why.
    pub fn unknown_words(&self, query: &str) -> Vec<String> {
        self.lookup(query).err().unwrap_or_default()
    }

    /// Per document, whether `query` holds one of its other names.
    fn named_otherwise(&self, query: &str) -> Vec<bool> {
        let query = fold(query);
        self.docs
            .iter()
            .map(|d| d.names.iter().any(|name| name.found_in(&query)))
            .collect()
    }

    fn unknown_in<'a>(&self, weighed: &'a [(String, usize)]) -> Vec<&'a str> {
        let only_common = weighed
            .iter()
            .all(|(_, df)| *df == 0 || self.is_common(*df));
        if !only_common {
            return Vec::new();
        }
        weighed
            .iter()
            .filter(|(_, df)| *df == 0)
            .map(|(term, _)| term.as_str())
            .collect()
    }

    /// The ranked documents for `query`, best first.
    pub fn query(&self, query: &str) -> Vec<&Document> {
        self.lookup(query)
            .unwrap_or_default()
            .into_iter()
            .map(|d| &d.doc)
            .collect()
    }

    /// The ranked documents for `query`, or, when it finds nothing
    /// because of words no document holds, those words.
    fn lookup(&self, query: &str) -> Result<Vec<&Indexed>, Vec<String>> {
        let weighed = self.weighed_terms(query);
        let named_otherwise = self.named_otherwise(query);
        let by_other_names = named_otherwise.iter().filter(|&&named| named).count();
        if by_other_names == 0 {
            let unknown = self.unknown_in(&weighed);
            if !unknown.is_empty() {
                return Err(unknown.into_iter().map(str::to_string).collect());
            }
        }
        let n = self.docs.len() as f64;
        // A name counts as a title word held by the entries it names.
        let name_score = 3.0 * ((n + 1.0) / (by_other_names as f64 + 0.5)).ln();
        // Each matching entry's score, and whether it shares with the query
        // a word that is not common (or is named by another name).
        let mut scored: Vec<(f64, usize, bool)> = self
            .docs
            .iter()
            .enumerate()
            .filter_map(|(i, d)| {
                let mut score = if named_otherwise[i] { name_score } else { 0.0 };
                let mut specific = named_otherwise[i];
                for (term, df) in &weighed {
                    let idf = ((n + 1.0) / (*df as f64 + 0.5)).ln();
                    let in_title = d.title_terms.contains(term);
                    let in_text = d.text_terms.contains(term);
                    if in_title {
                        score += 3.0 * idf;
                    }
                    if in_text {
                        score += idf;
                    }
                    specific |= (in_title || in_text) && !self.is_common(*df);
                }
                (score > 0.0).then_some((score, i, specific))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // Every entry the query names by its title comes back, even past
        // the cap (within twice it): a query that names four cities gets
        // all four, not the three that share fewer words with the rest.
        let named = |i: usize| {
            named_otherwise[i] || self.docs[i].titled(|t| weighed.iter().any(|(q, _)| q == t))
        };
        let named_count = scored.iter().filter(|(_, i, _)| named(*i)).count();
        // Once an entry is named, an entry that shares only common words
        // with the query ("population", "capital") is noise: a small model
        // asked about one country read the next entry's figure.
        if named_count > 0 {
            scored.retain(|(_, i, specific)| *specific || named(*i));
        }
        let take = self.max_results.max(named_count.min(2 * self.max_results));
        let mut picked: Vec<usize> = scored
            .iter()
            .map(|(_, i, _)| *i)
            .filter(|i| named(*i))
            .take(take)
            .collect();
        for (_, i, _) in &scored {
            if picked.len() >= take {
                break;
            }
            if !picked.contains(i) {
                picked.push(*i);
            }
        }
        picked.sort_by_key(|i| scored.iter().position(|(_, j, _)| j == i));
        Ok(picked.into_iter().map(|i| &self.docs[i]).collect())
    }

    /// What to add when a query finds nothing: the language to search in,
    /// when the query is written in another script than the documents'.
    fn language_hint(&self, query: &str) -> String {
        match &self.language {
            Some(language)
                if query.chars().any(char::is_alphabetic)
                    && !query.chars().any(is_latin_letter) =>
            {
                format!(" The entries are written in {language}: search with {language} words.")
            }
            _ => String::new(),
        }
    }
}

impl Default for Search {
    fn default() -> Self {
        Self::new()
    }
}

/// Arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to look up, in a few keywords.
    #[schemars(length(max = 200))]
    pub query: String,
}

#[async_trait]
impl Tool for Search {
    fn name(&self) -> &str {
        "search"
    }

    fn description(&self) -> &str {
        "Look up facts in an offline encyclopedia."
    }

    /// The schema of [`SearchArgs`] without the argument's description (its
    /// name says it all; prompt tokens count on a local model), and, for
    /// a base written in English whose entries have no names in other
    /// scripts, a query in the Latin alphabet ([`LATIN_TEXT_PATTERN`]):
    /// small models search in the question's language, and a grammar then
    /// makes them write the words the base has. (A base with such names,
    /// as the built-in one, finds entries by them, and a model that cannot
    /// translate, as a small one calling tools natively, still finds them.)
    fn parameters(&self) -> Value {
        let mut schema = without_property_descriptions(schema_for::<SearchArgs>());
        if self.language.as_deref() == Some("English")
            && self.latin_names
            && let Some(query) = schema.pointer_mut("/properties/query")
            && let Some(query) = query.as_object_mut()
        {
            query.insert("pattern".into(), Value::from(LATIN_TEXT_PATTERN));
        }
        schema
    }

    async fn call(&self, args: Value) -> Result<ToolOutput, ToolError> {
        let args: SearchArgs =
            serde_json::from_value(args).map_err(|e| ToolError::invalid_args(e.to_string()))?;
        if args.query.trim().is_empty() {
            return Err(ToolError::invalid_args("the query is empty"));
        }
        let hits = match self.lookup(&args.query) {
            Ok(hits) => hits,
            Err(unknown) => {
                let words = unknown
                    .iter()
                    .map(|w| format!("\"{}\"", w.chars().take(40).collect::<String>()))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Ok(ToolOutput::no_results(format!(
                    "No results: no entry mentions {words}.{} Try another name for it; if that finds nothing either, the encyclopedia does not cover it.",
                    self.language_hint(&args.query)
                )));
            }
        };
        if hits.is_empty() {
            return Ok(ToolOutput::no_results(format!(
                "No results for {:?}.{} Try one or two other key words; if they find nothing either, the encyclopedia does not cover it.",
                args.query.chars().take(100).collect::<String>(),
                self.language_hint(&args.query)
            )));
        }
        // An entry found by another name, not by its title, says so: a
        // small model asked about `Nippon` read the entry on Japan as about
        // something else.
        let query = fold(&args.query);
        let query_terms: HashSet<String> = terms(&query).collect();
        let other_name = |d: &Indexed| -> Option<String> {
            let by_title = d.titled(|t| query_terms.contains(t));
            let name = d.names.iter().find(|name| name.found_in(&query));
            name.filter(|_| !by_title)
                .map(|name| name.written().to_string())
        };
        let text = hits
            .iter()
            .map(|d| match other_name(d) {
                Some(name) => format!("{} (also called {}): {}", d.doc.title, name, d.doc.text),
                None => format!("{}: {}", d.doc.title, d.doc.text),
            })
            .collect::<Vec<_>>()
            .join("\n");
        Ok(ToolOutput::new(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_base_loads_and_ranks_titles_first() {
        let search = Search::from_json("built-in", DEFAULT_KNOWLEDGE_BASE).unwrap();
        assert!(search.len() >= 15);
        assert_eq!(search.query("population of France")[0].title, "France");
        assert_eq!(search.query("population of Paris")[0].title, "Paris");
        assert_eq!(
            search.query("How many people live in Paris?")[0].title,
            "Paris"
        );
        assert!(search.query("zzzz qqqq").is_empty());
        // A name the base lacks finds nothing, not the entries that share
        // only a common word with the query.
        assert!(search.query("population of Atlantis").is_empty());
        assert_eq!(search.unknown_words("population of Atlantis"), ["atlantis"]);
        // A word the base lacks beside one that picks an entry is noise.
        assert_eq!(search.query("population of Paris 2031")[0].title, "Paris");
        assert!(search.unknown_words("population of Paris 2031").is_empty());
        assert!(search.query("population").len() <= DEFAULT_MAX_RESULTS);
    }

    #[test]
    fn every_entry_named_by_its_title_comes_back() {
        let search = Search::new();
        let titles =
            |q: &str| -> Vec<String> { search.query(q).iter().map(|d| d.title.clone()).collect() };
        let four = titles("population of Paris, Berlin, Tokyo, Rome");
        for city in ["Paris", "Berlin", "Tokyo", "Rome"] {
            assert!(
                four.contains(&city.to_string()),
                "{city} missing from {four:?}"
            );
        }
        assert_eq!(titles("Tokyo")[0], "Tokyo");
        assert!(titles("capital").len() <= DEFAULT_MAX_RESULTS);
    }

    #[test]
    fn a_named_entry_comes_without_entries_that_share_only_common_words() {
        let search = Search::from_documents(vec![
            Document::new(
                "Speed of light",
                "The speed of light is c metres per second.",
            ),
            Document::new("Sound", "The speed of sound in air is s metres per second."),
            Document::new("Moon", "Its distance from the earth is d metres."),
            Document::new("Water", "Water boils at b degrees."),
            Document::new("Rust (programming language)", "Rust is a language."),
        ]);
        let titles =
            |q: &str| -> Vec<String> { search.query(q).iter().map(|d| d.title.clone()).collect() };
        // "metres" is common; "speed" is not, and "of" does not have to be
        // in the query for it to name the entry.
        assert_eq!(titles("speed light metres"), ["Speed of light", "Sound"]);
        // Nothing named: the common word still finds what holds it.
        assert_eq!(titles("metres").len(), 3);
        assert_eq!(
            naming_terms("Rust (programming language)"),
            HashSet::from(["rust".to_string()])
        );
        assert_eq!(naming_terms("The Beatles").len(), 1);
        assert_eq!(
            naming_terms("Of the"),
            HashSet::from(["of".to_string(), "the".to_string()])
        );
    }

    #[test]
    fn a_number_is_one_word_with_its_inner_dot_and_commas() {
        let words: Vec<String> = terms("Version 1.0 (2,100,000 people, 2024). Done.").collect();
        assert_eq!(
            words,
            ["version", "1.0", "2,100,000", "people", "2024", "done"]
        );
        // The built-in base: a version number finds its entry, not every
        // entry holding a 1 or a 0 in another number.
        let titles: Vec<String> = Search::new()
            .query("Rust 1.0 release date")
            .iter()
            .map(|d| d.title.clone())
            .collect();
        assert_eq!(titles, ["Rust (programming language)"]);
    }

    #[tokio::test]
    async fn a_search_without_results_says_it_found_nothing() {
        let search = Search::new();
        for query in ["Atlantis", "Zyxwv"] {
            let out = search
                .call(serde_json::json!({ "query": query }))
                .await
                .unwrap();
            assert!(out.no_results, "{query}: {out:?}");
            assert!(out.content.starts_with("No results"), "{out:?}");
        }
        let found = search
            .call(serde_json::json!({"query": "Tokyo"}))
            .await
            .unwrap();
        assert!(!found.no_results, "{found:?}");
    }

    #[tokio::test]
    async fn a_query_in_another_script_is_told_the_language_of_the_entries() {
        let search = Search::new();
        let out = search
            .call(serde_json::json!({"query": "人口の長さ"}))
            .await
            .unwrap()
            .content;
        assert!(out.contains("written in English"), "{out}");
        let out = search
            .call(serde_json::json!({"query": "Atlantis"}))
            .await
            .unwrap()
            .content;
        assert!(!out.contains("written in"), "{out}");
        // A base whose language is not given says nothing about it.
        let own = Search::from_documents(vec![Document::new("Alpha", "First letter.")]);
        let out = own
            .call(serde_json::json!({"query": "長城"}))
            .await
            .unwrap()
            .content;
        assert!(!out.contains("written in"), "{out}");
    }

    #[test]
    fn an_entry_is_found_by_its_name_in_another_language() {
        let search = Search::new();
        let first = |q: &str| search.query(q).first().map(|d| d.title.clone());
        for (query, title) in [
            ("東京の人口はどのくらいですか", "Tokyo"),
            ("中国的长城总长度大约是多少公里", "Great Wall of China"),
            ("the total length of the长城", "Great Wall of China"),
            ("население Германии", "Germany"),
            ("Einwohner Deutschland", "Germany"),
            ("hauteur de la tour Eiffel", "Eiffel Tower"),
            ("에펠탑의 높이", "Eiffel Tower"),
        ] {
            assert_eq!(first(query).as_deref(), Some(title), "{query}");
            assert!(search.unknown_words(query).is_empty(), "{query}");
        }
        // Every city a query names, by any name, comes back.
        let cities: Vec<String> = search
            .query("巴黎、柏林、东京和罗马的人口")
            .iter()
            .map(|d| d.title.clone())
            .collect();
        for city in ["Paris", "Berlin", "Tokyo", "Rome"] {
            assert!(cities.contains(&city.to_string()), "{city}: {cities:?}");
        }
        // A name is not found inside a longer word.
        assert!(search.query("population of Romania").is_empty());
    }

    #[test]
    fn each_built_in_name_finds_its_own_entry_and_no_common_word_names_one() {
        let search = Search::new();
        for indexed in &search.docs {
            for name in &indexed.doc.names {
                let query = format!("population of {name}");
                let named = search.named_otherwise(&query);
                let titles: Vec<&str> = search
                    .docs
                    .iter()
                    .zip(&named)
                    .filter(|(_, named)| **named)
                    .map(|(d, _)| d.doc.title.as_str())
                    .collect();
                assert_eq!(titles, [indexed.doc.title.as_str()], "{name}");
            }
        }
        // Everyday words, in English and in the languages the names are
        // in, are no entry's other name.
        for word in [
            "room",
            "party",
            "air",
            "month",
            "hold",
            "roman",
            "romania",
            "japanese",
            "maand",
            "місяць",
            "měsíc",
            "mwezi",
            "питомец",
            "питома теплоємність",
            "ay",
            "su",
            "nước mắm",
            "đạo đức",
            "luật pháp",
            "water bottle",
        ] {
            let named = search.named_otherwise(word);
            let own_title = |d: &Indexed| d.title_terms.iter().any(|t| word.contains(t.as_str()));
            let others: Vec<&str> = search
                .docs
                .iter()
                .zip(&named)
                .filter(|(d, named)| **named && !own_title(d))
                .map(|(d, _)| d.doc.title.as_str())
                .collect();
            assert!(others.is_empty(), "{word}: {others:?}");
        }
    }

    #[test]
    fn only_a_base_named_in_the_latin_alphabet_asks_for_latin_queries() {
        let pattern = |s: &Search| s.parameters().pointer("/properties/query/pattern").cloned();
        // The built-in base names its entries in other scripts too.
        assert_eq!(pattern(&Search::new()), None);
        let latin = Search::from_documents(vec![
            Document::new("Alpha", "First letter.").with_names(["Alfa", "Álpha"]),
        ])
        .with_language("English");
        assert_eq!(pattern(&latin), Some(Value::from(LATIN_TEXT_PATTERN)));
        let named = Search::from_documents(vec![
            Document::new("Alpha", "First letter.").with_names(["阿尔法"]),
        ])
        .with_language("English");
        assert_eq!(pattern(&named), None);
        // Without a language, nothing is asked.
        let plain = Search::from_documents(vec![Document::new("Alpha", "First letter.")]);
        assert_eq!(pattern(&plain), None);
    }

    #[test]
    fn a_bad_file_is_a_typed_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kb.json");
        std::fs::write(&path, "{\"title\": 1}").unwrap();
        assert!(matches!(
            Search::from_file(&path),
            Err(KnowledgeBaseError::Format { .. })
        ));
        assert!(matches!(
            Search::from_file(dir.path().join("missing.json")),
            Err(KnowledgeBaseError::Io { .. })
        ));
    }
}
