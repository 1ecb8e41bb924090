//! Renders a [`Grammar`] as GBNF, llama.cpp's grammar syntax (see its
//! `grammars/README.md`): one `name ::= body` line per rule, `root`
//! first; literals in double quotes, character classes in brackets
//! (`[^…]` negated), `(…)` groups, `?`/`*`/`+`/`{m}`/`{m,}`/`{m,n}`
//! repetition.
//!
//! Only escapes that both llama.cpp (from the vendored 4227c9b on) and
//! vLLM's xgrammar read the same way are written: `\\`, `\"`, `\n`, `\r`,
//! `\t`, `\]` in classes, and `\uXXXX` for other control characters and
//! for a `-` or leading `^` in a class (4227c9b has no `\-`, and xgrammar
//! reads `\x` with any number of hex digits, so neither is used). Other
//! characters are written as UTF-8.

use std::fmt::Write as _;

use super::ast::{CharClass, Expr, Grammar};

impl Grammar {
    /// The grammar in GBNF: what llama.cpp's `grammar` request field and
    /// vLLM's `structured_outputs.grammar` take.
    pub fn to_gbnf(&self) -> String {
        let mut out = String::new();
        for (name, body) in self.rules() {
            out.push_str(name);
            out.push_str(" ::= ");
            alternatives(body, &mut out);
            out.push('\n');
        }
        out
    }
}

/// An expression where alternatives need no parentheses (a rule body or a
/// group's inside).
fn alternatives(expr: &Expr, out: &mut String) {
    match expr {
        Expr::Alt(items) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                sequence(item, out);
            }
        }
        other => sequence(other, out),
    }
}

/// An expression inside a sequence: alternatives are grouped.
fn sequence(expr: &Expr, out: &mut String) {
    match expr {
        Expr::Seq(items) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                atom(item, out);
            }
        }
        other => atom(other, out),
    }
}

/// An expression that must read as one symbol (a sequence item, or what a
/// repetition applies to).
fn atom(expr: &Expr, out: &mut String) {
    match expr {
        Expr::Literal(text) => literal(text, out),
        Expr::Class(class) => char_class(class, out),
        Expr::Rule(name) => out.push_str(name),
        Expr::Seq(items) if items.is_empty() => out.push_str("\"\""),
        // No alternative: a class no character is in.
        Expr::Alt(items) if items.is_empty() => out.push_str("[^\\u0000-\\U0010FFFF]"),
        Expr::Seq(_) | Expr::Alt(_) => {
            out.push('(');
            alternatives(expr, out);
            out.push(')');
        }
        Expr::Repeat { item, min, max } => {
            match **item {
                Expr::Repeat { .. } => {
                    out.push('(');
                    atom(item, out);
                    out.push(')');
                }
                _ => atom(item, out),
            }
            match (*min, *max) {
                (0, Some(1)) => out.push('?'),
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (m, None) => {
                    let _ = write!(out, "{{{m},}}");
                }
                (m, Some(n)) if m == n => {
                    let _ = write!(out, "{{{m}}}");
                }
                (m, Some(n)) => {
                    let _ = write!(out, "{{{m},{n}}}");
                }
            }
        }
    }
}

fn literal(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            other => plain_char(other, out),
        }
    }
    out.push('"');
}

fn char_class(class: &CharClass, out: &mut String) {
    out.push('[');
    if class.negated {
        out.push('^');
    }
    for (i, &(lo, hi)) in class.ranges.iter().enumerate() {
        class_char(lo, i == 0 && !class.negated, out);
        if hi != lo {
            out.push('-');
            class_char(hi, false, out);
        }
    }
    out.push(']');
}

fn class_char(c: char, first: bool, out: &mut String) {
    match c {
        '\\' => out.push_str("\\\\"),
        ']' => out.push_str("\\]"),
        // A `-` may make a range, a leading `^` would negate the class.
        '-' => out.push_str("\\u002D"),
        '^' if first => out.push_str("\\u005E"),
        other => plain_char(other, out),
    }
}

/// A character as GBNF writes it in a literal or a class.
fn plain_char(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 || c == '\x7f' => {
            let _ = write!(out, "\\u{:04X}", c as u32);
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gbnf(root: Expr) -> String {
        Grammar::new(root).to_gbnf()
    }

    #[test]
    fn literals_and_classes_are_escaped() {
        assert_eq!(
            gbnf(Expr::lit("say \"hi\"\\\n\t\u{1}é")),
            "root ::= \"say \\\"hi\\\"\\\\\\n\\t\\u0001é\"\n"
        );
        assert_eq!(
            gbnf(Expr::class(CharClass::not([
                ('"', '"'),
                ('\\', '\\'),
                ('\0', '\x1f'),
                ('\x7f', '\x7f')
            ]))),
            "root ::= [^\"\\\\\\u0000-\\u001F\\u007F]\n"
        );
        assert_eq!(
            gbnf(Expr::class(CharClass::of([
                ('^', '^'),
                ('-', '-'),
                (']', ']'),
                ('[', '[')
            ]))),
            "root ::= [\\u005E\\u002D\\][]\n"
        );
    }

    #[test]
    fn groups_and_repetitions() {
        let e = Expr::seq([
            Expr::alt([Expr::lit("a"), Expr::seq([Expr::lit("b"), Expr::rule("c")])]),
            Expr::repeat(Expr::seq([Expr::lit(","), Expr::rule("c")]), 0, Some(3)),
            Expr::repeat(Expr::rule("c"), 2, Some(2)),
            Expr::repeat(Expr::rule("c"), 1, None),
            Expr::repeat(Expr::rule("c"), 2, None),
            Expr::opt(Expr::opt(Expr::lit("x"))),
        ]);
        assert_eq!(
            gbnf(e),
            "root ::= (\"a\" | \"b\" c) (\",\" c){0,3} c{2} c+ c{2,} (\"x\"?)?\n"
        );
        assert_eq!(
            gbnf(Expr::alt([Expr::empty(), Expr::lit(" ")])),
            "root ::= \"\" | \" \"\n"
        );
    }
}
