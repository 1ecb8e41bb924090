//! Llama 3.1's and Qwen3-Coder's call block: `<function=NAME>` followed
//! by a JSON object or by `<parameter=KEY>VALUE</parameter>` elements,
//! then `</function>`. This module owns the block's tags and the reading
//! of its structure into raw pieces ([`read_function_tag`]); each
//! transport decodes the values and reads the JSON body its own way.

use std::ops::Range;

use serde_json::Value;

use super::shared::{NAME_WINDOW, element_value, skip_space, window};

/// Opens a call block (Llama 3.1 custom calls, Qwen3-Coder); the name
/// follows, up to `>`.
pub const FUNCTION_OPEN: &str = "<function=";
/// Closes a call block.
pub const FUNCTION_CLOSE: &str = "</function>";
/// Opens an argument element; the key follows, up to `>`.
const PARAMETER_OPEN: &str = "<parameter=";
/// Closes an argument element.
const PARAMETER_CLOSE: &str = "</parameter>";

/// How [`read_function_tag`] reads a block, where the transports' readings
/// differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionTagReading {
    /// Reading on through the text from the tag, as the text transport
    /// reads a reply from a place in it: a name or key runs at most 256
    /// bytes to its `>`; each element follows the one before with only
    /// space between (reading stops at anything else); a value runs to
    /// the next `</parameter>`, wherever it is, or to the end of the text;
    /// the body is empty only when `</function>` follows the name's tag.
    Stream,
    /// Reading a block the caller cut out (from one `<function=` to the
    /// next, or inside `<tool_call>` tags), as the native transport does:
    /// the body ends at the first `</function>` after the name's tag, or
    /// at the end of the text; each element runs to the next
    /// `<parameter=` (or the body's end), and text after its
    /// `</parameter>` is passed over; a name or key may run any length;
    /// the body is empty when it holds nothing but space.
    Block,
}

/// A `<function=NAME>` block, read into its raw pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionTag<'a> {
    /// The tool's name as written, trimmed; whether it is a name is the
    /// caller's to judge.
    pub name: &'a str,
    /// What follows the name's tag.
    pub body: FunctionBody<'a>,
}

/// The body of a `<function=NAME>` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FunctionBody<'a> {
    /// No arguments: nothing but space before `</function>` (or, for a
    /// [`Block`](FunctionTagReading::Block), before the body's end).
    Empty {
        /// Where the body ends: where its `</function>` starts, if any.
        end: usize,
    },
    /// `<parameter=KEY>VALUE</parameter>` elements, in order.
    Parameters {
        /// The elements read.
        parameters: Vec<FunctionParameter<'a>>,
        /// `false` when reading stopped at a `<parameter=` whose key has
        /// no `>` (within 256 bytes, for a
        /// [`Stream`](FunctionTagReading::Stream)).
        whole: bool,
        /// Where the last element read ends: after its `</parameter>`, or
        /// where its value ends when it has none (where the body starts,
        /// when no element was read).
        end: usize,
    },
    /// Anything else, for the caller to read as JSON: the span from its
    /// first byte that is not space to the body's end (to the end of the
    /// text, for a [`Stream`](FunctionTagReading::Stream)).
    Json(Range<usize>),
}

/// One `<parameter=KEY>VALUE</parameter>` element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionParameter<'a> {
    /// The key, trimmed (maybe empty).
    pub key: &'a str,
    /// The value's text, untrimmed: up to `</parameter>`, or to where the
    /// element ends when it is not closed.
    pub value: &'a str,
    /// Whether the element was read to its `</parameter>`.
    pub closed: bool,
}

impl FunctionParameter<'_> {
    /// The value as JSON when it reads as JSON (numbers, booleans,
    /// objects), else its trimmed text, as the other family formats read
    /// an element's value.
    pub fn json_or_text(&self) -> Value {
        element_value(self.value, false)
    }
}

/// The `<function=NAME>` block at byte `at` of `text`, read as `reading`
/// says. `None` when `text` does not open one there, or the name's tag
/// has no `>` (within 256 bytes, for a
/// [`Stream`](FunctionTagReading::Stream)). Each search runs forward from
/// where the one before stopped, so the block is read in linear time.
pub fn read_function_tag(
    text: &str,
    at: usize,
    reading: FunctionTagReading,
) -> Option<FunctionTag<'_>> {
    let name_window = match reading {
        FunctionTagReading::Stream => NAME_WINDOW,
        FunctionTagReading::Block => usize::MAX,
    };
    if !text.get(at..)?.starts_with(FUNCTION_OPEN) {
        return None;
    }
    let name_at = at + FUNCTION_OPEN.len();
    let name_len = window(&text[name_at..], name_window).find('>')?;
    let name = text[name_at..name_at + name_len].trim();
    let body_at = name_at + name_len + 1;
    let body_end = match reading {
        FunctionTagReading::Stream => text.len(),
        FunctionTagReading::Block => text[body_at..]
            .find(FUNCTION_CLOSE)
            .map_or(text.len(), |n| body_at + n),
    };
    let body = &text[..body_end];
    let start = skip_space(body, body_at);
    let empty = match reading {
        FunctionTagReading::Stream => body[start..].starts_with(FUNCTION_CLOSE),
        FunctionTagReading::Block => start == body_end,
    };
    let body = if body[start..].starts_with(PARAMETER_OPEN) {
        parameters(body, start, reading, name_window)
    } else if empty {
        FunctionBody::Empty { end: start }
    } else {
        FunctionBody::Json(start..body_end)
    };
    Some(FunctionTag { name, body })
}

/// The `<parameter=KEY>` elements of `body` from `at`, its first.
fn parameters(
    body: &str,
    mut at: usize,
    reading: FunctionTagReading,
    key_window: usize,
) -> FunctionBody<'_> {
    let mut parameters = Vec::new();
    let mut end = at;
    let mut whole = true;
    while body[at..].starts_with(PARAMETER_OPEN) {
        let key_at = at + PARAMETER_OPEN.len();
        let element_end = match reading {
            FunctionTagReading::Stream => body.len(),
            FunctionTagReading::Block => body[key_at..]
                .find(PARAMETER_OPEN)
                .map_or(body.len(), |n| key_at + n),
        };
        let Some(key_len) = window(&body[key_at..element_end], key_window).find('>') else {
            whole = false;
            break;
        };
        let value_at = key_at + key_len + 1;
        let (value_end, closed) = match body[value_at..element_end].find(PARAMETER_CLOSE) {
            Some(n) => (value_at + n, true),
            None => (element_end, false),
        };
        parameters.push(FunctionParameter {
            key: body[key_at..key_at + key_len].trim(),
            value: &body[value_at..value_end],
            closed,
        });
        end = if closed {
            value_end + PARAMETER_CLOSE.len()
        } else {
            value_end
        };
        at = match reading {
            FunctionTagReading::Stream => skip_space(body, end),
            FunctionTagReading::Block => element_end,
        };
    }
    FunctionBody::Parameters {
        parameters,
        whole,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use FunctionTagReading::{Block, Stream};

    fn parameter(
        key: &'static str,
        value: &'static str,
        closed: bool,
    ) -> FunctionParameter<'static> {
        FunctionParameter { key, value, closed }
    }

    #[test]
    fn json_body_is_a_span_to_the_body_end() {
        let text = "<function=search> {\"query\": \"Oslo\"} </function> after";
        let read = read_function_tag(text, 0, Stream).unwrap();
        assert_eq!(read.name, "search");
        let FunctionBody::Json(span) = read.body else {
            panic!("{:?}", read.body);
        };
        assert!(text[span.clone()].starts_with("{\"query\""));
        assert_eq!(span.end, text.len());
        let FunctionBody::Json(span) = read_function_tag(text, 0, Block).unwrap().body else {
            panic!("not JSON");
        };
        assert_eq!(&text[span], "{\"query\": \"Oslo\"} ");
    }

    #[test]
    fn parameter_elements_in_order() {
        let text = "<function=write>\n<parameter=path>\na.txt\n</parameter>\n<parameter=count>3</parameter>\n</function>";
        for reading in [Stream, Block] {
            let read = read_function_tag(text, 0, reading).unwrap();
            assert_eq!(read.name, "write");
            let FunctionBody::Parameters {
                parameters,
                whole,
                end,
            } = read.body
            else {
                panic!("{reading:?}");
            };
            assert_eq!(
                parameters,
                [
                    parameter("path", "\na.txt\n", true),
                    parameter("count", "3", true),
                ]
            );
            assert!(whole);
            assert!(text[end..].trim_start().starts_with(FUNCTION_CLOSE));
            assert_eq!(parameters[1].json_or_text(), Value::from(3));
            assert_eq!(parameters[0].json_or_text(), Value::from("a.txt"));
        }
    }

    #[test]
    fn an_unclosed_parameter_runs_to_the_end_of_the_text() {
        let text = "<function=search><parameter=query>Ber";
        for reading in [Stream, Block] {
            let read = read_function_tag(text, 0, reading).unwrap();
            assert_eq!(
                read.body,
                FunctionBody::Parameters {
                    parameters: vec![parameter("query", "Ber", false)],
                    whole: true,
                    end: text.len(),
                }
            );
        }
        // A key without its `>` stops the reading.
        let cut = "<function=search><parameter=a>1</parameter><parameter=qu";
        let FunctionBody::Parameters {
            parameters, whole, ..
        } = read_function_tag(cut, 0, Stream).unwrap().body
        else {
            panic!("not parameters");
        };
        assert_eq!((parameters.len(), whole), (1, false));
    }

    #[test]
    fn the_readings_differ_where_the_transports_do() {
        // A value running past `</function>`, and text between elements.
        let text = "<function=f><parameter=a>1</function><parameter=b>2</parameter> x <parameter=c>3</parameter></function>";
        let stream = read_function_tag(text, 0, Stream).unwrap().body;
        let FunctionBody::Parameters { parameters, .. } = stream else {
            panic!("not parameters");
        };
        assert_eq!(
            parameters,
            [parameter("a", "1</function><parameter=b>2", true)]
        );
        let block = read_function_tag(text, 0, Block).unwrap().body;
        let FunctionBody::Parameters { parameters, .. } = block else {
            panic!("not parameters");
        };
        assert_eq!(parameters, [parameter("a", "1", false)]);
        let skipped = "<function=f><parameter=a>1</parameter> x <parameter=b>2</parameter>";
        let FunctionBody::Parameters { parameters, .. } =
            read_function_tag(skipped, 0, Block).unwrap().body
        else {
            panic!("not parameters");
        };
        assert_eq!(parameters.len(), 2);
    }

    #[test]
    fn empty_bodies() {
        let closed = "<function=now>\n</function>";
        for reading in [Stream, Block] {
            assert_eq!(
                read_function_tag(closed, 0, reading).unwrap().body,
                FunctionBody::Empty { end: 15 }
            );
        }
        // A block cut out by the caller may end without `</function>`; a
        // stream that ends there has a (missing) JSON body to read.
        let cut = "<function=now>  ";
        assert_eq!(
            read_function_tag(cut, 0, Block).unwrap().body,
            FunctionBody::Empty { end: cut.len() }
        );
        assert_eq!(
            read_function_tag(cut, 0, Stream).unwrap().body,
            FunctionBody::Json(cut.len()..cut.len())
        );
    }

    #[test]
    fn names_are_the_callers_to_judge() {
        let text = "<function= not a name! >{}</function>";
        assert_eq!(
            read_function_tag(text, 0, Stream).unwrap().name,
            "not a name!"
        );
        // No `>` within the window, no tag there, or no `>` at all.
        let long = format!("<function={}>{{}}", "x".repeat(300));
        assert!(read_function_tag(&long, 0, Stream).is_none());
        assert_eq!(read_function_tag(&long, 0, Block).unwrap().name.len(), 300);
        assert!(read_function_tag("<func=a>{}", 0, Stream).is_none());
        assert!(read_function_tag("<function=a", 0, Block).is_none());
    }

    #[test]
    fn non_ascii_text_around_the_block() {
        let text =
            "Überlege… <function=suche><parameter=frage>Grüße, 東京</parameter></function> ✓";
        let at = text.find(FUNCTION_OPEN).unwrap();
        for reading in [Stream, Block] {
            let read = read_function_tag(text, at, reading).unwrap();
            assert_eq!(read.name, "suche");
            let FunctionBody::Parameters { parameters, .. } = read.body else {
                panic!("not parameters");
            };
            assert_eq!(parameters, [parameter("frage", "Grüße, 東京", true)]);
        }
        // Not a character boundary, or past the end: no block, no panic.
        assert!(read_function_tag(text, 1, Stream).is_none());
        assert!(read_function_tag(text, text.len() + 1, Block).is_none());
        let wide = format!("<function={}>", "é".repeat(200));
        assert!(read_function_tag(&wide, 0, Stream).is_none());
    }
}
