//! Reading and changing the plan refs, here or through a remote, as the task store
//! does ([`crate::tasks::store`]): each change reads the plan's ref, writes a commit
//! on it holding the new `plan.toml`, and moves the ref by compare-and-swap from
//! exactly what it read (a ref transaction here, a push leased on the old value
//! through a remote). A change that loses reads again and decides again. The history
//! of a plan (every close and reopen, and by whom) is its ref's log.

use std::collections::BTreeMap;
use std::time::Duration;

use super::{PlanState, STATE_FILE};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{ObjectId, cli::PushUpdate};
use crate::queue::Queue;
use crate::refs;
use crate::remote;

/// How often a change reads again after losing a race.
const ATTEMPTS: usize = 50;
/// A ref lock older than this was left by a killed writer.
const STALE_REF_LOCK: Duration = Duration::from_secs(10);

/// The plans' states where `queue` is: this repository's refs, or a remote's.
pub struct PlanStore<'a> {
    ctx: &'a Context,
    queue: &'a Queue,
}

/// Who wrote a state: this drainer, or a person at the command line.
pub fn drainer_by() -> String {
    format!(
        "drainer pid {} on {}",
        std::process::id(),
        crate::sys::procfs::hostname().unwrap_or_else(|| "unknown".into())
    )
}

impl<'a> PlanStore<'a> {
    pub fn new(ctx: &'a Context, queue: &'a Queue) -> PlanStore<'a> {
        PlanStore { ctx, queue }
    }

    /// Where the plan refs are read here.
    fn prefix(&self) -> String {
        match self.queue.remote() {
            None => refs::PLANS.to_string(),
            Some(remote) => refs::remote_plans(remote),
        }
    }

    fn read_ref(&self, name: &str) -> String {
        format!("{}{name}", self.prefix())
    }

    fn read(&self, full: &str, commit: ObjectId) -> Result<PlanState> {
        let bytes = self.ctx.repo.file_at(commit, STATE_FILE)?.ok_or_else(|| {
            Error::env(format!("the plan state at {full} has no {STATE_FILE}")).with_help(format!(
                "inspect it with `git show {full}`; `fleet plans open NAME` writes it anew"
            ))
        })?;
        PlanState::from_toml(&String::from_utf8_lossy(&bytes), full)
    }

    /// The state of plan `name` (open when it has no ref).
    pub fn get(&self, name: &str) -> Result<PlanState> {
        let full = self.read_ref(name);
        match self.ctx.repo.ref_target(&full)? {
            Some(commit) => self.read(&full, commit),
            None => Ok(PlanState::never_closed(name)),
        }
    }

    /// Every plan with a ref, by name (a plan of `fleet.toml` with none is open).
    pub fn all(&self) -> Result<BTreeMap<String, PlanState>> {
        let prefix = self.prefix();
        let mut out = BTreeMap::new();
        for (full, commit) in self.ctx.repo.ref_ids_under(&prefix)? {
            let name = full.strip_prefix(&prefix).unwrap_or(&full).to_string();
            out.insert(name, self.read(&full, commit)?);
        }
        Ok(out)
    }

    /// Close plan `name` for a usage limit until `until` (`None`: until reopened), unless
    /// it is closed already for at least as long (two drainers hitting one limit close it
    /// once). Returns the state as stored and whether this call wrote it.
    pub fn close_for_limit(
        &self,
        name: &str,
        until: Option<i64>,
        why: &str,
        task: &str,
        run: &str,
        now: i64,
    ) -> Result<(PlanState, bool)> {
        self.change(name, |old| {
            let longer_already = !old.is_open(now)
                && match (old.until, until) {
                    (None, _) => true,
                    (Some(_), None) => false,
                    (Some(theirs), Some(ours)) => theirs >= ours,
                };
            (!longer_already).then(|| PlanState {
                name: name.to_string(),
                open: false,
                until,
                why: Some(why.to_string()),
                run: Some(run.to_string()),
                task: Some(task.to_string()),
                at: now,
                by: drainer_by(),
            })
        })
    }

    /// A person closes plan `name` (until `until`, else until reopened) or opens it.
    pub fn set_by_hand(
        &self,
        name: &str,
        open: bool,
        until: Option<i64>,
        now: i64,
    ) -> Result<PlanState> {
        let state = PlanState {
            name: name.to_string(),
            open,
            until: if open { None } else { until },
            why: Some(if open {
                "opened by hand (`fleet plans open`)".into()
            } else {
                "closed by hand (`fleet plans close`)".into()
            }),
            run: None,
            task: None,
            at: now,
            by: "a person".into(),
        };
        self.change(name, |_| Some(state.clone())).map(|(s, _)| s)
    }

    /// Decide the next state from the current one (`None`: leave it) and store it by
    /// compare-and-swap, deciding again when another process moved it first.
    fn change(
        &self,
        name: &str,
        mut decide: impl FnMut(&PlanState) -> Option<PlanState>,
    ) -> Result<(PlanState, bool)> {
        let repo = &self.ctx.repo;
        let full = self.read_ref(name);
        for _ in 0..ATTEMPTS {
            let old = repo.ref_target(&full)?;
            let current = match old {
                Some(commit) => self.read(&full, commit)?,
                None => PlanState::never_closed(name),
            };
            let Some(next) = decide(&current) else {
                return Ok((current, false));
            };
            let what = if next.open {
                "open".to_string()
            } else {
                match next.until {
                    Some(t) => format!("closed until {}", super::show_time(t)),
                    None => "closed until reopened".to_string(),
                }
            };
            let toml = next.to_toml()?;
            let commit = repo.write_commit(
                &[(STATE_FILE, toml.as_bytes())],
                &format!("fleet: plan {name}: {what}"),
                &old.into_iter().collect::<Vec<_>>(),
            )?;
            if self.swap(name, old, commit, &what)? {
                return Ok((next, true));
            }
        }
        Err(Error::env(format!(
            "plan `{name}` kept changing under fleet ({ATTEMPTS} attempts); nothing was written"
        ))
        .with_help("another fleet process is updating it in a loop; retry in a moment"))
    }

    /// Move plan `name`'s ref from `old` to `new`; `Ok(false)` when another process
    /// moved it first.
    fn swap(&self, name: &str, old: Option<ObjectId>, new: ObjectId, what: &str) -> Result<bool> {
        let repo = &self.ctx.repo;
        match self.queue.remote() {
            None => {
                let full = refs::plan(name);
                if repo.cas_update(&full, old, new, what).is_ok() {
                    return Ok(true);
                }
                repo.clear_stale_ref_lock(&full, STALE_REF_LOCK);
                if repo.ref_target(&full)? == old {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Ok(false)
            }
            Some(remote) => {
                let update = PushUpdate {
                    dst: refs::plan(name),
                    new: new.to_string(),
                    expect: old.map(|id| id.to_string()),
                };
                let Some(why) = remote::push(self.ctx, remote, &[update])? else {
                    remote::set_tracking(repo, &self.read_ref(name), new)?;
                    return Ok(true);
                };
                self.queue.refresh(self.ctx)?;
                if repo.ref_target(&self.read_ref(name))? == old {
                    return Err(remote::push_refused(remote, &why));
                }
                Ok(false)
            }
        }
    }
}
