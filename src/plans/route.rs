//! Which plan a task runs on now, and why: the one decision both the drainer's claim
//! and `fleet plans explain` make, so what explain prints is what a drainer does.
//!
//! The plans a task may run on: its class's list (`[classes] NAME`, in that order), or
//! without a class every plan by `order` then name. A task's `--agent` pins a profile:
//! only the plans running it are kept, and when none does the task runs on that profile
//! alone, with no plan (as with no `[plans]` at all, where `--agent` or `[drain] agent`
//! names the profile). The first plan that is open and under its `max_concurrency` is
//! the one; every plan passed over is told with why.

use std::collections::BTreeMap;

use serde::Serialize;

use super::PlanState;
use crate::config::Config;
use crate::tasks::Task;

/// Why a plan was taken or passed over.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "standing", rename_all = "snake_case")]
pub enum Standing {
    /// Open, with room: `running` runs on it now, of at most `max`.
    Open { running: u32, max: Option<u32> },
    /// Closed (until `until`, else until reopened), and why.
    Closed {
        until: Option<i64>,
        why: Option<String>,
        run: Option<String>,
        task: Option<String>,
    },
    /// Open, but `running` of its `max` runs are going.
    AtCapacity { running: u32, max: u32 },
    /// It runs another profile than the one the task pins.
    OtherProfile { agent: String },
    /// Its profile is at the profile's own `max_concurrency` (`[agents.NAME]`).
    ProfileAtCapacity { running: u32, max: u32 },
}

/// One plan as the route looked at it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Considered {
    pub plan: String,
    pub agent: String,
    #[serde(flatten)]
    pub standing: Standing,
}

/// Where the task goes now.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Runs now: on `plan` (none: the profile alone), with profile `agent`.
    Run { plan: Option<String>, agent: String },
    /// Waits: every plan it may run on is closed or full (or, with no plans, its
    /// profile is at its `max_concurrency`).
    Wait,
    /// Cannot run until fleet.toml changes (a class or profile it names is gone): a
    /// drainer claims it and fails the attempt with `why`.
    Broken { why: String },
}

/// The route of one task: the decision and everything that led to it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Route {
    pub task: String,
    pub decision: Decision,
    /// Where the list of plans came from.
    pub source: String,
    pub considered: Vec<Considered>,
    /// Settings that changed what the default would have been (a pinned profile).
    pub overrides: Vec<String>,
}

impl Route {
    /// The plan and profile to run on now, if the task runs now.
    pub fn runs_on(&self) -> Option<(Option<&str>, &str)> {
        match &self.decision {
            Decision::Run { plan, agent } => Some((plan.as_deref(), agent.as_str())),
            _ => None,
        }
    }
}

/// Runs claimed or running in the whole queue (every drainer's), by plan and by profile.
#[derive(Clone, Debug, Default)]
pub struct Busy {
    pub plans: BTreeMap<String, u32>,
    pub profiles: BTreeMap<String, u32>,
}

impl Busy {
    /// Count the claimed and running tasks: each on its run's plan and that plan's
    /// profile, or (no plan) on its own profile or `[drain] agent`.
    pub fn of(config: &Config, tasks: &[Task]) -> Busy {
        let mut busy = Busy::default();
        for task in tasks {
            if !matches!(
                task.state,
                crate::tasks::TaskState::Claimed | crate::tasks::TaskState::Running
            ) {
                continue;
            }
            let plan = task.last_run().and_then(|r| r.plan.as_deref());
            let profile = match plan {
                Some(p) => config.plans.get(p).map(|p| p.agent.as_str()),
                None => task
                    .agent
                    .as_deref()
                    .or(config.drain.agent.as_ref().map(|a| a.as_str())),
            };
            if let Some(p) = plan {
                *busy.plans.entry(p.to_string()).or_default() += 1;
            }
            if let Some(p) = profile {
                *busy.profiles.entry(p.to_string()).or_default() += 1;
            }
        }
        busy
    }

    /// Profile `name` at its own `max_concurrency`: (running, max).
    fn profile_full(&self, config: &Config, name: &str) -> Option<(u32, u32)> {
        let max = config.agents.get(name)?.max_concurrency?.0;
        let running = self.profiles.get(name).copied().unwrap_or(0);
        (running >= max).then_some((running, max))
    }
}

/// Route `task` at `now`, given the plans' stored states and the runs on each.
pub fn route(
    config: &Config,
    task: &Task,
    states: &BTreeMap<String, PlanState>,
    busy: &Busy,
    now: i64,
) -> Route {
    let mut route = Route {
        task: task.name.clone(),
        decision: Decision::Wait,
        source: String::new(),
        considered: Vec::new(),
        overrides: Vec::new(),
    };
    let pinned = task.agent.as_deref();
    if let Some(agent) = pinned {
        route.overrides.push(format!(
            "the task pins profile `{agent}` (fleet task add --agent {agent}): only plans running it are considered{}",
            match &config.drain.agent {
                Some(d) if d.as_str() != agent => format!(", not [drain] agent = \"{}\"", d.as_str()),
                _ => String::new(),
            }
        ));
    }
    let profile_alone = |route: &mut Route| match crate::agents::profile::choose(
        &config.agents,
        &config.drain,
        pinned,
    ) {
        Ok((agent, _)) => {
            route.decision = match busy.profile_full(config, &agent) {
                Some((running, max)) => {
                    route.overrides.push(format!(
                        "profile `{agent}` is at its max_concurrency: {running} of {max} running"
                    ));
                    Decision::Wait
                }
                None => Decision::Run { plan: None, agent },
            };
        }
        Err(e) => {
            route.decision = Decision::Broken { why: e.message };
        }
    };
    if !config.plans.is_empty()
        && pinned.is_none()
        && let Some(d) = &config.drain.agent
    {
        route.overrides.push(format!(
            "[drain] agent = \"{}\" is not used: with [plans], a task runs on its plans' profiles",
            d.as_str()
        ));
    }
    if config.plans.is_empty() {
        route.source = "fleet.toml has no [plans]: the task runs on its profile alone".into();
        if let Some(class) = &task.class {
            route.decision = Decision::Broken {
                why: format!(
                    "the task's class `{class}` needs [classes] {class} in fleet.toml, which has no [plans]"
                ),
            };
            return route;
        }
        profile_alone(&mut route);
        return route;
    }
    let names: Vec<String> = match &task.class {
        Some(class) => match config.classes.get(class) {
            Some(list) => {
                route.source = format!(
                    "class `{class}`: [classes] {class} = [{}], tried in that order",
                    list.iter()
                        .map(|p| format!("\"{p}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                list.clone()
            }
            None => {
                route.source = format!("class `{class}`");
                route.decision = Decision::Broken {
                    why: format!("the task's class `{class}` is not in fleet.toml's [classes]"),
                };
                return route;
            }
        },
        None => {
            route.source = "no class: every plan, by order then name".into();
            let mut all: Vec<(&String, &super::Plan)> = config.plans.iter().collect();
            all.sort_by(|a, b| a.1.order.cmp(&b.1.order).then(a.0.cmp(b.0)));
            all.into_iter().map(|(n, _)| n.clone()).collect()
        }
    };
    let mut chosen = None;
    let mut kept = 0;
    for name in names {
        let Some(plan) = config.plans.get(&name) else {
            route.decision = Decision::Broken {
                why: format!("plan `{name}` is not in fleet.toml's [plans]"),
            };
            return route;
        };
        let agent = plan.agent.as_str().to_string();
        let standing = if pinned.is_some_and(|p| p != agent) {
            Standing::OtherProfile {
                agent: agent.clone(),
            }
        } else {
            kept += 1;
            let running = busy.plans.get(&name).copied().unwrap_or(0);
            let state = states.get(&name);
            match state {
                Some(s) if !s.is_open(now) => Standing::Closed {
                    until: s.until,
                    why: s.why.clone(),
                    run: s.run.clone(),
                    task: s.task.clone(),
                },
                _ => match (plan.max_concurrency, busy.profile_full(config, &agent)) {
                    (Some(max), _) if running >= max.0 => Standing::AtCapacity {
                        running,
                        max: max.0,
                    },
                    (_, Some((running, max))) => Standing::ProfileAtCapacity { running, max },
                    (max, None) => Standing::Open {
                        running,
                        max: max.map(|m| m.0),
                    },
                },
            }
        };
        if chosen.is_none() && matches!(standing, Standing::Open { .. }) {
            chosen = Some((name.clone(), agent.clone()));
        }
        route.considered.push(Considered {
            plan: name,
            agent,
            standing,
        });
    }
    match chosen {
        Some((plan, agent)) => {
            route.decision = Decision::Run {
                plan: Some(plan),
                agent,
            }
        }
        None if kept == 0 && pinned.is_some() => {
            route.overrides.push(format!(
                "no plan runs profile `{}`: the task runs on that profile alone, with no plan's limits",
                pinned.unwrap_or_default()
            ));
            profile_alone(&mut route);
        }
        None => route.decision = Decision::Wait,
    }
    route
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::{Holder, TaskName, TaskState};

    fn config() -> Config {
        Config::parse(
            "[agents.x]\ncommand = [\"x\"]\nmax_concurrency = 3\n[agents.y]\ncommand = [\"y\"]\n[plans.a]\nagent = \"x\"\nmax_concurrency = 1\n[plans.b]\nagent = \"x\"\norder = 1\n[plans.c]\nagent = \"y\"\norder = 2\n",
            "f",
        )
        .unwrap()
    }

    fn task(name: &str) -> Task {
        Task::new(&TaskName::parse(name).unwrap(), 0)
    }

    fn running_on(name: &str, plan: &str) -> Task {
        let mut t = task(name);
        t.claim(&Holder::this_process("t"), 0, 60);
        t.runs[0].plan = Some(plan.into());
        t.state = TaskState::Running;
        t
    }

    #[test]
    fn the_first_open_plan_with_room_is_chosen_and_every_other_is_told_why() {
        let config = config();
        let mut states = BTreeMap::new();
        let route = |states: &BTreeMap<String, PlanState>, busy: &Busy, now| {
            super::route(&config, &task("t"), states, busy, now)
        };
        let idle = Busy::default();
        assert_eq!(route(&states, &idle, 0).runs_on(), Some((Some("a"), "x")));
        // a full: b.
        let busy = Busy::of(&config, &[running_on("r", "a")]);
        let r = route(&states, &busy, 0);
        assert_eq!(r.runs_on(), Some((Some("b"), "x")));
        assert_eq!(
            r.considered[0].standing,
            Standing::AtCapacity { running: 1, max: 1 }
        );
        // b closed until 100: c until then, b again after.
        let mut closed = PlanState::never_closed("b");
        closed.open = false;
        closed.until = Some(100);
        states.insert("b".to_string(), closed);
        assert_eq!(route(&states, &busy, 99).runs_on(), Some((Some("c"), "y")));
        assert_eq!(route(&states, &busy, 100).runs_on(), Some((Some("b"), "x")));
        // Profile x at its own cap (3 runs): a and b are passed over for it.
        let busy = Busy::of(
            &config,
            &[
                running_on("r1", "a"),
                running_on("r2", "b"),
                running_on("r3", "b"),
            ],
        );
        let r = route(&BTreeMap::new(), &busy, 0);
        assert_eq!(r.runs_on(), Some((Some("c"), "y")));
        assert_eq!(
            r.considered[1].standing,
            Standing::ProfileAtCapacity { running: 3, max: 3 }
        );
        // Everything closed: it waits.
        let mut all = BTreeMap::new();
        for p in ["a", "b", "c"] {
            let mut s = PlanState::never_closed(p);
            s.open = false;
            all.insert(p.to_string(), s);
        }
        assert_eq!(route(&all, &idle, 0).decision, Decision::Wait);
    }

    #[test]
    fn a_pinned_profile_keeps_its_plans_and_with_none_runs_alone_saying_so() {
        let config = config();
        let mut t = task("t");
        t.agent = Some("y".into());
        let r = route(&config, &t, &BTreeMap::new(), &Busy::default(), 0);
        assert_eq!(r.runs_on(), Some((Some("c"), "y")));
        assert!(matches!(
            r.considered[0].standing,
            Standing::OtherProfile { .. }
        ));
        let mut config = config;
        config.plans.remove("c");
        let r = route(&config, &t, &BTreeMap::new(), &Busy::default(), 0);
        assert_eq!(r.runs_on(), Some((None, "y")));
        assert!(
            r.overrides
                .iter()
                .any(|o| o.contains("no plan runs profile `y`")),
            "{:?}",
            r.overrides
        );
        let mut t = task("t");
        t.class = Some("gone".into());
        let r = route(&config, &t, &BTreeMap::new(), &Busy::default(), 0);
        assert!(matches!(r.decision, Decision::Broken { .. }));
    }
}
