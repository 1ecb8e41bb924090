//! The operators on [`Number`]s: exact on integers while the result
//! fits, in floats otherwise, with Python's floor division, remainder and
//! bounded powers.

use super::{CalcError, MAX_EXPONENT, Number};

fn int_or_float(
    a: Number,
    b: Number,
    int_op: impl Fn(i128, i128) -> Option<i128>,
    float_op: impl Fn(f64, f64) -> f64,
) -> Result<Number, CalcError> {
    if let (Number::Int(x), Number::Int(y)) = (a, b)
        && let Some(r) = int_op(x, y)
    {
        return Ok(Number::Int(r));
    }
    Number::checked_float(float_op(a.as_f64(), b.as_f64()))
}

pub(super) fn add(a: Number, b: Number) -> Result<Number, CalcError> {
    int_or_float(a, b, i128::checked_add, |x, y| x + y)
}

pub(super) fn sub(a: Number, b: Number) -> Result<Number, CalcError> {
    int_or_float(a, b, i128::checked_sub, |x, y| x - y)
}

pub(super) fn mul(a: Number, b: Number) -> Result<Number, CalcError> {
    int_or_float(a, b, i128::checked_mul, |x, y| x * y)
}

pub(super) fn negate(a: Number) -> Result<Number, CalcError> {
    match a {
        Number::Int(i) => Ok(i
            .checked_neg()
            .map_or(Number::Float(-(i as f64)), Number::Int)),
        Number::Float(f) => Ok(Number::Float(-f)),
    }
}

fn nonzero(b: Number) -> Result<(), CalcError> {
    if b.as_f64() == 0.0 {
        Err(CalcError::Math("division by zero".into()))
    } else {
        Ok(())
    }
}

pub(super) fn div(a: Number, b: Number) -> Result<Number, CalcError> {
    nonzero(b)?;
    int_or_float(
        a,
        b,
        |x, y| {
            if x.checked_rem(y)? == 0 {
                x.checked_div(y)
            } else {
                None
            }
        },
        |x, y| x / y,
    )
}

pub(super) fn floor_div(a: Number, b: Number) -> Result<Number, CalcError> {
    nonzero(b)?;
    int_or_float(
        a,
        b,
        |x, y| {
            let q = x.checked_div(y)?;
            let r = x.checked_rem(y)?;
            Some(if r != 0 && ((r < 0) != (y < 0)) {
                q - 1
            } else {
                q
            })
        },
        |x, y| (x / y).floor(),
    )
}

pub(super) fn modulo(a: Number, b: Number) -> Result<Number, CalcError> {
    nonzero(b)?;
    int_or_float(
        a,
        b,
        |x, y| {
            let r = x.checked_rem(y)?;
            Some(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            })
        },
        |x, y| {
            let r = x % y;
            if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                r + y
            } else {
                r
            }
        },
    )
}

pub(super) fn pow(base: Number, exponent: Number) -> Result<Number, CalcError> {
    let e = exponent.as_f64();
    if e.abs() > MAX_EXPONENT {
        return Err(CalcError::Limit(format!(
            "the exponent is too large (max {MAX_EXPONENT})"
        )));
    }
    if let (Number::Int(b), Number::Int(x)) = (base, exponent)
        && x >= 0
        && let Ok(x) = u32::try_from(x)
        && let Some(r) = b.checked_pow(x)
    {
        return Ok(Number::Int(r));
    }
    if base.as_f64() == 0.0 && e < 0.0 {
        return Err(CalcError::Math(
            "division by zero (0 to a negative power)".into(),
        ));
    }
    Number::checked_float(base.as_f64().powf(e))
}
