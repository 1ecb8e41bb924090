//! [`Number`], the calculator's number (an exact integer or a float),
//! how a result is written, and its readings: [`in_words`] and
//! [`to_cents`].

use super::{CalcError, MAX_MAGNITUDE};

/// A number: exact integer or float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// Exact integer.
    Int(i128),
    /// Floating point.
    Float(f64),
}

impl Number {
    pub(super) fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    pub(super) fn checked_float(f: f64) -> Result<Number, CalcError> {
        if f.is_nan() {
            Err(CalcError::Math("the result is not a real number".into()))
        } else if !f.is_finite() || f.abs() > MAX_MAGNITUDE {
            Err(CalcError::Math("the result is too large".into()))
        } else {
            Ok(Number::Float(f))
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(x) => f.write_str(&format_float(x)),
        }
    }
}

/// A large number read out (`16 million`, `about 1.235 billion`): small
/// models miscount zeros, and copy this instead. `None` below a million,
/// and from a thousand quadrillion up, where no name helps (`13280308502755
/// quadrillion` only lengthens a runaway product).
pub fn in_words(value: Number) -> Option<String> {
    const SCALES: [(f64, &str); 4] = [
        (1e15, "quadrillion"),
        (1e12, "trillion"),
        (1e9, "billion"),
        (1e6, "million"),
    ];
    let x = value.as_f64();
    if x.abs() >= 1e18 {
        return None;
    }
    let (scale, name) = SCALES.iter().find(|(scale, _)| x.abs() >= *scale)?;
    let scaled = x / scale;
    let rounded = (scaled * 1000.0).round() / 1000.0;
    let exact = (rounded * scale - x).abs() < 0.5;
    let digits = format!("{rounded:.3}");
    let digits = digits.trim_end_matches('0').trim_end_matches('.');
    let about = if exact { "" } else { "about " };
    Some(format!("{about}{digits} {name}"))
}

/// A result with more than two decimals, rounded to two (`to 2 decimals:
/// 6326.60`): small models truncate instead of rounding. `None` for whole
/// numbers, short decimals, values under one (two decimals of a ratio
/// keep one or two of its digits, and a model asked for four decimals
/// copied the two), and values past the digits a float holds (written
/// with an exponent), whose cents are noise.
pub fn to_cents(value: Number) -> Option<String> {
    let Number::Float(x) = value else {
        return None;
    };
    let decimals = format_float(x)
        .split_once('.')
        .map_or(0, |(_, fraction)| fraction.len());
    // Half away from zero, as people round money (`{:.2}` alone rounds
    // half to even).
    let rounded = (x * 100.0).round() / 100.0;
    (decimals > 2 && (1.0..1e15).contains(&x.abs())).then(|| format!("to 2 decimals: {rounded:.2}"))
}

/// Floats with 12 significant digits, trailing zeros trimmed.
fn format_float(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let magnitude = x.abs().log10().floor() as i32;
    if (-5..15).contains(&magnitude) {
        let decimals = (11 - magnitude).clamp(0, 17) as usize;
        let s = format!("{x:.decimals$}");
        let s = if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        };
        if s == "-0" { "0".into() } else { s }
    } else {
        format!("{x:.11e}")
            .replace(".00000000000e", "e")
            .trim_end_matches('0')
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::calculator::evaluate;

    #[test]
    fn large_results_are_read_out() {
        let words = |s: &str| evaluate(s).ok().and_then(in_words);
        assert_eq!(words("84000000 - 68000000").as_deref(), Some("16 million"));
        assert_eq!(words("1234567").as_deref(), Some("about 1.235 million"));
        assert_eq!(words("-2500000000").as_deref(), Some("-2.5 billion"));
        assert_eq!(words("3.2e12").as_deref(), Some("3.2 trillion"));
        assert_eq!(words("999999"), None);
        // Past a thousand quadrillion a name is no help.
        assert_eq!(words("2 * 10 ** 17").as_deref(), Some("200 quadrillion"));
        assert_eq!(words("299792458 * 384400 * 115240220855200"), None);
        assert_eq!(words("1.5e42"), None);
        assert_eq!(words("0.5"), None);
        let cents = |s: &str| evaluate(s).ok().and_then(to_cents);
        assert_eq!(
            cents("5000 * 1.04 ** 6").as_deref(),
            Some("to 2 decimals: 6326.60")
        );
        assert_eq!(cents("1 / 8"), None);
        assert_eq!(cents("21196 / 299792"), None);
        assert_eq!(cents("-9 / 8").as_deref(), Some("to 2 decimals: -1.13"));
        assert_eq!(cents("2.5 * 2"), None);
        assert_eq!(cents("1.25"), None);
        assert_eq!(cents("1 / 3000"), None);
        assert_eq!(cents("1.32803085028e42 * 1.5"), None);
        assert_eq!(cents("-0.5 * 3e20"), None);
    }
}
