//! Property tests: the calculator never panics on any input, agrees with
//! exact integer arithmetic, and ends quickly on generated bombs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tools::builtin::{Number, evaluate};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_never_panics(input in ".{0,200}") {
        let _ = evaluate(&input);
    }

    #[test]
    fn operator_soup_never_panics(input in "[0-9+*/%().^ e-]{0,120}") {
        let _ = evaluate(&input);
    }

    #[test]
    fn written_arithmetic_soup_never_panics(
        input in "([0-9.,]{1,6}|km|h|x|of|%|√|\\$|€|M|k|bn|million|万|[-+*/()] ){0,40}"
    ) {
        let _ = evaluate(&input);
    }

    #[test]
    fn integer_arithmetic_is_exact(a in -1_000_000_000i64..1_000_000_000, b in -1_000_000_000i64..1_000_000_000) {
        prop_assert_eq!(evaluate(&format!("{a} + {b}")).unwrap(), Number::Int(i128::from(a) + i128::from(b)));
        prop_assert_eq!(evaluate(&format!("{a} - ({b})")).unwrap(), Number::Int(i128::from(a) - i128::from(b)));
        prop_assert_eq!(evaluate(&format!("{a} * ({b})")).unwrap(), Number::Int(i128::from(a) * i128::from(b)));
    }

    #[test]
    fn towers_of_powers_end_with_a_value_or_an_error(bases in proptest::collection::vec(0u32..20, 1..8)) {
        let expr = bases.iter().map(u32::to_string).collect::<Vec<_>>().join("**");
        let _ = evaluate(&expr);
    }
}
