//! Agent profiles (`[agents.NAME]` in `fleet.toml`) and the drainer's settings
//! (`[drain]`): what command a task's agent runs, with what environment, for how long,
//! how its result is read and checked.
//!
//! A profile's `command` is an argv, never a shell line: the placeholders `{prompt}`,
//! `{plan}`, `{task}`, `{run}` and `{worktree}` are replaced inside the argument that
//! holds them, and the result is never split again, so a prompt holding `; rm -rf ~`,
//! a newline or a leading `-` stays one argument of the agent. A profile that wants a
//! shell (`["sh", "-c", "..."]`) reads `$FLEET_TASK`, `$FLEET_RUN` and `$FLEET_PLAN` in
//! its script instead of a placeholder, so no task text becomes shell code.
//!
//! Every value is checked while `fleet.toml` is parsed, so a bad one is an error at its
//! line and column like any other.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::agents::result::ResultKind;
use crate::config::{DurationSetting, EnvName};
use crate::error::{Error, Result};

/// The placeholders a profile's `command` may hold.
pub const PLACEHOLDERS: [&str; 5] = ["prompt", "plan", "task", "run", "worktree"];

/// An agent profile, `[agents.NAME]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The agent's argv; placeholders replaced inside their own argument.
    pub command: Argv,
    /// Added to the environment the agent inherits from the drainer.
    #[serde(default, deserialize_with = "env_table")]
    pub env: BTreeMap<String, EnvValue>,
    #[serde(default)]
    pub home: Home,
    /// The agent's group is stopped after this long (a timed-out attempt).
    #[serde(default = "default_timeout")]
    pub timeout: DurationSetting,
    /// Runs of this profile at once, across every drainer of the queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<Concurrency>,
    /// How the agent's end is read.
    #[serde(default)]
    pub result: ResultKind,
    /// The check run in the worktree after a successful run (default: the gate commands).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Argv>,
    /// This profile's own `[drain] stall_after`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall_after: Option<DurationSetting>,
    /// This profile's own `[drain] abandon_after`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandon_after: Option<DurationSetting>,
}

fn default_timeout() -> DurationSetting {
    DurationSetting(Duration::from_secs(3600))
}

/// Where an agent's HOME is.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Home {
    /// The drainer's own.
    #[default]
    Inherit,
    /// A HOME and `CLAUDE_CONFIG_DIR` per run, under the run's folder, with the git
    /// identity carried over: parallel runs never share `~/.claude.json`.
    Isolated,
}

/// A value of a profile's `env`: a literal, or the name of a variable of the drainer's
/// environment to copy (`{ from = "ANTHROPIC_API_KEY" }`), so secrets stay out of git.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvValue {
    Literal(String),
    From(EnvName),
}

impl Serialize for EnvValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            EnvValue::Literal(v) => s.serialize_str(v),
            EnvValue::From(name) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("from", name.as_str())?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for EnvValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let wrong = || {
            D::Error::custom(
                "an env value is a string, or { from = \"VAR\" } to copy the drainer's variable VAR",
            )
        };
        match toml::Value::deserialize(d)? {
            toml::Value::String(s) => Ok(EnvValue::Literal(s)),
            toml::Value::Table(t) if t.len() == 1 => match t.get("from") {
                Some(toml::Value::String(name)) => EnvName::try_from(name.clone())
                    .map(EnvValue::From)
                    .map_err(D::Error::custom),
                _ => Err(wrong()),
            },
            _ => Err(wrong()),
        }
    }
}

/// `env` keys are variable names.
fn env_table<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<BTreeMap<String, EnvValue>, D::Error> {
    let table = BTreeMap::<String, EnvValue>::deserialize(d)?;
    for key in table.keys() {
        EnvName::try_from(key.clone()).map_err(serde::de::Error::custom)?;
    }
    Ok(table)
}

/// A command as an argv: at least a program, none of its parts holding an unknown
/// placeholder.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct Argv(Vec<String>);

impl Argv {
    pub fn parts(&self) -> &[String] {
        &self.0
    }
}

impl From<Argv> for Vec<String> {
    fn from(a: Argv) -> Vec<String> {
        a.0
    }
}

impl TryFrom<Vec<String>> for Argv {
    type Error = String;
    fn try_from(v: Vec<String>) -> std::result::Result<Self, String> {
        match v.first() {
            None => {
                return Err(
                    "the command is empty; give an argv like [\"claude\", \"-p\", \"{prompt}\"]"
                        .into(),
                );
            }
            Some(p) if p.is_empty() => return Err("the command's program is empty".into()),
            _ => {}
        }
        for part in &v {
            if let Some(bad) = placeholders_in(part).find(|p| !PLACEHOLDERS.contains(p)) {
                return Err(format!(
                    "`{{{bad}}}` in {part:?} is not a placeholder; the placeholders are {}",
                    PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
                ));
            }
        }
        Ok(Argv(v))
    }
}

/// The `{word}`s (lowercase letters and `_`) in `text`; other braces (JSON) are text.
fn placeholders_in(text: &str) -> impl Iterator<Item = &str> {
    text.split('{').skip(1).filter_map(|rest| {
        let word = rest.split_once('}')?.0;
        (!word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
            .then_some(word)
    })
}

/// What the placeholders stand for in one run.
pub struct Values<'a> {
    pub prompt: &'a str,
    pub plan: &'a str,
    pub task: &'a str,
    pub run: &'a str,
    pub worktree: &'a str,
}

impl Argv {
    /// The argv with each placeholder replaced inside its own argument: one argument in,
    /// one argument out, whatever the values hold.
    pub fn expand(&self, values: &Values) -> Vec<String> {
        self.0
            .iter()
            .map(|part| {
                let mut out = String::with_capacity(part.len());
                let mut rest = part.as_str();
                while let Some(open) = rest.find('{') {
                    out.push_str(&rest[..open]);
                    let after = &rest[open + 1..];
                    let value = after.split_once('}').and_then(|(word, _)| {
                        Some((
                            word.len(),
                            match word {
                                "prompt" => values.prompt,
                                "plan" => values.plan,
                                "task" => values.task,
                                "run" => values.run,
                                "worktree" => values.worktree,
                                _ => return None,
                            },
                        ))
                    });
                    match value {
                        Some((len, value)) => {
                            out.push_str(value);
                            rest = &after[len + 1..];
                        }
                        None => {
                            out.push('{');
                            rest = after;
                        }
                    }
                }
                out.push_str(rest);
                out
            })
            .collect()
    }
}

/// A positive number of runs.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "i64", into = "i64")]
pub struct Concurrency(pub u32);

impl TryFrom<i64> for Concurrency {
    type Error = String;
    fn try_from(n: i64) -> std::result::Result<Self, String> {
        if !(1..=10_000).contains(&n) {
            return Err(format!("{n} runs at once: give a number from 1 to 10000"));
        }
        Ok(Concurrency(n as u32))
    }
}

impl From<Concurrency> for i64 {
    fn from(c: Concurrency) -> i64 {
        i64::from(c.0)
    }
}

/// `[agents]`: profile names are agent names (letters, digits, `-`, `_`, `.`).
pub fn profiles<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<BTreeMap<String, Profile>, D::Error> {
    let table = BTreeMap::<String, Profile>::deserialize(d)?;
    for name in table.keys() {
        check_profile_name(name).map_err(serde::de::Error::custom)?;
    }
    Ok(table)
}

fn check_profile_name(name: &str) -> std::result::Result<(), String> {
    let ok = !name.is_empty()
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a profile name: use ASCII letters, digits, `-`, `_` and `.`"
        ))
    }
}

/// `[drain]`: the drainer's settings.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Drain {
    /// The profile of a task that names none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<ProfileName>,
    /// How long a claim or a run holds without renewal (the drainer renews it).
    pub lease: DurationSetting,
    /// A claim not running after this long is stale, and taken back.
    pub claim_grace: DurationSetting,
    /// The first back-off after a failed attempt; it doubles each attempt (with jitter).
    pub backoff: DurationSetting,
    pub backoff_max: DurationSetting,
    /// How long running agents get to finish when the drainer is stopped.
    pub stop_timeout: DurationSetting,
    /// How long a usage limit keeps a task waiting when the agent did not say.
    pub limit_cooldown: DurationSetting,
    /// Run once when a task is parked, with a JSON document on stdin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notify: Option<Argv>,
    /// A task's budget unless it gives its own (`fleet task add --max-tokens`,
    /// `--max-cost`): see [`crate::tasks::Task::max_tokens`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// What a lane `fleet land` found conflicted becomes (see [`crate::drain::follow`]).
    pub on_conflict: OnLane,
    /// What a lane whose gate ran red becomes.
    pub on_red: OnLane,
    /// A running agent with no new output and no new commit for this long is stalled
    /// (shown by `fleet status`).
    pub stall_after: DurationSetting,
    /// A running agent silent for this long has its group killed, a timed-out attempt;
    /// unset: never (the profile's `timeout` still ends it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abandon_after: Option<DurationSetting>,
    /// Remove a landed task's worktree and untrack its lane.
    pub cleanup: bool,
    /// An agent whose stdout and stderr together pass this many MiB has its group
    /// stopped and the attempt failed: the logs are files in the git dir, and an agent
    /// stuck printing would otherwise fill the disk.
    pub max_output_mib: u64,
    /// While every slot of a drainer is busy, claim the next task and make its worktree,
    /// so its agent starts the moment a slot frees (see `fleet drain`'s doc).
    pub prepare_ahead: bool,
}

/// `[drain] on_conflict` / `on_red`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum OnLane {
    /// The lane waits for a person, as without a drainer.
    #[default]
    Wait,
    /// A follow-up task on the same branch, run in the lane's worktree.
    Task,
}

impl Default for Drain {
    fn default() -> Self {
        let d = |s| DurationSetting(Duration::from_secs(s));
        Drain {
            agent: None,
            lease: d(300),
            claim_grace: d(60),
            backoff: d(30),
            backoff_max: d(30 * 60),
            stop_timeout: d(30),
            limit_cooldown: d(15 * 60),
            notify: None,
            max_tokens: None,
            max_cost_usd: None,
            on_conflict: OnLane::Wait,
            on_red: OnLane::Wait,
            stall_after: d(10 * 60),
            abandon_after: None,
            cleanup: false,
            max_output_mib: 1024,
            prepare_ahead: true,
        }
    }
}

/// A profile's name as `[drain] agent` gives it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", into = "String")]
pub struct ProfileName(String);

impl ProfileName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ProfileName {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        check_profile_name(&s).map(|()| ProfileName(s))
    }
}

impl From<ProfileName> for String {
    fn from(p: ProfileName) -> String {
        p.0
    }
}

/// The profile a task runs with: its own `agent`, else `[drain] agent`. An unknown
/// name is an error naming it and the profiles there are.
pub fn choose<'a>(
    profiles: &'a BTreeMap<String, Profile>,
    drain: &Drain,
    task_agent: Option<&str>,
) -> Result<(String, &'a Profile)> {
    let known = || {
        if profiles.is_empty() {
            "fleet.toml has no [agents.NAME] profile".to_string()
        } else {
            format!(
                "the profiles are {}",
                profiles.keys().cloned().collect::<Vec<_>>().join(", ")
            )
        }
    };
    let name = match task_agent.or(drain.agent.as_ref().map(ProfileName::as_str)) {
        Some(name) => name,
        None => {
            return Err(Error::usage(format!(
                "the task names no agent profile and [drain] agent is not set ({})",
                known()
            ))
            .with_help(
                "set [drain] agent = \"NAME\" in fleet.toml, or add the task with --agent NAME",
            ));
        }
    };
    match profiles.get(name) {
        Some(p) => Ok((name.to_string(), p)),
        None => Err(
            Error::usage(format!("there is no agent profile `{name}` ({})", known())).with_help(
                format!("add [agents.{name}] to fleet.toml (on the target branch), then `fleet task retry`"),
            ),
        ),
    }
}

/// The profile's `env` as the agent gets it: literals as written, copies read from
/// `lookup` (the drainer's environment). A variable to copy that is not set is an
/// error naming it.
pub fn resolve_env(
    profile: &Profile,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Vec<(String, String)>> {
    profile
        .env
        .iter()
        .map(|(key, value)| match value {
            EnvValue::Literal(v) => Ok((key.clone(), v.clone())),
            EnvValue::From(from) => lookup(from.as_str())
                .map(|v| (key.clone(), v))
                .ok_or_else(|| {
                    Error::env(format!(
                        "the profile's env {key} copies ${}, which the drainer's environment does not set",
                        from.as_str()
                    ))
                    .with_help(format!("export {} before starting `fleet drain`", from.as_str()))
                }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn placeholders_stay_inside_their_argument() {
        let argv = Argv::try_from(vec![
            "claude".to_string(),
            "-p".into(),
            "do: {prompt}".into(),
            "--json={\"a\":1}".into(),
            "{task}/{run}{worktree}{plan}".into(),
        ])
        .unwrap();
        let out = argv.expand(&Values {
            prompt: "x; rm -rf ~ {task}\n-y",
            plan: "/p",
            task: "t",
            run: "r",
            worktree: "/w",
        });
        assert_eq!(
            out,
            [
                "claude",
                "-p",
                "do: x; rm -rf ~ {task}\n-y",
                "--json={\"a\":1}",
                "t/r/w/p"
            ]
        );
    }

    #[test]
    fn profiles_are_checked_where_they_are_written() {
        let ok = Config::parse(
            "[agents.claude]\ncommand = [\"claude\", \"-p\", \"{prompt}\"]\nenv = { K = \"v\", S = { from = \"SECRET\" } }\nhome = \"isolated\"\nresult = \"claude-json\"\nmax_concurrency = 2\n[drain]\nagent = \"claude\"\n",
            "f",
        )
        .unwrap();
        let p = &ok.agents["claude"];
        assert_eq!(p.home, Home::Isolated);
        assert_eq!(p.result, ResultKind::ClaudeJson);
        let env = resolve_env(p, |v| (v == "SECRET").then(|| "s3".to_string())).unwrap();
        assert_eq!(env, [("K".into(), "v".into()), ("S".into(), "s3".into())]);
        assert!(resolve_env(p, |_| None).is_err());
        for (bad, want) in [
            ("[agents.a]\ncommand = []\n", "f:2:11"),
            (
                "[agents.a]\ncommand = [\"x\", \"{promt}\"]\n",
                "not a placeholder",
            ),
            (
                "[agents.a]\ncommand = [\"x\"]\nhome = \"shared\"\n",
                "f:3:8",
            ),
            (
                "[agents.a]\ncommand = [\"x\"]\nenv = { K = 1 }\n",
                "from = \"VAR\"",
            ),
            (
                "[agents.a]\ncommand = [\"x\"]\nenv = { K = { from = \"1x\" } }\n",
                "not an environment variable",
            ),
            (
                "[agents.a]\ncommand = [\"x\"]\nmax_concurrency = 0\n",
                "from 1",
            ),
            ("[agents.a]\ncommand = [\"x\"]\ncolour = 1\n", "colour"),
            (
                "[agents.\"a b\"]\ncommand = [\"x\"]\n",
                "not a profile name",
            ),
            ("[drain]\nbackoff = \"soon\"\n", "f:2:11"),
        ] {
            let e = Config::parse(bad, "f").unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn an_unknown_profile_is_an_error_naming_the_known_ones() {
        let config = Config::parse("[agents.claude]\ncommand = [\"claude\"]\n", "f").unwrap();
        let e = choose(&config.agents, &config.drain, Some("codex")).unwrap_err();
        assert!(
            e.message.contains("`codex`") && e.message.contains("claude"),
            "{}",
            e.message
        );
        let e = choose(&config.agents, &config.drain, None).unwrap_err();
        assert!(e.message.contains("[drain] agent"), "{}", e.message);
        assert_eq!(
            choose(&config.agents, &config.drain, Some("claude"))
                .unwrap()
                .0,
            "claude"
        );
    }
}
