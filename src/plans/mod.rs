//! Plans: the accounts an agent profile runs on (a subscription, an API key, a cheaper
//! model behind another endpoint), each open or closed, and which plan a task runs on.
//!
//! A plan is `[plans.NAME]` in `fleet.toml`: the profile it runs (`agent`), the
//! environment that points that profile at the plan (`env`, added over the profile's),
//! `max_concurrency` (runs on it at once, across every drainer) and `order` (lower
//! first). `[classes] NAME = ["plan-a", "plan-b"]` maps a task's `--class` to the plans
//! it may run on, in order.
//!
//! Whether a plan is open is git data like the task queue, one ref per plan
//! (`refs/fleet/plans/<name>`, [`store`]), changed by compare-and-swap and through the
//! remote by leased pushes, so a plan a drainer closed on a usage limit is closed for
//! every drainer on every machine at once. A plan with no ref is open. Which plan a
//! task runs on now, and why, is [`route`].

pub mod route;
pub mod store;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agents::profile::{Concurrency, EnvValue, ProfileName};
use crate::config::Config;
use crate::error::{Error, Result};

pub use store::PlanStore;

/// The file in a plan ref's commit holding its state.
pub const STATE_FILE: &str = "plan.toml";

/// A plan, `[plans.NAME]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The profile (`[agents.NAME]`) this plan runs.
    pub agent: ProfileName,
    /// Added over the profile's env (same form: a literal, or `{ from = "VAR" }`).
    #[serde(
        default,
        deserialize_with = "env_table",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub env: BTreeMap<String, EnvValue>,
    /// Runs on this plan at once, across every drainer of the queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<Concurrency>,
    /// Lower first, among the plans a task may run on when its class does not order them.
    #[serde(default)]
    pub order: i64,
    /// How long a usage limit that named no reset time closes this plan; none: until a
    /// person reopens it (`fleet plans open`). A reset time is never guessed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown: Option<crate::config::DurationSetting>,
}

fn env_table<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<BTreeMap<String, EnvValue>, D::Error> {
    let table = BTreeMap::<String, EnvValue>::deserialize(d)?;
    for key in table.keys() {
        crate::config::EnvName::try_from(key.clone()).map_err(serde::de::Error::custom)?;
    }
    Ok(table)
}

/// `[plans]`: plan names are names like profiles' (letters, digits, `-`, `_`, `.`),
/// because each is a ref.
pub fn plans<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<BTreeMap<String, Plan>, D::Error> {
    let table = BTreeMap::<String, Plan>::deserialize(d)?;
    for name in table.keys() {
        ProfileName::try_from(name.clone())
            .map_err(|e| serde::de::Error::custom(e.replace("profile name", "plan name")))?;
    }
    Ok(table)
}

/// `[classes]`: each class an ordered list of plan names, none empty.
pub fn classes<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<BTreeMap<String, Vec<String>>, D::Error> {
    let table = BTreeMap::<String, Vec<String>>::deserialize(d)?;
    for (name, plans) in &table {
        if plans.is_empty() {
            return Err(serde::de::Error::custom(format!(
                "class `{name}` lists no plan; give it at least one, e.g. {name} = [\"subscription\"]"
            )));
        }
    }
    Ok(table)
}

/// What `fleet.toml` says must agree across tables: each plan's `agent` is a profile,
/// each class's plans are plans. Checked where plans are used (a drainer, `fleet plans`).
pub fn check(config: &Config) -> Result<()> {
    for (name, plan) in &config.plans {
        if !config.agents.contains_key(plan.agent.as_str()) {
            return Err(Error::usage(format!(
                "[plans.{name}] agent = \"{}\" names no [agents.{}] profile in fleet.toml",
                plan.agent.as_str(),
                plan.agent.as_str()
            ))
            .with_help(
                "add that profile, or set the plan's agent to one of fleet.toml's profiles",
            ));
        }
    }
    for (class, plans) in &config.classes {
        if let Some(unknown) = plans
            .iter()
            .find(|p| !config.plans.contains_key(p.as_str()))
        {
            return Err(Error::usage(format!(
                "[classes] {class} names plan `{unknown}`, which fleet.toml has no [plans.{unknown}] for"
            ))
            .with_help(known_plans(config)));
        }
    }
    Ok(())
}

/// The help naming the plans there are.
pub fn known_plans(config: &Config) -> String {
    if config.plans.is_empty() {
        "fleet.toml has no [plans.NAME]; add one with agent = \"PROFILE\"".into()
    } else {
        format!(
            "the plans are {}",
            config.plans.keys().cloned().collect::<Vec<_>>().join(", ")
        )
    }
}

/// A plan's name as the command line gives it: one of `fleet.toml`'s plans.
pub fn named<'c>(config: &'c Config, name: &str) -> Result<&'c Plan> {
    config.plans.get(name).ok_or_else(|| {
        Error::usage(format!("there is no plan `{name}` in fleet.toml"))
            .with_help(known_plans(config))
    })
}

/// A plan's state as its ref stores it. No ref: open.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanState {
    pub name: String,
    pub open: bool,
    /// Closed until this time (seconds since the epoch); `None` on a closed plan: until
    /// a person reopens it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// Why it was closed (the agent's words for a usage limit), or reopened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The run (and its task) whose usage limit closed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// When this state was written, and by whom (`drainer pid N on HOST`, `a person`).
    pub at: i64,
    pub by: String,
}

impl PlanState {
    /// The state of a plan with no ref.
    pub fn never_closed(name: &str) -> PlanState {
        PlanState {
            name: name.to_string(),
            open: true,
            until: None,
            why: None,
            run: None,
            task: None,
            at: 0,
            by: String::new(),
        }
    }

    /// Open at `now`: open, or closed until a time that has passed.
    pub fn is_open(&self, now: i64) -> bool {
        self.open || self.until.is_some_and(|t| t <= now)
    }

    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(self)
            .map_err(|e| Error::env(format!("cannot write plan {}: {e}", self.name)))
    }

    pub fn from_toml(text: &str, full_ref: &str) -> Result<PlanState> {
        toml::from_str(text).map_err(|e| {
            Error::env(format!(
                "the plan state at {full_ref} is unreadable: {}",
                e.message()
            ))
            .with_help(format!(
                "inspect it with `git show {full_ref}:{STATE_FILE}`; `fleet plans open NAME` writes it anew"
            ))
        })
    }
}

/// A time as `fleet plans` prints it: UTC, to the second (`2026-12-01T18:00:00Z`).
pub fn show_time(at: i64) -> String {
    jiff::Timestamp::from_second(at)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|_| at.to_string())
}

/// `--until`: an RFC 3339 time (`2026-12-01T18:00:00Z`, `2026-12-01T15:00:00-03:00`) or
/// a duration from `now` (`90m`, `2h`).
pub fn parse_until(text: &str, now: i64) -> std::result::Result<i64, String> {
    if let Ok(t) = text.parse::<jiff::Timestamp>() {
        // A plan closed until a time gone by would be open at once: the person meant
        // another time (a date a year off, a zone mixed up), not "open".
        if t.as_second() <= now {
            return Err(format!(
                "`{text}` has passed already (it is {} now): the plan would be open at once",
                show_time(now)
            ));
        }
        return Ok(t.as_second());
    }
    match crate::config::parse_duration(text) {
        Ok(d) => Ok(now + d.as_secs() as i64),
        Err(_) => Err(format!(
            "`{text}` is neither a time like 2026-12-01T18:00:00Z nor a duration like 2h"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_and_classes_are_checked_where_they_are_written_and_against_each_other() {
        let ok = Config::parse(
            "[agents.claude]\ncommand = [\"claude\"]\n[plans.sub]\nagent = \"claude\"\nenv = { ANTHROPIC_BASE_URL = \"http://x\", K = { from = \"KEY\" } }\nmax_concurrency = 2\norder = 1\ncooldown = \"30m\"\n[classes]\nreview = [\"sub\"]\n",
            "f",
        )
        .unwrap();
        assert_eq!(ok.plans["sub"].order, 1);
        assert_eq!(
            ok.plans["sub"].cooldown.as_ref().map(|d| d.0.as_secs()),
            Some(1800)
        );
        check(&ok).unwrap();
        for (bad, want) in [
            ("[plans.a]\nagent = \"x\"\ncolour = 1\n", "colour"),
            ("[plans.\"a b\"]\nagent = \"x\"\n", "not a plan name"),
            ("[plans.a]\nagent = \"x\"\nmax_concurrency = 0\n", "from 1"),
            ("[classes]\nc = []\n", "lists no plan"),
        ] {
            let e = Config::parse(bad, "f").unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
        let e = check(&Config::parse("[plans.a]\nagent = \"x\"\n", "f").unwrap()).unwrap_err();
        assert!(e.message.contains("[agents.x]"), "{}", e.message);
        let e = check(
            &Config::parse(
                "[agents.x]\ncommand = [\"x\"]\n[plans.a]\nagent = \"x\"\n[classes]\nc = [\"a\", \"b\"]\n",
                "f",
            )
            .unwrap(),
        )
        .unwrap_err();
        assert!(e.message.contains("plan `b`"), "{}", e.message);
    }

    #[test]
    fn until_reads_a_time_or_a_duration_and_a_closed_plan_opens_when_it_passes() {
        assert_eq!(parse_until("2100-01-01T00:00:00Z", 0), Ok(4102444800));
        assert_eq!(parse_until("2h", 100), Ok(7300));
        assert!(parse_until("soon", 0).is_err());
        assert!(parse_until("2020-01-01T00:00:00Z", 4102444800).is_err());
        let mut s = PlanState::never_closed("a");
        s.open = false;
        assert!(!s.is_open(5));
        s.until = Some(10);
        assert!(!s.is_open(9) && s.is_open(10));
        assert_eq!(show_time(4102444800), "2100-01-01T00:00:00Z");
    }
}
