//! Cutting text from a server to a length, on character boundaries.

/// The first `max` characters of `text`, with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// The last `max` characters of `text`, with `…` when cut.
pub(crate) fn clip_end(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    match text.char_indices().nth(count - max) {
        Some((cut, _)) => format!("…{}", &text[cut..]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_on_character_boundaries() {
        assert_eq!(clip("héllo wörld", 5), "héllo…");
        assert_eq!(clip("héllo", 5), "héllo");
        assert_eq!(clip_end("héllo wörld", 5), "…wörld");
        assert_eq!(clip_end("wörld", 5), "wörld");
        assert_eq!(clip("", 0), "");
    }
}
