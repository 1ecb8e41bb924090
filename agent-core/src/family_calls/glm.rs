//! GLM-4.5's `<tool_call>NAME` followed by `<arg_key>KEY</arg_key>`
//! `<arg_value>VALUE</arg_value>` pairs (LongCat's tags add a `longcat_`
//! prefix) or by a JSON object, maybe fenced (DeepSeek V4's degenerate
//! `<｜DSML｜toolcall>NAME`).

use serde_json::{Map, Value};

use super::json_body::json_body_call;
use super::shared::tag_name_before;
use super::shared::{NAME_WINDOW, PREFIX_WINDOW, element_value, is_name, skip_space, window};
use super::{FamilyCall, Read};

const CALL_TAG: &str = "tool_call>";
/// DeepSeek V4's degenerate `<｜DSML｜toolcall>NAME`.
const CALL_TAG_SHORT: &str = "toolcall>";

/// A `<…tool_call>NAME` head: the tag-name prefix its tags share (GLM
/// writes none, LongCat `longcat_`), the name, and where the arguments
/// start.
struct Head<'a> {
    prefix: &'a str,
    name: &'a str,
    args_at: usize,
}

/// The first `<…tool_call>NAME` followed by an argument pair, a JSON
/// object (maybe fenced) or the closing tag, at or after `from`.
pub(super) fn find_glm(text: &str, from: usize) -> Option<usize> {
    let mut search = from;
    loop {
        let (at, tag) = [CALL_TAG, CALL_TAG_SHORT]
            .iter()
            .filter_map(|tag| text[search..].find(tag).map(|n| (search + n, *tag)))
            .min()?;
        search = at + 1;
        let tag_end = at + tag.len() - 1;
        if let Some((lt, _)) = tag_name_before(text, tag_end)
            && glm_head(text, lt).is_some()
        {
            return Some(lt);
        }
    }
}

/// The head of the call whose `<` is at `lt`.
fn glm_head(text: &str, lt: usize) -> Option<Head<'_>> {
    let close = lt + window(&text[lt..], PREFIX_WINDOW + CALL_TAG.len()).find('>')?;
    let tag = &text[lt + 1..close];
    let prefix = tag
        .strip_suffix("tool_call")
        .or_else(|| tag.strip_suffix("toolcall"))?;
    let name_at = close + 1;
    let rest = &text[name_at..];
    let len = window(rest, NAME_WINDOW).find(['<', '{', '`'])?;
    let after = &rest[len..];
    let opens_pair = after
        .strip_prefix('<')
        .and_then(|a| a.strip_prefix(prefix))
        .is_some_and(|a| a.starts_with("arg_key>"));
    let closes = after
        .strip_prefix("</")
        .and_then(|a| a.strip_prefix(prefix))
        .is_some_and(|a| a.starts_with("tool_call>"));
    if !(opens_pair || closes || after.starts_with('{') || after.starts_with("```")) {
        return None;
    }
    let name = rest[..len].trim();
    is_name(name).then_some(Head {
        prefix,
        name,
        args_at: name_at + len,
    })
}

/// The call whose `<` is at `lt`.
pub(super) fn glm_call(text: &str, lt: usize) -> Option<Read> {
    let head = glm_head(text, lt)?;
    let name = head.name.to_string();
    let rest = &text[head.args_at..];
    if rest.starts_with('{') || rest.starts_with("```") {
        return Some(json_body_call(text, head.args_at, name));
    }
    let tags = |name: &str| {
        (
            format!("<{}{name}>", head.prefix),
            format!("</{}{name}>", head.prefix),
        )
    };
    let (key_open, key_close) = tags("arg_key");
    let (value_open, value_close) = tags("arg_value");
    let call_close = format!("</{}tool_call>", head.prefix);
    let mut arguments = Map::new();
    let mut p = head.args_at;
    let finish = |arguments: Map<String, Value>, end: usize, closed: bool| {
        Some((
            FamilyCall {
                name: name.clone(),
                arguments: Value::Object(arguments),
                end,
            },
            closed,
        ))
    };
    loop {
        p = skip_space(text, p);
        let rest = &text[p..];
        if rest.starts_with(&call_close) {
            return finish(arguments, p + call_close.len(), true);
        }
        let Some(key_rest) = rest.strip_prefix(&key_open) else {
            // Cut, or something else after the last pair: the call ends here.
            return finish(arguments, p, !rest.is_empty());
        };
        let Some(key_len) = key_rest.find(&key_close) else {
            return finish(arguments, text.len(), false);
        };
        let key = key_rest[..key_len].trim();
        let value_tag = skip_space(text, p + key_open.len() + key_len + key_close.len());
        let Some(value_rest) = text[value_tag..].strip_prefix(&value_open) else {
            return finish(arguments, value_tag, value_tag < text.len());
        };
        let value_at = value_tag + value_open.len();
        match value_rest.find(&value_close) {
            Some(n) => {
                arguments.insert(key.to_string(), element_value(&value_rest[..n], false));
                p = value_at + n + value_close.len();
            }
            None => {
                arguments.insert(key.to_string(), element_value(value_rest, false));
                return finish(arguments, text.len(), false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::family_calls::read_family_calls;
    use serde_json::json;

    #[test]
    fn glm_pairs_with_and_without_newlines() {
        let glm = "<think>Need data.</think>\n<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>Oslo</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>3</arg_value>\n</tool_call>";
        let read = read_family_calls(glm).unwrap();
        assert!(glm[..read.prose_end].ends_with("</think>\n"));
        assert_eq!(
            (
                read.calls[0].name.as_str(),
                &read.calls[0].arguments,
                read.complete
            ),
            ("search", &json!({"query": "Oslo", "limit": 3}), true)
        );
        let packed = "<tool_call>list_tools</tool_call><tool_call>search<arg_key>query</arg_key><arg_value>a b</arg_value></tool_call>";
        let read = read_family_calls(packed).unwrap();
        assert_eq!(read.calls.len(), 2);
        assert_eq!(read.calls[0].arguments, json!({}));
        assert_eq!(read.calls[1].arguments, json!({"query": "a b"}));
        // JSON inside <tool_call> is the Hermes format, not this one.
        assert!(read_family_calls("<tool_call>{\"name\": \"a\"}</tool_call>").is_none());
    }
}
