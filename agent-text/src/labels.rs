//! Where the ReAct labels are in a model's text. A label is recognised in
//! two places:
//!
//! - **At the start of a line**, leniently: any case, indentation, markdown
//!   bold or headings, a list dash, step numbers (`Action 2:`), `_` for a
//!   space, and an ASCII or full-width colon (`:` / `：`). `Observation`
//!   with no colon counts too. So do the labels as a model translates them
//!   when it writes in the question's language ([`TRANSLATED`]: French,
//!   German, Spanish, Italian, Portuguese, Russian, Chinese, Japanese,
//!   Korean, Dutch, Polish, Turkish, Vietnamese, Indonesian, Arabic, Hindi,
//!   Ukrainian, Swedish, Danish, Norwegian, Czech, Greek, Hebrew, Persian,
//!   Thai, Romanian, Hungarian, Finnish), such as `Réponse finale :` or `最终答案：`.
//! - **In the middle of a line**, strictly: `Thought:`, `Action:`,
//!   `Action Input:`, `Final Answer:` or `Observation:` written in title or
//!   upper case, even glued to the word before (`…search.Action: search`,
//!   `answerFinal Answer: 42`). This reads outputs that put a whole step on
//!   one line. A bare `Answer:` counts mid-line only right after a
//!   sentence ends (`…the user. Answer: Hello`). Inside a code fence, only
//!   line-start labels count.
//!
//! The [`Scanner`] walks the text forward once, so finding every label is
//! linear in the length of the text. All offsets are byte offsets found by
//! searching the text, so they always fall on character boundaries.

/// A ReAct label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Label {
    Thought,
    Action,
    ActionInput,
    Observation,
    FinalAnswer,
}

/// A label found in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) label: Label,
    /// The first byte of the label (its line's start for a line label).
    pub(crate) start: usize,
    /// The first byte of its value (after the colon and any markup).
    pub(crate) value: usize,
    /// Whether only whitespace or markup comes before it on its line.
    pub(crate) at_line_start: bool,
}

/// What the scanner reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// A label.
    Label(Found),
    /// A line (starting at this byte) that opens with `{` or a code fence:
    /// maybe a JSON action blob. Only reported in [`Mode::Free`].
    Blob(usize),
}

/// Which labels a scan looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Labels anywhere, and JSON blob candidates at line starts.
    Free,
    /// Labels anywhere.
    Value,
    /// Labels at line starts only (a final answer may say `Action:` in prose).
    LineStart,
}

/// Longest label prefix examined at a line start, in bytes.
const LABEL_WINDOW: usize = 48;

/// How far before a colon a mid-line label may start, in bytes.
const STRICT_WINDOW: usize = 24;

/// Mid-line labels, longest first where one ends another.
const STRICT: [(&str, Label); 10] = [
    ("Action Input", Label::ActionInput),
    ("ACTION INPUT", Label::ActionInput),
    ("Final Answer", Label::FinalAnswer),
    ("FINAL ANSWER", Label::FinalAnswer),
    ("Observation", Label::Observation),
    ("OBSERVATION", Label::Observation),
    ("Thought", Label::Thought),
    ("THOUGHT", Label::Thought),
    ("Action", Label::Action),
    ("ACTION", Label::Action),
];

/// Mid-line labels only right after the end of a sentence: on their own
/// they are too common a word (`The Answer: …`).
const AFTER_SENTENCE: [&str; 2] = ["Answer", "ANSWER"];

/// The largest char boundary of `s` at or below `i`.
pub(crate) fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The byte length of a colon (ASCII or full-width) starting at `i`, if any.
pub(crate) fn colon_at(bytes: &[u8], i: usize) -> Option<usize> {
    match bytes.get(i)? {
        b':' => Some(1),
        0xEF if bytes.get(i + 1) == Some(&0xBC) && bytes.get(i + 2) == Some(&0x9A) => Some(3),
        _ => None,
    }
}

/// The first colon (ASCII or full-width) in `s`: its offset and length.
fn find_colon(s: &str) -> Option<(usize, usize)> {
    let bytes = s.as_bytes();
    (0..bytes.len()).find_map(|i| colon_at(bytes, i).map(|len| (i, len)))
}

/// Recognises a label at the start of `line` (lenient). Returns the label
/// and the byte offset of its value within `line`.
pub(crate) fn line_label(line: &str) -> Option<(Label, usize)> {
    let start = line.len() - line.trim_start().len();
    let mut rest = &line[start..];
    for prefix in ["**", "*", "#", "- ", "> "] {
        if let Some(r) = rest.strip_prefix(prefix) {
            rest = r.trim_start_matches('#').trim_start();
            break;
        }
    }
    let offset = line.len() - rest.len();
    let window = &rest[..floor_boundary(rest, LABEL_WINDOW)];
    // `[THOUGHT]`, `[ACTION]`, `[FINAL ANSWER]` (Semantic Kernel's
    // stepwise planner), a colon after them optional.
    if let Some((inner, after)) = window
        .strip_prefix('[')
        .and_then(|inner| inner.split_once(']'))
        && let Some(label) = label_word(inner)
    {
        let after = after.trim_start_matches(' ');
        let value = after.strip_prefix([':', '：']).unwrap_or(after);
        return Some((label, offset + (window.len() - value.len())));
    }
    if let Some((colon, colon_len)) = find_colon(window)
        && let Some(label) = label_word(&window[..colon])
    {
        let after = rest[colon + colon_len..].trim_start_matches('*');
        return Some((label, offset + (rest.len() - after.len())));
    }
    if let Some((label, value)) = label_without_colon(window) {
        return Some((label, offset + value));
    }
    // `Observation` without a colon still ends a step.
    let head = &rest[..floor_boundary(rest, LABEL_WINDOW)];
    let word_len = head
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(head.len());
    if head[..word_len].eq_ignore_ascii_case("observation") {
        let after = &rest[word_len..];
        if after.trim().is_empty() || after.starts_with(' ') {
            return Some((Label::Observation, line.len()));
        }
    }
    None
}

/// Words some models and frameworks put in place of `Action Input`
/// (`Arguments:`, `Parameters:`): read as the input only on the line right
/// after an `Action:` line, where nothing else could be meant, so a final
/// answer that documents a function's parameters keeps them.
const INPUT_WORDS: [&str; 8] = [
    "arguments",
    "args",
    "parameters",
    "params",
    "tool arguments",
    "tool parameters",
    "function arguments",
    "action arguments",
];

/// Where the value starts when the next non-blank line after the one
/// `from` is on opens with one of [`INPUT_WORDS`] and a colon (`from` is
/// the end of an `Action:` line's name; the rest of that line must be
/// blank).
pub(crate) fn input_words_after(text: &str, from: usize) -> Option<usize> {
    let rest = text.get(from..)?;
    let newline = rest.find('\n')?;
    if !rest[..newline].trim().is_empty() {
        return None;
    }
    let after = &rest[newline + 1..];
    // Blank lines between are skipped.
    let blank = after.len() - after.trim_start().len();
    let line_start = from + newline + 1 + after[..blank].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[line_start..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let (label, value) = line_label_with(line, |head| {
        let head = head.trim().to_ascii_lowercase().replace('_', " ");
        INPUT_WORDS.contains(&head.as_str())
    })?;
    label.then_some(line_start + value)
}

/// `line`'s head before its first colon, past markdown, checked by
/// `is_label`; the verdict and the offset of the value.
fn line_label_with(line: &str, is_label: impl Fn(&str) -> bool) -> Option<(bool, usize)> {
    let start = line.len() - line.trim_start().len();
    let rest = line[start..].trim_start_matches(['*', '-', ' ']);
    let offset = line.len() - rest.len();
    let window = &rest[..floor_boundary(rest, LABEL_WINDOW)];
    let (colon, colon_len) = find_colon(window)?;
    let head = window[..colon].trim_end_matches('*');
    let after = rest[colon + colon_len..].trim_start_matches('*');
    Some((is_label(head), offset + (rest.len() - after.len())))
}

/// Dashes models put after a label in place of a colon.
const LABEL_DASHES: [&str; 3] = [" - ", " – ", " — "];

/// A label without a colon at the start of `window` (a line's start, past
/// its markdown): alone on its line, as a heading or in bold, with its
/// value on the lines below (`### Final Answer`), or followed by a dash
/// (`Final Answer - <answer>`). Returns the label and the offset of its
/// value. `Observation` is left to the caller.
fn label_without_colon(window: &str) -> Option<(Label, usize)> {
    let line_len = window.find(['\n', '\r']).unwrap_or(window.len());
    let line = &window[..line_len];
    if let Some(label) = dspy_field(line) {
        return Some((label, line_len));
    }
    let name = line.trim_end().trim_end_matches(['*', '#', ' ']);
    if let Some(label) = label_word(name).filter(|l| *l != Label::Observation) {
        return Some((label, line_len));
    }
    LABEL_DASHES.iter().find_map(|dash| {
        let at = line.find(dash)?;
        let label = label_word(&line[..at]).filter(|l| *l != Label::Observation)?;
        Some((label, at + dash.len()))
    })
}

/// The step a DSPy field header stands for (`[[ ## next_tool_name ## ]]`,
/// alone on its line, as DSPy's chat adapter asks models to write them).
fn dspy_field(line: &str) -> Option<Label> {
    let field = line
        .trim()
        .strip_prefix("[[")?
        .strip_suffix("]]")?
        .trim()
        .trim_matches('#')
        .trim();
    match field {
        "next_thought" | "reasoning" => Some(Label::Thought),
        "next_tool_name" => Some(Label::Action),
        "next_tool_args" => Some(Label::ActionInput),
        "answer" => Some(Label::FinalAnswer),
        _ => None,
    }
}

/// Labels as models translate them, lower-cased, words split by one
/// space. Only read at a line start, before a colon.
const TRANSLATED: &[(&str, Label)] = &[
    // Thought
    ("pensée", Label::Thought),
    ("réflexion", Label::Thought),
    ("gedanke", Label::Thought),
    ("gedanken", Label::Thought),
    ("pensamiento", Label::Thought),
    ("pensiero", Label::Thought),
    ("pensamento", Label::Thought),
    ("мысль", Label::Thought),
    ("мысли", Label::Thought),
    ("思考", Label::Thought),
    ("想法", Label::Thought),
    ("考え", Label::Thought),
    ("생각", Label::Thought),
    // Action
    ("aktion", Label::Action),
    ("acción", Label::Action),
    ("accion", Label::Action),
    ("azione", Label::Action),
    ("ação", Label::Action),
    ("действие", Label::Action),
    ("行动", Label::Action),
    ("行動", Label::Action),
    ("动作", Label::Action),
    ("アクション", Label::Action),
    ("행동", Label::Action),
    // Action Input
    ("entrée de l'action", Label::ActionInput),
    ("aktionseingabe", Label::ActionInput),
    ("eingabe", Label::ActionInput),
    ("entrada de acción", Label::ActionInput),
    ("entrada de la acción", Label::ActionInput),
    ("input dell'azione", Label::ActionInput),
    ("entrada da ação", Label::ActionInput),
    ("ввод действия", Label::ActionInput),
    ("行动输入", Label::ActionInput),
    ("行動輸入", Label::ActionInput),
    ("アクション入力", Label::ActionInput),
    ("행동 입력", Label::ActionInput),
    // Observation
    ("beobachtung", Label::Observation),
    ("observación", Label::Observation),
    ("osservazione", Label::Observation),
    ("observação", Label::Observation),
    ("наблюдение", Label::Observation),
    ("观察", Label::Observation),
    ("観察", Label::Observation),
    ("관찰", Label::Observation),
    // Final Answer
    ("réponse finale", Label::FinalAnswer),
    ("réponse", Label::FinalAnswer),
    ("endgültige antwort", Label::FinalAnswer),
    ("finale antwort", Label::FinalAnswer),
    // More spellings seen from models writing in these languages
    ("观察结果", Label::Observation),
    ("觀察結果", Label::Observation),
    ("観察結果", Label::Observation),
    ("観測", Label::Observation),
    ("관찰 결과", Label::Observation),
    ("动作参数", Label::ActionInput),
    ("工具参数", Label::ActionInput),
    ("アクションの入力", Label::ActionInput),
    ("entrée d'action", Label::ActionInput),
    ("aktions-eingabe", Label::ActionInput),
    ("входные данные", Label::ActionInput),
    ("entrada de ação", Label::ActionInput),
    ("input azione", Label::ActionInput),
    ("工具名称", Label::Action),
    ("最终答复", Label::FinalAnswer),
    ("答案", Label::FinalAnswer),
    ("最終的な回答", Label::FinalAnswer),
    ("최종 답", Label::FinalAnswer),
    ("финальный ответ", Label::FinalAnswer),
    ("antwort", Label::FinalAnswer),
    ("respuesta final", Label::FinalAnswer),
    ("respuesta", Label::FinalAnswer),
    ("risposta finale", Label::FinalAnswer),
    ("risposta", Label::FinalAnswer),
    ("resposta final", Label::FinalAnswer),
    ("resposta", Label::FinalAnswer),
    ("окончательный ответ", Label::FinalAnswer),
    ("итоговый ответ", Label::FinalAnswer),
    ("ответ", Label::FinalAnswer),
    ("最终答案", Label::FinalAnswer),
    ("最終答案", Label::FinalAnswer),
    ("最终回答", Label::FinalAnswer),
    ("最終回答", Label::FinalAnswer),
    ("最終的な答え", Label::FinalAnswer),
    ("최종 답변", Label::FinalAnswer),
    ("답변", Label::FinalAnswer),
    ("정답", Label::FinalAnswer),
    ("回答", Label::FinalAnswer),
    ("答复", Label::FinalAnswer),
    ("答え", Label::FinalAnswer),
    // Dutch, Polish, Turkish, Vietnamese, Indonesian, Arabic, Hindi, Ukrainian
    ("gedachte", Label::Thought),
    ("myśl", Label::Thought),
    ("düşünce", Label::Thought),
    ("suy nghĩ", Label::Thought),
    ("pikiran", Label::Thought),
    ("تفكير", Label::Thought),
    ("الفكرة", Label::Thought),
    ("विचार", Label::Thought),
    ("думка", Label::Thought),
    ("actie", Label::Action),
    ("akcja", Label::Action),
    ("działanie", Label::Action),
    ("eylem", Label::Action),
    ("hành động", Label::Action),
    ("tindakan", Label::Action),
    ("aksi", Label::Action),
    ("إجراء", Label::Action),
    ("الإجراء", Label::Action),
    ("क्रिया", Label::Action),
    ("дія", Label::Action),
    ("actie-invoer", Label::ActionInput),
    ("actie invoer", Label::ActionInput),
    ("dane wejściowe akcji", Label::ActionInput),
    ("eylem girdisi", Label::ActionInput),
    ("đầu vào hành động", Label::ActionInput),
    ("input tindakan", Label::ActionInput),
    ("مدخلات الإجراء", Label::ActionInput),
    ("क्रिया इनपुट", Label::ActionInput),
    ("вхідні дані дії", Label::ActionInput),
    ("observatie", Label::Observation),
    ("obserwacja", Label::Observation),
    ("gözlem", Label::Observation),
    ("quan sát", Label::Observation),
    ("observasi", Label::Observation),
    ("pengamatan", Label::Observation),
    ("ملاحظة", Label::Observation),
    ("الملاحظة", Label::Observation),
    ("अवलोकन", Label::Observation),
    ("спостереження", Label::Observation),
    ("definitief antwoord", Label::FinalAnswer),
    ("eindantwoord", Label::FinalAnswer),
    ("antwoord", Label::FinalAnswer),
    ("ostateczna odpowiedź", Label::FinalAnswer),
    ("odpowiedź", Label::FinalAnswer),
    ("nihai cevap", Label::FinalAnswer),
    ("son cevap", Label::FinalAnswer),
    ("cevap", Label::FinalAnswer),
    ("nihai yanıt", Label::FinalAnswer),
    ("yanıt", Label::FinalAnswer),
    ("câu trả lời cuối cùng", Label::FinalAnswer),
    ("câu trả lời", Label::FinalAnswer),
    ("trả lời cuối cùng", Label::FinalAnswer),
    ("trả lời", Label::FinalAnswer),
    ("đáp án", Label::FinalAnswer),
    ("jawaban akhir", Label::FinalAnswer),
    ("jawaban", Label::FinalAnswer),
    ("الإجابة النهائية", Label::FinalAnswer),
    ("الإجابة", Label::FinalAnswer),
    ("الجواب", Label::FinalAnswer),
    ("अंतिम उत्तर", Label::FinalAnswer),
    ("उत्तर", Label::FinalAnswer),
    ("остаточна відповідь", Label::FinalAnswer),
    ("відповідь", Label::FinalAnswer),
    // Chinese, Japanese, Korean and Russian words for a tool and its
    // input (`工具：` / `工具输入：`, as `Tool:` / `Tool Input:`)
    ("动作输入", Label::ActionInput),
    ("工具", Label::Action),
    ("工具输入", Label::ActionInput),
    ("操作", Label::Action),
    ("操作输入", Label::ActionInput),
    ("输入", Label::ActionInput),
    ("调用工具", Label::Action),
    ("行動入力", Label::ActionInput),
    ("ツール", Label::Action),
    ("ツール入力", Label::ActionInput),
    ("도구", Label::Action),
    ("도구 입력", Label::ActionInput),
    ("입력", Label::ActionInput),
    ("инструмент", Label::Action),
    ("ввод", Label::ActionInput),
    ("входные данные действия", Label::ActionInput),
    // Swedish, Danish, Norwegian, Czech, Greek, Hebrew, Persian, Thai,
    // Romanian, Hungarian, Finnish (not the Scandinavian `handling`,
    // an English word at a line start too)
    ("tanke", Label::Thought),
    ("myšlenka", Label::Thought),
    ("σκέψη", Label::Thought),
    ("מחשבה", Label::Thought),
    ("فکر", Label::Thought),
    ("اندیشه", Label::Thought),
    ("ความคิด", Label::Thought),
    ("gând", Label::Thought),
    ("gândire", Label::Thought),
    ("gondolat", Label::Thought),
    ("ajatus", Label::Thought),
    ("akce", Label::Action),
    ("ενέργεια", Label::Action),
    ("פעולה", Label::Action),
    ("اقدام", Label::Action),
    ("การกระทำ", Label::Action),
    ("การดำเนินการ", Label::Action),
    ("acțiune", Label::Action),
    ("művelet", Label::Action),
    ("toiminto", Label::Action),
    ("vstup akce", Label::ActionInput),
    ("είσοδος ενέργειας", Label::ActionInput),
    ("קלט פעולה", Label::ActionInput),
    ("ورودی اقدام", Label::ActionInput),
    ("intrare acțiune", Label::ActionInput),
    ("művelet bemenete", Label::ActionInput),
    ("toiminnon syöte", Label::ActionInput),
    ("pozorování", Label::Observation),
    ("παρατήρηση", Label::Observation),
    ("תצפית", Label::Observation),
    ("مشاهده", Label::Observation),
    ("การสังเกต", Label::Observation),
    ("observație", Label::Observation),
    ("megfigyelés", Label::Observation),
    ("havainto", Label::Observation),
    ("slutligt svar", Label::FinalAnswer),
    ("slutgiltigt svar", Label::FinalAnswer),
    ("endeligt svar", Label::FinalAnswer),
    ("endelig svar", Label::FinalAnswer),
    ("svar", Label::FinalAnswer),
    ("konečná odpověď", Label::FinalAnswer),
    ("odpověď", Label::FinalAnswer),
    ("τελική απάντηση", Label::FinalAnswer),
    ("απάντηση", Label::FinalAnswer),
    ("תשובה סופית", Label::FinalAnswer),
    ("תשובה", Label::FinalAnswer),
    ("پاسخ نهایی", Label::FinalAnswer),
    ("پاسخ", Label::FinalAnswer),
    ("คำตอบสุดท้าย", Label::FinalAnswer),
    ("คำตอบ", Label::FinalAnswer),
    ("răspuns final", Label::FinalAnswer),
    ("răspuns", Label::FinalAnswer),
    ("végső válasz", Label::FinalAnswer),
    ("válasz", Label::FinalAnswer),
    ("lopullinen vastaus", Label::FinalAnswer),
    ("vastaus", Label::FinalAnswer),
];

/// The label named by the text before a colon at a line start.
fn label_word(head: &str) -> Option<Label> {
    let head: String = if head.is_ascii() {
        // Most heads: without Unicode case tables.
        let mut lower = head.to_ascii_lowercase();
        if lower.contains(['*', '_']) {
            lower = lower.replace('*', "").replace('_', " ");
        }
        lower
    } else {
        head.chars()
            .filter(|c| *c != '*')
            .flat_map(|c| match c {
                '_' => ' '.to_lowercase(),
                // `Entrée de l’action`: a typographic apostrophe.
                '’' => '\''.to_lowercase(),
                c => c.to_lowercase(),
            })
            .collect()
    };
    let head = head
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim();
    let head = head
        .strip_prefix("step ")
        .map(|h| h.trim_start_matches(|c: char| c.is_ascii_digit()).trim())
        .unwrap_or(head);
    let words: Vec<&str> = head.split_whitespace().collect();
    match words.as_slice() {
        ["thought"] | ["thoughts"] | ["thinking"] => Some(Label::Thought),
        // Qwen-Agent's markers: `✿FUNCTION✿:`, `✿ARGS✿:`, `✿RESULT✿:`,
        // `✿RETURN✿:`.
        ["action"] | ["tool"] | ["✿function✿"] => Some(Label::Action),
        ["action", "input"]
        | ["actioninput"]
        | ["action", "inputs"]
        | ["input"]
        | ["tool", "input"]
        | ["✿args✿"] => Some(Label::ActionInput),
        ["observation"]
        | ["observations"]
        | ["✿result✿"]
        | ["tool", "output"]
        | ["tool", "result"]
        | ["function", "output"] => Some(Label::Observation),
        // The next turn a model writes on its own (`Question:` of the
        // ReAct prompt, `Human:` of a chat transcript) ends the step as a
        // hallucinated observation does.
        ["question"] | ["new", "question"] | ["human"] => Some(Label::Observation),
        ["final", "answer"]
        | ["final", "response"]
        | ["final", "output"]
        | ["finalanswer"]
        | ["answer"]
        | ["✿return✿"]
        // LangChain's conversational agent answers after its AI prefix.
        | ["ai"]
        | ["the", "final", "answer", "is"]
        | ["so", "the", "final", "answer", "is"] => Some(Label::FinalAnswer),
        _ => {
            let head = words.join(" ");
            TRANSLATED
                .iter()
                .find_map(|(word, label)| (*word == head).then_some(*label))
        }
    }
}

/// A strict label ending just before the colon at `colon`, starting no
/// earlier than `floor`. Returns the label and where it starts.
pub(crate) fn strict_label_before(
    text: &str,
    colon: usize,
    floor: usize,
) -> Option<(Label, usize)> {
    let from = floor_boundary(text, colon.saturating_sub(STRICT_WINDOW)).max(floor);
    if from > colon {
        return None;
    }
    let before = text[from..colon].trim_end_matches([' ', '*']);
    // A step number: `Action 2:`.
    let before = before
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim_end();
    STRICT
        .iter()
        .find_map(|(word, label)| {
            before
                .ends_with(word)
                .then(|| (*label, from + before.len() - word.len()))
        })
        .or_else(|| {
            // A bare `Answer:` right after a sentence ends.
            let word = AFTER_SENTENCE
                .iter()
                .find(|word| before.ends_with(**word))?;
            let start = before.len() - word.len();
            let sentence_ended = before[..start]
                .trim_end()
                .ends_with(['.', '!', '?', '。', '！', '？']);
            sentence_ended.then_some((Label::FinalAnswer, from + start))
        })
}

/// `true` for a line that opens or closes a code fence.
fn is_fence(line: &str) -> bool {
    line.trim_start().starts_with("```")
}

/// `true` for a fence line that also closes on the same line (```` ```json{…}``` ````).
fn fence_closes_itself(line: &str) -> bool {
    let rest = line.trim_start();
    rest.len() > 3 && rest[3..].contains("```")
}

/// Walks a text forward, reporting labels (and blob candidates).
#[derive(Debug)]
pub(crate) struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    in_fence: bool,
    /// A blob candidate already reported at this line start.
    blob_done: Option<usize>,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            text,
            pos: 0,
            in_fence: false,
            blob_done: None,
        }
    }

    /// Moves forward to `pos` (never back). Jumping over a value leaves any
    /// code fence it held.
    pub(crate) fn seek(&mut self, pos: usize) {
        if pos > self.pos {
            self.pos = floor_boundary(self.text, pos);
            self.in_fence = false;
        }
    }

    /// The next event at or after the current position, in `mode`. The
    /// position moves just past what was reported. Each byte is looked at
    /// a bounded number of times, however often this is called.
    pub(crate) fn next(&mut self, mode: Mode) -> Option<Event> {
        let text = self.text;
        let bytes = text.as_bytes();
        while self.pos < bytes.len() {
            if (self.pos == 0 || bytes[self.pos - 1] == b'\n')
                && let Some(event) = self.at_line_start(mode)
            {
                return Some(event);
            }
            let scan_from = self.pos;
            let mut i = scan_from;
            if mode == Mode::LineStart || self.in_fence {
                i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            }
            while i < bytes.len() && bytes[i] != b'\n' {
                match colon_at(bytes, i) {
                    Some(len) => {
                        if let Some((label, start)) = strict_label_before(text, i, scan_from) {
                            self.pos = i + len;
                            return Some(Event::Label(Found {
                                label,
                                start,
                                value: i + len,
                                at_line_start: false,
                            }));
                        }
                        i += len;
                    }
                    None => {
                        // Skip to the next byte that may matter.
                        i += 1;
                        i += bytes[i..]
                            .iter()
                            .position(|&b| b == b':' || b == b'\n' || b == 0xEF)
                            .unwrap_or(bytes.len() - i);
                    }
                }
            }
            self.pos = (i + 1).min(bytes.len());
        }
        None
    }

    /// Handles the line starting at the current position: a blob
    /// candidate, a fence, or a line-start label.
    fn at_line_start(&mut self, mode: Mode) -> Option<Event> {
        let text = self.text;
        let line_end = text[self.pos..]
            .find('\n')
            .map_or(text.len(), |n| self.pos + n);
        let line = &text[self.pos..line_end];
        let trimmed = line.trim_start();
        let candidate = trimmed.starts_with("```")
            || trimmed.starts_with('{')
            || crate::foreign::opens_call(trimmed)
            || crate::xml_tags::opens_tag_step(trimmed);
        if mode == Mode::Free && candidate && self.blob_done != Some(self.pos) {
            self.blob_done = Some(self.pos);
            return Some(Event::Blob(self.pos));
        }
        if is_fence(line) && !fence_closes_itself(line) {
            self.in_fence = !self.in_fence;
        }
        let (label, value) = line_label(line)?;
        let found = Found {
            label,
            start: self.pos,
            value: self.pos + value,
            at_line_start: true,
        };
        self.pos = found.value;
        Some(Event::Label(found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str, mode: Mode) -> Vec<(Label, &str)> {
        let mut scanner = Scanner::new(text);
        let mut out = Vec::new();
        while let Some(event) = scanner.next(mode) {
            if let Event::Label(found) = event {
                out.push((found.label, &text[found.value..]));
            }
        }
        out
    }

    #[test]
    fn line_start_labels_are_lenient() {
        assert_eq!(
            line_label("  **Action Input:** {}"),
            Some((Label::ActionInput, 19))
        );
        assert_eq!(line_label("Action 2: x").map(|l| l.0), Some(Label::Action));
        assert_eq!(
            line_label("action_input： x").map(|l| l.0),
            Some(Label::ActionInput)
        );
        assert_eq!(
            line_label("Observation").map(|l| l.0),
            Some(Label::Observation)
        );
        assert_eq!(line_label("Observations show"), None);
        // Translated labels count at a line start.
        assert_eq!(
            line_label("观察: 你好").map(|l| l.0),
            Some(Label::Observation)
        );
        assert_eq!(line_label("观察到的: 你好"), None);
    }

    #[test]
    fn mid_line_labels_split_one_line_steps() {
        let text = "Thought: I should search.Action: search Action Input: {\"q\": 1}";
        let found = labels(text, Mode::Value);
        let kinds: Vec<Label> = found.iter().map(|f| f.0).collect();
        assert_eq!(kinds, [Label::Thought, Label::Action, Label::ActionInput]);
        assert_eq!(found[2].1, " {\"q\": 1}");
        // Only line starts count in LineStart mode.
        assert_eq!(labels(text, Mode::LineStart).len(), 1);
    }

    #[test]
    fn lower_case_words_mid_line_are_prose() {
        assert!(labels("I took action: none", Mode::Value).is_empty());
        assert!(labels("Legislative action: x", Mode::Value).is_empty());
    }

    #[test]
    fn multi_byte_text_near_labels_is_safe() {
        let text = "思考：我需要搜索这个问题的答案，然后再决定。Action：search Action Input：{\"q\": \"é\"}";
        let kinds: Vec<Label> = labels(text, Mode::Value).iter().map(|f| f.0).collect();
        // `思考` opens the line: the translated `Thought`.
        assert_eq!(kinds, [Label::Thought, Label::Action, Label::ActionInput]);
        let text =
            "我需要搜索这个问题的答案，然后再决定。Action：search Action Input：{\"q\": \"é\"}";
        let kinds: Vec<Label> = labels(text, Mode::Value).iter().map(|f| f.0).collect();
        assert_eq!(kinds, [Label::Action, Label::ActionInput]);
    }
}
