//! Text whose numbers are only given ones: the thought and the answer of
//! an answer turn asked again because its answer had a number no tool
//! gave. A small model asked again writes the same made-up number; under
//! this grammar every number it writes is one the conversation holds
//! (see [`RequestParts::answer_numbers`](agent_core::transport::RequestParts)), or
//! none at all ("the results do not show it" stays open).
//!
//! A number is a whole literal: digits never follow one directly, and
//! neither do a `.`, `,` or `_` and more digits, so two allowed numbers
//! cannot be joined into one that is not (`1` and `300` into `1,300`).
//! Digits inside a word (`H2O`) are digits too, so they need a listed
//! number.
//!
//! A number of four or more whole digits listed without separators may
//! also be written grouped by thousands with `,` (`110,000,000` for
//! `110000000`): a calculator result has no separators, and a model that
//! wrote the looked-up numbers grouped writes its answer grouped too.
//! Kept from it, the 1.5B model wrote `110, 110, 110`. Where the question
//! writes thousands with a dot, the loop lists each number that way too
//! (`110.000.000`, `3,8` for `3.8`).

use agent_core::numerals::comma_grouped_thousands;

use super::ast::{CharClass, Expr, RuleSet};

/// The marks that join digits into one number.
const JOINERS: [(char, char); 3] = [('.', '.'), (',', ','), ('_', '_')];

/// A text of at most `max` characters and numbers, none of them in
/// `excluded` (nor a digit), starting with none of `not_first` either,
/// whose numbers are only `numbers`. `name` names its rules.
pub(super) fn text_with_numbers(
    rules: &mut RuleSet,
    name: &str,
    excluded: &[(char, char)],
    not_first: &[(char, char)],
    numbers: &[String],
    max: u32,
) -> Expr {
    let digits = ('0', '9');
    let class = |more: &[(char, char)]| {
        CharClass::not(std::iter::once(digits).chain(excluded.iter().chain(more).copied()))
    };
    // After a mark that joins digits, no number; after any other
    // character, maybe one.
    let joiner = Expr::class(CharClass::of(JOINERS));
    let other = Expr::class(class(&JOINERS));
    let mut listed: Vec<String> = numbers
        .iter()
        .filter(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        .flat_map(|n| std::iter::once(n.clone()).chain(comma_grouped_thousands(n)))
        .collect();
    listed.sort_unstable();
    listed.dedup();
    if listed.is_empty() {
        let first = Expr::class(class(not_first));
        let rest = Expr::repeat(Expr::class(class(&[])), 0, Some(max.saturating_sub(1)));
        return rules.define(name, Expr::seq([first, rest]));
    }
    let number = rules.define(
        "found-number",
        Expr::alt(listed.iter().map(|n| Expr::lit(n.as_str()))),
    );
    let first_other = Expr::class(class(&[&JOINERS[..], not_first].concat()));
    let item = Expr::alt([
        joiner.clone(),
        Expr::seq([other, Expr::opt(number.clone())]),
    ]);
    let first = Expr::alt([
        number.clone(),
        joiner,
        Expr::seq([first_other, Expr::opt(number)]),
    ]);
    rules.define(
        name,
        Expr::seq([first, Expr::repeat(item, 0, Some(max.saturating_sub(1)))]),
    )
}
