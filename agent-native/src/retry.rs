//! [`RetryService`]: the HTTP layer under async-openai's client. It retries
//! HTTP 429 and 5xx with exponential backoff and jitter, honours
//! `Retry-After` (seconds or an HTTP date), retries transport failures
//! before any response (refused, reset, closed unanswered; not a timeout),
//! and stops after the retry budget, handing the last response (or
//! failure) to the client to become a typed error. An event stream is
//! handed on in whole lines (see `sse`), a whole body once it is known to
//! be JSON, and an error's body in the form the client reads, whatever
//! the server wrote.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use reqwest::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Response, StatusCode, Version};

/// How retries are spaced and bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 3).
    pub max_retries: u32,
    /// First backoff (default 500 ms), doubled each retry.
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
    /// The delay before retry number `attempt` (0-based): the server's
    /// `Retry-After` when given (capped), else exponential backoff with
    /// jitter in [½d, d].
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.max_delay);
        }
        let exp = self.base_delay.saturating_mul(1u32 << attempt.min(16));
        let capped = exp.min(self.max_delay);
        let half = capped / 2;
        half + half.mul_f64(jitter())
    }
}

/// A number in [0, 1) that differs per call (for jitter only).
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// Reads `Retry-After`: whole seconds, or an HTTP date.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let date = httpdate_to_unix(value)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(Duration::from_secs(date.saturating_sub(now)))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) to Unix seconds.
fn httpdate_to_unix(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let day: u64 = day.parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)? as u64
        + 1;
    let year: u64 = year.parse().ok()?;
    let hms: Vec<u64> = time.split(':').filter_map(|p| p.parse().ok()).collect();
    let [h, m, sec] = hms.as_slice() else {
        return None;
    };
    // Days from civil (Howard Hinnant's algorithm), for years >= 1970.
    let (y, mo) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    Some(days * 86_400 + h * 3600 + m * 60 + sec)
}

/// Whether another attempt may get past `error`: a failure before any
/// response (the connection refused, reset or closed unanswered). A
/// timeout is not retried: that attempt had its whole time limit.
fn retryable(error: &reqwest::Error) -> bool {
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

/// The tower service async-openai's client sends requests through.
#[derive(Clone, Debug)]
pub struct RetryService {
    client: reqwest::Client,
    policy: RetryPolicy,
}

impl RetryService {
    /// Sends with `client`, retrying by `policy`.
    pub fn new(client: reqwest::Client, policy: RetryPolicy) -> Self {
        Self { client, policy }
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
        Box::pin(async move {
            let mut attempt = 0;
            loop {
                let request = factory.build().await?;
                let streaming = request
                    .body()
                    .and_then(reqwest::Body::as_bytes)
                    .is_some_and(crate::sse::asks_to_stream);
                let response = match client.execute(request).await {
                    Ok(response) => response,
                    Err(error) if attempt < policy.max_retries && retryable(&error) => {
                        let delay = policy.delay(attempt, None);
                        // Quietly: the final failure, if any, is reported once.
                        tracing::debug!(
                            error = %error,
                            attempt = attempt + 1,
                            delay_ms = delay.as_millis() as u64,
                            "model server not reached, retrying"
                        );
                        tokio::time::sleep(delay).await;
                        attempt += 1;
                        continue;
                    }
                    Err(error) => return Err(OpenAIError::Reqwest(error)),
                };
                let status = response.status();
                let retryable = status.as_u16() == 429 || status.is_server_error();
                if !retryable || attempt >= policy.max_retries {
                    if streaming && status.is_success() {
                        return Ok(crate::sse::line_aligned(response));
                    }
                    if status.is_success() {
                        return checked_json(response).await;
                    }
                    if status.is_client_error() || status.is_server_error() {
                        return readable_error(response).await;
                    }
                    return Ok(response);
                }
                let retry_after = response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(parse_retry_after);
                let delay = policy.delay(attempt, retry_after);
                tracing::warn!(
                    status = status.as_u16(),
                    attempt = attempt + 1,
                    delay_ms = delay.as_millis() as u64,
                    "model server asked to retry"
                );
                drop(response);
                tokio::time::sleep(delay).await;
                attempt += 1;
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
        assert_eq!(
            httpdate_to_unix("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn backoff_grows_is_jittered_and_capped() {
        let policy = RetryPolicy::default();
        for attempt in 0..6 {
            let d = policy.delay(attempt, None);
            let full = policy
                .base_delay
                .saturating_mul(1 << attempt)
                .min(policy.max_delay);
            assert!(d >= full / 2 && d <= full, "{attempt}: {d:?}");
        }
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3600))),
            policy.max_delay
        );
    }
}
