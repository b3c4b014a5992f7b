//! How an agent run ended, read from what the agent printed and how it exited.
//!
//! A profile's `result` names the kind of document its agent prints. The verdict is
//! decided by structure (exit code, `is_error`, `api_error_status`, event types), never
//! by a field that lies (claude's `subtype` says "success" on a 429). A usage limit is
//! its own verdict, not a failure: the plan is out of quota, the task is not at fault.

use super::limits::{self, Said};
use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kind of result document a profile's agent prints on stdout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultKind {
    /// Only the exit code counts: 0 is success.
    #[default]
    ExitCode,
    /// `claude -p --output-format json`: one result document.
    ClaudeJson,
    /// `codex exec --json`: JSON lines of events.
    CodexJsonl,
    /// `gemini -p --output-format json` (or `stream-json`): its quota errors are told on
    /// stderr only, so stderr is read too.
    GeminiJson,
}

/// What fleet knows about a finished run, apart from what the agent printed.
#[derive(Clone, Copy, Debug)]
pub struct Ended<'a> {
    /// The code a shell would report (124 on fleet's timeout, 128+N for signal N).
    pub code: i32,
    /// fleet's timeout stopped the run.
    pub timed_out: bool,
    /// fleet itself stopped the run (a drainer stopping, its stop timeout passed).
    pub stopped: bool,
    pub stdout: &'a [u8],
    pub stderr: &'a [u8],
}

/// What a run reported it used, when it says.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// All input tokens, cached ones included (claude's `input_tokens` plus its
    /// `cache_creation_input_tokens` and `cache_read_input_tokens`; codex's `input_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// A usage limit or overload the provider reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    /// `claude`, `codex` or `gemini`.
    pub provider: String,
    /// The HTTP status the agent reported, when it did (429, 529).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// An overload (529): a back-off, not a closed plan.
    pub overload: bool,
    /// When the limit resets (seconds since the epoch), when the agent said so in a
    /// form that can be read without guessing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resets_at: Option<i64>,
    /// The agent's own words (bounded, see [`REASON_MAX`]).
    pub text: String,
}

/// The verdict on a run.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Succeeded {
        usage: Usage,
    },
    Failed {
        reason: String,
        usage: Usage,
    },
    TimedOut {
        reason: String,
    },
    /// Killed by a signal fleet did not send, or no result document where one was due.
    Crashed {
        reason: String,
    },
    Limited {
        limit: Limit,
        usage: Usage,
    },
}

/// The most of the agent's own words a reason keeps (bytes): enough for the next
/// attempt's plan to say what went wrong, small enough for a task record.
pub const REASON_MAX: usize = 600;

/// Classify a finished run. `now` is for reset times given as a clock time ("resets
/// 10pm"), which are read as the next such time after `now`; times that name no zone
/// are read in the system's local zone.
pub fn classify(kind: ResultKind, ended: &Ended, now: i64) -> Verdict {
    classify_in(kind, ended, now, &TimeZone::system())
}

/// [`classify`] with the zone for reset times that name none given by the caller.
pub fn classify_in(kind: ResultKind, ended: &Ended, now: i64, local: &TimeZone) -> Verdict {
    if ended.timed_out || ended.stopped {
        // fleet ended it: whatever was printed is a partial record, not a result.
        let what = if ended.stopped {
            "stopped by the drainer"
        } else {
            "timed out"
        };
        return Verdict::TimedOut {
            reason: with_words(what.to_string(), &last_words(ended.stderr)),
        };
    }
    let read = Read { ended, now, local };
    match kind {
        ResultKind::ExitCode => by_exit_code(ended),
        ResultKind::ClaudeJson => read.claude(),
        ResultKind::CodexJsonl => read.codex(),
        ResultKind::GeminiJson => read.gemini(),
    }
}

/// The verdict from the exit code alone.
fn by_exit_code(ended: &Ended) -> Verdict {
    match ended.code {
        0 => Verdict::Succeeded {
            usage: Usage::default(),
        },
        code if code > 128 => Verdict::Crashed {
            reason: with_words(
                format!("killed by signal {}", code - 128),
                &last_words(ended.stderr),
            ),
        },
        code => Verdict::Failed {
            reason: with_words(
                format!("exited with code {code}"),
                &last_words(ended.stderr),
            ),
            usage: Usage::default(),
        },
    }
}

/// What stdout holds, read leniently: one JSON document (an object, or an array of
/// events as `--verbose` prints), else JSON lines (lines that are not JSON skipped).
enum Output {
    /// Nothing but whitespace: no document at all.
    Empty,
    /// Something, but no JSON object in it: its first bytes.
    NotJson(String),
    Events(Vec<Value>),
}

fn read_output(stdout: &[u8]) -> Output {
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Output::Empty;
    }
    match serde_json::from_slice::<Value>(stdout) {
        Ok(Value::Array(events)) => {
            return Output::Events(events.into_iter().filter(Value::is_object).collect());
        }
        Ok(event @ Value::Object(_)) => return Output::Events(vec![event]),
        _ => {}
    }
    let events: Vec<Value> = stdout
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line.trim_ascii()).ok())
        .filter(Value::is_object)
        .collect();
    if events.is_empty() {
        let head = String::from_utf8_lossy(&stdout[..stdout.len().min(160)]);
        return Output::NotJson(one_line(head.trim()));
    }
    Output::Events(events)
}

/// One run's end being read.
struct Read<'a> {
    ended: &'a Ended<'a>,
    now: i64,
    local: &'a TimeZone,
}

impl Read<'_> {
    /// `claude -p --output-format json|stream-json`.
    fn claude(&self) -> Verdict {
        let events = match read_output(self.ended.stdout) {
            Output::Empty => return self.no_document("claude"),
            Output::NotJson(head) => return not_json("claude", "--output-format json", &head),
            Output::Events(events) => events,
        };
        // stream-json: `rate_limit_event`s carry the one structured reset time.
        let rejected = events
            .iter()
            .rev()
            .filter(|e| e["type"] == "rate_limit_event")
            .map(|e| e.get("rate_limit_info").unwrap_or(e))
            .find(|info| info["status"] == "rejected")
            .map(|info| info["resetsAt"].as_i64());
        let Some(result) = events.iter().rev().find(|e| e["type"] == "result") else {
            if let Some(resets_at) = rejected {
                return self.limited_by_event("claude", resets_at, "", Usage::default());
            }
            return self.no_result("claude", "no `\"type\": \"result\"` document");
        };
        let usage = claude_usage(result);
        let text = claude_text(result);
        // `subtype` is never read: it says "success" on a 429.
        let is_error = result["is_error"].as_bool().unwrap_or(self.ended.code != 0);
        if !is_error {
            return self.exit_after_result(usage);
        }
        let status = result["api_error_status"]
            .as_u64()
            .and_then(|s| u16::try_from(s).ok());
        let limit = match status {
            Some(429) => Some(Said {
                overload: false,
                status,
            }),
            Some(529) => Some(Said {
                overload: true,
                status,
            }),
            // Another status is structure too: an error, not a limit.
            Some(_) => None,
            None if rejected.is_some() => Some(Said {
                overload: false,
                status: None,
            }),
            None => limits::limit_said(&text),
        };
        if let Some(said) = limit {
            let resets_at = rejected
                .flatten()
                .or_else(|| limits::reset_in_text(&text, self.now, self.local));
            return limited("claude", said, resets_at, &text, usage);
        }
        let mut what = "claude reported an error".to_string();
        let terminal = result["terminal_reason"].as_str().unwrap_or("");
        let details: Vec<String> = [
            (!terminal.is_empty() && terminal != "completed")
                .then(|| format!("terminal_reason {terminal}")),
            status.map(|s| format!("API status {s}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !details.is_empty() {
            what = format!("{what} ({})", details.join(", "));
        }
        Verdict::Failed {
            reason: with_words(what, &bounded(&text)),
            usage,
        }
    }

    /// `codex exec --json`.
    fn codex(&self) -> Verdict {
        let events = match read_output(self.ended.stdout) {
            Output::Empty => return self.no_document("codex"),
            Output::NotJson(head) => return not_json("codex", "exec --json", &head),
            Output::Events(events) => events,
        };
        let mut usage = Usage::default();
        for e in events.iter().filter(|e| e["type"] == "turn.completed") {
            let u = &e["usage"];
            add(&mut usage.input_tokens, u["input_tokens"].as_u64());
            add(&mut usage.output_tokens, u["output_tokens"].as_u64());
        }
        let error = events
            .iter()
            .rev()
            .find(|e| e["type"] == "error")
            .and_then(|e| e["message"].as_str());
        let last_turn = events
            .iter()
            .rev()
            .find(|e| e["type"] == "turn.completed" || e["type"] == "turn.failed");
        match last_turn {
            Some(turn) if turn["type"] == "turn.completed" => self.exit_after_result(usage),
            Some(turn) => {
                let message = turn["error"]["message"]
                    .as_str()
                    .or(error)
                    .unwrap_or_default()
                    .to_string();
                if let Some(said) = limits::limit_said(&message) {
                    let resets_at = limits::reset_in_text(&message, self.now, self.local);
                    return limited("codex", said, resets_at, &message, usage);
                }
                Verdict::Failed {
                    reason: with_words("codex: the turn failed".to_string(), &bounded(&message)),
                    usage,
                }
            }
            None => {
                if let Some(message) = error {
                    if let Some(said) = limits::limit_said(message) {
                        let resets_at = limits::reset_in_text(message, self.now, self.local);
                        return limited("codex", said, resets_at, message, usage);
                    }
                    if self.ended.code != 0 && self.ended.code <= 128 {
                        return Verdict::Failed {
                            reason: with_words(
                                format!("codex: exited with code {}", self.ended.code),
                                &bounded(message),
                            ),
                            usage,
                        };
                    }
                }
                self.no_result("codex", "no `turn.completed` or `turn.failed` event")
            }
        }
    }

    /// `gemini -p --output-format json|stream-json`: its JSON says "An unknown error
    /// occurred" on a quota error; the `TerminalQuotaError` is on stderr.
    fn gemini(&self) -> Verdict {
        let stderr = String::from_utf8_lossy(self.ended.stderr);
        let output = read_output(self.ended.stdout);
        let events = match &output {
            Output::Events(events) => events.as_slice(),
            _ => &[],
        };
        let usage = gemini_usage(events);
        // The JSON document's error, or stream-json's last `result` event's.
        let error = events
            .iter()
            .rev()
            .find(|e| e["type"] == "result" || e.get("error").is_some())
            .and_then(|e| e.get("error"))
            .filter(|e| !e.is_null());
        let error_text = error
            .map(|e| e["message"].as_str().unwrap_or_default().to_string())
            .unwrap_or_default();
        let status = error
            .and_then(|e| e["code"].as_u64())
            .and_then(|s| u16::try_from(s).ok());
        let failed = self.ended.code != 0
            || error.is_some()
            || events
                .iter()
                .any(|e| e["type"] == "result" && e["status"] == "error");
        if failed {
            let said = match status {
                Some(429) => Some(Said {
                    overload: false,
                    status,
                }),
                _ => limits::limit_said(&stderr).or_else(|| limits::limit_said(&error_text)),
            };
            if let Some(said) = said {
                let words = if limits::limit_said(&stderr).is_some() {
                    quota_line(&stderr)
                } else {
                    error_text.clone()
                };
                let resets_at = limits::reset_in_text(&words, self.now, self.local);
                return limited("gemini", said, resets_at, &words, usage);
            }
        }
        match output {
            Output::Empty => self.no_document("gemini"),
            Output::NotJson(head) => not_json("gemini", "--output-format json", &head),
            Output::Events(_) if !failed => Verdict::Succeeded { usage },
            Output::Events(_) if self.ended.code > 128 => self.killed("gemini"),
            Output::Events(_) => Verdict::Failed {
                reason: with_words(
                    format!("gemini reported an error (exit code {})", self.ended.code),
                    &bounded(&format!("{error_text}\n{}", last_words(self.ended.stderr))),
                ),
                usage,
            },
        }
    }

    /// A result that is not an error: the exit code still has the last word.
    fn exit_after_result(&self, usage: Usage) -> Verdict {
        match self.ended.code {
            0 => Verdict::Succeeded { usage },
            code if code > 128 => Verdict::Crashed {
                reason: format!("killed by signal {} after its result", code - 128),
            },
            code => Verdict::Failed {
                reason: with_words(
                    format!("exited with code {code} after a result that is not an error"),
                    &last_words(self.ended.stderr),
                ),
                usage,
            },
        }
    }

    /// Nothing on stdout: a crash, unless stderr says a limit was hit.
    fn no_document(&self, agent: &str) -> Verdict {
        let stderr = String::from_utf8_lossy(self.ended.stderr);
        if self.ended.code != 0
            && let Some(said) = limits::limit_said(&stderr)
        {
            let words = quota_line(&stderr);
            let resets_at = limits::reset_in_text(&words, self.now, self.local);
            return limited(agent, said, resets_at, &words, Usage::default());
        }
        self.no_result(agent, "no result document")
    }

    /// JSON, but not the document that ends a run.
    fn no_result(&self, agent: &str, what: &str) -> Verdict {
        let code = self.ended.code;
        let how = if code > 128 {
            format!("killed by signal {}", code - 128)
        } else {
            format!("exited with code {code}")
        };
        Verdict::Crashed {
            reason: with_words(
                format!("{agent}: {how} with {what}"),
                &last_words(self.ended.stderr),
            ),
        }
    }

    fn killed(&self, agent: &str) -> Verdict {
        Verdict::Crashed {
            reason: with_words(
                format!("{agent}: killed by signal {}", self.ended.code - 128),
                &last_words(self.ended.stderr),
            ),
        }
    }

    /// A `rate_limit_event` rejected, with no result document after it.
    fn limited_by_event(
        &self,
        agent: &str,
        resets_at: Option<i64>,
        text: &str,
        usage: Usage,
    ) -> Verdict {
        let said = Said {
            overload: false,
            status: None,
        };
        let text = if text.is_empty() {
            "rate_limit_event: rejected"
        } else {
            text
        };
        limited(agent, said, resets_at, text, usage)
    }
}

fn limited(agent: &str, said: Said, resets_at: Option<i64>, text: &str, usage: Usage) -> Verdict {
    Verdict::Limited {
        limit: Limit {
            provider: agent.to_string(),
            status: said.status,
            overload: said.overload,
            resets_at,
            text: bounded(text),
        },
        usage,
    }
}

fn not_json(agent: &str, flag: &str, head: &str) -> Verdict {
    Verdict::Failed {
        reason: format!(
            "{agent}'s stdout is not JSON (the profile's result kind expects `{flag}`): {head}"
        ),
        usage: Usage::default(),
    }
}

/// The final text of a claude result: `result`, or the `errors` an
/// `error_during_execution` result lists instead.
fn claude_text(result: &Value) -> String {
    if let Some(text) = result["result"].as_str() {
        return text.to_string();
    }
    match &result["errors"] {
        Value::Array(errors) => errors
            .iter()
            .filter_map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn claude_usage(result: &Value) -> Usage {
    let u = &result["usage"];
    let mut usage = Usage::default();
    for field in [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ] {
        add(&mut usage.input_tokens, u[field].as_u64());
    }
    usage.output_tokens = u["output_tokens"].as_u64();
    usage.cost_usd = result["total_cost_usd"].as_f64();
    usage
}

/// Gemini's token counts: `stats.models.*.tokens` in the JSON document, `stats` of
/// stream-json's `result` event.
fn gemini_usage(events: &[Value]) -> Usage {
    let mut usage = Usage::default();
    for e in events {
        let stats = &e["stats"];
        if e["type"] == "result" {
            add(&mut usage.input_tokens, stats["input_tokens"].as_u64());
            add(&mut usage.output_tokens, stats["output_tokens"].as_u64());
        } else if let Some(models) = stats["models"].as_object() {
            for model in models.values() {
                add(&mut usage.input_tokens, model["tokens"]["prompt"].as_u64());
                add(
                    &mut usage.output_tokens,
                    model["tokens"]["candidates"].as_u64(),
                );
            }
        }
    }
    usage
}

fn add(total: &mut Option<u64>, n: Option<u64>) {
    if let Some(n) = n {
        *total = Some(total.unwrap_or(0).saturating_add(n));
    }
}

/// The stderr line (with the one after it, where gemini puts its `cause`) that says a
/// limit was hit, or the last words when no single line does.
fn quota_line(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    match lines.iter().position(|l| limits::limit_said(l).is_some()) {
        Some(i) => bounded(&lines[i..lines.len().min(i + 2)].join("\n")),
        None => last_words(stderr.as_bytes()),
    }
}

/// The last lines of what the agent printed on stderr, bounded.
fn last_words(stderr: &[u8]) -> String {
    bounded(&String::from_utf8_lossy(stderr))
}

/// `text` trimmed to its last [`REASON_MAX`] bytes (on a character boundary), `…` in
/// front when cut: the end of an agent's output is where it says why it stopped.
fn bounded(text: &str) -> String {
    let text = text.trim();
    if text.len() <= REASON_MAX {
        return text.to_string();
    }
    let mut start = text.len() - REASON_MAX;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", text[start..].trim_start())
}

fn with_words(what: String, words: &str) -> String {
    if words.is_empty() {
        what
    } else {
        format!("{what}: {words}")
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_773_489_600;

    fn run(kind: ResultKind, code: i32, stdout: &str, stderr: &str) -> Verdict {
        let ended = Ended {
            code,
            timed_out: false,
            stopped: false,
            stdout: stdout.as_bytes(),
            stderr: stderr.as_bytes(),
        };
        classify_in(kind, &ended, NOW, &TimeZone::UTC)
    }

    #[test]
    fn fleets_own_timeout_wins_over_a_partial_document() {
        let ended = Ended {
            code: 124,
            timed_out: true,
            stopped: false,
            stdout: br#"{"type":"system","subtype":"init"}"#,
            stderr: b"",
        };
        let verdict = classify_in(ResultKind::ClaudeJson, &ended, NOW, &TimeZone::UTC);
        assert_eq!(
            verdict,
            Verdict::TimedOut {
                reason: "timed out".into()
            }
        );
        let stopped = Ended {
            stopped: true,
            timed_out: false,
            ..ended
        };
        assert!(matches!(
            classify_in(ResultKind::CodexJsonl, &stopped, NOW, &TimeZone::UTC),
            Verdict::TimedOut { reason } if reason == "stopped by the drainer"
        ));
    }

    #[test]
    fn claude_subtype_is_never_read() {
        // `subtype` says error, `is_error` says success: success.
        let doc = r#"{"type":"result","subtype":"error_during_execution","is_error":false,"result":"ok"}"#;
        assert!(matches!(
            run(ResultKind::ClaudeJson, 0, doc, ""),
            Verdict::Succeeded { .. }
        ));
        // `subtype` says success, `is_error` says error: failed.
        let doc = r#"{"type":"result","subtype":"success","is_error":true,"result":"boom"}"#;
        assert!(matches!(
            run(ResultKind::ClaudeJson, 1, doc, ""),
            Verdict::Failed { reason, .. } if reason.ends_with("boom")
        ));
    }

    #[test]
    fn claude_no_error_but_a_failing_exit_code_fails() {
        let doc = r#"{"type":"result","is_error":false,"result":"done"}"#;
        assert!(matches!(
            run(ResultKind::ClaudeJson, 2, doc, "hook failed"),
            Verdict::Failed { reason, .. } if reason.contains("exited with code 2") && reason.ends_with("hook failed")
        ));
    }

    #[test]
    fn claude_verbose_array_form_is_read() {
        let doc = r#"[{"type":"system","subtype":"init"},{"type":"result","is_error":true,"api_error_status":529,"result":"API Error: 529"}]"#;
        assert!(matches!(
            run(ResultKind::ClaudeJson, 1, doc, ""),
            Verdict::Limited { limit, .. } if limit.overload && limit.status == Some(529)
        ));
    }

    #[test]
    fn a_status_that_is_not_a_limit_is_a_failure_whatever_the_text() {
        let doc = r#"{"type":"result","is_error":true,"api_error_status":403,"result":"usage limit reached|1773518400"}"#;
        assert!(matches!(
            run(ResultKind::ClaudeJson, 1, doc, ""),
            Verdict::Failed { reason, .. } if reason.contains("API status 403")
        ));
    }

    #[test]
    fn a_stream_cut_before_its_result_is_a_crash() {
        let doc =
            "{\"type\":\"system\",\"subtype\":\"init\"}\n{\"type\":\"assistant\",\"message\":{}}\n";
        assert!(matches!(
            run(ResultKind::ClaudeJson, 137, doc, ""),
            Verdict::Crashed { reason } if reason.contains("killed by signal 9")
        ));
    }

    #[test]
    fn codex_error_event_without_turn_failed() {
        let doc = "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"error\",\"message\":\"Quota exceeded. Check your plan and billing details.\"}\n";
        assert!(matches!(
            run(ResultKind::CodexJsonl, 1, doc, ""),
            Verdict::Limited { limit, .. } if limit.provider == "codex" && limit.resets_at.is_none()
        ));
        let doc = "{\"type\":\"error\",\"message\":\"stream disconnected before completion\"}\n";
        assert!(matches!(
            run(ResultKind::CodexJsonl, 1, doc, ""),
            Verdict::Failed { reason, .. } if reason.ends_with("stream disconnected before completion")
        ));
    }

    #[test]
    fn codex_a_later_completed_turn_outweighs_an_earlier_failure() {
        let doc = "{\"type\":\"turn.failed\",\"error\":{\"message\":\"x\"}}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}\n";
        assert_eq!(
            run(ResultKind::CodexJsonl, 0, doc, ""),
            Verdict::Succeeded {
                usage: Usage {
                    input_tokens: Some(5),
                    output_tokens: Some(1),
                    cost_usd: None
                }
            }
        );
    }

    #[test]
    fn gemini_quota_on_stderr_with_unknown_error_json() {
        let doc =
            r#"{"error":{"type":"Error","message":"[API Error: An unknown error occurred.]"}}"#;
        let stderr = "TerminalQuotaError: You have exhausted your daily quota on this model.\n  cause: { code: 429, message: 'Please retry in 34.9s.' }\n";
        assert!(matches!(
            run(ResultKind::GeminiJson, 1, doc, stderr),
            Verdict::Limited { limit, .. } if limit.resets_at == Some(NOW + 35) && !limit.overload
        ));
        // The same exit without the quota text is a failure naming the JSON's words.
        assert!(matches!(
            run(ResultKind::GeminiJson, 1, doc, "boom"),
            Verdict::Failed { reason, .. } if reason.contains("An unknown error occurred") && reason.ends_with("boom")
        ));
    }

    #[test]
    fn exit_code_kind_keeps_its_verdicts() {
        assert!(matches!(
            run(ResultKind::ExitCode, 0, "anything", ""),
            Verdict::Succeeded { .. }
        ));
        assert!(matches!(
            run(ResultKind::ExitCode, 1, "", ""),
            Verdict::Failed { reason, .. } if reason == "exited with code 1"
        ));
        assert!(matches!(
            run(ResultKind::ExitCode, 143, "", ""),
            Verdict::Crashed { reason } if reason == "killed by signal 15"
        ));
    }

    #[test]
    fn bounded_keeps_the_end_on_a_char_boundary() {
        let text = "é".repeat(REASON_MAX);
        let cut = bounded(&text);
        assert!(cut.starts_with('…'));
        assert!(cut.len() <= REASON_MAX + '…'.len_utf8());
        assert!(cut.ends_with('é'));
    }
}
