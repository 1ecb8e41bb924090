//! [`CannedServer`] (feature `testing`): a real HTTP/1.1 server on
//! 127.0.0.1 that answers requests with canned responses, in order. Tests
//! talk to it over a real socket with the real client. It serves the
//! faults a model server shows: plain JSON, SSE streams (optionally cut
//! mid-way), errors with headers (a 429 with `Retry-After`), garbage,
//! hangs, and any response written in a chosen way ([`Delivery`]): a slow
//! drip, pieces split at chosen byte offsets (through a multi-byte
//! character, say), or a connection closed or stalled mid-body.
//! [`refused_url`] gives a URL where nobody listens. It records each
//! request body.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One canned answer.
#[derive(Debug, Clone)]
pub enum Canned {
    /// A JSON (or any) body with a status.
    Body {
        /// HTTP status.
        status: u16,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// The body.
        body: String,
    },
    /// A server-sent-event stream of `data:` lines; `cut` closes the
    /// connection before `[DONE]`.
    Sse {
        /// The `data:` payloads.
        events: Vec<String>,
        /// Close early, without `[DONE]`.
        cut: bool,
    },
    /// Never answers (until the client gives up).
    Hang,
    /// These bytes as they are (status line, headers and body, or not HTTP
    /// at all), then the connection closes. No bytes: closed unanswered.
    Raw {
        /// What is written.
        bytes: Vec<u8>,
    },
    /// `inner` written as `delivery` says, then the connection closes.
    /// (On a streaming request, a completion in `inner` becomes its SSE
    /// stream first, so `delivery` shapes the stream's bytes.)
    Shaped {
        /// The response.
        inner: Box<Canned>,
        /// How its bytes are written.
        delivery: Delivery,
    },
}

/// How the bytes of a [`Canned::Shaped`] response are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// A slow drip: the whole response (head included) `bytes` at a time,
    /// with `pause` before each piece.
    Drip {
        /// Bytes per piece (at least 1).
        bytes: usize,
        /// The pause before each piece.
        pause: Duration,
    },
    /// The head, then the body cut at these byte offsets (of the body,
    /// whatever they fall on: a multi-byte character, an SSE line), each
    /// piece flushed on its own after a short pause.
    SplitAt(Vec<usize>),
    /// The head and the first `n` bytes of the body, then the connection
    /// closes.
    CloseAfter(usize),
    /// The head and the first `n` bytes of the body, then nothing more
    /// (until the client gives up).
    StallAfter(usize),
}

/// The pause between the pieces of a [`Delivery::SplitAt`] response, so
/// the client reads them apart.
const SPLIT_PAUSE: Duration = Duration::from_millis(3);

/// How long a hanging response waits.
const HANG: Duration = Duration::from_secs(600);

impl Canned {
    /// HTTP 200 with this JSON.
    pub fn json(body: serde_json::Value) -> Self {
        Self::Body {
            status: 200,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    /// A status with a body.
    pub fn status(status: u16, body: &str) -> Self {
        Self::Body {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    /// HTTP 429 with an OpenAI-style error body and `Retry-After: retry_after`
    /// (seconds, or an HTTP date).
    pub fn rate_limited(retry_after: &str) -> Self {
        Self::status(
            429,
            r#"{"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}"#,
        )
        .header("retry-after", retry_after)
    }

    /// These bytes as they are, then the connection closes.
    pub fn raw(bytes: impl Into<Vec<u8>>) -> Self {
        Self::Raw {
            bytes: bytes.into(),
        }
    }

    /// Adds a header (to a `Body`, or the `Body` inside a `Shaped`).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        match &mut self {
            Self::Body { headers, .. } => headers.push((name.to_string(), value.to_string())),
            Self::Shaped { inner, .. } => {
                let shaped = std::mem::replace(inner.as_mut(), Self::Hang);
                **inner = shaped.header(name, value);
            }
            _ => {}
        }
        self
    }

    /// This response written as `delivery` says.
    pub fn delivered(self, delivery: Delivery) -> Self {
        Self::Shaped {
            inner: Box::new(self),
            delivery,
        }
    }

    /// This response as a slow drip: `bytes` at a time, `pause` before each.
    pub fn dripped(self, bytes: usize, pause: Duration) -> Self {
        self.delivered(Delivery::Drip { bytes, pause })
    }

    /// This response with its body split at these byte offsets.
    pub fn split_at(self, offsets: impl Into<Vec<usize>>) -> Self {
        self.delivered(Delivery::SplitAt(offsets.into()))
    }

    /// This response cut after `n` bytes of its body (the connection closes).
    pub fn closed_after(self, n: usize) -> Self {
        self.delivered(Delivery::CloseAfter(n))
    }

    /// This response stalled after `n` bytes of its body.
    pub fn stalled_after(self, n: usize) -> Self {
        self.delivered(Delivery::StallAfter(n))
    }

    /// A chat completion with text content.
    pub fn text(content: &str) -> Self {
        Self::json(serde_json::json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "test",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}
        }))
    }

    /// A chat completion with tool calls `(id, name, arguments JSON text)`.
    pub fn tool_calls(calls: &[(&str, &str, &str)]) -> Self {
        let calls: Vec<serde_json::Value> = calls
            .iter()
            .map(|(id, name, args)| serde_json::json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
            .collect();
        Self::json(serde_json::json!({
            "id": "chatcmpl-2", "object": "chat.completion", "model": "test",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 10, "total_tokens": 40}
        }))
    }
}

/// A base URL (`http://127.0.0.1:PORT/v1`) where nobody listens: a
/// connection there is refused.
pub fn refused_url() -> std::io::Result<String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}/v1", listener.local_addr()?);
    drop(listener);
    Ok(url)
}

/// The running server.
#[derive(Debug)]
pub struct CannedServer {
    url: String,
    requests: Arc<Mutex<Vec<serde_json::Value>>>,
}

impl CannedServer {
    /// Starts a server answering with `responses` in order (then 500s).
    pub async fn start(responses: Vec<Canned>) -> std::io::Result<Self> {
        Self::start_on(0, responses).await
    }

    /// [`start`](CannedServer::start) on this port (0: any free port).
    pub async fn start_on(port: u16, responses: Vec<Canned>) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let url = format!("http://{}/v1", listener.local_addr()?);
        let requests = Arc::new(Mutex::new(Vec::new()));
        // Each answer as it is, and as the stream a streaming request gets,
        // made now so that answering takes no time.
        let responses: std::collections::VecDeque<(Canned, Canned)> = responses
            .into_iter()
            .map(|canned| (canned.clone(), as_stream(canned)))
            .collect();
        let queue = Arc::new(Mutex::new(responses));
        let seen = Arc::clone(&requests);
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let queue = Arc::clone(&queue);
                let seen = Arc::clone(&seen);
                tokio::spawn(async move {
                    let _ = serve(socket, queue, seen).await;
                });
            }
        });
        Ok(Self { url, requests })
    }

    /// The base URL (`http://127.0.0.1:PORT/v1`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The JSON bodies received so far.
    pub fn requests(&self) -> Vec<serde_json::Value> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

type Queue = Arc<Mutex<std::collections::VecDeque<(Canned, Canned)>>>;

async fn serve(
    mut socket: TcpStream,
    queue: Queue,
    seen: Arc<Mutex<Vec<serde_json::Value>>>,
) -> std::io::Result<()> {
    let _ = socket.set_nodelay(true);
    loop {
        let Some(body) = read_request(&mut socket).await? else {
            return Ok(());
        };
        let request: serde_json::Value =
            serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
        let wants_stream = request["stream"] == true;
        if let Ok(mut seen) = seen.lock() {
            seen.push(request);
        }
        let next = queue.lock().ok().and_then(|mut q| q.pop_front());
        let next = match next {
            Some((_, stream)) if wants_stream => stream,
            Some((whole, _)) => whole,
            None => Canned::status(
                500,
                "{\"error\":{\"message\":\"no more canned responses\"}}",
            ),
        };
        match next {
            Canned::Body {
                status,
                headers,
                body,
            } => {
                socket
                    .write_all(&body_head(status, &headers, body.len(), false))
                    .await?;
                socket.write_all(body.as_bytes()).await?;
            }
            Canned::Sse { events, cut } => {
                socket.write_all(SSE_HEAD).await?;
                for event in events {
                    socket
                        .write_all(format!("data: {event}\n\n").as_bytes())
                        .await?;
                    socket.flush().await?;
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                if !cut {
                    socket.write_all(b"data: [DONE]\n\n").await?;
                }
                socket.shutdown().await?;
                return Ok(());
            }
            Canned::Hang => {
                tokio::time::sleep(HANG).await;
                return Ok(());
            }
            Canned::Raw { bytes } => {
                socket.write_all(&bytes).await?;
                socket.shutdown().await?;
                return Ok(());
            }
            Canned::Shaped { inner, delivery } => {
                let (head, body) = render(*inner);
                deliver(&mut socket, &head, &body, &delivery).await?;
                return Ok(());
            }
        }
    }
}

const SSE_HEAD: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

/// The status line and headers of a `Body` response.
fn body_head(status: u16, headers: &[(String, String)], len: usize, close: bool) -> Vec<u8> {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {len}\r\n"
    );
    if close {
        head.push_str("connection: close\r\n");
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    head.into_bytes()
}

/// The bytes of a response: its head and its body. (A hang has neither;
/// raw bytes are all body.)
fn render(canned: Canned) -> (Vec<u8>, Vec<u8>) {
    match canned {
        Canned::Body {
            status,
            headers,
            body,
        } => (
            body_head(status, &headers, body.len(), true),
            body.into_bytes(),
        ),
        Canned::Sse { events, cut } => {
            let mut body = String::new();
            for event in events {
                body.push_str(&format!("data: {event}\n\n"));
            }
            if !cut {
                body.push_str("data: [DONE]\n\n");
            }
            (SSE_HEAD.to_vec(), body.into_bytes())
        }
        Canned::Hang => (Vec::new(), Vec::new()),
        Canned::Raw { bytes } => (Vec::new(), bytes),
        // The outer delivery decides.
        Canned::Shaped { inner, .. } => render(*inner),
    }
}

/// Writes `head` and `body` as `delivery` says, then closes (or stalls).
async fn deliver(
    socket: &mut TcpStream,
    head: &[u8],
    body: &[u8],
    delivery: &Delivery,
) -> std::io::Result<()> {
    match delivery {
        Delivery::Drip { bytes, pause } => {
            let all = [head, body].concat();
            for piece in all.chunks((*bytes).max(1)) {
                tokio::time::sleep(*pause).await;
                socket.write_all(piece).await?;
                socket.flush().await?;
            }
        }
        Delivery::SplitAt(offsets) => {
            socket.write_all(head).await?;
            socket.flush().await?;
            let mut start = 0;
            let mut cuts: Vec<usize> = offsets.iter().map(|&o| o.min(body.len())).collect();
            cuts.sort_unstable();
            cuts.push(body.len());
            for cut in cuts {
                if cut <= start {
                    continue;
                }
                tokio::time::sleep(SPLIT_PAUSE).await;
                socket.write_all(&body[start..cut]).await?;
                socket.flush().await?;
                start = cut;
            }
        }
        Delivery::CloseAfter(n) => {
            socket.write_all(head).await?;
            socket.write_all(&body[..(*n).min(body.len())]).await?;
            socket.flush().await?;
        }
        Delivery::StallAfter(n) => {
            socket.write_all(head).await?;
            socket.write_all(&body[..(*n).min(body.len())]).await?;
            socket.flush().await?;
            tokio::time::sleep(HANG).await;
        }
    }
    socket.shutdown().await
}

/// A successful canned completion becomes the SSE chunks a streaming
/// server would send (so one script serves both modes).
fn as_stream(canned: Canned) -> Canned {
    if let Canned::Shaped { inner, delivery } = canned {
        return Canned::Shaped {
            inner: Box::new(as_stream(*inner)),
            delivery,
        };
    }
    let Canned::Body {
        status: 200, body, ..
    } = &canned
    else {
        return canned;
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(body) else {
        return canned;
    };
    let choice = &value["choices"][0];
    let message = &choice["message"];
    if message.is_null() {
        return canned;
    }
    let mut events = Vec::new();
    if let Some(reasoning) = message["reasoning_content"].as_str() {
        events.push(
            serde_json::json!({"choices": [{"index": 0, "delta": {"reasoning_content": reasoning}}]})
                .to_string(),
        );
    }
    if let Some(text) = message["content"].as_str() {
        // Two pieces, to exercise accumulation.
        let mid = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map_or(0, |(i, _)| i);
        for piece in [&text[..mid], &text[mid..]] {
            if !piece.is_empty() {
                events.push(
                    serde_json::json!({"choices": [{"index": 0, "delta": {"content": piece}}]})
                        .to_string(),
                );
            }
        }
    }
    if let Some(calls) = message["tool_calls"].as_array() {
        for (index, call) in calls.iter().enumerate() {
            let mut delta = call.clone();
            delta["index"] = serde_json::json!(index);
            events.push(
                serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]})
                    .to_string(),
            );
        }
    }
    events.push(
        serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
            .to_string(),
    );
    if !value["usage"].is_null() {
        events.push(serde_json::json!({"choices": [], "usage": value["usage"]}).to_string());
    }
    Canned::Sse { events, cut: false }
}
/// Reads one request; returns its body, or `None` at end of connection.
async fn read_request(socket: &mut TcpStream) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while buf.len() < header_end + length {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(Some(buf[header_end..].to_vec()))
}
