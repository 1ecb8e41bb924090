//! Retries, under async-openai's client. The backoff (exponential, with
//! jitter, bounded) is `backon`'s; what is ours is the rule: HTTP 429 and
//! 5xx are retried, and so are transport failures (connection refused or
//! reset, closed before the response, a busy local server dropping it;
//! not a timeout), honouring `Retry-After` when the server sends it. After
//! the last retry the last response goes to the client to become a typed
//! error, and the `Retry-After` it carried is kept for that error.
//!
//! The response the client gets is shaped here too: an event stream in
//! whole lines (see `sse`), a whole body once it is known to be JSON, and
//! an error's body in the form the client reads, whatever the server wrote.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use backon::{ExponentialBuilder, Retryable};
use reqwest::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Response, StatusCode, Version};

/// How retries are spaced and bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 3).
    pub max_retries: u32,
    /// First backoff (default 500 ms), doubled each retry, plus jitter.
    pub base_delay: Duration,
    /// Longest backoff, and longest `Retry-After` honoured (default 30 s).
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    fn backoff(&self) -> ExponentialBuilder {
        ExponentialBuilder::default()
            .with_min_delay(self.base_delay)
            .with_max_delay(self.max_delay)
            .with_max_times(self.max_retries as usize)
            .with_jitter()
    }
}

/// Reads `Retry-After`: whole or fractional seconds, or an HTTP date.
pub(crate) fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).ok();
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(
        date.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// One failed attempt.
enum Failure {
    /// A response worth retrying (429, 5xx), with its `Retry-After`.
    Status {
        response: Response,
        retry_after: Option<Duration>,
    },
    /// The request never got a response (refused, reset, closed early).
    Transport(reqwest::Error),
    /// Not worth retrying.
    Final(OpenAIError),
}

impl Failure {
    fn retryable(&self) -> bool {
        !matches!(self, Failure::Final(_))
    }
}

/// `true` for transport failures a retry may cure: the connection was
/// refused or dropped before any response. A timeout is not one: the
/// request's own time limit has passed.
fn is_transport_failure(error: &reqwest::Error) -> bool {
    !error.is_timeout() && (error.is_connect() || error.is_request())
}

/// An error response with its body rewritten as the client reads it best,
/// so the status decides the error's kind (401 auth, 429 rate limit…)
/// whatever the body was (another server's JSON with a numeric `code` or
/// a top-level `message`, an HTML page, plain text), and the message is
/// the server's own, on one line: a 4xx as the OpenAI error object, a 5xx
/// (whose body the client keeps as text) as the message alone.
async fn readable_error(response: Response) -> Result<Response, OpenAIError> {
    let status = response.status();
    let version = response.version();
    let mut headers = response.headers().clone();
    let body = response.bytes().await.map_err(OpenAIError::Reqwest)?;
    let message = crate::wire::error_message(&body);
    let (body, content_type) = if status.is_server_error() {
        (message, "text/plain; charset=utf-8")
    } else {
        let error = serde_json::json!({"error": {"message": message}});
        (error.to_string(), "application/json")
    };
    headers.remove(CONTENT_LENGTH);
    headers.remove(CONTENT_ENCODING);
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    Ok(rebuilt(status, version, headers, reqwest::Body::from(body)))
}

/// A successful response whose body is checked to be JSON here: one that
/// is not becomes the client's JSON error with the body kept, without the
/// client logging the whole body (5 MB of garbage, say) at error level.
async fn checked_json(response: Response) -> Result<Response, OpenAIError> {
    let status = response.status();
    let version = response.version();
    let headers = response.headers().clone();
    let body = response.bytes().await.map_err(OpenAIError::Reqwest)?;
    if let Err(error) = serde_json::from_slice::<serde::de::IgnoredAny>(&body) {
        let raw = String::from_utf8_lossy(&body).into_owned();
        return Err(OpenAIError::JSONDeserialize(error, raw));
    }
    Ok(rebuilt(status, version, headers, reqwest::Body::from(body)))
}

/// A response with this head and body.
pub(crate) fn rebuilt(
    status: StatusCode,
    version: Version,
    headers: HeaderMap,
    body: reqwest::Body,
) -> Response {
    let mut response = http::Response::new(body);
    *response.status_mut() = status;
    *response.version_mut() = version;
    *response.headers_mut() = headers;
    Response::from(response)
}

/// The final response as the client should get it.
async fn shaped(response: Response, streaming: bool) -> Result<Response, OpenAIError> {
    let status = response.status();
    if streaming && status.is_success() {
        return Ok(crate::sse::line_aligned(response));
    }
    if status.is_success() {
        return checked_json(response).await;
    }
    if status.is_client_error() || status.is_server_error() {
        return readable_error(response).await;
    }
    Ok(response)
}

/// Where the `Retry-After` of an exhausted 429 is left for the error.
pub(crate) type RetryAfterSlot = Arc<Mutex<Option<Duration>>>;

/// The tower service async-openai's client sends requests through.
#[derive(Clone, Debug)]
pub(crate) struct RetryService {
    client: reqwest::Client,
    policy: RetryPolicy,
    retry_after: RetryAfterSlot,
}

impl RetryService {
    /// Sends with `client`, retrying by `policy`; an exhausted 429's
    /// `Retry-After` goes into `retry_after`.
    pub(crate) fn new(
        client: reqwest::Client,
        policy: RetryPolicy,
        retry_after: RetryAfterSlot,
    ) -> Self {
        Self {
            client,
            policy,
            retry_after,
        }
    }
}

type ResponseFuture = Pin<Box<dyn Future<Output = Result<Response, OpenAIError>> + Send + 'static>>;

impl tower::Service<HttpRequestFactory> for RetryService {
    type Response = Response;
    type Error = OpenAIError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, factory: HttpRequestFactory) -> Self::Future {
        let client = self.client.clone();
        let policy = self.policy;
        let slot = Arc::clone(&self.retry_after);
        Box::pin(async move {
            let streaming = std::sync::atomic::AtomicBool::new(false);
            let attempt = || async {
                let request = factory.build().await.map_err(Failure::Final)?;
                let asks_to_stream = request
                    .body()
                    .and_then(reqwest::Body::as_bytes)
                    .is_some_and(crate::sse::asks_to_stream);
                streaming.store(asks_to_stream, std::sync::atomic::Ordering::Relaxed);
                let response = match client.execute(request).await {
                    Ok(response) => response,
                    Err(e) if is_transport_failure(&e) => return Err(Failure::Transport(e)),
                    Err(e) => return Err(Failure::Final(OpenAIError::Reqwest(e))),
                };
                let status = response.status();
                if status.as_u16() == 429 || status.is_server_error() {
                    let retry_after = response
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(parse_retry_after);
                    return Err(Failure::Status {
                        response,
                        retry_after,
                    });
                }
                Ok(response)
            };
            let outcome = attempt
                .retry(policy.backoff())
                .sleep(tokio::time::sleep)
                .when(Failure::retryable)
                .adjust(|failure, next| match failure {
                    Failure::Status {
                        retry_after: Some(wait),
                        ..
                    } => next.map(|_| (*wait).min(policy.max_delay)),
                    _ => next,
                })
                // Quietly: the final failure, if any, is reported once.
                .notify(|failure, delay| match failure {
                    Failure::Status { response, .. } => tracing::debug!(
                        status = response.status().as_u16(),
                        delay_ms = delay.as_millis() as u64,
                        "model server asked to retry"
                    ),
                    Failure::Transport(error) => tracing::debug!(
                        error = %error,
                        delay_ms = delay.as_millis() as u64,
                        "model server not reached, retrying"
                    ),
                    Failure::Final(_) => {}
                })
                .await;
            let streaming = streaming.load(std::sync::atomic::Ordering::Relaxed);
            match outcome {
                Ok(response) => shaped(response, streaming).await,
                Err(Failure::Status {
                    response,
                    retry_after,
                }) => {
                    if let Ok(mut slot) = slot.lock() {
                        *slot = retry_after;
                    }
                    shaped(response, streaming).await
                }
                Err(Failure::Transport(error)) => Err(OpenAIError::Reqwest(error)),
                Err(Failure::Final(error)) => Err(error),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_seconds_and_dates() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(parse_retry_after("-3"), None);
        assert_eq!(parse_retry_after("1e300"), None);
    }
}
