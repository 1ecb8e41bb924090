//! What the live tests share: finding the model server, or saying plainly
//! that the test skipped.

use std::time::Duration;

/// The server's base URL (`AGENT_LIVE_BASE_URL`, default the local server
/// on port 8088) when `GET {url}/models` answers; otherwise prints that
/// `test` skipped and returns `None`.
pub(crate) async fn live_server(test: &str) -> Option<String> {
    let url =
        std::env::var("AGENT_LIVE_BASE_URL").unwrap_or_else(|_| "http://127.0.0.1:8088/v1".into());
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()
        .ok()?;
    match client.get(format!("{url}/models")).send().await {
        Ok(response) if response.status().is_success() => Some(url),
        _ => {
            eprintln!(
                "SKIPPED {test}: no model server answers at {url} \
                 (start one with ../shared/tools/local-llm/start.sh, or set AGENT_LIVE_BASE_URL)"
            );
            None
        }
    }
}
