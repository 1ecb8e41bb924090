//! Equations in a computing call: small models write the result they
//! expect into the expression (`<a> - <b> = <claimed result>`), or a name
//! for it (`<name> = <a> * <b>`). The calculator computes the side that
//! is an expression, and the loop's grounding checks only that side's
//! numbers: the claim is the model's, not a number it computes with.

/// The side of `text` that is computed when it is an equation: of its
/// sides (split at `=` or a full-width `＝`) that hold a digit, the first
/// that is more than a lone number (`<a> - <b>`, not `<result>`), or else
/// the first with a digit. `None` when `text` has no `=`, is a comparison
/// (`==`, `<=`, `>=`, `!=`), or no side holds a digit (`x = y`).
pub fn computed_side(text: &str) -> Option<&str> {
    if !text.contains(['=', '＝']) || ["==", "<=", ">=", "!="].iter().any(|c| text.contains(c)) {
        return None;
    }
    let mut with_digits = text
        .split(['=', '＝'])
        .map(str::trim)
        .filter(|side| side.chars().any(char::is_numeric));
    let first = with_digits.clone().next()?;
    Some(
        with_digits
            .find(|side| !is_lone_number(side))
            .unwrap_or(first),
    )
}

/// Whether `side` is one number alone, as a result is written: digits
/// with their separators, a sign, a currency sign or a percent sign.
pub(crate) fn is_lone_number(side: &str) -> bool {
    let digits = side
        .trim_start_matches(['-', '+', '$', '€', '£', '¥'])
        .trim_end_matches('%')
        .trim();
    !digits.is_empty()
        && digits.chars().all(|c| {
            c.is_numeric() || matches!(c, '.' | ',' | '_' | '\'' | ' ' | '\u{a0}' | '\u{202f}')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expression_side_is_computed_wherever_it_stands() {
        assert_eq!(
            computed_side("84,000,000 - 68,000,000 = 17,000,000"),
            Some("84,000,000 - 68,000,000")
        );
        assert_eq!(
            computed_side("16000000 = 84000000 - 68000000"),
            Some("84000000 - 68000000")
        );
        assert_eq!(computed_side("total = 3 * 4.75"), Some("3 * 4.75"));
        assert_eq!(computed_side("x = 3 * 4 = 12"), Some("3 * 4"));
        assert_eq!(computed_side("3 * 4.75 ="), Some("3 * 4.75"));
        assert_eq!(computed_side("２ × ３ ＝ ６"), Some("２ × ３"));
        // A lone number on both sides: the first.
        assert_eq!(computed_side("12 = 13"), Some("12"));
        assert_eq!(computed_side("$16.85 = 16.85"), Some("$16.85"));
    }

    #[test]
    fn no_equation_no_side() {
        assert_eq!(computed_side("3 * 4"), None);
        assert_eq!(computed_side("x = y"), None);
        assert_eq!(computed_side("3 == 3"), None);
        assert_eq!(computed_side("a <= 4"), None);
    }
}
