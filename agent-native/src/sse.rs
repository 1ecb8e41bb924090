//! Event-stream bodies handed on in pieces that end at a line end.
//!
//! async-openai reads a stream with eventsource-stream, which scans its
//! whole buffer for the next line end each time the body hands it a piece.
//! A long event (a 5 MB reply in one `data:` line) arrives in thousands
//! of pieces, so it cost time quadratic in its length: minutes for 5 MB,
//! during which the run could only time out. Handed on whole lines at a
//! time, each byte is scanned once here and once there. (Whatever a
//! streaming request gets back is read this way: a server may answer one
//! with a body that is not an event stream at all, a 5 MB one on one line.)

use futures::{Stream, StreamExt};
use reqwest::Response;

/// Whether a request body asks for a stream (`"stream":true` at any
/// depth: a false positive costs nothing, the re-cut body is the same).
pub(crate) fn asks_to_stream(body: &[u8]) -> bool {
    const FIELD: &[u8] = b"\"stream\":true";
    body.windows(FIELD.len()).any(|w| w == FIELD)
}

/// The same response (status, version, headers) with a body whose pieces
/// each end at a line end (the last one may not, if the body does not).
pub(crate) fn line_aligned(response: Response) -> Response {
    let status = response.status();
    let version = response.version();
    let headers = response.headers().clone();
    let body = reqwest::Body::wrap_stream(whole_lines(response.bytes_stream()));
    crate::retry::rebuilt(status, version, headers, body)
}

/// Re-cuts `body` so each piece ends right after a line end (`\n` or
/// `\r`): bytes after the last line end of a piece wait for the next one.
/// Each byte is looked at once.
fn whole_lines<S, B, E>(body: S) -> impl Stream<Item = Result<Vec<u8>, E>> + Send + 'static
where
    S: Stream<Item = Result<B, E>> + Send + 'static,
    B: AsRef<[u8]>,
    E: Send + 'static,
{
    futures::stream::unfold(Some((Box::pin(body), Vec::new())), |state| async move {
        let (mut body, mut pending) = state?;
        loop {
            match body.next().await {
                Some(Ok(bytes)) => {
                    let bytes = bytes.as_ref();
                    match bytes.iter().rposition(|&b| b == b'\n' || b == b'\r') {
                        Some(last) => {
                            pending.extend_from_slice(&bytes[..=last]);
                            let rest = bytes[last + 1..].to_vec();
                            let piece = std::mem::replace(&mut pending, rest);
                            return Some((Ok(piece), Some((body, pending))));
                        }
                        None => pending.extend_from_slice(bytes),
                    }
                }
                Some(Err(error)) => return Some((Err(error), None)),
                None if pending.is_empty() => return None,
                None => return Some((Ok(pending), None)),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn pieces(input: Vec<&'static [u8]>) -> Vec<String> {
        let body = futures::stream::iter(input.into_iter().map(Ok::<_, ()>));
        whole_lines(body)
            .map(|piece| String::from_utf8(piece.unwrap()).unwrap())
            .collect()
            .await
    }

    #[tokio::test]
    async fn pieces_end_at_line_ends_and_lose_nothing() {
        assert_eq!(
            pieces(vec![
                b"data: {\"a\"",
                b": 1}\n\ndata: {",
                b"\"b\": 2}\n",
                b"\n"
            ])
            .await,
            ["data: {\"a\": 1}\n\n", "data: {\"b\": 2}\n", "\n"]
        );
        // A long line arrives whole; a multi-byte character cut between
        // pieces is whole again; a last line without an end is kept.
        assert_eq!(
            pieces(vec![
                b"data: \xc3",
                b"\xa9\xc3\xa9\xc3",
                b"\xa9\r\ndata: x",
                b"y"
            ])
            .await,
            ["data: ééé\r\n", "data: xy"]
        );
        assert!(pieces(vec![]).await.is_empty());
    }

    #[test]
    fn a_streaming_request_is_recognised() {
        assert!(asks_to_stream(
            br#"{"model":"m","messages":[],"stream":true}"#
        ));
        assert!(!asks_to_stream(
            br#"{"model":"m","messages":[],"stream":false}"#
        ));
        assert!(!asks_to_stream(
            br#"{"messages":[{"content":"\"stream\":true"}],"stream":false}"#
        ));
    }
}
