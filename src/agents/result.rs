//! How an agent run ended, read from what the agent printed and how it exited.
//!
//! A profile's `result` names the kind of document its agent prints. The verdict is
//! decided by structure (exit code, `is_error`, `api_error_status`, event types), never
//! by a field that lies (claude's `subtype` says "success" on a 429). A usage limit is
//! its own verdict, not a failure: the plan is out of quota, the task is not at fault.

use serde::{Deserialize, Serialize};

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
    /// The agent's own words.
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

/// Classify a finished run. `now` is for reset times given as a clock time ("resets
/// 10pm"), which are read as the next such time after `now`.
pub fn classify(kind: ResultKind, ended: &Ended, now: i64) -> Verdict {
    let _ = (kind, now);
    by_exit_code(ended)
}

/// The verdict from the exit code alone.
fn by_exit_code(ended: &Ended) -> Verdict {
    if ended.timed_out || ended.stopped {
        return Verdict::TimedOut {
            reason: if ended.stopped {
                "stopped by the drainer".to_string()
            } else {
                "timed out".to_string()
            },
        };
    }
    match ended.code {
        0 => Verdict::Succeeded {
            usage: Usage::default(),
        },
        code if code > 128 => Verdict::Crashed {
            reason: format!("killed by signal {}", code - 128),
        },
        code => Verdict::Failed {
            reason: format!("exited with code {code}"),
            usage: Usage::default(),
        },
    }
}
