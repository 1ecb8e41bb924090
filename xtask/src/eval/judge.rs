//! The judge: is an answer right? Both the answer and each accepted answer
//! are normalized (a decimal comma, one or two digits after a comma,
//! read as a point; lower case, thousands separators between digits
//! removed, whitespace collapsed); an accepted number must appear as a
//! whole number (not inside a longer one; trailing decimal zeros are the
//! same number, so `6326.60` is `6326.6`), other text as a substring. A
//! refusal task is right when the answer says the tools cannot answer and
//! names none of its forbidden values.

use super::tasks::Task;

/// Phrases that say the tools cannot answer.
const REFUSALS: [&str; 28] = [
    "cannot",
    "can't",
    "can not",
    "unable",
    "not able",
    "don't know",
    "do not know",
    "no information",
    "not available",
    "not found",
    "no data",
    "does not contain",
    "doesn't contain",
    "do not contain",
    "don't contain",
    "could not find",
    "couldn't find",
    "not provided",
    "not mentioned",
    "no mention",
    "no such",
    "not in the",
    "does not exist",
    "do not exist",
    "does not cover",
    "doesn't cover",
    "not covered",
    "no entry",
];

/// The same, in the other languages a task may be asked in (an agent may
/// answer in the question's language).
const REFUSALS_IN_OTHER_LANGUAGES: &[&str] = &[
    // Spanish
    "no puedo",
    "no encontr",
    "no hay información",
    "no se encuentra",
    "no contiene",
    "no hay datos",
    "no existe",
    // Portuguese
    "não consigo",
    "não posso",
    "não encontr",
    "não há informação",
    "não contém",
    "não há dados",
    "não existe",
    // French
    "ne peux pas",
    "impossible de",
    "pas trouvé",
    "aucune information",
    "ne contient pas",
    "aucune donnée",
    "n'existe pas",
    // Italian
    "non posso",
    "non riesco",
    "non ho trovato",
    "nessuna informazione",
    "non contiene",
    "non ci sono dati",
    "non esiste",
    // German
    "kann nicht",
    "nicht gefunden",
    "nicht finden",
    "keine information",
    "enthält keine",
    "keine daten",
    "keine angaben",
    "gibt es keine",
    "nicht vorhanden",
    // Dutch
    "kan niet",
    "niet gevonden",
    "geen gegevens",
    "geen informatie",
    // Russian
    "не могу",
    "не удалось",
    "нет информации",
    "не найден",
    "нет данных",
    // Ukrainian
    "не можу",
    "немає даних",
    "немає інформації",
    "не знайдено",
    // Polish, Turkish
    "nie mogę",
    "nie znalaz",
    "bulamad",
    "bulunamad",
    // Chinese, Japanese
    "无法",
    "找不到",
    "没有找到",
    "未找到",
    "見つかりません",
    "できません",
    "わかりません",
    // Korean
    "찾을 수 없",
    "알 수 없",
    "정보가 없",
];

/// Decimal commas as points (see [`with_decimal_points`]), lower case,
/// digit-group separators removed, whitespace collapsed.
pub(crate) fn normalize(text: &str) -> String {
    let chars: Vec<char> = with_decimal_points(text).to_lowercase().chars().collect();
    let mut out = String::with_capacity(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        let between_digits = i > 0
            && i + 1 < chars.len()
            && chars[i - 1].is_ascii_digit()
            && chars[i + 1].is_ascii_digit();
        let separator = matches!(
            c,
            ',' | '_' | '\'' | ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}'
        );
        if between_digits && separator {
            continue;
        }
        let c = if c.is_whitespace() { ' ' } else { c };
        if c == ' ' && out.ends_with(' ') {
            continue;
        }
        out.push(c);
    }
    out.trim().to_string()
}

/// `text` with each decimal comma written as a point: a comma between
/// digits followed by one or two digits and no more (`449,70`, `12,5`),
/// which groups no thousands in any language.
fn with_decimal_points(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let digits_after = chars[i + 1..]
            .iter()
            .take_while(|d| d.is_ascii_digit())
            .count();
        let digits_before = chars[..i]
            .iter()
            .rev()
            .take_while(|d| d.is_ascii_digit())
            .count();
        // Not in a list (`1,2,3`): no comma joins the number to another
        // digit on either side; a comma before a space is the sentence's.
        let after = i + 1 + digits_after;
        let listed_after = chars.get(after) == Some(&',')
            && chars.get(after + 1).is_some_and(char::is_ascii_digit);
        let decimal = c == ','
            && digits_before > 0
            && (1..=2).contains(&digits_after)
            && !listed_after
            && (i == digits_before || chars[i - digits_before - 1] != ',');
        out.push(if decimal { '.' } else { c });
    }
    out
}

fn is_number(text: &str) -> bool {
    !text.is_empty()
        && text.chars().any(|c| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
}

/// `needle` in `haystack`; a number only as a whole number.
fn contains(haystack: &str, needle: &str) -> bool {
    if !is_number(needle) {
        return haystack.contains(needle);
    }
    let bytes = haystack.as_bytes();
    let mut from = 0;
    while let Some(at) = haystack[from..].find(needle) {
        let start = from + at;
        let end = start + needle.len();
        let digit_before = start > 0 && bytes[start - 1].is_ascii_digit();
        // Trailing decimal zeros keep the value: `6326.60`, `137.0`.
        let mut end = end;
        if needle.contains('.') {
            while bytes.get(end) == Some(&b'0') {
                end += 1;
            }
        } else if bytes.get(end) == Some(&b'.') && bytes.get(end + 1) == Some(&b'0') {
            let mut zeros = end + 1;
            while bytes.get(zeros) == Some(&b'0') {
                zeros += 1;
            }
            if !bytes.get(zeros).is_some_and(u8::is_ascii_digit) {
                end = zeros;
            }
        }
        // A decimal point followed by a digit continues the number.
        let continues = bytes.get(end).is_some_and(|b| b.is_ascii_digit())
            || (bytes.get(end) == Some(&b'.')
                && bytes.get(end + 1).is_some_and(u8::is_ascii_digit));
        if !digit_before && !continues {
            return true;
        }
        from = start + 1;
    }
    false
}

/// Whether `answer` is right for `task`.
pub(crate) fn is_right(task: &Task, answer: Option<&str>) -> bool {
    let Some(answer) = answer else {
        return false;
    };
    let answer = normalize(answer);
    if task.refusal {
        let refuses = REFUSALS
            .iter()
            .chain(REFUSALS_IN_OTHER_LANGUAGES)
            .any(|p| answer.contains(p));
        let invents = task
            .forbidden
            .iter()
            .any(|f| contains(&answer, &normalize(f)));
        return refuses && !invents;
    }
    task.answers
        .iter()
        .any(|accepted| contains(&answer, &normalize(accepted)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(answers: &[&str], refusal: bool, forbidden: &[&str]) -> Task {
        Task {
            id: "t".into(),
            split: "tune".into(),
            category: "c".into(),
            task: String::new(),
            tools: Vec::new(),
            files: Default::default(),
            answers: answers.iter().map(|s| s.to_string()).collect(),
            refusal,
            forbidden: forbidden.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn numbers_match_whole_and_with_separators() {
        let t = task(&["65900000"], false, &[]);
        assert!(is_right(&t, Some("About 65,900,000 more people.")));
        assert!(is_right(&t, Some("65 900 000")));
        assert!(!is_right(&t, Some("165900000")));
        assert!(!is_right(&t, Some("65900000.5")));
        let t = task(&["330"], false, &[]);
        assert!(is_right(&t, Some("It is 330 metres tall.")));
        assert!(!is_right(&t, Some("3300 m")));
        assert!(is_right(&t, Some("330.")));
        // Trailing decimal zeros are the same number.
        assert!(is_right(&t, Some("330.0 m")));
        assert!(!is_right(&t, Some("330.05 m")));
        let t = task(&["6326.6"], false, &[]);
        assert!(is_right(&t, Some("The total is $6,326.60.")));
        assert!(!is_right(&t, Some("6326.61")));
        assert!(!is_right(&t, Some("6326.605")));
    }

    #[test]
    fn decimals_written_with_a_comma_match_their_number() {
        let t = task(&["449.7", "449,7"], false, &[]);
        assert!(is_right(&t, Some("449,70 R$")));
        assert!(is_right(&t, Some("Custa 449,7 reais.")));
        assert!(!is_right(&t, Some("449,75 R$")));
        assert!(!is_right(&t, Some("4497")));
        let t = task(&["12.5"], false, &[]);
        assert!(is_right(&t, Some("La moyenne est 12,5.")));
        // Thousands groups stay thousands.
        let t = task(&["1250"], false, &[]);
        assert!(is_right(&t, Some("1,250")));
        assert!(!is_right(&t, Some("12,50")));
        // A list keeps its commas; a refusal's forbidden value is read so too.
        let t = task(&["1.23"], false, &[]);
        assert!(!is_right(&t, Some("1,2,3")));
        // A sentence's comma after the number is no list.
        let t = task(&["12.5"], false, &[]);
        assert!(is_right(&t, Some("Son 12,50, más o menos.")));
        let refusal = task(&[], true, &["12.5"]);
        assert!(!is_right(&refusal, Some("I cannot say; maybe 12,5.")));
    }

    #[test]
    fn text_and_refusals() {
        assert!(is_right(
            &task(&["paris"], false, &[]),
            Some("The capital is Paris.")
        ));
        let refusal = task(&[], true, &["47"]);
        assert!(is_right(
            &refusal,
            Some("I cannot answer this with the tools I have.")
        ));
        assert!(is_right(
            &refusal,
            Some("The encyclopedia does not cover Spain.")
        ));
        assert!(is_right(
            &refusal,
            Some("The notes do not contain her phone number.")
        ));
        assert!(is_right(
            &refusal,
            Some("The salary is not provided in the file.")
        ));
        assert!(is_right(
            &refusal,
            Some("No encontré esa información en los archivos.")
        ));
        assert!(is_right(&refusal, Some("Das kann ich nicht finden.")));
        assert!(is_right(&refusal, Some("资料中找不到这个信息。")));
        assert!(is_right(
            &refusal,
            Some("Für Juni 2024 gibt es keine Daten.")
        ));
        assert!(is_right(
            &refusal,
            Some("Deze gegevens zijn niet gevonden.")
        ));
        assert!(!is_right(&refusal, Some("Es sind 47.")));
        assert!(!is_right(&refusal, Some("It is 47.")));
        assert!(!is_right(&refusal, Some("I cannot say, maybe 47.")));
        assert!(!is_right(&refusal, None));
    }
}
