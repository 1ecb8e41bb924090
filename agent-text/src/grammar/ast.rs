//! The grammar AST: named rules whose bodies are sequences, alternatives,
//! literals, character classes, bounded repetitions and references to
//! other rules, plus the builder the grammar compilers share (fresh rule
//! names, identical rules defined once, rules ordered top-down).

use std::collections::{HashMap, HashSet, VecDeque};

/// A set of characters: the listed inclusive ranges, or (negated) every
/// character outside them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CharClass {
    /// `true`: every character *but* the ranges.
    pub negated: bool,
    /// Inclusive ranges; a single character `c` is `(c, c)`.
    pub ranges: Vec<(char, char)>,
}

impl CharClass {
    /// The characters in `ranges`.
    pub fn of(ranges: impl IntoIterator<Item = (char, char)>) -> Self {
        Self {
            negated: false,
            ranges: ranges.into_iter().collect(),
        }
    }

    /// Every character outside `ranges`.
    pub fn not(ranges: impl IntoIterator<Item = (char, char)>) -> Self {
        Self {
            negated: true,
            ranges: ranges.into_iter().collect(),
        }
    }

    /// Whether `c` is in the class.
    pub fn contains(&self, c: char) -> bool {
        let listed = self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
        listed != self.negated
    }
}

/// The body of a rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Expr {
    /// Exactly this text (empty: matches the empty string).
    Literal(String),
    /// One character of the class.
    Class(CharClass),
    /// What the named rule matches.
    Rule(String),
    /// Each item in turn.
    Seq(Vec<Expr>),
    /// Any one of the items.
    Alt(Vec<Expr>),
    /// `item` from `min` to `max` times (`None`: no upper bound).
    Repeat {
        /// What repeats.
        item: Box<Expr>,
        /// Fewest times.
        min: u32,
        /// Most times.
        max: Option<u32>,
    },
}

impl Expr {
    /// Exactly `text`.
    pub fn lit(text: impl Into<String>) -> Self {
        Expr::Literal(text.into())
    }

    /// The empty string.
    pub fn empty() -> Self {
        Expr::Literal(String::new())
    }

    /// A reference to the rule `name`.
    pub fn rule(name: impl Into<String>) -> Self {
        Expr::Rule(name.into())
    }

    /// `items` in turn: nested sequences are flattened, adjacent literals
    /// joined and empty literals dropped; one item stands for itself.
    pub fn seq(items: impl IntoIterator<Item = Expr>) -> Self {
        let mut out: Vec<Expr> = Vec::new();
        let push = |item: Expr, out: &mut Vec<Expr>| match (out.last_mut(), item) {
            (_, Expr::Literal(text)) if text.is_empty() => {}
            (Some(Expr::Literal(last)), Expr::Literal(text)) => last.push_str(&text),
            (_, item) => out.push(item),
        };
        for item in items {
            match item {
                Expr::Seq(inner) => inner.into_iter().for_each(|i| push(i, &mut out)),
                other => push(other, &mut out),
            }
        }
        match out.len() {
            0 => Expr::empty(),
            1 => out.pop().unwrap_or_else(Expr::empty),
            _ => Expr::Seq(out),
        }
    }

    /// Any one of `items` (nested alternatives are flattened); one item
    /// stands for itself.
    pub fn alt(items: impl IntoIterator<Item = Expr>) -> Self {
        let mut out: Vec<Expr> = Vec::new();
        for item in items {
            match item {
                Expr::Alt(inner) => out.extend(inner),
                other => out.push(other),
            }
        }
        match out.len() {
            1 => out.pop().unwrap_or_else(Expr::empty),
            _ => Expr::Alt(out),
        }
    }

    /// `item` or nothing.
    pub fn opt(item: Expr) -> Self {
        Self::repeat(item, 0, Some(1))
    }

    /// `item` from `min` to `max` times.
    pub fn repeat(item: Expr, min: u32, max: Option<u32>) -> Self {
        Expr::Repeat {
            item: Box::new(item),
            min,
            max,
        }
    }

    /// One character of `class`.
    pub fn class(class: CharClass) -> Self {
        Expr::Class(class)
    }

    /// The rules this expression refers to, in order of appearance.
    fn refs<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Rule(name) => out.push(name),
            Expr::Seq(items) | Expr::Alt(items) => items.iter().for_each(|i| i.refs(out)),
            Expr::Repeat { item, .. } => item.refs(out),
            Expr::Literal(_) | Expr::Class(_) => {}
        }
    }
}

/// A grammar: named rules, the first of which, `root`, is what a whole
/// text must match. Render it with [`Grammar::to_gbnf`]; test text
/// against it with [`Grammar::matches`].
///
/// ```
/// use agent_text::grammar::{Expr, Grammar};
///
/// let grammar = Grammar::new(Expr::seq([Expr::lit("a"), Expr::opt(Expr::rule("b"))]))
///     .with_rule("b", Expr::lit("b"));
/// assert_eq!(grammar.to_gbnf(), "root ::= \"a\" b?\nb ::= \"b\"\n");
/// assert!(grammar.matches("ab") && grammar.matches("a") && !grammar.matches("b"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grammar {
    rules: Vec<(String, Expr)>,
}

impl Grammar {
    /// The name of the rule a whole text must match.
    pub const ROOT: &'static str = "root";

    /// A grammar whose `root` rule is `root`.
    pub fn new(root: Expr) -> Self {
        Self {
            rules: vec![(Self::ROOT.to_string(), root)],
        }
    }

    /// Adds the rule `name` (or replaces its body). Names are lowercase
    /// letters, digits and `-`, as GBNF wants them.
    pub fn with_rule(mut self, name: impl Into<String>, body: Expr) -> Self {
        let name = name.into();
        match self.rules.iter_mut().find(|(n, _)| *n == name) {
            Some((_, old)) => *old = body,
            None => self.rules.push((name, body)),
        }
        self
    }

    /// The body of rule `name`.
    pub fn rule(&self, name: &str) -> Option<&Expr> {
        self.rules.iter().find(|(n, _)| n == name).map(|(_, b)| b)
    }

    /// The rules, `root` first.
    pub fn rules(&self) -> impl Iterator<Item = (&str, &Expr)> {
        self.rules.iter().map(|(n, b)| (n.as_str(), b))
    }
}

/// Builds the rules of a grammar: each rule gets a fresh GBNF name made
/// from a hint, a body already defined is reused instead of repeated, and
/// shared rules (whitespace, strings, numbers) are defined once.
#[derive(Debug, Default)]
pub(crate) struct RuleSet {
    rules: Vec<(String, Expr)>,
    used: HashSet<String>,
    shared: HashMap<&'static str, Expr>,
}

impl RuleSet {
    /// An empty set (`root` is reserved).
    pub(crate) fn new() -> Self {
        let mut set = Self::default();
        set.used.insert(Grammar::ROOT.to_string());
        set
    }

    /// A reference to a rule with this body, named after `hint`.
    pub(crate) fn define(&mut self, hint: &str, body: Expr) -> Expr {
        if let Some((name, _)) = self.rules.iter().find(|(_, b)| *b == body) {
            return Expr::rule(name.clone());
        }
        let name = self.fresh(hint);
        self.rules.push((name.clone(), body));
        Expr::rule(name)
    }

    /// A reference to the shared rule `name`, built by `make` the first
    /// time it is asked for.
    pub(crate) fn shared(
        &mut self,
        name: &'static str,
        make: impl FnOnce(&mut Self) -> Expr,
    ) -> Expr {
        if let Some(found) = self.shared.get(name) {
            return found.clone();
        }
        let body = make(self);
        let reference = self.define(name, body);
        self.shared.insert(name, reference.clone());
        reference
    }

    /// An unused rule name made from `hint`.
    fn fresh(&mut self, hint: &str) -> String {
        let base = rule_name(hint);
        let mut name = base.clone();
        let mut n = 2;
        while self.used.contains(&name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        name
    }

    /// The grammar with `root` and every rule it reaches, top-down: each
    /// rule comes in the order it is first referred to.
    pub(crate) fn finish(self, root: Expr) -> Grammar {
        let mut bodies: HashMap<String, Expr> = self.rules.into_iter().collect();
        let mut grammar = Grammar::new(root.clone());
        let mut queue: VecDeque<String> = VecDeque::new();
        let mut first = Vec::new();
        root.refs(&mut first);
        queue.extend(first.into_iter().map(str::to_string));
        while let Some(name) = queue.pop_front() {
            let Some(body) = bodies.remove(&name) else {
                continue;
            };
            let mut refs = Vec::new();
            body.refs(&mut refs);
            queue.extend(refs.into_iter().map(str::to_string));
            grammar = grammar.with_rule(name, body);
        }
        grammar
    }
}

/// A GBNF rule name from any text: lowercase ASCII letters and digits,
/// everything else a single `-`, starting with a letter.
pub(crate) fn rule_name(hint: &str) -> String {
    let mut name = String::new();
    if hint.starts_with(|c: char| c.is_ascii_digit()) {
        name.push('r');
    }
    for c in hint.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    let name = name.trim_end_matches('-');
    if name.is_empty() {
        "rule".to_string()
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_flatten_and_join_literals() {
        let e = Expr::seq([
            Expr::lit("a"),
            Expr::seq([Expr::lit("b"), Expr::empty()]),
            Expr::rule("x"),
            Expr::lit("c"),
        ]);
        assert_eq!(
            e,
            Expr::Seq(vec![Expr::lit("ab"), Expr::rule("x"), Expr::lit("c")])
        );
        assert_eq!(Expr::seq([Expr::lit("a")]), Expr::lit("a"));
        assert_eq!(Expr::seq([]), Expr::empty());
        assert_eq!(
            Expr::alt([Expr::lit("a"), Expr::alt([Expr::lit("b"), Expr::lit("c")])]),
            Expr::Alt(vec![Expr::lit("a"), Expr::lit("b"), Expr::lit("c")])
        );
    }

    #[test]
    fn rule_sets_name_freshly_reuse_bodies_and_order_top_down() {
        let mut rules = RuleSet::new();
        let a = rules.define("Read_File input", Expr::lit("a"));
        assert_eq!(a, Expr::rule("read-file-input"));
        assert_eq!(rules.define("other", Expr::lit("a")), a);
        assert_eq!(
            rules.define("read-file input", Expr::lit("b")),
            Expr::rule("read-file-input-2")
        );
        assert_eq!(rules.define("root", Expr::lit("c")), Expr::rule("root-2"));
        let ws = rules.shared("ws", |_| Expr::lit(" "));
        assert_eq!(rules.shared("ws", |_| Expr::lit("never")), ws);
        let grammar = rules.finish(Expr::seq([Expr::rule("read-file-input-2"), a]));
        let names: Vec<&str> = grammar.rules().map(|(n, _)| n).collect();
        assert_eq!(names, ["root", "read-file-input-2", "read-file-input"]);
        assert_eq!(rule_name("__"), "rule");
        assert_eq!(rule_name("3d view"), "r3d-view");
    }

    #[test]
    fn classes_contain_and_negate() {
        let digits = CharClass::of([('0', '9')]);
        assert!(digits.contains('5') && !digits.contains('a'));
        let not_nl = CharClass::not([('\n', '\n')]);
        assert!(not_nl.contains('é') && !not_nl.contains('\n'));
    }
}
