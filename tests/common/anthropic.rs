//! A scripted Anthropic-compatible API on loopback, served by a thread of the test
//! process, so the real Claude Code CLI runs offline and does what a test scripts:
//! answer with a text, run a command through its Bash tool, fail with an HTTP status,
//! or wait forever.
//!
//! Plain `std::net`: the CLI's client speaks HTTP/1.1 with keep-alive, and that is all
//! the protocol this needs (request bodies by `Content-Length` or chunked, answers with
//! a `Content-Length`), so no server crate earns its place. Each connection gets a
//! thread; every request is recorded for assertions.
//!
//! A conversation's script is chosen by its first user message's text (the first
//! script whose key that text contains), so several claudes in parallel, one per task,
//! each follow their own; the turn is the number of `tool_result` blocks in the
//! request (a turn past the script's end answers "done"). Requests without tools
//! (the CLI's side questions) get a short text.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// What the API answers on one turn.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A text, `stop_reason: end_turn`: the conversation ends.
    Text(String),
    /// A `Bash` tool_use (`stop_reason: tool_use`): the CLI runs `command` in its
    /// shell and sends its output back as a `tool_result`.
    Bash {
        command: String,
        description: String,
    },
    /// HTTP `status` with the API's JSON error body of that `kind`.
    Error {
        status: u16,
        kind: String,
        message: String,
    },
    /// Never answer (the connection stays open until the server is dropped).
    Hang,
}

impl Reply {
    pub fn text(text: &str) -> Reply {
        Reply::Text(text.to_string())
    }

    pub fn bash(command: &str) -> Reply {
        Reply::Bash {
            command: command.to_string(),
            description: "scripted by the test".to_string(),
        }
    }

    /// 429 `rate_limit_error`.
    pub fn rate_limited() -> Reply {
        Reply::error(
            429,
            "rate_limit_error",
            "Number of requests has exceeded your rate limit",
        )
    }

    /// 529 `overloaded_error`.
    pub fn overloaded() -> Reply {
        Reply::error(529, "overloaded_error", "Overloaded")
    }

    /// 500 `api_error`.
    pub fn internal_error() -> Reply {
        Reply::error(500, "api_error", "Internal server error")
    }

    pub fn error(status: u16, kind: &str, message: &str) -> Reply {
        Reply::Error {
            status,
            kind: kind.to_string(),
            message: message.to_string(),
        }
    }
}

/// One request the API received.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// With its query (`/v1/messages?beta=true`).
    pub path: String,
    pub headers: Vec<(String, String)>,
    /// Which connection it came on (numbered from 0 as they were accepted): requests
    /// sharing one came through keep-alive.
    pub connection: usize,
    /// The body as JSON (`Null` when empty or not JSON).
    pub body: Value,
}

impl Request {
    /// A `/v1/messages` request carrying tools: a turn of a conversation.
    pub fn is_turn(&self) -> bool {
        self.path.starts_with("/v1/messages")
            && !self.path.starts_with("/v1/messages/")
            && self.body["tools"].as_array().is_some_and(|t| !t.is_empty())
    }

    /// The text of the first user message (all its text blocks, joined).
    pub fn first_user_text(&self) -> String {
        first_user_text(&self.body)
    }

    /// How many `tool_result` blocks the conversation holds: the turn number.
    pub fn tool_results(&self) -> usize {
        tool_results(&self.body)
    }
}

struct Shared {
    scripts: Mutex<Vec<(String, Vec<Reply>)>>,
    requests: Mutex<Vec<Request>>,
    stop: AtomicBool,
    ids: AtomicU64,
    connections: AtomicUsize,
    /// Open connections, shut down when the server is dropped (hung ones included).
    open: Mutex<Vec<TcpStream>>,
}

/// The server: listening while it lives, stopped (every connection closed) on drop.
pub struct Api {
    port: u16,
    shared: Arc<Shared>,
}

impl Api {
    pub fn start() -> Api {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            scripts: Mutex::new(Vec::new()),
            requests: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            ids: AtomicU64::new(0),
            connections: AtomicUsize::new(0),
            open: Mutex::new(Vec::new()),
        });
        let accept = Arc::clone(&shared);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                if let Ok(copy) = stream.try_clone() {
                    accept.open.lock().unwrap().push(copy);
                }
                let conn = Arc::clone(&accept);
                let number = accept.connections.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(move || serve(stream, number, &conn));
            }
        });
        Api { port, shared }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The conversation whose first user message contains `key` follows `turns` (from
    /// its next request on, when `key` had a script already: a rerun can differ).
    pub fn script(&self, key: &str, turns: Vec<Reply>) -> &Api {
        let mut scripts = self.shared.scripts.lock().unwrap();
        match scripts.iter_mut().find(|(k, _)| k == key) {
            Some(script) => script.1 = turns,
            None => scripts.push((key.to_string(), turns)),
        }
        self
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The turns (requests with tools) of the conversation whose first user message
    /// contains `key`.
    pub fn turns(&self, key: &str) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| r.is_turn() && r.first_user_text().contains(key))
            .collect()
    }
}

impl Drop for Api {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop, then close every connection (hung ones end here).
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        for stream in self.shared.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// The environment that points the real CLI at `port` and keeps it offline and to
/// itself: a `home` of its own (it writes `~/.claude.json` and `~/.claude/`), and
/// [`claude_api_env`].
pub fn claude_env(home: &Path, port: u16) -> Vec<(String, String)> {
    std::fs::create_dir_all(home).unwrap();
    let mut vars = vec![("HOME".to_string(), home.to_str().unwrap().to_string())];
    vars.extend(claude_api_env(port));
    vars
}

/// [`claude_env`] without HOME, for a profile whose HOME fleet makes
/// (`home = "isolated"`): the API at `port`, no other traffic, one retry (so an error
/// status ends the run in seconds), and `IS_SANDBOX=1` when root (where
/// `--permission-mode bypassPermissions` is refused otherwise).
pub fn claude_api_env(port: u16) -> Vec<(String, String)> {
    let mut vars = vec![
        ("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}")),
        ("ANTHROPIC_API_KEY", "sk-ant-test-offline".to_string()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
        ("DISABLE_TELEMETRY", "1".to_string()),
        ("DISABLE_AUTOUPDATER", "1".to_string()),
        ("CLAUDE_CODE_MAX_RETRIES", "1".to_string()),
    ];
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        vars.push(("IS_SANDBOX", "1".to_string()));
    }
    vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

fn serve(stream: TcpStream, connection: usize, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(600)));
    let mut out = match stream.try_clone() {
        Ok(out) => out,
        Err(_) => return,
    };
    let mut input = BufReader::new(stream);
    // Keep-alive: one request after another until the client closes.
    while let Some(request) = read_request(&mut input, &mut out, connection) {
        let close = request
            .headers
            .iter()
            .any(|(k, v)| k == "connection" && v.eq_ignore_ascii_case("close"));
        shared.requests.lock().unwrap().push(request.clone());
        match answer(&request, shared) {
            Some((status, kind, body)) => {
                let reason = match status {
                    200 => "OK",
                    404 => "Not Found",
                    429 => "Too Many Requests",
                    500 => "Internal Server Error",
                    529 => "Overloaded",
                    _ => "Status",
                };
                let head = format!(
                    "HTTP/1.1 {status} {reason}\r\ncontent-type: {kind}\r\n\
                     content-length: {}\r\nrequest-id: req_test_{}\r\n\
                     connection: keep-alive\r\n\r\n",
                    body.len(),
                    shared.ids.fetch_add(1, Ordering::SeqCst),
                );
                if out.write_all(head.as_bytes()).is_err()
                    || out.write_all(body.as_bytes()).is_err()
                    || out.flush().is_err()
                {
                    return;
                }
            }
            None => {
                // Hang: hold the connection, answer nothing, until the server stops.
                while !shared.stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                return;
            }
        }
        if close {
            return;
        }
    }
}

/// One HTTP/1.1 request, its body read by `Content-Length` or chunked; `None` at the
/// end of the connection.
fn read_request(
    input: &mut BufReader<TcpStream>,
    out: &mut TcpStream,
    connection: usize,
) -> Option<Request> {
    let mut line = String::new();
    // Blank lines between requests are allowed (RFC 9112 section 2.2).
    while line.trim().is_empty() {
        line.clear();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if input.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (key, value) = header.split_once(':')?;
        headers.push((key.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if get("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
        out.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").ok()?;
    }
    let mut body = Vec::new();
    if get("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
        loop {
            let mut size = String::new();
            input.read_line(&mut size).ok()?;
            let size = size.trim().split(';').next()?;
            let size = usize::from_str_radix(size.trim(), 16).ok()?;
            if size == 0 {
                // Trailers, up to the blank line.
                loop {
                    let mut trailer = String::new();
                    if input.read_line(&mut trailer).ok()? == 0 || trailer.trim().is_empty() {
                        break;
                    }
                }
                break;
            }
            let mut chunk = vec![0; size];
            input.read_exact(&mut chunk).ok()?;
            body.extend_from_slice(&chunk);
            let mut crlf = [0; 2];
            input.read_exact(&mut crlf).ok()?;
        }
    } else if let Some(len) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body = vec![0; len];
        input.read_exact(&mut body).ok()?;
    }
    Some(Request {
        method,
        path,
        headers,
        connection,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

/// Status, content type and body for `request`; `None` to hang.
fn answer(request: &Request, shared: &Shared) -> Option<(u16, &'static str, String)> {
    let path = request.path.split('?').next().unwrap_or("");
    if path == "/" {
        // The CLI's connectivity probe (`HEAD /`).
        return Some((200, "text/plain", String::new()));
    }
    if request.method != "POST" || !path.starts_with("/v1/messages") {
        return Some((
            404,
            "application/json",
            error_body("not_found_error", "no such route"),
        ));
    }
    if path == "/v1/messages/count_tokens" {
        return Some((
            200,
            "application/json",
            json!({"input_tokens": 10}).to_string(),
        ));
    }
    let reply = if request.is_turn() {
        let text = request.first_user_text();
        let scripts = shared.scripts.lock().unwrap();
        let turns = scripts
            .iter()
            .find(|(key, _)| text.contains(key.as_str()))
            .map(|(_, turns)| turns.clone())
            .unwrap_or_default();
        turns
            .get(request.tool_results())
            .cloned()
            .unwrap_or_else(|| Reply::text("done"))
    } else {
        Reply::text("ok")
    };
    let id = shared.ids.fetch_add(1, Ordering::SeqCst);
    let model = request.body["model"].as_str().unwrap_or("claude-test");
    let stream = request.body["stream"].as_bool().unwrap_or(false);
    match reply {
        Reply::Hang => None,
        Reply::Error {
            status,
            kind,
            message,
        } => Some((status, "application/json", error_body(&kind, &message))),
        Reply::Text(text) => {
            let block = json!({"type": "text", "text": text});
            Some(message(id, model, stream, block, "end_turn"))
        }
        Reply::Bash {
            command,
            description,
        } => {
            let block = json!({
                "type": "tool_use",
                "id": format!("toolu_test_{id}"),
                "name": "Bash",
                "input": {"command": command, "description": description},
            });
            Some(message(id, model, stream, block, "tool_use"))
        }
    }
}

fn error_body(kind: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}

/// An assistant message holding `block`: a JSON document, or the server-sent events
/// of the streaming API (message_start, content_block_start/delta/stop, message_delta
/// with the stop reason, message_stop).
fn message(
    id: u64,
    model: &str,
    stream: bool,
    block: Value,
    stop_reason: &str,
) -> (u16, &'static str, String) {
    let usage = json!({"input_tokens": 10, "output_tokens": 5});
    let msg_id = format!("msg_test_{id}");
    if !stream {
        let doc = json!({
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": stop_reason, "stop_sequence": null,
            "usage": usage,
        });
        return (200, "application/json", doc.to_string());
    }
    let (start, delta) = match block["type"].as_str() {
        Some("tool_use") => (
            json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
            json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
        ),
        _ => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": block["text"]}),
        ),
    };
    let events = [
        json!({"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }}),
        json!({"type": "content_block_start", "index": 0, "content_block": start}),
        json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
        json!({"type": "message_stop"}),
    ];
    let body = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    (200, "text/event-stream", body)
}

fn first_user_text(body: &Value) -> String {
    let Some(first) = body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
    else {
        return String::new();
    };
    match &first["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn tool_results(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .count()
}
