//! Fault injection: every fault a model server shows (429, 5xx, 401,
//! hangs, slow drips, garbage, empty choices, missing fields, cut
//! streams, bad tool arguments, 5 MB replies, refused connections,
//! non-ASCII text split mid-character), on both transports, streaming and
//! not, through a real `Agent` and `OpenAiCompatible` against the real
//! `CannedServer`. Every run ends by itself, within a time bound, with a
//! typed stop reason, and its outcome keeps the transcript and the usage.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_core::message::Role;
use agent_core::{Agent, Budget, ModelError, Outcome, StopReason, Transport};
use agent_native::testing::{Canned, CannedServer, refused_url};
use agent_native::{NativeTransport, OpenAiCompatible, ProviderConfig, RetryPolicy};
use agent_text::TextTransport;
use agent_tools::builtin;
use serde_json::json;

/// The time limit of one request attempt (and the idle limit of a stream).
const REQUEST_TIMEOUT: Duration = Duration::from_millis(600);

/// The request limit of replies that must arrive whole: far above what
/// they take, even in a debug build on a loaded machine.
const GENEROUS_TIMEOUT: Duration = Duration::from_secs(6);

/// Every run of the matrix ends within this (hangs last 600 s otherwise).
const WITHIN: Duration = Duration::from_secs(8);

/// The bound of a run whose replies must arrive whole (see
/// [`GENEROUS_TIMEOUT`]): a slow drip or a 5 MB reply in a debug build
/// beside a busy model server may take longer than [`WITHIN`], and what
/// these runs test is that the reply arrives whole, not how fast.
const GENEROUS_WITHIN: Duration = Duration::from_secs(40);

const TASK: &str = "What is 6*7? Answer in words.";

/// Mixed scripts, accents, emoji (4 bytes) and a combining mark.
const NON_ASCII: &str = "Zweiundvierzig — 四十二 🎉 café naïve e\u{301} Ωμέγα";

/// Tokens of one canned text completion, and of one with tool calls.
const TEXT_TOKENS: u64 = 25;
const CALL_TOKENS: u64 = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    Text,
    Native,
}

/// The four ways to drive a run.
const MODES: [(Via, bool); 4] = [
    (Via::Text, false),
    (Via::Text, true),
    (Via::Native, false),
    (Via::Native, true),
];

fn provider(url: &str, timeout: Duration) -> OpenAiCompatible {
    // No grammar probe: the canned answers are the run's requests only
    // (grammars have their own tests).
    let mut config = ProviderConfig::new(url, "test-model")
        .with_constrain(agent_native::Constrain::Off)
        .with_timeout(timeout)
        .with_retry(RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(50),
        });
    config.connect_timeout = Duration::from_millis(500);
    OpenAiCompatible::new(config).unwrap()
}

fn agent(url: &str, via: Via, streaming: bool, budget: Budget, timeout: Duration) -> Agent {
    let transport: Arc<dyn Transport> = match via {
        Via::Text => Arc::new(TextTransport::new()),
        Via::Native => Arc::new(NativeTransport::new()),
    };
    Agent::builder()
        .model(provider(url, timeout))
        .transport(transport)
        .toolbox(
            builtin::registry(&["calculator"], None, true)
                .unwrap()
                .allow_all(),
        )
        .streaming(streaming)
        .budget(budget)
        .build()
        .unwrap()
}

/// Four steps, no answer turn at a limit, and an answer after failed
/// calls taken as it is: these runs test how each fault itself ends (the
/// answer turn and the retry after failed calls have their own tests).
fn budget() -> Budget {
    Budget {
        max_steps: 4,
        answer_turn: false,
        retry_after_failed_calls: false,
        ..Budget::default()
    }
}

/// A final answer, as each transport's model writes it.
fn answer(via: Via, text: &str) -> Canned {
    match via {
        Via::Text => Canned::text(&format!("Thought: I know it now.\nFinal Answer: {text}")),
        Via::Native => Canned::text(text),
    }
}

/// A calculator call whose arguments are `arguments` (JSON text, valid or not).
fn act(via: Via, arguments: &str) -> Canned {
    match via {
        Via::Text => Canned::text(&format!(
            "Thought: I will compute it.\nAction: calculator\nAction Input: {arguments}"
        )),
        Via::Native => Canned::tool_calls(&[("call_1", "calculator", arguments)]),
    }
}

/// Tokens of `n` canned actions on `via`: the server's counts, except
/// when a text action is streamed: the stream is cut as soon as the
/// action is complete, before the server's counts, so usage is estimated.
fn act_tokens(via: Via, streaming: bool, n: u64) -> Option<u64> {
    match (via, streaming) {
        (Via::Text, true) => None,
        (Via::Text, false) => Some(n * TEXT_TOKENS),
        (Via::Native, _) => Some(n * CALL_TOKENS),
    }
}

/// An SSE chunk with this delta.
fn chunk(delta: serde_json::Value, finish: Option<&str>) -> String {
    json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
}

/// How a run must end.
enum Expect {
    /// A final answer with this text.
    Answer(String),
    /// A model error of this kind (checked by the predicate).
    Model(&'static str, fn(&ModelError) -> bool),
    /// This stop reason (a budget).
    Stop(StopReason),
}

/// One fault kind: what the server says and how the run ends, per
/// transport and mode.
struct Fault {
    name: &'static str,
    /// The server's answers, in order.
    script: fn(Via, bool) -> Vec<Canned>,
    /// A refused connection instead of a server.
    refused: bool,
    expect: fn(Via, bool) -> Expect,
    /// Total tokens the outcome's usage must show (`None`: an estimate,
    /// when a turn came without the server's counts).
    tokens: fn(Via, bool) -> Option<u64>,
    budget: fn() -> Budget,
    /// The time limit of one request attempt.
    request_timeout: Duration,
    /// Extra checks on the outcome.
    check: fn(Via, bool, &Outcome),
}

impl Fault {
    fn new(
        name: &'static str,
        script: fn(Via, bool) -> Vec<Canned>,
        expect: fn(Via, bool) -> Expect,
    ) -> Self {
        Self {
            name,
            script,
            refused: false,
            expect,
            tokens: |_, _| Some(0),
            request_timeout: REQUEST_TIMEOUT,
            budget,
            check: |_, _, _| {},
        }
    }

    fn tokens(mut self, tokens: fn(Via, bool) -> Option<u64>) -> Self {
        self.tokens = tokens;
        self
    }

    /// A request limit that a big or slow reply within the limits keeps
    /// whatever the machine's load (the default one is short, so hangs
    /// end soon).
    fn generous(mut self) -> Self {
        self.request_timeout = GENEROUS_TIMEOUT;
        self
    }

    fn budget(mut self, budget: fn() -> Budget) -> Self {
        self.budget = budget;
        self
    }

    fn check(mut self, check: fn(Via, bool, &Outcome)) -> Self {
        self.check = check;
        self
    }
}

fn kind(error: &ModelError) -> &'static str {
    match error {
        ModelError::RateLimited { .. } => "rate_limited",
        ModelError::Server { .. } => "server",
        ModelError::Timeout { .. } => "timeout",
        ModelError::Auth { .. } => "auth",
        ModelError::Connection { .. } => "connection",
        ModelError::BadResponse { .. } => "bad_response",
        ModelError::Rejected { .. } => "rejected",
        _ => "other",
    }
}

/// Runs `fault` on both transports, streaming and not, and checks each run.
async fn matrix(fault: Fault) {
    for (via, streaming) in MODES {
        let label = format!(
            "{} / {via:?} / {}",
            fault.name,
            if streaming { "streaming" } else { "whole" }
        );
        let server = CannedServer::start((fault.script)(via, streaming))
            .await
            .unwrap();
        let url = if fault.refused {
            refused_url().unwrap()
        } else {
            server.url().to_string()
        };
        let agent = agent(
            &url,
            via,
            streaming,
            (fault.budget)(),
            fault.request_timeout,
        );
        let within = if fault.request_timeout == GENEROUS_TIMEOUT {
            GENEROUS_WITHIN
        } else {
            WITHIN
        };
        let started = Instant::now();
        let outcome = tokio::time::timeout(within, agent.run(TASK))
            .await
            .unwrap_or_else(|_| panic!("{label}: the run did not end within {within:?}"));
        let elapsed = started.elapsed();
        match (fault.expect)(via, streaming) {
            Expect::Answer(text) => {
                assert_eq!(
                    outcome.stop_reason,
                    StopReason::FinalAnswer,
                    "{label} ({elapsed:?})"
                );
                let answer = outcome.answer.as_deref().unwrap_or_default();
                assert!(
                    answer == text,
                    "{label}: answer of {} bytes, expected {} bytes: {:?}…",
                    answer.len(),
                    text.len(),
                    answer.chars().take(80).collect::<String>()
                );
                let last = outcome.transcript.last().unwrap();
                assert_eq!(last.role, Role::Assistant, "{label}");
            }
            Expect::Model(expected, predicate) => {
                let StopReason::Model(error) = &outcome.stop_reason else {
                    panic!(
                        "{label}: expected a model error ({expected}), got {:?} after {elapsed:?}",
                        outcome.stop_reason
                    );
                };
                assert_eq!(kind(error), expected, "{label}: {error:?}");
                assert!(predicate(error), "{label}: {error:?}");
                assert_eq!(outcome.answer, None, "{label}");
            }
            Expect::Stop(reason) => {
                assert_eq!(outcome.stop_reason, reason, "{label} ({elapsed:?})");
            }
        }
        // The transcript keeps the system prompt and the task, whatever the end.
        assert!(outcome.transcript.len() >= 2, "{label}: {outcome:?}");
        assert_eq!(outcome.transcript[0].role, Role::System, "{label}");
        assert_eq!(outcome.transcript[1].role, Role::User, "{label}");
        assert!(outcome.transcript[1].content.contains(TASK), "{label}");
        // And the usage: the server's counts, or an estimate where it gave none.
        let usage = outcome.usage;
        match (fault.tokens)(via, streaming) {
            Some(tokens) => {
                assert_eq!(usage.total_tokens, tokens, "{label}: {usage:?}");
                assert!(!usage.estimated, "{label}: {usage:?}");
            }
            None => assert!(
                usage.estimated && usage.total_tokens > 0,
                "{label}: {usage:?}"
            ),
        }
        (fault.check)(via, streaming, &outcome);
    }
}

fn any(_: &ModelError) -> bool {
    true
}

// ---- 429 --------------------------------------------------------------

#[tokio::test]
async fn rate_limited_then_the_server_recovers() {
    matrix(
        Fault::new(
            "429 then an answer",
            |via, _| vec![Canned::rate_limited("0.05"), answer(via, "forty-two")],
            |_, _| Expect::Answer("forty-two".into()),
        )
        .tokens(|_, _| Some(TEXT_TOKENS)),
    )
    .await;
}

#[tokio::test]
async fn rate_limited_past_the_retries_with_a_long_retry_after() {
    // Retry-After: 3600 is capped by the policy: the run still ends in time.
    matrix(Fault::new(
        "429 x3",
        |_, _| vec![Canned::rate_limited("3600"); 3],
        |_, _| {
            Expect::Model("rate_limited", |e| {
                matches!(e, ModelError::RateLimited { message, .. } if message.contains("Rate limit reached"))
            })
        },
    ))
    .await;
}

// ---- 5xx --------------------------------------------------------------

#[tokio::test]
async fn server_errors_then_the_server_recovers() {
    matrix(
        Fault::new(
            "500, 503 then an answer",
            |via, _| {
                vec![
                    Canned::status(500, "internal error"),
                    Canned::status(503, "<html>overloaded</html>"),
                    answer(via, "forty-two"),
                ]
            },
            |_, _| Expect::Answer("forty-two".into()),
        )
        .tokens(|_, _| Some(TEXT_TOKENS)),
    )
    .await;
}

#[tokio::test]
async fn server_errors_past_the_retries_after_a_tool_round() {
    matrix(
        Fault::new(
            "a tool round then 502 x3",
            |via, _| {
                vec![
                    act(via, r#"{"expression": "6*7"}"#),
                    Canned::status(502, "bad gateway"),
                    Canned::status(502, "<html><body>\n<h1>502 Bad Gateway</h1>\n</body></html>"),
                    Canned::status(
                        502,
                        r#"{"error": {"message": "upstream timed out", "code": 502}}"#,
                    ),
                ]
            },
            |_, _| {
                // The last answer's message, as the server put it.
                Expect::Model("server", |e| {
                    matches!(e, ModelError::Server { status: 502, message } if message == "upstream timed out")
                })
            },
        )
        .tokens(|via, streaming| act_tokens(via, streaming, 1))
        .check(|_, _, outcome| {
            // The work before the failure is kept: the call and its observation.
            assert_eq!(outcome.tool_calls, 1);
            assert_eq!(outcome.steps, 2);
            assert!(outcome.transcript.iter().any(|m| m.content.contains("42")));
        }),
    )
    .await;
}

// ---- 401 and other 4xx ---------------------------------------------------

#[tokio::test]
async fn unauthorized_is_an_auth_error_at_once() {
    matrix(Fault::new(
        "401",
        |_, _| {
            vec![Canned::status(
                401,
                r#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}"#,
            )]
        },
        |_, _| {
            Expect::Model("auth", |e| {
                matches!(e, ModelError::Auth { message } if message == "Incorrect API key provided")
            })
        },
    ))
    .await;
}

#[tokio::test]
async fn auth_and_rate_limit_errors_are_typed_whatever_the_body() {
    // llama.cpp's numeric code, a proxy's HTML page, vLLM's top-level
    // message, Ollama's plain string: the status decides the kind, and
    // the server's message is kept.
    matrix(Fault::new(
        "401 from llama.cpp",
        |_, _| {
            vec![Canned::status(
                401,
                r#"{"error": {"code": 401, "message": "Invalid API Key", "type": "authentication_error"}}"#,
            )]
        },
        |_, _| {
            Expect::Model("auth", |e| {
                matches!(e, ModelError::Auth { message } if message == "Invalid API Key")
            })
        },
    ))
    .await;
    matrix(Fault::new(
        "401 as an HTML page",
        |_, _| {
            vec![Canned::status(
                401,
                "<html>\n<head><title>401 Authorization Required</title></head>\n<body>nginx</body>\n</html>",
            )]
        },
        |_, _| {
            Expect::Model("auth", |e| {
                matches!(e, ModelError::Auth { message } if message.contains("401 Authorization Required") && !message.contains('\n'))
            })
        },
    ))
    .await;
    matrix(Fault::new(
        "403 from vLLM",
        |_, _| {
            vec![Canned::status(
                403,
                r#"{"object": "error", "message": "Forbidden: bad key", "type": "PermissionError", "param": null, "code": 403}"#,
            )]
        },
        |_, _| {
            Expect::Model("auth", |e| {
                matches!(e, ModelError::Auth { message } if message == "Forbidden: bad key")
            })
        },
    ))
    .await;
    matrix(Fault::new(
        "429 as plain text x3",
        |_, _| vec![Canned::status(429, "Too Many Requests: slow down").header("retry-after", "0"); 3],
        |_, _| {
            Expect::Model("rate_limited", |e| {
                matches!(e, ModelError::RateLimited { message, .. } if message == "Too Many Requests: slow down")
            })
        },
    ))
    .await;
    matrix(Fault::new(
        "400 from Ollama",
        |_, _| vec![Canned::status(400, r#"{"error": "model 'test-model' not found"}"#)],
        |_, _| {
            Expect::Model("rejected", |e| {
                matches!(e, ModelError::Rejected { status: 400, message } if message == "model 'test-model' not found")
            })
        },
    ))
    .await;
}

#[tokio::test]
async fn a_bad_request_is_rejected_not_retried() {
    matrix(Fault::new(
        "400",
        |via, _| {
            vec![
                Canned::status(400, r#"{"error": {"message": "context length exceeded"}}"#),
                answer(via, "never sent"),
            ]
        },
        |_, _| {
            Expect::Model("rejected", |e| {
                matches!(e, ModelError::Rejected { status: 400, .. })
            })
        },
    ))
    .await;
}

// ---- hangs and slow drips -------------------------------------------------

#[tokio::test]
async fn a_server_that_never_answers_is_a_timeout() {
    matrix(Fault::new(
        "hang",
        |_, _| vec![Canned::Hang],
        |_, _| {
            Expect::Model("timeout", |e| {
                matches!(e, ModelError::Timeout { after_ms: 600 })
            })
        },
    ))
    .await;
}

#[tokio::test]
async fn a_server_that_stalls_mid_body_is_a_timeout() {
    matrix(Fault::new(
        "stall mid-body",
        |via, _| vec![answer(via, "forty-two").stalled_after(30)],
        |_, _| Expect::Model("timeout", any),
    ))
    .await;
}

#[tokio::test]
async fn a_slow_drip_within_the_limits_is_read_whole() {
    // One byte at a time, head included: slow, but never idle for long.
    matrix(
        Fault::new(
            "drip 1 byte / 1 ms",
            |via, _| vec![answer(via, NON_ASCII).dripped(1, Duration::from_millis(1))],
            |_, _| Expect::Answer(NON_ASCII.into()),
        )
        .tokens(|_, _| Some(TEXT_TOKENS))
        .generous(),
    )
    .await;
}

#[tokio::test]
async fn a_drip_slower_than_the_request_limits_is_a_timeout() {
    // Never idle for the read timeout, but a whole reply (or one stream
    // event) takes far longer than the request may.
    matrix(Fault::new(
        "drip past the request timeout",
        |via, _| vec![answer(via, &"forty-two ".repeat(300)).dripped(1, Duration::from_millis(10))],
        |_, _| Expect::Model("timeout", any),
    ))
    .await;
}

#[tokio::test]
async fn an_endless_drip_is_stopped_by_the_run_clock() {
    // A stream of small events, each in time, that would go on for a
    // minute; the whole body dripped as slowly when not streaming.
    matrix(
        Fault::new(
            "endless drip with a 1 s run budget",
            |via, streaming| {
                if streaming {
                    let events = (0..1000)
                        .map(|_| chunk(json!({"content": "forty-two "}), None))
                        .collect();
                    vec![Canned::Sse { events, cut: false }.dripped(16, Duration::from_millis(10))]
                } else {
                    vec![
                        answer(via, &"forty-two ".repeat(500))
                            .dripped(16, Duration::from_millis(10)),
                    ]
                }
            },
            |_, _| Expect::Stop(StopReason::Timeout),
        )
        .budget(|| Budget {
            timeout: Some(Duration::from_secs(1)),
            ..budget()
        })
        .check(|_, _, outcome| {
            assert!(
                (1000..4000).contains(&outcome.elapsed_ms),
                "{}",
                outcome.elapsed_ms
            );
        }),
    )
    .await;
}

// ---- garbage ------------------------------------------------------------

#[tokio::test]
async fn a_garbage_body_is_a_bad_response_that_keeps_it() {
    matrix(Fault::new(
        "garbage body",
        |_, _| vec![Canned::status(200, "<html><body>Bad Gateway — 网关错误</body></html>")],
        |_, streaming| {
            if streaming {
                // Not an event stream: it ends with no turn in it.
                Expect::Model("bad_response", |e| {
                    matches!(e, ModelError::BadResponse { message, .. } if message.contains("ended before"))
                })
            } else {
                Expect::Model("bad_response", |e| {
                    matches!(e, ModelError::BadResponse { raw, .. } if raw.contains("网关错误"))
                })
            }
        },
    ))
    .await;
}

#[tokio::test]
async fn garbage_events_in_a_stream_are_a_bad_response() {
    matrix(Fault::new(
        "garbage events",
        |_, _| {
            let events = vec![
                chunk(json!({"content": "The answer"}), None),
                "{\"choices\": [garbage ☃".to_string(),
            ];
            vec![Canned::Sse { events, cut: false }]
        },
        |_, streaming| {
            if streaming {
                Expect::Model("bad_response", |e| {
                    matches!(e, ModelError::BadResponse { raw, .. } if raw.contains("garbage ☃"))
                })
            } else {
                // An event stream sent to a request that did not ask for one.
                Expect::Model("bad_response", |e| {
                    matches!(e, ModelError::BadResponse { raw, .. } if raw.contains("data: "))
                })
            }
        },
    ))
    .await;
}

#[tokio::test]
async fn a_server_that_does_not_speak_http_is_a_connection_error() {
    // Say, a base URL pointing at an SSH port: no model server there.
    matrix(Fault::new(
        "not HTTP",
        |_, _| vec![Canned::raw(b"SSH-2.0-OpenSSH_9.6\r\n\x00\xff\xfe".to_vec()); 3],
        |_, _| {
            Expect::Model(
                "connection",
                |e| matches!(e, ModelError::Connection { message } if message.contains("HTTP")),
            )
        },
    ))
    .await;
}

// ---- empty choices and missing fields --------------------------------------

#[tokio::test]
async fn empty_choices_are_a_bad_response() {
    matrix(Fault::new(
        "empty choices",
        |_, streaming| {
            if streaming {
                let events = vec![
                    json!({"choices": []}).to_string(),
                    json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 0, "total_tokens": 3}}).to_string(),
                ];
                vec![Canned::Sse { events, cut: false }]
            } else {
                vec![Canned::json(json!({"id": "x", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 0, "total_tokens": 3}}))]
            }
        },
        |_, streaming| {
            Expect::Model(
                "bad_response",
                if streaming {
                    |e| matches!(e, ModelError::BadResponse { message, .. } if message.contains("ended before"))
                } else {
                    |e| matches!(e, ModelError::BadResponse { message, raw } if message.contains("no choices") && raw.contains("\"choices\":[]"))
                },
            )
        },
    ))
    .await;
}

#[tokio::test]
async fn missing_optional_fields_are_tolerated() {
    // No id, object, model, usage, role or index: the text and the finish
    // reason are enough.
    matrix(
        Fault::new(
            "missing fields",
            |via, streaming| {
                let text = match via {
                    Via::Text => format!("Final Answer: {NON_ASCII}"),
                    Via::Native => NON_ASCII.to_string(),
                };
                if streaming {
                    let events = vec![
                        json!({"choices": [{"delta": {"content": text}}]}).to_string(),
                        json!({"choices": [{"delta": {}, "finish_reason": "stop"}]}).to_string(),
                    ];
                    vec![Canned::Sse { events, cut: false }]
                } else {
                    vec![Canned::json(
                        json!({"choices": [{"message": {"content": text}}]}),
                    )]
                }
            },
            |_, _| Expect::Answer(NON_ASCII.into()),
        )
        .tokens(|_, _| None),
    )
    .await;
}

// ---- cut streams and closed connections -------------------------------------

#[tokio::test]
async fn a_reply_cut_mid_body_is_never_taken_for_an_answer() {
    // The connection closes 40 bytes into the body: mid-JSON, or
    // mid-stream before any finish reason.
    matrix(Fault::new(
        "closed mid-body",
        |via, _| vec![answer(via, "forty-two, and a long explanation").closed_after(40)],
        |_, streaming| {
            Expect::Model(
                "bad_response",
                if streaming {
                    |e| matches!(e, ModelError::BadResponse { message, .. } if message.contains("ended before"))
                } else {
                    |e| matches!(e, ModelError::BadResponse { message, .. } if message.contains("broke off"))
                },
            )
        },
    ))
    .await;
}

#[tokio::test]
async fn a_stream_cut_before_done_after_a_tool_round_keeps_the_round() {
    matrix(
        Fault::new(
            "a tool round then a cut stream",
            |via, _| {
                let events = vec![
                    chunk(
                        json!({"content": "Thought: I know it now.\nFinal Ans"}),
                        None,
                    ),
                    chunk(json!({"content": "wer: forty"}), None),
                ];
                vec![
                    act(via, r#"{"expression": "6*7"}"#),
                    Canned::Sse { events, cut: true },
                ]
            },
            |_, _| Expect::Model("bad_response", any),
        )
        .tokens(|via, streaming| act_tokens(via, streaming, 1))
        .check(|_, _, outcome| {
            assert_eq!((outcome.steps, outcome.tool_calls), (2, 1));
            assert!(
                outcome
                    .transcript
                    .iter()
                    .all(|m| !m.content.contains("forty"))
            );
        }),
    )
    .await;
}

#[tokio::test]
async fn a_connection_closed_before_any_answer_is_retried() {
    matrix(
        Fault::new(
            "closed unanswered then an answer",
            |via, _| vec![Canned::raw(Vec::new()), answer(via, "forty-two")],
            |_, _| Expect::Answer("forty-two".into()),
        )
        .tokens(|_, _| Some(TEXT_TOKENS)),
    )
    .await;
}

#[tokio::test]
async fn a_refused_connection_is_a_connection_error() {
    let mut fault = Fault::new(
        "refused",
        |_, _| Vec::new(),
        |_, _| {
            Expect::Model(
                "connection",
                |e| matches!(e, ModelError::Connection { message } if !message.is_empty()),
            )
        },
    );
    fault.refused = true;
    matrix(fault).await;
}

// ---- bad tool arguments --------------------------------------------------------

#[tokio::test]
async fn bad_tool_arguments_become_an_observation_and_the_run_goes_on() {
    matrix(
        Fault::new(
            "bad arguments then an answer",
            |via, _| {
                vec![
                    act(via, r#"{"expression": 6*7, "unit": }"#),
                    act(via, r#"{"expression": "6*7", "colour": "blue"}"#),
                    answer(via, "forty-two"),
                ]
            },
            |_, _| Expect::Answer("forty-two".into()),
        )
        .tokens(|via, streaming| act_tokens(via, streaming, 2).map(|t| t + TEXT_TOKENS))
        .check(|via, _, outcome| {
            let errors = outcome
                .transcript
                .iter()
                .filter(|m| m.content.contains("Error"))
                .count();
            assert_eq!(errors, 2, "{via:?}: {:#?}", outcome.transcript);
            assert_eq!(outcome.steps, 3);
        }),
    )
    .await;
}

#[tokio::test]
async fn bad_tool_arguments_forever_end_in_a_budget_stop() {
    matrix(
        Fault::new(
            "bad arguments forever",
            |via, _| vec![act(via, r#"{"expression": "#); 6],
            |via, _| match via {
                // Unreadable text turns are malformed: three in a row stop.
                Via::Text => Expect::Stop(StopReason::TooManyMalformed),
                // The same call again and again is a loop.
                Via::Native => Expect::Stop(StopReason::LoopDetected),
            },
        )
        .tokens(|via, _| {
            // An input that never closes is never cut: the server's counts.
            act_tokens(via, false, 3)
        })
        .budget(|| Budget {
            max_steps: 6,
            // Three bad turns in a row on text; on native, the third
            // identical call.
            loop_threshold: 3,
            ..budget()
        }),
    )
    .await;
}

#[tokio::test]
async fn tool_calls_without_end_stop_at_the_step_budget() {
    matrix(
        Fault::new(
            "endless tool calls",
            |via, _| {
                (1..=6)
                    .map(|i| act(via, &format!(r#"{{"expression": "{i}*7"}}"#)))
                    .collect()
            },
            |_, _| Expect::Stop(StopReason::MaxSteps),
        )
        .tokens(|via, streaming| act_tokens(via, streaming, 4))
        .check(|_, _, outcome| assert_eq!((outcome.steps, outcome.tool_calls), (4, 4))),
    )
    .await;
}

// ---- 5 MB replies and non-ASCII text ------------------------------------------------

const FIVE_MB: usize = 5 * 1024 * 1024;

fn huge_text() -> String {
    let unit = "forty-two, zweiundvierzig, 四十二 🎉\n";
    unit.repeat(FIVE_MB / unit.len() + 1).trim_end().to_string()
}

#[tokio::test]
async fn a_5_mb_answer_arrives_whole() {
    matrix(
        Fault::new(
            "5 MB answer",
            |via, _| vec![answer(via, &huge_text())],
            |_, _| Expect::Answer(huge_text()),
        )
        .tokens(|_, _| Some(TEXT_TOKENS))
        .generous(),
    )
    .await;
}

#[tokio::test]
async fn a_5_mb_garbage_reply_is_a_bad_response() {
    matrix(
        Fault::new(
            "5 MB garbage",
            |_, _| vec![Canned::status(200, &"garbage ".repeat(FIVE_MB / 8))],
            |_, _| Expect::Model("bad_response", any),
        )
        .generous(),
    )
    .await;
}

#[tokio::test]
async fn a_non_ascii_reply_split_through_its_characters_arrives_whole() {
    // Pieces every 7 bytes: many cuts fall inside a multi-byte character.
    matrix(
        Fault::new(
            "non-ASCII split every 7 bytes",
            |via, _| {
                vec![answer(via, NON_ASCII).split_at((1..4000).step_by(7).collect::<Vec<_>>())]
            },
            |_, _| Expect::Answer(NON_ASCII.into()),
        )
        .tokens(|_, _| Some(TEXT_TOKENS)),
    )
    .await;
}
