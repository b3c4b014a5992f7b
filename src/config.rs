//! `fleet.toml`: the schema, its defaults, and validation that points at the line.
//!
//! Every value is checked while it is parsed (newtypes with `try_from`), so a bad value
//! is reported by the TOML parser with its line and column, the same way as an unknown
//! key or a wrong type. When the file is absent the defaults apply.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub const FILE_NAME: &str = "fleet.toml";

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub lanes: Lanes,
    pub gate: Gate,
    pub worktrees: Worktrees,
    pub guard: Guard,
    pub lint: Lint,
    /// Agent profiles, `[agents.NAME]` (see [`crate::agents::profile`]).
    #[serde(
        deserialize_with = "crate::agents::profile::profiles",
        skip_serializing_if = "std::collections::BTreeMap::is_empty"
    )]
    pub agents: std::collections::BTreeMap<String, crate::agents::profile::Profile>,
    /// The drainer's settings, `[drain]`.
    pub drain: crate::agents::profile::Drain,
    /// Plans, `[plans.NAME]`: the accounts a profile runs on (see [`crate::plans`]).
    #[serde(
        deserialize_with = "crate::plans::plans",
        skip_serializing_if = "std::collections::BTreeMap::is_empty"
    )]
    pub plans: std::collections::BTreeMap<String, crate::plans::Plan>,
    /// `[classes]`: a task class's plans, in the order they are tried.
    #[serde(
        deserialize_with = "crate::plans::classes",
        skip_serializing_if = "std::collections::BTreeMap::is_empty"
    )]
    pub classes: std::collections::BTreeMap<String, Vec<String>>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Guard {
    /// The watchdog's snapshots of dirty shared checkouts are pruned after this long.
    pub snapshot_keep: DurationSetting,
}

impl Default for Guard {
    fn default() -> Self {
        Guard {
            snapshot_keep: DurationSetting(Duration::from_secs(7 * 24 * 3600)),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Lanes {
    /// The branch lanes land on.
    pub target: BranchName,
    /// Prefix of agent branches: agent `x` works on `<prefix>x`.
    pub prefix: BranchPrefix,
    pub strategy: Strategy,
    /// A running lane with no commit and no file change for this long is flagged stale.
    pub stale_after: DurationSetting,
    /// The git remote whose target, lanes and receipts are the shared queue (machines
    /// coordinate through it); none: this repository alone.
    pub remote: Option<RemoteName>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    #[default]
    Rebase,
    Merge,
    Squash,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Gate {
    pub commands: Vec<String>,
    pub timeout: DurationSetting,
    #[serde(deserialize_with = "glob_patterns")]
    pub protected: Vec<String>,
    /// Markers a lane's added lines must not contain (`TODO_SCRUB`, ...).
    #[serde(deserialize_with = "markers")]
    pub forbid: Vec<String>,
    /// Environment variables whose values decide the gate's result besides the tree
    /// and the commands (a toolchain version, feature flags): part of the cache key.
    pub env: Vec<EnvName>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Worktrees {
    /// Where agent worktrees go, relative to the shared checkout.
    pub root: RelativePath,
    /// Nested repositories to include besides the auto-discovered ones.
    pub nested: Vec<InsidePath>,
    /// Refuse a base this many commits behind the target.
    pub max_behind: u32,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Lint {
    #[serde(deserialize_with = "names")]
    pub agents: Vec<String>,
    #[serde(deserialize_with = "names")]
    pub helpers: Vec<String>,
}

/// `[gate] protected`: glob patterns, none empty (an empty one would protect nothing,
/// silently). Checked here so a bad one is reported with its position, not at landing.
fn glob_patterns<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let patterns = Vec::<String>::deserialize(d)?;
    for pattern in &patterns {
        let bare = pattern.trim_matches('/');
        if bare.is_empty() {
            return Err(serde::de::Error::custom(
                "an empty pattern protects nothing; remove it or name paths, like \".ci/**\"",
            ));
        }
        if let Err(e) = globset::Glob::new(bare) {
            return Err(serde::de::Error::custom(format!(
                "`{pattern}` is not a glob pattern: {}",
                e.kind()
            )));
        }
    }
    Ok(patterns)
}

/// `[gate] forbid`: markers, none empty (the empty string is on every line).
fn markers<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let markers = Vec::<String>::deserialize(d)?;
    if markers.iter().any(String::is_empty) {
        return Err(serde::de::Error::custom(
            "an empty marker would match every added line; remove it",
        ));
    }
    Ok(markers)
}

/// `[lint] agents` / `helpers`: program or function names, none empty or with spaces.
fn names<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    if let Some(bad) = names
        .iter()
        .find(|n| n.is_empty() || n.chars().any(char::is_whitespace))
    {
        return Err(serde::de::Error::custom(format!(
            "`{bad}` is not a name (no empty names, no spaces): list program names like \"claude\" or qualified function names like \"tools.spawn_agent\""
        )));
    }
    Ok(names)
}

impl Default for Lanes {
    fn default() -> Self {
        Lanes {
            target: BranchName("main".into()),
            prefix: BranchPrefix("fleet/".into()),
            strategy: Strategy::Rebase,
            stale_after: DurationSetting(Duration::from_secs(2 * 3600)),
            remote: None,
        }
    }
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            commands: Vec::new(),
            timeout: DurationSetting(Duration::from_secs(30 * 60)),
            protected: vec!["fleet.toml".into(), ".ci/**".into(), ".github/**".into()],
            forbid: Vec::new(),
            env: Vec::new(),
        }
    }
}

/// The default worktree root: one folder per repository under a `.fleet-work` next to
/// the shared checkout, so sibling repositories never share agent folders.
pub const DEFAULT_ROOT: &str = "../.fleet-work/{repo}";

/// What `{repo}` in `[worktrees] root` stands for.
pub const REPO_PLACEHOLDER: &str = "{repo}";

impl Worktrees {
    /// The worktree root for the shared checkout `shared`, not yet normalised:
    /// `[worktrees] root` joined to it, `{repo}` replaced by the checkout's folder name.
    pub fn root_in(&self, shared: &Path) -> PathBuf {
        let name = shared
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let root = self.root.0.replace(REPO_PLACEHOLDER, &name);
        shared.join(root)
    }
}

impl Default for Worktrees {
    fn default() -> Self {
        Worktrees {
            root: RelativePath(DEFAULT_ROOT.into()),
            nested: Vec::new(),
            max_behind: 25,
        }
    }
}

/// A branch name as git accepts it (`git check-ref-format --branch`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", into = "String")]
pub struct BranchName(String);

/// The prefix of agent branch names; empty is allowed, so is a trailing `/`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", into = "String")]
pub struct BranchPrefix(String);

/// A relative path that stays readable: no empty string, no NUL.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", into = "String")]
pub struct RelativePath(String);

/// A relative path that stays inside the checkout: no `..`, not absolute.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", into = "String")]
pub struct InsidePath(String);

impl InsidePath {
    pub fn as_path(&self) -> &Path {
        Path::new(&self.0)
    }
}

impl TryFrom<String> for InsidePath {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        let inner = RelativePath::try_from(s)?.0;
        let path = Path::new(&inner);
        let escapes = path.components().any(|c| {
            !matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        });
        if escapes {
            return Err(format!(
                "`{inner}` must be a path inside the checkout, without `..` and not absolute"
            ));
        }
        let names_a_folder = path
            .components()
            .any(|c| matches!(c, std::path::Component::Normal(_)));
        if !names_a_folder {
            return Err(format!(
                "`{inner}` is the checkout itself; give the path of a folder inside it"
            ));
        }
        Ok(InsidePath(inner))
    }
}

/// An environment variable's name: letters, digits and `_`, not starting with a digit.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", into = "String")]
pub struct EnvName(String);

impl EnvName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for EnvName {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        let valid = s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && s.chars().next().is_some_and(|c| !c.is_ascii_digit());
        if valid {
            Ok(EnvName(s))
        } else {
            Err(format!(
                "`{s}` is not an environment variable name (letters, digits and _, not starting with a digit)"
            ))
        }
    }
}

/// A git remote's name, as `git remote add` accepts it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", into = "String")]
pub struct RemoteName(String);

impl RemoteName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for RemoteName {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        // git checks `refs/remotes/<name>/x` as a ref name.
        if !s.starts_with('-') && is_valid_branch_name(&format!("{s}/x")) && !s.contains('/') {
            Ok(RemoteName(s))
        } else {
            Err(format!(
                "`{s}` is not a valid remote name (`git remote` lists the remotes)"
            ))
        }
    }
}

/// A duration written like `30m`, `90s` or `1h 30m`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", into = "String")]
pub struct DurationSetting(pub Duration);

impl BranchName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
    pub fn full_ref(&self) -> String {
        crate::refs::branch(&self.0)
    }
}

impl BranchPrefix {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl RelativePath {
    pub fn as_path(&self) -> &Path {
        Path::new(&self.0)
    }
}

impl TryFrom<String> for BranchName {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        if is_valid_branch_name(&s) {
            Ok(BranchName(s))
        } else {
            Err(format!(
                "`{s}` is not a valid branch name (see `git check-ref-format --branch`)"
            ))
        }
    }
}

impl TryFrom<String> for BranchPrefix {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        if s.is_empty() || is_valid_branch_name(&format!("{s}x")) {
            Ok(BranchPrefix(s))
        } else {
            Err(format!(
                "`{s}` cannot start a branch name; use something like \"fleet/\" or \"agent-\""
            ))
        }
    }
}

impl TryFrom<String> for RelativePath {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        if s.is_empty() {
            return Err("the path is empty".into());
        }
        if s.chars().any(char::is_control) {
            return Err("the path holds a control character".into());
        }
        Ok(RelativePath(s))
    }
}

impl TryFrom<String> for DurationSetting {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        parse_duration(&s).map(DurationSetting)
    }
}

/// The longest duration fleet accepts anywhere: a year. Longer is a typo, and would
/// overflow clock arithmetic.
pub const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// `30m`, `90s`, `1h 30m`: more than zero, at most [`MAX_DURATION`].
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let d = humantime::parse_duration(text).map_err(|e| {
        format!("`{text}` is not a duration ({e}); write it like \"30m\", \"90s\" or \"1h 30m\"")
    })?;
    if d.is_zero() {
        return Err(format!(
            "`{text}` is zero; give a duration longer than that"
        ));
    }
    if d > MAX_DURATION {
        return Err(format!("`{text}` is longer than a year"));
    }
    Ok(d)
}

macro_rules! into_string {
    ($($t:ty),*) => {$(
        impl From<$t> for String {
            fn from(v: $t) -> String { v.0 }
        }
    )*};
}
into_string!(
    BranchName,
    BranchPrefix,
    RelativePath,
    InsidePath,
    EnvName,
    RemoteName
);

impl From<DurationSetting> for String {
    /// As it is written in fleet.toml: `7d`, not humantime's `7days`.
    fn from(d: DurationSetting) -> String {
        humantime::format_duration(d.0)
            .to_string()
            .replace("days", "d")
            .replace("day", "d")
    }
}

/// git's ref-name rules for one branch (`git check-ref-format --branch`), checked
/// here so a bad name is a configuration error at its line, not a git error later.
pub fn is_valid_branch_name(name: &str) -> bool {
    // git's ref-name rules come from gix. On top of them, what `--branch` adds (`@`
    // alone names HEAD, a leading `-` reads as an option) and no control character at
    // all: ref names only forbid the ASCII ones.
    crate::git::is_valid_branch_name(name)
        && name != "@"
        && !name.starts_with('-')
        && !name.chars().any(char::is_control)
}

impl Config {
    /// Parse `text`, naming `origin` (a path, or `<rev>:fleet.toml`) in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Config> {
        toml::from_str(text).map_err(|e| config_error(text, origin, &e))
    }

    /// Read `fleet.toml` from a checkout; defaults when there is none.
    pub fn load(checkout: &Path) -> Result<(Config, Option<PathBuf>)> {
        let path = checkout.join(FILE_NAME);
        let unusable = |why: String, fix: &str| {
            Err(
                Error::usage(format!("invalid configuration: {} {why}", path.display()))
                    .with_help(fix.to_string()),
            )
        };
        match std::fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => Ok((
                    Config::parse(&text, &path.display().to_string())?,
                    Some(path),
                )),
                Err(e) => unusable(
                    format!(
                        "is not UTF-8 text (invalid byte at offset {})",
                        e.utf8_error().valid_up_to()
                    ),
                    "save fleet.toml as UTF-8 (`fleet init --print` shows the template)",
                ),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // A symlink to nothing is not "no fleet.toml": every command would run
                // on the defaults while `fleet init` keeps the link.
                match std::fs::read_link(&path) {
                    Ok(target) => unusable(
                        format!(
                            "is a symbolic link to {}, which does not exist",
                            target.display()
                        ),
                        "point the link at a fleet.toml that exists, or remove it to use the defaults",
                    ),
                    Err(_) => Ok((Config::default(), None)),
                }
            }
            Err(_) if path.is_dir() => unusable(
                "is a folder, not a file".to_string(),
                "move that folder away; fleet.toml must be a file (`fleet init --print` shows the template)",
            ),
            Err(e) => Err(Error::env(format!("cannot read {}: {e}", path.display()))),
        }
    }

    /// The effective configuration as TOML, for `fleet config`.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }
}

fn config_error(text: &str, origin: &str, e: &toml::de::Error) -> Error {
    let message = e.message().trim_end();
    let located = match e.span() {
        Some(span) => {
            let (line, column) = line_column(text, span.start);
            let source_line = text.lines().nth(line - 1).unwrap_or("");
            let message = match table_header_hint(source_line) {
                Some(hint) if message.starts_with("invalid type: map") => {
                    format!("{message}: {hint}")
                }
                _ => message.to_string(),
            };
            format!("{origin}:{line}:{column}: {message}\n  | {source_line}")
        }
        None => format!("{origin}: {message}"),
    };
    Error::usage(format!("invalid configuration: {located}")).with_help(
        "fix the value at that position; `fleet config --default` prints every key with its default",
    )
}

/// What a table header (`[lanes.target]`, `[[lanes]]`) where a value is expected did
/// wrong, from the line the parser points at; `None` when the line is no table header.
fn table_header_hint(line: &str) -> Option<String> {
    let line = line.split('#').next().unwrap_or("").trim();
    if let Some(name) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
        let name = name.trim();
        return Some(format!(
            "`[[{name}]]` makes `{name}` a list of tables, and fleet.toml has none (`[table]` opens a table)"
        ));
    }
    let name = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    Some(match name.rsplit_once('.') {
        Some((table, key)) => format!(
            "`[{name}]` makes `{name}` a table, but it takes a value: write `{key} = ...` under `[{table}]`"
        ),
        None => format!("`[{name}]` makes `{name}` a table, but it takes a value"),
    })
}

/// 1-based line and column (in characters) of byte `offset`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// The commented file `fleet init` writes. Kept equal to the defaults by a test.
pub const TEMPLATE: &str = r#"# fleet.toml: how agents share this repository. Read from the target branch
# when landing, so a lane cannot weaken its own gate. Every key is optional.

[lanes]
target = "main"          # the branch lanes land on
prefix = "fleet/"        # agent NAME works on branch <prefix>NAME
strategy = "rebase"      # rebase | merge | squash
stale_after = "2h"       # a running lane idle this long is flagged stale
# remote = "origin"      # the shared remote whose target, lanes and receipts are the queue

[gate]
commands = []            # e.g. ["cargo test --locked"]; run on the exact tree that lands
timeout = "30m"
protected = ["fleet.toml", ".ci/**", ".github/**"]   # lanes touching these need --allow-protected
forbid = []              # markers no added line may hold, e.g. ["TODO_SCRUB", "FIXME_BEFORE_LAND"]
env = []                 # variables whose values change the gate's result, e.g. ["RUSTFLAGS"]

[worktrees]
root = "../.fleet-work/{repo}"  # agent worktrees go here, relative to the shared checkout ({repo}: its folder's name)
nested = []              # nested repositories (found automatically as well)
max_behind = 25          # refuse a base this many commits behind the target

[guard]
snapshot_keep = "7d"     # the watchdog's snapshots of dirty shared checkouts are kept this long

[lint]
agents = []              # agent CLIs besides the built-in list
helpers = []             # your own approved spawn helpers, by qualified name

# Agent profiles for `fleet drain`: how a task's agent runs (`fleet task add --agent NAME`).
# [agents.claude]
# command = ["claude", "-p", "Carry out the plan in {plan}", "--output-format", "json"]
# env = { ANTHROPIC_API_KEY = { from = "ANTHROPIC_API_KEY" } }   # copied from the drainer's environment, never stored
# home = "isolated"      # a HOME and CLAUDE_CONFIG_DIR per run (git identity carried over)
# timeout = "1h"         # the agent's group is stopped after this long (timed out)
# max_concurrency = 3    # runs of this profile at once, across every drainer of the queue
# result = "claude-json" # exit-code | claude-json | codex-jsonl | gemini-json
# check = ["cargo", "test", "--locked"]   # run in the worktree after a success; default: the [gate] commands
#
# [agents.codex]
# command = ["codex", "exec", "--json", "--full-auto", "Carry out the plan in {plan}"]
# env = { OPENAI_API_KEY = { from = "OPENAI_API_KEY" } }
# result = "codex-jsonl"
#
# [drain]
# agent = "claude"       # the profile of a task that names none
# lease = "5m"           # a claim holds this long unless renewed (the drainer renews it)
# claim_grace = "60s"    # a claim not running after this long is stale and taken back
# backoff = "30s"        # first retry delay; doubles each attempt, with jitter
# backoff_max = "30m"
# stop_timeout = "30s"   # on SIGTERM or Ctrl-C, running agents get this long, then are stopped
# limit_cooldown = "15m" # wait after a usage limit whose reset time the agent did not give
# notify = ["sh", "-c", "mail -s 'fleet: task parked' me@example.com"]   # once per park, JSON on stdin
# max_cost_usd = 5.0     # each task's budget unless `fleet task add --max-cost` gives its own
# stall_after = "10m"    # a running agent with no output, no commit and no change in its worktree this long shows `stalled` in `fleet status`
# abandon_after = "2h"   # silent this long, its group is killed: a timed-out attempt (default: never; a profile may set its own of both)
# max_output_mib = 1024  # an agent whose stdout and stderr pass this has its group stopped: a failed attempt
# on_conflict = "task"   # a lane `fleet land` found conflicted becomes a follow-up task on its branch (default "wait")
# on_red = "task"        # and so does a lane whose gate ran red
# cleanup = true         # a landed task's worktree is removed and its lane untracked
# prepare_ahead = false  # do not claim and prepare the next task while every slot is busy (default true)
#
# Plans: the accounts profiles run on. A usage limit closes a plan until its reset, and
# tasks go to the next open one (`fleet plans`, `fleet plans explain TASK`).
# [plans.subscription]
# agent = "claude"       # the profile it runs
# order = 1              # lower first
# max_concurrency = 3
# [plans.api]
# agent = "claude"
# order = 2
# env = { ANTHROPIC_API_KEY = { from = "FLEET_API_KEY" } }
# cooldown = "30m"       # a limit with no reset time closes it this long (default: until reopened)
#
# [classes]              # `fleet task add --class review`: the plans it may run on, in order
# review = ["subscription", "api"]
"#;

/// [`TEMPLATE`] with `target` as the `[lanes] target` (`fleet init` gives the branch
/// the shared checkout has, so a repository on `master` lands on `master`), `commands`
/// as the `[gate] commands` (what `fleet init` found the project tests with), and
/// `comment` (lines starting with `#`: why those commands, or how to set them) just above
/// them. The rest is the commented template as it is.
pub fn template_for(target: &str, commands: &[String], comment: &str) -> String {
    let line = format!("target = {}", toml::Value::String(target.to_string()));
    let text = TEMPLATE.replacen("target = \"main\"          #", &format!("{line:<24} #"), 1);
    const COMMANDS: &str = "commands = []            # e.g. [\"cargo test --locked\"]; ";
    let gate = if commands.is_empty() {
        COMMANDS.to_string()
    } else {
        let list = toml::Value::Array(
            commands
                .iter()
                .map(|c| toml::Value::String(c.clone()))
                .collect(),
        );
        format!("{:<24} # ", format!("commands = {list}"))
    };
    text.replacen(COMMANDS, &format!("{comment}{gate}"), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The commented examples (profiles, drain, plans, classes) are what a user
    /// uncomments: uncommented, they must parse and mean what their comments say.
    #[test]
    fn the_template_s_commented_examples_parse_once_uncommented() {
        let (live, examples) = TEMPLATE.split_once("# Agent profiles").unwrap();
        let uncommented: Vec<&str> = examples
            .lines()
            .filter_map(|line| line.strip_prefix("# "))
            .filter(|line| {
                line.starts_with('[')
                    || line.split_once(" = ").is_some_and(|(key, _)| {
                        key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    })
            })
            .collect();
        let text = format!("{live}\n{}\n", uncommented.join("\n"));
        let config = Config::parse(&text, "template").unwrap();
        assert_eq!(config.agents.len(), 2, "claude and codex");
        assert_eq!(
            config.drain.agent.as_ref().map(|a| a.as_str()),
            Some("claude")
        );
        assert_eq!(config.drain.stall_after.0, Duration::from_secs(600));
        assert_eq!(
            config.drain.abandon_after.map(|d| d.0),
            Some(Duration::from_secs(2 * 3600))
        );
        assert_eq!(config.drain.max_output_mib, 1024);
        assert!(config.drain.cleanup);
        assert_eq!(
            config.drain.on_conflict,
            crate::agents::profile::OnLane::Task
        );
        assert_eq!(config.plans.len(), 2, "subscription and api");
        assert_eq!(config.classes["review"], ["subscription", "api"]);
    }

    #[test]
    fn the_template_for_a_branch_names_it_and_is_otherwise_the_defaults() {
        assert_eq!(template_for("main", &[], ""), TEMPLATE);
        let config = Config::parse(&template_for("master", &[], ""), "t").unwrap();
        assert_eq!(config.lanes.target.as_str(), "master");
        let config = Config::parse(&template_for("we\"ird/br", &[], ""), "t").unwrap();
        assert_eq!(config.lanes.target.as_str(), "we\"ird/br");
    }

    #[test]
    fn the_template_with_a_gate_has_it_and_its_comment_and_is_otherwise_the_defaults() {
        let commands = ["go test ./...".to_string(), "sh \"ci/t.sh\"".to_string()];
        let text = template_for("main", &commands, "# found go.mod\n");
        assert!(text.contains("# found go.mod\ncommands = ["), "{text}");
        assert!(
            text.contains("# run on the exact tree that lands"),
            "{text}"
        );
        let config = Config::parse(&text, "t").unwrap();
        assert_eq!(config.gate.commands, commands);
        let mut defaults = Config::default();
        defaults.gate.commands = commands.to_vec();
        assert_eq!(config, defaults);
    }

    #[test]
    fn template_parses_to_the_defaults() {
        assert_eq!(Config::parse(TEMPLATE, "t").unwrap(), Config::default());
    }

    #[test]
    fn unknown_key_names_line_and_column() {
        let err =
            Config::parse("[lanes]\ntarget = \"main\"\ntargte = \"x\"\n", "f.toml").unwrap_err();
        assert_eq!(err.kind, crate::error::Kind::Usage);
        assert!(err.message.contains("f.toml:3:1"), "{}", err.message);
        assert!(err.message.contains("targte"), "{}", err.message);
    }

    #[test]
    fn bad_values_are_rejected_with_what_is_allowed() {
        let err = Config::parse("[lanes]\nstrategy = \"yolo\"\n", "f").unwrap_err();
        assert!(err.message.contains("f:2:12"), "{}", err.message);
        assert!(err.message.contains("rebase"), "{}", err.message);
        let err = Config::parse("[gate]\ntimeout = \"soon\"\n", "f").unwrap_err();
        assert!(err.message.contains("not a duration"), "{}", err.message);
        let err = Config::parse("[lanes]\ntarget = \"a..b\"\n", "f").unwrap_err();
        assert!(
            err.message.contains("not a valid branch name"),
            "{}",
            err.message
        );
        for bad in ["../sib", "/abs", "a/../../b"] {
            let err =
                Config::parse(&format!("[worktrees]\nnested = [\"{bad}\"]\n"), "f").unwrap_err();
            assert!(
                err.message.contains("inside the checkout"),
                "{}",
                err.message
            );
        }
        let err = Config::parse("[worktrees]\nmax_behind = -1\n", "f").unwrap_err();
        assert!(err.message.contains("f:2:14"), "{}", err.message);
    }

    #[test]
    fn branch_name_rules_match_git() {
        for ok in ["main", "fleet/x", "feat/foo-bar", "a.b"] {
            assert!(is_valid_branch_name(ok), "{ok}");
        }
        for bad in [
            "", "-x", "a..b", "a/", "/a", "a//b", ".a", "a/.b", "a.lock", "a b", "a~1", "a^",
            "a:b", "a\tb", "@", "x@{1}", "a.",
        ] {
            assert!(!is_valid_branch_name(bad), "{bad}");
        }
    }
}
