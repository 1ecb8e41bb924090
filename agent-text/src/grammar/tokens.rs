//! JSON's lexical rules as grammar rules, each defined once per grammar:
//! whitespace between tokens (nothing, a space, or a newline and up to
//! [`MAX_INDENT`] spaces), strings with their escapes (no lone
//! surrogates), integers and numbers with bounded digits, booleans.

use super::ast::{CharClass, Expr, RuleSet};
use super::bounds::{
    MAX_EXPONENT_DIGITS, MAX_FRACTION_DIGITS, MAX_INDENT, MAX_INTEGER_DIGITS, MAX_STRING_CHARS,
};

/// Between JSON tokens: nothing, a space, or a newline and indentation.
pub(crate) fn ws(rules: &mut RuleSet) -> Expr {
    rules.shared("ws", |_| {
        Expr::alt([
            Expr::empty(),
            Expr::lit(" "),
            Expr::seq([
                Expr::lit("\n"),
                Expr::repeat(Expr::lit(" "), 0, Some(MAX_INDENT)),
            ]),
        ])
    })
}

/// `:` with whitespace around it.
pub(crate) fn colon(rules: &mut RuleSet) -> Expr {
    rules.shared("colon", |rules| {
        let ws = ws(rules);
        Expr::seq([ws.clone(), Expr::lit(":"), ws])
    })
}

/// `,` with whitespace around it.
pub(crate) fn comma(rules: &mut RuleSet) -> Expr {
    rules.shared("comma", |rules| {
        let ws = ws(rules);
        Expr::seq([ws.clone(), Expr::lit(","), ws])
    })
}

/// A JSON string of up to [`MAX_STRING_CHARS`] characters.
pub(crate) fn string(rules: &mut RuleSet) -> Expr {
    rules.shared("string", |rules| {
        let char = char(rules);
        quoted(char, 0, MAX_STRING_CHARS)
    })
}

/// A JSON string of `min` to `max` characters (inline, not a rule).
pub(crate) fn string_of(rules: &mut RuleSet, min: u32, max: u32) -> Expr {
    let char = char(rules);
    quoted(char, min, max)
}

/// The one-character escapes of a JSON string besides `\"` and `\\`.
const LETTER_ESCAPES: [(char, char); 6] = [
    ('/', '/'),
    ('b', 'b'),
    ('f', 'f'),
    ('n', 'n'),
    ('r', 'r'),
    ('t', 't'),
];

/// A JSON string of `min` to `max` characters taken from `ranges` (a
/// schema `pattern` of one character class, see `json`): the characters
/// themselves, `"` and `\` escaped when the class has them, and no `\u`
/// escape (which could spell any character).
pub(crate) fn string_in(ranges: &[(char, char)], min: u32, max: u32) -> Expr {
    let plain: Vec<(char, char)> = ranges
        .iter()
        .flat_map(|&range| without_specials(range))
        .collect();
    let mut escapes = LETTER_ESCAPES.to_vec();
    for special in ['"', '\\'] {
        if ranges
            .iter()
            .any(|&(lo, hi)| lo <= special && special <= hi)
        {
            escapes.push((special, special));
        }
    }
    let char = Expr::alt([
        Expr::class(CharClass::of(plain)),
        Expr::seq([Expr::lit("\\"), Expr::class(CharClass::of(escapes))]),
    ]);
    quoted(char, min, max)
}

/// `range` without the characters a JSON string must escape (`"`, `\`
/// and controls), as up to three ranges.
fn without_specials((lo, hi): (char, char)) -> Vec<(char, char)> {
    let lo = lo.max('\u{20}');
    if lo > hi {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start = lo;
    for special in ['"', '\\'] {
        if start <= special && special <= hi {
            if start < special {
                out.push((start, char::from_u32(special as u32 - 1).unwrap_or(start)));
            }
            start = char::from_u32(special as u32 + 1).unwrap_or(special);
        }
    }
    if start <= hi {
        out.push((start, hi));
    }
    out
}

/// One character of a JSON string, escapes included.
fn char(rules: &mut RuleSet) -> Expr {
    rules.shared("char", |rules| {
        let escape = rules.shared("escape", |_| escape());
        Expr::alt([
            // JSON allows DEL unescaped, and serde_json writes it so.
            Expr::class(CharClass::not([('"', '"'), ('\\', '\\'), ('\0', '\x1f')])),
            Expr::seq([Expr::lit("\\"), escape]),
        ])
    })
}

/// A JSON integer without a sign.
pub(crate) fn unsigned(rules: &mut RuleSet) -> Expr {
    rules.shared("unsigned", |_| {
        Expr::alt([
            Expr::lit("0"),
            Expr::seq([
                Expr::class(CharClass::of([('1', '9')])),
                Expr::repeat(digit(), 0, Some(MAX_INTEGER_DIGITS - 1)),
            ]),
        ])
    })
}

/// A JSON integer.
pub(crate) fn integer(rules: &mut RuleSet) -> Expr {
    rules.shared("integer", |rules| {
        let unsigned = unsigned(rules);
        Expr::seq([Expr::opt(Expr::lit("-")), unsigned])
    })
}

/// A JSON number.
pub(crate) fn number(rules: &mut RuleSet) -> Expr {
    rules.shared("number", |rules| {
        let integer = integer(rules);
        Expr::seq([
            integer,
            Expr::opt(Expr::seq([
                Expr::lit("."),
                Expr::repeat(digit(), 1, Some(MAX_FRACTION_DIGITS)),
            ])),
            Expr::opt(Expr::seq([
                Expr::class(CharClass::of([('e', 'e'), ('E', 'E')])),
                Expr::opt(Expr::class(CharClass::of([('-', '-'), ('+', '+')]))),
                Expr::repeat(digit(), 1, Some(MAX_EXPONENT_DIGITS)),
            ])),
        ])
    })
}

/// `true` or `false`.
pub(crate) fn boolean(rules: &mut RuleSet) -> Expr {
    rules.shared("boolean", |_| {
        Expr::alt([Expr::lit("true"), Expr::lit("false")])
    })
}

/// `"` + `min` to `max` of `char` + `"`.
fn quoted(char: Expr, min: u32, max: u32) -> Expr {
    Expr::seq([
        Expr::lit("\""),
        Expr::repeat(char, min, Some(max)),
        Expr::lit("\""),
    ])
}

fn digit() -> Expr {
    Expr::class(CharClass::of([('0', '9')]))
}

fn hex() -> Expr {
    Expr::class(CharClass::of([('0', '9'), ('a', 'f'), ('A', 'F')]))
}

/// What follows a `\` in a JSON string: a one-letter escape or `u` and four
/// hex digits that are not a lone surrogate.
fn escape() -> Expr {
    let class = |ranges: &[(char, char)]| Expr::class(CharClass::of(ranges.iter().copied()));
    let d = class(&[('d', 'd'), ('D', 'D')]);
    Expr::alt([
        class(&[[('"', '"'), ('\\', '\\')].as_slice(), &LETTER_ESCAPES].concat()),
        Expr::seq([
            Expr::lit("u"),
            Expr::alt([
                // Not a surrogate.
                Expr::seq([
                    class(&[('0', '9'), ('a', 'c'), ('A', 'C'), ('e', 'f'), ('E', 'F')]),
                    Expr::repeat(hex(), 3, Some(3)),
                ]),
                Expr::seq([
                    d.clone(),
                    class(&[('0', '7')]),
                    Expr::repeat(hex(), 2, Some(2)),
                ]),
                // A high surrogate, then its low one.
                Expr::seq([
                    d.clone(),
                    class(&[('8', '9'), ('a', 'b'), ('A', 'B')]),
                    Expr::repeat(hex(), 2, Some(2)),
                    Expr::lit("\\u"),
                    d,
                    class(&[('c', 'f'), ('C', 'F')]),
                    Expr::repeat(hex(), 2, Some(2)),
                ]),
            ]),
        ]),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grammar(make: fn(&mut RuleSet) -> Expr) -> super::super::ast::Grammar {
        let mut rules = RuleSet::new();
        let root = make(&mut rules);
        rules.finish(root)
    }

    #[test]
    fn whitespace_is_bounded() {
        let g = grammar(|rules| {
            let comma = comma(rules);
            Expr::seq([Expr::lit("1"), comma, Expr::lit("2")])
        });
        assert!(g.matches("1,2") && g.matches("1 , 2") && g.matches("1,\n    2"));
        assert!(!g.matches("1,  2"), "two spaces");
        assert!(!g.matches("1,\n\n2"), "two newlines");
        assert!(!g.matches(&format!("1,\n{}2", " ".repeat(MAX_INDENT as usize + 1))));
    }

    #[test]
    fn strings_have_json_escapes() {
        let g = grammar(string);
        assert!(g.matches(r#""""#));
        assert!(g.matches(r#""a \"b\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 é""#));
        assert!(!g.matches(r#""\ude00""#), "a lone low surrogate");
        assert!(!g.matches("\"tab\there\""), "a raw control character");
        assert!(!g.matches(r#""\u00g0""#));
        assert!(!g.matches(r#""open"#));
    }

    #[test]
    fn booleans_and_unsigned_integers() {
        assert!(grammar(boolean).matches("false"));
        assert!(!grammar(boolean).matches("False"));
        let u = grammar(unsigned);
        assert!(u.matches("0") && u.matches("123") && !u.matches("-1") && !u.matches("00"));
    }
}
