//! MCP tool results as observation text: text as is; images, audio, blobs
//! and resource links as short placeholders (the model cannot read bytes);
//! embedded text resources with their text.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

/// The observation text of a tool result.
pub(crate) fn render(result: &CallToolResult) -> String {
    let parts: Vec<String> = result.content.iter().map(render_block).collect();
    if parts.is_empty() {
        return match &result.structured_content {
            Some(value) => value.to_string(),
            None => String::new(),
        };
    }
    parts.join("\n")
}

fn render_block(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => format!(
            "[image: {}, {} bytes]",
            image.mime_type,
            base64_len(&image.data)
        ),
        ContentBlock::Audio(audio) => format!(
            "[audio: {}, {} bytes]",
            audio.mime_type,
            base64_len(&audio.data)
        ),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource: {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource: {uri}, {}, {} bytes]",
                mime_type.as_deref().unwrap_or("binary"),
                base64_len(blob)
            ),
            _ => "[resource of a kind this client does not show]".to_string(),
        },
        ContentBlock::ResourceLink(link) => {
            let mut text = format!("[resource link: {}", link.uri);
            if let Some(mime) = &link.mime_type {
                text.push_str(&format!(", {mime}"));
            }
            text.push(']');
            if let Some(description) = &link.description {
                text.push(' ');
                text.push_str(description);
            }
            text
        }
        _ => "[content of a kind this client does not show]".to_string(),
    }
}

/// The number of bytes `data` (base64) decodes to.
fn base64_len(data: &str) -> usize {
    let digits = data
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    digits * 3 / 4
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use rmcp::model::{CallToolResult, ContentBlock, Resource, ResourceContents};
    use serde_json::json;

    use super::*;

    #[test]
    fn every_kind_of_content_becomes_text_or_a_placeholder() {
        let result = CallToolResult::success(vec![
            ContentBlock::text("plain"),
            ContentBlock::image("aGVsbG8=", "image/png"),
            ContentBlock::audio("AAAA\nAAAA", "audio/wav"),
            ContentBlock::resource(ResourceContents::text("inside", "file:///a.txt")),
            ContentBlock::resource(
                ResourceContents::blob("AAE=", "file:///b.bin").with_mime_type("application/zip"),
            ),
        ]);
        assert_eq!(
            render(&result),
            "plain\n[image: image/png, 5 bytes]\n[audio: audio/wav, 6 bytes]\n\
             [resource: file:///a.txt]\ninside\n[resource: file:///b.bin, application/zip, 2 bytes]"
        );
    }

    #[test]
    fn structured_content_stands_in_for_missing_content() {
        let mut result = CallToolResult::success(vec![]);
        result.structured_content = Some(json!({"sum": 3}));
        assert_eq!(render(&result), r#"{"sum":3}"#);
        assert_eq!(render(&CallToolResult::success(vec![])), "");
    }

    #[test]
    fn resource_links_show_their_uri() {
        let link: Resource = serde_json::from_value(json!({
            "uri": "test://static/resource/1", "name": "one", "mimeType": "text/plain",
            "description": "The first resource."
        }))
        .unwrap();
        let text = render_block(&ContentBlock::ResourceLink(link));
        assert_eq!(
            text,
            "[resource link: test://static/resource/1, text/plain] The first resource."
        );
    }
}
