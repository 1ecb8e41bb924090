//! [`CannedServer`] (feature `testing`): a real HTTP/1.1 server on
//! 127.0.0.1 that answers requests with canned responses, in order. Tests
//! talk to it over a real socket with the real client: plain JSON, SSE
//! streams (optionally cut mid-way), errors with headers, garbage and
//! hangs. It records each request body.

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
}

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

    /// Adds a header (to a `Body`).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Self::Body { headers, .. } = &mut self {
            headers.push((name.to_string(), value.to_string()));
        }
        self
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
        let queue = Arc::new(Mutex::new(std::collections::VecDeque::from(responses)));
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

type Queue = Arc<Mutex<std::collections::VecDeque<Canned>>>;

async fn serve(
    mut socket: TcpStream,
    queue: Queue,
    seen: Arc<Mutex<Vec<serde_json::Value>>>,
) -> std::io::Result<()> {
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
        let next = next.unwrap_or_else(|| {
            Canned::status(
                500,
                "{\"error\":{\"message\":\"no more canned responses\"}}",
            )
        });
        let next = if wants_stream { as_stream(next) } else { next };
        match next {
            Canned::Body {
                status,
                headers,
                body,
            } => {
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                socket.write_all(head.as_bytes()).await?;
                socket.write_all(body.as_bytes()).await?;
            }
            Canned::Sse { events, cut } => {
                socket
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
                    .await?;
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
                tokio::time::sleep(Duration::from_secs(600)).await;
                return Ok(());
            }
        }
    }
}

/// A successful canned completion becomes the SSE chunks a streaming
/// server would send (so one script serves both modes).
fn as_stream(canned: Canned) -> Canned {
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
