//! Unit tests of `grounding`.
use super::*;
use crate::run::reasons::*;
use serde_json::json;

fn grounding(texts: &[&str]) -> Grounding {
    let mut g = Grounding::default();
    let messages: Vec<Message> = texts.iter().map(|t| Message::user(*t)).collect();
    g.learn_messages(&messages);
    g
}

/// The significant digits of every number of `t`, parts included.
fn found(t: &str) -> Vec<String> {
    with_parts(numbers_with_text(t))
        .map(|(_, digits, _)| digits)
        .collect()
}

#[test]
fn numbers_are_read_with_their_separators_and_not_inside_words() {
    assert_eq!(found("about 3,800,000 people (3.8 million)"), ["38", "38"]);
    assert_eq!(
        found("error E4127 in utf8 at 21 196 km"),
        ["21196", "21", "196"]
    );
    assert_eq!(found("memory: 512Mi, 2048Mi"), ["512", "2048"]);
    assert_eq!(found("0.0180 and .5 and 1_000"), ["18", "5", "1"]);
    assert_eq!(found("2024-06-03,212"), ["2024", "6", "3212", "3", "212"]);
    assert_eq!(found("tazas,96,830"), ["9683", "96", "83"]);
    assert_eq!(found("no digits here"), Vec::<String>::new());
    // A point and digits after a letter are part of the word (this
    // looped forever on a rotated log's name).
    assert_eq!(
        found("logs/app.log.1:2: order=1176 v.2 Fig.3"),
        ["2", "1176"]
    );
}

#[test]
fn numbers_against_letters_of_an_unspaced_script_are_numbers() {
    assert_eq!(found("一个长方形的长是23.5米，宽是16米。"), ["235", "16"]);
    assert_eq!(found("東京の人口は約1400万人です"), ["14"]);
    assert_eq!(found("길이는 8849미터"), ["8849"]);
    // A Latin, Cyrillic or Arabic letter still makes digits part of a word.
    assert_eq!(found("код Ж12 and E4127"), Vec::<String>::new());
    // A question written so grounds the call that copies its numbers, and
    // an answer written so is checked like any other.
    let mut g = grounding(&["Question: 一个长方形的长是23.5米，宽是16米。它的面积是多少平方米？"]);
    assert!(
        g.check("area", &json!({"expression": "23.5 * 16"}), false)
            .is_empty()
    );
    g.learn("376");
    assert!(g.check_answer("面积是376平方米。", false).is_empty());
    assert_eq!(g.check_answer("面积是380平方米。", false), ["380"]);
}

#[test]
fn numbers_written_the_way_other_languages_write_them_ground_their_plain_form() {
    // A decimal comma, dots between thousands, Arabic-Indic digits.
    let mut g = grounding(&[
        "Question: Ho comprato 3 kg a 2,40 € al chilo e 2 kg a 13,15 € al chilo; costo fisso 1.250.000.",
        "Question: كم يساوي ١٧٪ من ٨٤٠؟",
    ]);
    let call = json!({"expression": "3 * 2.40 + 2 * 13.15 + 1250000"});
    assert!(g.check("a", &call, false).is_empty());
    // Grounded only by the plain reading: as written, the question holds
    // `1.234` and `56`.
    let mut priced = grounding(&["Question: Il prezzo è 1.234,56 €; quanto costano due?"]);
    let call = json!({"expression": "1234.56 * 2"});
    assert!(priced.check("b", &call, false).is_empty());
    assert!(
        g.check("c", &json!({"expression": "0.17 * 840"}), false)
            .is_empty()
    );
    // Still compared by value: a made-up number is not grounded by them.
    assert_eq!(
        g.check("d", &json!({"expression": "13.75 * 2"}), false),
        ["13.75"]
    );
}

#[test]
fn an_answer_written_with_a_decimal_comma_is_read_as_its_language_writes_it() {
    let mut g = grounding(&[
        "Question: Combien d'habitants compte Berlin ?",
        "Observation: Berlin: about 3,800,000 people (3.8 million). Area: 891.7 km2.",
    ]);
    assert!(
        g.check_answer("Berlin compte environ 3,8 millions d'habitants.", false)
            .is_empty()
    );
    assert!(g.ungrounded_in("Die Fläche beträgt 891,7 km2.").is_empty());
    assert_eq!(g.ungrounded_in("Die Fläche beträgt 754,2 km2."), ["754"]);
}

#[test]
fn made_up_numbers_are_found_and_copied_ones_are_not() {
    let mut g = grounding(&[
        "Question: What is the combined population of Paris and Berlin?",
        "Observation: Paris: about 2,100,000 people. Berlin: 3.8 million.",
    ]);
    let call = json!({"expression": "2100000 + 3800000"});
    assert!(g.check("a", &call, false).is_empty());
    let made_up = json!({"expression": "2140000 + 3667000 / 2"});
    assert_eq!(g.check("b", &made_up, false), ["2140000", "3667000"]);
    // Sent back once; the same call again runs.
    assert!(g.check("b", &made_up, false).is_empty());
}

#[test]
fn a_call_made_again_after_a_lookup_that_did_not_ground_it_is_sent_back_once_more() {
    let mut g = grounding(&["Question: How many hours at 80 km/h along the Great Wall?"]);
    let made_up = json!({"expression": "3710 / 80"});
    assert_eq!(g.check("w", &made_up, false), ["3710"]);
    // The model looked the length up, then made the same call: the
    // result it found does not hold 3710.
    g.learn("Great Wall of China: its walls total about 21,196 kilometres.");
    assert_eq!(g.check("w", &made_up, false), ["3710"]);
    // Twice sent back: the third time runs, whatever was learned.
    g.learn("Moon: about 384,400 kilometres.");
    assert!(g.check("w", &made_up, false).is_empty());
    // Made again at once, with nothing learned in between, it runs.
    assert_eq!(
        g.check("c", &json!({"expression": "8849 * 3.28084"}), false),
        ["8849", "3.28084"]
    );
    assert!(
        g.check("c", &json!({"expression": "8849 * 3.28084"}), false)
            .is_empty()
    );
    // Confirmed and run, it stays confirmed: its own result is learned,
    // but that is no lookup that could have grounded it.
    g.learn("29031.90");
    assert!(
        g.check("c", &json!({"expression": "8849 * 3.28084"}), false)
            .is_empty()
    );
    // A lookup in between that learned no new number (the same search
    // again) leaves it confirmed: it runs.
    let mut g = grounding(&[
        "Question: How many years after the Eiffel Tower was completed did Rust 1.0 come out?",
        "Rust: version 1.0 was released in May 2015.",
    ]);
    let guessed_year = json!({"expression": "2015 - 1937"});
    assert_eq!(g.check("y", &guessed_year, false), ["1937"]);
    g.learn("Rust: version 1.0 was released in May 2015.");
    assert!(g.check("y", &guessed_year, false).is_empty());
    // A lookup that grounds it lets it run at once.
    let guessed = json!({"expression": "124000000 / 2"});
    assert_eq!(g.check("j", &guessed, false), ["124000000"]);
    g.learn("Japan: about 124,000,000 people.");
    assert!(g.check("j", &guessed, false).is_empty());
}

#[test]
fn a_power_of_ten_sent_back_is_not_grounded_by_the_larger_numbers_a_lookup_brings() {
    // A wall's length guessed as a round ten thousand: no conversion in a
    // conversation whose numbers are all small.
    let mut g = grounding(&["Question: How many days along the Great Wall at 25 km a day?"]);
    let guessed = json!({"expression": "10000 / 25"});
    assert_eq!(g.check("w", &guessed, false), ["10000"]);
    // The search found the real length; the model kept its guess.
    g.learn("Great Wall of China: its walls total about 21,196 kilometres.");
    assert_eq!(g.check("w", &guessed, false), ["10000"]);
    // A fresh call with that power of ten, after the lookup, converts.
    assert!(
        g.check("m", &json!({"expression": "21196 * 10000"}), false)
            .is_empty()
    );
    // Twice sent back, the third time runs.
    assert!(g.check("w", &guessed, false).is_empty());
}

#[test]
fn a_second_send_back_says_the_numbers_are_still_in_no_result() {
    let again = ungrounded_reason(&["10000".into()], &["search"], &[], true);
    assert_eq!(
        again,
        "10000 is still not in any tool result. Look up what it should be with search, using different words, or compute with the numbers the results give; if you are sure it is right, make this same call again"
    );
    let nothing_to_look_up = ungrounded_reason(&["10000".into()], &[], &[], true);
    assert_eq!(
        nothing_to_look_up,
        "10000 is still not in any tool result. Compute with the numbers the results give; if you are sure it is right, make this same call again"
    );
}

#[test]
fn a_list_written_without_spaces_is_grounded_by_its_numbers() {
    let mut g = grounding(&["Observation: 1| run,latency_ms\n2| 1,212\n3| 2,198\n4| 3,240"]);
    // Read as one number it is unknown; read as a list, every number is.
    let list = json!({"expression": "mean(212,198,240)"});
    assert!(g.check("a", &list, false).is_empty());
    // A list with a made-up number, and thousands groups, still count.
    let made_up = json!({"expression": "mean(212,198,251)"});
    assert_eq!(g.check("b", &made_up, false), ["212,198,251"]);
    let thousands = json!({"expression": "3,212,000 / 2"});
    assert_eq!(g.check("c", &thousands, false), ["3,212,000"]);
}

#[test]
fn small_numbers_constants_and_rounded_copies_are_known() {
    let mut g = grounding(&["Question: what's 18% of 2450", "7.07106781187"]);
    for expression in [
        "0.18 * 2450",
        "18 / 100 * 2,450",
        "round(7.07, 2) * 365 / 24 / 3600",
        "7.0711 * 1000",
        "2 ** 10",
    ] {
        assert!(
            g.check(expression, &json!({"expression": expression}), false)
                .is_empty(),
            "{expression}"
        );
    }
    assert_eq!(g.check("x", &json!({"n": 4271}), false), ["4271"]);
    // Float noise is the round number it stands for.
    assert!(
        g.check(
            "f",
            &json!({"expression": "18 * 2450 / 100.00000000000001"}),
            false
        )
        .is_empty()
    );
    // A large round number is a fact to look up.
    assert_eq!(
        g.check("y", &json!({"expression": "84000000 - 6700000"}), false),
        ["84000000", "6700000"]
    );
    assert!(
        g.check("z", &json!({"expression": "2450 * 1000000"}), false)
            .is_empty()
    );
}

#[test]
fn the_same_digits_ten_times_larger_or_smaller_are_not_known() {
    let mut g = grounding(&[
        "Japan: about 124,000,000 people. Tokyo: 14,000,000 people.",
        "1| producto,unidades,importe\n2| café molido,50,1250\n3| tazas,96,830",
    ]);
    // A dropped zero and an added one.
    assert_eq!(
        g.check(
            "a",
            &json!({"expression": "14000000 / 12400000 * 100"}),
            false
        ),
        ["12400000"]
    );
    assert_eq!(g.check_answer("12500", false), ["12500"]);
    assert_eq!(g.miscopied("12400000"), Some("124,000,000"));
    assert_eq!(g.miscopied("12.5"), None);
    // Units change by thousands or hundreds: millions, percentages.
    for expression in ["14 / 124 * 100", "1.25 * 1000", "0.124e9 - 12.5 * 100"] {
        assert!(
            g.check(expression, &json!({"expression": expression}), false)
                .is_empty(),
            "{expression}"
        );
    }
    assert!(g.check("n", &json!({"total": 1250}), false).is_empty());
    assert_eq!(
        g.check("m", &json!({"total": 125}), false),
        [json!(125).to_string()]
    );
}

#[test]
fn a_scale_word_makes_a_number_large() {
    let mut g = grounding(&["Question: What is the population of Spain?"]);
    assert_eq!(
        g.check_answer(
            "The population of Spain is approximately 47 million.",
            false
        ),
        ["47 million"]
    );
    let mut g = grounding(&["Question: 東京の人口は?", "Tokyo: about 14,000,000 people."]);
    assert!(g.check_answer("約1400万人です", false).is_empty());
    let mut g = grounding(&["Question: How old?"]);
    assert!(g.check_answer("About 4 years.", false).is_empty());
}

#[test]
fn an_answer_after_results_knows_only_counts_under_ten() {
    // A `10` or `8.5` no result holds was made up (two native answer
    // turns on the 1.5B model answered a bare `10`).
    for made_up in ["10", "70 AD", "8.5", "It is 34.0."] {
        let mut g = grounding(&["Question: How many are in stock?", "1| # Stock"]);
        assert_eq!(g.check_answer(made_up, false).len(), 1, "{made_up}");
    }
    let mut g = grounding(&["Question: How many files?", "a.md, b.md, c.md"]);
    assert!(g.check_answer("There are 3 files.", false).is_empty());
    // In a computing call, small numbers stay everyday arithmetic.
    let mut g = grounding(&["Question: How many in stock?", "1| # Stock"]);
    assert!(
        g.check("d", &json!({"expression": "(12 + 60) * 0.5"}), false)
            .is_empty()
    );
}

#[test]
fn before_any_result_small_numbers_and_constants_are_not_known() {
    let mut g = grounding(&["Question: Please compute 7 to the 9th power."]);
    assert_eq!(
        g.check_answer("The result is 24, about 1024.", true),
        ["24", "1024"]
    );
    // The question's own numbers stay known, and words without
    // numbers pass.
    let mut g = grounding(&["Question: Please compute 7 to the 9th power."]);
    assert!(g.check_answer("7 to the 9th power", true).is_empty());
    assert!(g.check_answer("Hello! How can I help?", true).is_empty());
    // After a result, counts under ten are known again.
    let mut g = grounding(&["Question: Please compute 7 to the 9th power."]);
    assert!(g.check_answer("The result is 4.", false).is_empty());
    assert_eq!(g.check_answer("The result is 24.", false), ["24"]);
}

#[test]
fn the_models_own_turns_do_not_ground_a_number() {
    let mut g = Grounding::default();
    g.learn_messages(&[
        Message::user("How many people live in Rome?"),
        Message::assistant("Thought: Rome has 2,873,000 people."),
    ]);
    assert_eq!(
        g.check("k", &json!({"expression": "2873000 * 2"}), false),
        ["2873000"]
    );
}

#[test]
fn the_reason_names_the_numbers_and_where_to_find_them() {
    let one = ungrounded_reason(&["2021".into()], &["search"], &[], false);
    assert_eq!(
        one,
        "2021 is not in the question or in any tool result. Look up the facts the question needs with search first, in words; if you are sure it is right, make this same call again"
    );
    let two = ungrounded_reason(
        &["2021".into(), "1930".into()],
        &["read_file", "grep"],
        &[],
        false,
    );
    assert!(two.starts_with("2021, 1930 are not"), "{two}");
    assert!(
        two.contains("with read_file or grep first, in words; if you are sure they are right"),
        "{two}"
    );
    let alone = ungrounded_reason(&["2021".into()], &[], &[], false);
    assert!(alone.contains("Take it from the question"), "{alone}");
    let miscopied = ungrounded_reason(
        &["12400000".into()],
        &["search"],
        &[("12400000".into(), "124,000,000".into())],
        false,
    );
    assert_eq!(
        miscopied,
        "12400000 has one zero too few: the results say 124,000,000. Make the call again with 124000000 in place of 12400000"
    );
    let two = ungrounded_reason(
        &["1.25".into(), "140 million".into()],
        &["search"],
        &[
            ("1.25".into(), "12.5".into()),
            ("140 million".into(), "14 million".into()),
        ],
        false,
    );
    assert_eq!(
        two,
        "1.25 is ten times too small: the results say 12.5; 140 million has one zero too many: the results say 14 million. Make the call again with 12.5 in place of 1.25, and 14000000 in place of 140 million"
    );
}

#[test]
fn a_power_of_ten_in_a_call_is_known_only_as_a_factor_that_converts() {
    let mut g = grounding(&["Question: walking the Great Wall at 25 km a day, how many days?"]);
    // A made-up length is a fact to look up.
    assert_eq!(
        g.check("a", &json!({"expression": "10000 / 25"}), false),
        ["10000"]
    );
    // Units and scales convert with a hundred, a thousand, a million.
    for expression in ["25 * 1000", "25 / 100", "25 * 1000000", "0.001 * 25"] {
        assert!(
            g.check(expression, &json!({"expression": expression}), false)
                .is_empty(),
            "{expression}"
        );
    }
    // A run of zeros past every number in sight is no factor.
    for zeros in [60, 450] {
        let runaway = format!("25 * 1{}", "0".repeat(zeros));
        let missing = g.check(&runaway, &json!({ "expression": runaway }), false);
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert!(missing[0].starts_with("1000"), "{missing:?}");
    }
    // Ten thousand converts where the conversation has numbers that large.
    let mut g = grounding(&["Question: 東京の人口は?", "Tokyo: 1400万人"]);
    assert!(
        g.check("c", &json!({"expression": "1400 * 10000"}), false)
            .is_empty()
    );
}

#[test]
fn a_percentage_added_to_or_taken_from_one_is_known() {
    let mut g = grounding(&["Question: 8,000 at 2.75% a year for 6 years, and an 18% tip"]);
    for expression in ["8000 * 1.0275 ** 6", "8000 * 1.18", "8000 * 0.82"] {
        assert!(
            g.check(expression, &json!({"expression": expression}), false)
                .is_empty(),
            "{expression}"
        );
    }
    assert_eq!(
        g.check("d", &json!({"expression": "8000 * 1.07"}), false),
        ["1.07"]
    );
}

#[test]
fn an_answer_that_is_a_power_of_ten_must_come_from_the_results() {
    let mut g = grounding(&["Question: what is the connect timeout?", "1| # fetchkit"]);
    assert_eq!(g.check_answer("1000", false), ["1000"]);
    let g = grounding(&["Question: what is the connect timeout?", "1| # fetchkit"]);
    assert_eq!(g.ungrounded_in("It is 100 ms."), ["100"]);
    // From a result it stands, and small counts need no result.
    let mut g = grounding(&["Question: what is the timeout?", "timeout_ms = 1,000"]);
    assert!(g.check_answer("1000 ms", false).is_empty());
    let mut g = grounding(&["Question: how many files?", "a.md, b.md, c.md"]);
    assert!(g.check_answer("There are 3 files.", false).is_empty());
}

#[test]
fn a_runaway_number_is_named_by_its_length_and_not_sent_to_search() {
    let runaway = format!("1{}", "0".repeat(60));
    let reason = ungrounded_reason(std::slice::from_ref(&runaway), &["search"], &[], false);
    assert!(
        reason.starts_with("the call has a number of 61 characters"),
        "{reason}"
    );
    assert!(!reason.contains("search"), "{reason}");
    assert!(!reason.contains("00"), "{reason}");
    // Beside a number that could be looked up, the lookup advice stays.
    let reason = ungrounded_reason(&[runaway, "8849".into()], &["search"], &[], false);
    assert!(reason.contains("Look up the facts"), "{reason}");
}

#[test]
fn a_call_of_only_assumed_numbers_is_sent_back_once_where_lookups_exist() {
    let mut g = grounding(&["Question: What do our monthly subscriptions cost us per year?"]);
    let from_nothing = json!({"expression": "12 * 100"});
    // Nothing the question or a result gave: a lookup comes first.
    assert_eq!(g.check("s", &from_nothing, true), ["12", "100"]);
    // The same call again, with nothing looked up in between, runs.
    assert!(g.check("s", &from_nothing, true).is_empty());
    // Without a tool to look things up with, the same numbers are known.
    assert!(g.check("t", &from_nothing, false).is_empty());
    // One number from the conversation grounds the call.
    let mut g = grounding(&["Question: What does 12 months of a 30 EUR plan cost?"]);
    assert!(
        g.check("u", &json!({"expression": "12 * 30 * 100 / 100"}), true)
            .is_empty()
    );
    assert!(
        g.check("v", &json!({"expression": "30 * 12"}), true)
            .is_empty()
    );
    // A call with fewer than two numbers is not this check's to send back.
    let mut g = grounding(&["Question: What is the mean latency?"]);
    assert!(
        g.check("w", &json!({"expression": "sqrt(x)"}), true)
            .is_empty()
    );
    assert!(
        g.check("x", &json!({"a": "latency", "b": 1}), true)
            .is_empty()
    );
    assert!(
        g.check("y", &json!({"expression": "100 * 100"}), true)
            .is_empty()
    );
}

#[test]
fn a_power_of_ten_is_no_miscopy_of_another() {
    let g = grounding(&["Observation: 9| Figma\n10| Slack Pro | 29 | 7.25"]);
    assert_eq!(g.miscopied("100"), None);
    assert_eq!(g.miscopied("72.5"), Some("7.25"));
}

#[test]
fn an_answer_may_write_whole_values_as_written_and_plain() {
    let g = grounding(&[
        "The wall is about 21,196 kilometres; Tokyo has 14 million people (14,000,000).",
        "3| A-101,USB-C hub,137,34.50",
        "H2O boils at 100.0 degrees; 1 250 000 visitors.",
        "version = \"2.4.1\"",
    ]);
    // A row's values come one by one, a grouped number whole and plain,
    // a version whole; whole numbers under a hundred (a line number, the
    // `2` of `H2O`) are left out.
    let expected = [
        "1 250 000",
        "100.0",
        "101",
        "1250000",
        "137",
        "14,000,000",
        "14000000",
        "2.4",
        "2.4.1",
        "21,196",
        "21196",
        "34.50",
    ];
    assert_eq!(g.answer_numbers(), expected);
}

#[test]
fn an_answer_bound_to_the_conversation_may_write_the_question_s_small_numbers() {
    let mut g = Grounding::default();
    g.learn_question(&[Message::user(
        "If you stacked 25 towers, by how much would the peak be taller?",
    )]);
    g.learn("Tower: 330 metres tall, 2024 estimate. See line 7.");
    // The question's 25 is what the sum needs; a result's 7 stays out.
    assert_eq!(g.answer_numbers(), ["2024", "25", "330"]);
}

#[test]
fn the_result_a_call_claims_after_equals_is_not_checked() {
    let mut g = grounding(&["Germany: 84,000,000 people. France: 68,000,000 people."]);
    // The claim (a wrong one) is the model's; the side computed is known.
    let call = json!({"expression": "84,000,000 - 68,000,000 = 17,000,000"});
    assert!(g.check("a", &call, false).is_empty());
    let named = json!({"expression": "difference = 84000000 - 68000000"});
    assert!(g.check("b", &named, false).is_empty());
    // The side computed is still checked.
    let made_up = json!({"expression": "91000000 - 68000000 = 23000000"});
    assert_eq!(g.check("c", &made_up, false), ["91000000"]);
    // A claim written first is still the claim.
    let first = json!({"expression": "17000000 = 84000000 - 68000000"});
    assert!(g.check("d", &first, false).is_empty());
    // Text of several lines is checked whole.
    let code = json!({"expression": "x = 84000000\ny = 91000000"});
    assert_eq!(g.check("e", &code, false), ["91000000"]);
    // An answer's result after `=` is checked as before.
    assert_eq!(
        g.check_answer("84,000,000 - 68,000,000 = 17,000,000", false),
        ["17,000,000"]
    );
}

#[test]
fn numbers_seen_only_as_line_numbers_are_no_values() {
    let mut g = Grounding::default();
    g.learn("3|   - city: Parigi\n5|   - city: Roma\n6|     nights: 9");
    assert!(g.only_line_numbers(&["3".into(), "5".into()]));
    // 9 is a value; 6 is only the line it is on.
    assert!(!g.only_line_numbers(&["9".into()]));
    assert!(!g.only_line_numbers(&["3".into(), "9".into()]));
    assert!(g.only_line_numbers(&["6".into()]));
    // A later result that holds 5 as a value makes it one.
    g.learn("rooms: 5");
    assert!(!g.only_line_numbers(&["5".into()]));
    assert!(!g.only_line_numbers(&[]));
    // The sum of line numbers is sent back; the values are not.
    assert_eq!(
        g.check("k1", &json!({"expression": "3 + 6"}), true),
        ["3", "6"]
    );
    assert!(
        g.check("k2", &json!({"expression": "9 + 5"}), true)
            .is_empty()
    );
}

#[test]
fn constants_are_known_at_their_own_value_only() {
    let g = grounding(&["- Python 3.11\n- PostgreSQL 15"]);
    // The digits of an hour's seconds, at another scale, are a guess.
    assert_eq!(g.ungrounded_in("Python 3.6"), ["3.6"]);
    assert_eq!(g.ungrounded_in("36 hours"), ["36"]);
    assert_eq!(g.ungrounded_in("8.64"), ["8.64"]);
    // In a computing call they are known as they are; in an answer no
    // result holds them, and a lone one computes nothing.
    let mut g = g;
    assert!(
        g.check("k1", &json!({"expression": "15 * 3600 + 86,400"}), true)
            .is_empty()
    );
    assert!(
        g.check("k2", &json!({"expression": "1440 * 365 / 168 + 15"}), true)
            .is_empty()
    );
    assert_eq!(
        g.ungrounded_in("3600 seconds, 86,400 a day"),
        ["3600", "86,400"]
    );
    // A constant a computing call used may be named in the answer.
    let mut used = g.clone();
    used.learn_constants_of(&json!({"expression": "36 * 3600"}));
    assert_eq!(used.ungrounded_in("3600 seconds, 86,400 a day"), ["86,400"]);
    assert_eq!(used.ungrounded_in("Python 3.6"), ["3.6"]);
    assert_eq!(
        g.check("k3", &json!({"expression": "3600"}), true),
        ["3600"]
    );
    assert_eq!(
        g.check("k4", &json!({"expression": " (365) "}), true),
        ["365"]
    );
    assert!(
        g.check("k5", &json!({"expression": "3600"}), false)
            .is_empty()
    );
    assert!(
        g.check("k6", &json!({"expression": "15"}), true).is_empty(),
        "a lone number a result holds"
    );
}

#[test]
fn a_question_that_writes_thousands_with_dots_reads_a_tables_dots_so() {
    let mut g = Grounding::default();
    let task = [Message::user(
        "Según poblacion.txt, ¿cuántos habitantes tienen juntas las dos ciudades?",
    )];
    g.learn_how_numbers_are_written(&task);
    g.learn_question(&task);
    // The tool's own English words do not make the file's dots decimal.
    g.learn(
        "poblacion.txt:1: Toledo: 85.000 habitantes\n`poblacion.txt` is short; here it is whole:",
    );
    let call = json!({"expression": "85.000 + 54.000", "rate": 85.0});
    assert_eq!(
        g.thousands_dots_in(&call),
        [("85.000".to_string(), "85000".to_string())]
    );
    // Answer grammars may write numbers the question's way too.
    assert_eq!(
        g.with_local_forms(vec!["139000".into(), "3.8".into(), "12".into()]),
        ["139000", "3.8", "12", "139.000", "3,8"]
    );
}

#[test]
fn an_english_question_keeps_dots_decimal_and_a_decimal_in_any_field_settles_a_table() {
    let mut english = Grounding::default();
    let task = [Message::user("How long are two rods in rods.csv?")];
    english.learn_how_numbers_are_written(&task);
    english.learn_question(&task);
    english.learn("sku,length\nA-1,1.250\n");
    assert!(
        english
            .thousands_dots_in(&json!({"expression": "1.250 * 2"}))
            .is_empty()
    );
    assert_eq!(english.with_local_forms(vec!["2.5".into()]), ["2.5"]);
    // A German question, but a table whose other field writes `12.75`.
    let mut german = Grounding::default();
    let task = [Message::user(
        "Wie lang sind zwei Stangen laut stangen.csv?",
    )];
    german.learn_how_numbers_are_written(&task);
    german.learn_question(&task);
    german.learn("sku,price,length\nA-1,12.75,1.250\nA-2,3.5,2.000\n");
    assert!(
        german
            .thousands_dots_in(&json!({"expression": "1.250 * 2"}))
            .is_empty()
    );
}

#[test]
fn a_result_with_a_decimal_comma_lets_answers_write_numbers_its_way() {
    let mut g = Grounding::default();
    let task = [Message::user(
        "Quanto custa, no total, comprar 3 unidades do produto do arquivo preco.txt?",
    )];
    g.learn_how_numbers_are_written(&task);
    g.learn_question(&task);
    assert_eq!(g.with_local_forms(vec!["449.70".into()]), ["449.70"]);
    // The question does not tell; the file's price does.
    g.learn("1| Produto: cadeira\n2| Preço: 149,90 R$");
    assert_eq!(
        g.with_local_forms(g.answer_numbers()),
        ["149", "149.90", "3", "149,90"]
    );
    // A result in English keeps them as they are.
    let mut english = Grounding::default();
    english.learn("Price: 1,490.50 USD, 12.5 kg");
    assert_eq!(english.with_local_forms(vec!["2.5".into()]), ["2.5"]);
}

#[test]
fn a_compute_round_s_operands_are_left_out_as_written_and_as_they_ran() {
    let mut g = Grounding::default();
    let task = [Message::user(
        "Según poblacion.txt, ¿cuántos habitantes tienen juntas las dos ciudades?",
    )];
    g.learn_how_numbers_are_written(&task);
    g.learn_question(&task);
    g.learn("1| Toledo: 85.000 habitantes\n2| Cuenca: 54.000 habitantes\nCenso 2024");
    let ran = json!(["85.000 + 54.000", "85000 + 54000"]);
    let left = g.with_local_forms(g.answer_numbers_but_operands(&ran));
    assert!(
        !left
            .iter()
            .any(|n| n.starts_with("85") || n.starts_with("54")),
        "{left:?}"
    );
    assert!(left.contains(&"2024".to_string()), "{left:?}");
}

#[test]
fn a_number_copied_with_its_decimal_comma_dropped_is_read_as_written_above() {
    let mut g = Grounding::default();
    let task = [Message::user(
        "Quanto fa 1.250,75 moltiplicato per 4 e poi diviso per 3?",
    )];
    g.learn_how_numbers_are_written(&task);
    g.learn_question(&task);
    assert_eq!(
        g.thousands_dots_in(&json!({"expression": "1.25075 * 4 / 3"})),
        [("1.25075".to_string(), "1250.75".to_string())]
    );
    // Copied as written, or plainly, it is no slip.
    for expression in ["1.250,75 * 4 / 3", "1250.75 * 4 / 3"] {
        assert!(
            g.thousands_dots_in(&json!({ "expression": expression }))
                .is_empty(),
            "{expression}"
        );
    }
    // Without such a number above, `1.25075` is just a number.
    let mut english = Grounding::default();
    english.learn_question(&[Message::user("What is 1.25075 times 4?")]);
    assert!(
        english
            .thousands_dots_in(&json!({"expression": "1.25075 * 4"}))
            .is_empty()
    );
}
