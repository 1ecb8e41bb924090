//! Weekdays of dated paths. A path that holds a calendar date
//! (`notes/2024-03-14.md`, `logs/2024_05_02/app.log`) is shown with the
//! weekday of that date (`notes/2024-03-14.md (Thursday)`) wherever the
//! file tools list paths, so that a task that says "Thursday's standup"
//! or "last Friday's log" finds the file whose name holds only the date:
//! a small model cannot work out a weekday. A path passed back with that
//! weekday still after it resolves to the file.

/// The weekdays, from Sunday (the weekday of day 4 before 1970-01-01).
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// ` (Thursday)` for a path whose last date is a Thursday; empty for a
/// path without a valid date.
pub(crate) fn weekday_note(path: &str) -> String {
    weekday(path).map_or_else(String::new, |day| format!(" ({day})"))
}

/// `path` with its weekday note.
pub(crate) fn with_weekday(path: &str) -> String {
    format!("{path}{}", weekday_note(path))
}

/// `given` without a weekday note after it that matches its date (as
/// [`with_weekday`] wrote it); `given` as it is otherwise.
pub(crate) fn without_weekday(given: &str) -> &str {
    let trimmed = given.trim_end();
    let Some(open) = trimmed.rfind(" (") else {
        return given;
    };
    let (path, note) = trimmed.split_at(open);
    let day = note.trim_start_matches(" (").trim_end_matches(')');
    if note.ends_with(')') && weekday(path).is_some_and(|d| d.eq_ignore_ascii_case(day)) {
        path
    } else {
        given
    }
}

/// The weekday of the last date in `path`: four digits of a year, two of
/// a month and two of a day, joined by `-`, `_` or `.` (the same one
/// twice), not inside a longer run of digits.
fn weekday(path: &str) -> Option<&'static str> {
    let bytes = path.as_bytes();
    (0..bytes.len().saturating_sub(9))
        .rev()
        .find_map(|start| date_at(bytes, start))
        .map(|(year, month, day)| {
            let days = days_since_epoch(year, month, day);
            // 1970-01-01 was a Thursday.
            let index = usize::try_from((days + 4).rem_euclid(7)).unwrap_or(0);
            WEEKDAYS[index]
        })
}

/// The date written at `start` of `bytes`, if one is.
fn date_at(bytes: &[u8], start: usize) -> Option<(i64, u32, u32)> {
    let text = bytes.get(start..start + 10)?;
    let digit = |i: usize| text[i].is_ascii_digit();
    let separator = text[4];
    let shaped = (0..4).all(digit)
        && matches!(separator, b'-' | b'_' | b'.')
        && digit(5)
        && digit(6)
        && text[7] == separator
        && digit(8)
        && digit(9);
    let alone = (start == 0 || !bytes[start - 1].is_ascii_digit())
        && bytes.get(start + 10).is_none_or(|b| !b.is_ascii_digit());
    if !shaped || !alone {
        return None;
    }
    let number = |range: std::ops::Range<usize>| {
        text[range]
            .iter()
            .fold(0u32, |n, b| n * 10 + u32::from(b - b'0'))
    };
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let valid = (1900..=2199).contains(&year)
        && (1..=12).contains(&month)
        && day >= 1
        && day <= days_in_month(year, month);
    valid.then_some((i64::from(year), month, day))
}

/// Days in `month` of `year` (Gregorian).
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a Gregorian date (negative before it).
fn days_since_epoch(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = i64::from((month + 9) % 12);
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dated_path_is_shown_with_its_weekday() {
        assert_eq!(
            with_weekday("notes/standups/2024-03-14.md"),
            "notes/standups/2024-03-14.md (Thursday)"
        );
        assert_eq!(weekday_note("logs/2024_05_02/app.log"), " (Thursday)");
        assert_eq!(weekday_note("1970.01.01.txt"), " (Thursday)");
        assert_eq!(weekday_note("2000-02-29-leap.md"), " (Tuesday)");
        assert_eq!(weekday_note("reports/2025-06-01.csv"), " (Sunday)");
        // The last date counts.
        assert_eq!(weekday_note("2024-01-01/2024-03-15.md"), " (Friday)");
    }

    #[test]
    fn what_is_no_date_gets_no_weekday() {
        for path in [
            "notes/2024-02-30.md",
            "notes/2023-02-29.md",
            "v1.2.3/readme.md",
            "build-12024-03-14.log",
            "2024-03-140.md",
            "2024-03_14.md",
            "ids/0042-12-01.md",
            "README.md",
            "",
        ] {
            assert_eq!(weekday_note(path), "", "{path}");
        }
    }

    #[test]
    fn a_path_passed_back_with_its_weekday_resolves_without_it() {
        assert_eq!(
            without_weekday("notes/2024-03-14.md (Thursday)"),
            "notes/2024-03-14.md"
        );
        assert_eq!(
            without_weekday("notes/2024-03-14.md (thursday) "),
            "notes/2024-03-14.md"
        );
        // Another day, or a name that only looks like it, stays whole.
        assert_eq!(
            without_weekday("notes/2024-03-14.md (Friday)"),
            "notes/2024-03-14.md (Friday)"
        );
        assert_eq!(without_weekday("notes (draft).md"), "notes (draft).md");
    }
}
