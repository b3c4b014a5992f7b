//! SARIF 2.1.0, as GitHub code scanning reads it: one run, the rules in
//! `tool.driver.rules`, repository-relative URIs, regions, and `partialFingerprints` that
//! stay put when unrelated lines move (rule, path and the finding's own line text).

use serde_json::{Value, json};

use super::{BARE_SUPPRESSION, Finding, NOT_CHECKED};

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

pub fn render(findings: &[Finding], rule_id: &str) -> Value {
    let rules = json!([
        {
            "id": rule_id,
            "name": "AgentSpawnWithoutGroup",
            "shortDescription": { "text": "An agent CLI is started without a process group of its own" },
            "fullDescription": { "text": "A headless agent run starts helpers (MCP servers, language servers, shells) in its caller's process group. Killing only the direct child on timeout leaves them running. Start the agent in a new process group or session and kill the whole group on timeout, on error and after a clean exit, or go through an approved helper such as `fleet run`." },
            "help": { "text": "Start the agent in its own process group (start_new_session=True, .process_group(0), detached: true, setsid) and kill the whole group, or run it through `fleet run --timeout DUR -- AGENT ...`." },
            "defaultConfiguration": { "level": "error" },
            "properties": { "tags": ["reliability", "process-management"] }
        },
        {
            "id": BARE_SUPPRESSION,
            "name": "SuppressionWithoutReason",
            "shortDescription": { "text": "A lint suppression gives no reason" },
            "help": { "text": "Write the reason after the marker: `fleet: allow(RULE) <reason>`." },
            "defaultConfiguration": { "level": "error" }
        },
        {
            "id": NOT_CHECKED,
            "name": "FileNotChecked",
            "shortDescription": { "text": "A file the lint cannot check (nested too deep, or too large)" },
            "help": { "text": "Split the file or its expressions; what cannot be checked is never passed as clean." },
            "defaultConfiguration": { "level": "error" }
        }
    ]);
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": f.rule,
                "ruleIndex": match f.rule.as_str() {
                    BARE_SUPPRESSION => 1,
                    NOT_CHECKED => 2,
                    _ => 0,
                },
                "level": "error",
                "message": { "text": format!("{}. {}", f.message, f.help) },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri(&f.path), "uriBaseId": "%SRCROOT%" },
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": f.end_line.max(f.line),
                            "endColumn": if f.end_line > f.line { f.end_column } else { f.end_column.max(f.column + 1) },
                        }
                    }
                }],
                "partialFingerprints": { "primaryLocationLineHash": fingerprint(f) }
            })
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "fleet",
                    "informationUri": "https://github.com/fleet-toolkit/fleet",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": rules
                }
            },
            "originalUriBaseIds": { "%SRCROOT%": { "description": { "text": "The repository root" } } },
            "results": results
        }]
    })
}

/// A relative URI: `/`-separated, with characters outside the unreserved set escaped.
fn uri(path: &str) -> String {
    let mut out = String::new();
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Stable across unrelated edits: the rule, the file and the finding's own line text
/// (whitespace-insensitive), FNV-1a hashed.
fn fingerprint(f: &Finding) -> String {
    let key = format!(
        "{}\0{}\0{}",
        f.rule,
        f.path,
        f.source_line
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut hash: u64 = 0xcbf29ce484222325;
    for b in key.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x100000001b3);
    }
    format!("{hash:016x}:1")
}
