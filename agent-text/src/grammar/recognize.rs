//! Whether a text is in a grammar's language: [`Grammar::matches`]. It
//! computes, for each expression and start, every position where a match
//! can end (memoized per rule and start), so alternatives and repetitions
//! need no backtracking. Meant for tests and checks on model replies, not
//! for long texts: the work grows with the text's length times the
//! grammar's ambiguity.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use super::ast::{Expr, Grammar};

impl Grammar {
    /// `true` if the whole of `text` matches the `root` rule. A reference
    /// to an undefined rule matches nothing; left recursion is cut.
    pub fn matches(&self, text: &str) -> bool {
        let rules: HashMap<&str, (usize, &Expr)> = self
            .rules()
            .enumerate()
            .map(|(i, (name, body))| (name, (i, body)))
            .collect();
        let mut matcher = Matcher {
            rules,
            text,
            memo: HashMap::new(),
            active: HashSet::new(),
        };
        matcher
            .ends(&Expr::rule(Grammar::ROOT), 0)
            .contains(&text.len())
    }
}

/// Where matches can end: sorted, without duplicates.
type Ends = BTreeSet<usize>;

struct Matcher<'g, 't> {
    rules: HashMap<&'g str, (usize, &'g Expr)>,
    text: &'t str,
    memo: HashMap<(usize, usize), Rc<Ends>>,
    /// Rules being matched at a start (a left-recursive call matches nothing).
    active: HashSet<(usize, usize)>,
}

impl Matcher<'_, '_> {
    fn ends(&mut self, expr: &Expr, start: usize) -> Ends {
        match expr {
            Expr::Literal(lit) => {
                let mut out = Ends::new();
                if self.text[start..].starts_with(lit.as_str()) {
                    out.insert(start + lit.len());
                }
                out
            }
            Expr::Class(class) => {
                let mut out = Ends::new();
                if let Some(c) = self.text[start..].chars().next()
                    && class.contains(c)
                {
                    out.insert(start + c.len_utf8());
                }
                out
            }
            Expr::Rule(name) => self.rule(name, start).as_ref().clone(),
            Expr::Seq(items) => {
                let mut frontier = Ends::from([start]);
                for item in items {
                    frontier = self.step(item, &frontier);
                    if frontier.is_empty() {
                        break;
                    }
                }
                frontier
            }
            Expr::Alt(items) => {
                let mut out = Ends::new();
                for item in items {
                    out.extend(self.ends(item, start));
                }
                out
            }
            Expr::Repeat { item, min, max } => self.repeat(item, start, *min, *max),
        }
    }

    /// Every end reachable from any position of `from` through `item`.
    fn step(&mut self, item: &Expr, from: &Ends) -> Ends {
        let mut out = Ends::new();
        for &p in from {
            out.extend(self.ends(item, p));
        }
        out
    }

    fn rule(&mut self, name: &str, start: usize) -> Rc<Ends> {
        let Some(&(index, body)) = self.rules.get(name) else {
            return Rc::new(Ends::new());
        };
        if let Some(found) = self.memo.get(&(index, start)) {
            return Rc::clone(found);
        }
        if !self.active.insert((index, start)) {
            return Rc::new(Ends::new());
        }
        let ends = Rc::new(self.ends(body, start));
        self.active.remove(&(index, start));
        self.memo.insert((index, start), Rc::clone(&ends));
        ends
    }

    fn repeat(&mut self, item: &Expr, start: usize, min: u32, max: Option<u32>) -> Ends {
        let mut out = Ends::new();
        if min == 0 {
            out.insert(start);
        }
        let mut frontier = Ends::from([start]);
        let mut count = 0u32;
        while !frontier.is_empty() && max.is_none_or(|m| count < m) {
            frontier = self.step(item, &frontier);
            count += 1;
            if count >= min {
                // A position already reached after enough repetitions
                // leads nowhere new with more of them.
                frontier.retain(|p| !out.contains(p));
                out.extend(frontier.iter().copied());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::ast::CharClass;
    use super::*;

    #[test]
    fn literals_classes_sequences_and_alternatives() {
        let g = Grammar::new(Expr::seq([
            Expr::alt([Expr::lit("ab"), Expr::lit("a")]),
            Expr::lit("b"),
            Expr::class(CharClass::not([('x', 'x')])),
        ]));
        assert!(g.matches("abbé"));
        assert!(g.matches("ab!"));
        assert!(!g.matches("abx"));
        assert!(!g.matches("ab"));
    }

    #[test]
    fn bounded_and_unbounded_repetition() {
        let digits = |min, max| {
            Grammar::new(Expr::repeat(
                Expr::class(CharClass::of([('0', '9')])),
                min,
                max,
            ))
        };
        assert!(digits(2, Some(3)).matches("12"));
        assert!(digits(2, Some(3)).matches("123"));
        assert!(!digits(2, Some(3)).matches("1"));
        assert!(!digits(2, Some(3)).matches("1234"));
        assert!(digits(0, None).matches(""));
        assert!(digits(1, None).matches("12345678901234567890"));
        // An item that may match nothing does not loop.
        let g = Grammar::new(Expr::repeat(Expr::opt(Expr::lit("a")), 0, None));
        assert!(g.matches("aaa"));
    }

    #[test]
    fn rules_recursion_and_undefined_rules() {
        let g = Grammar::new(Expr::rule("list")).with_rule(
            "list",
            Expr::alt([
                Expr::lit("x"),
                Expr::seq([Expr::lit("("), Expr::rule("list"), Expr::lit(")")]),
            ]),
        );
        assert!(g.matches("((x))"));
        assert!(!g.matches("((x)"));
        let left = Grammar::new(Expr::rule("l")).with_rule(
            "l",
            Expr::alt([Expr::seq([Expr::rule("l"), Expr::lit("a")]), Expr::lit("a")]),
        );
        assert!(left.matches("a"));
        assert!(!Grammar::new(Expr::rule("missing")).matches(""));
    }
}
