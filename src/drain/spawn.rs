//! From a claimed task to a running agent: its worktree and branch (named for the run,
//! nested repositories included, tracked as a running lane), its plan, its folder and
//! its command.
//!
//! The plan is written to `.fleet/plan.md` in the run's worktree, and `/.fleet/` is
//! added to the repository's `info/exclude` (shared by its worktrees): the agent reads
//! it where it works (agents keep to their working folder), `git status` and `fleet
//! ready` never see it, and it cannot be committed by `git add -A`. Its absolute path is
//! `FLEET_PLAN` and `{plan}`.

use std::path::{Path, PathBuf};

use crate::agents::profile::{Home, Profile, Values};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{ObjectId, Repo};
use crate::queue::Queue;
use crate::tasks::{Run, Task};

/// The plan's place in a run's worktree, relative to it.
pub const PLAN_PATH: &str = ".fleet/plan.md";
/// The line of `info/exclude` that hides it.
const EXCLUDE_LINE: &str = "/.fleet/";

/// A run's worktree as made, with each repository's branch tip at the start (to tell
/// whether the agent committed anything).
pub struct Placed {
    pub path: PathBuf,
    pub branch: String,
    /// (repository's shared checkout, branch, tip when made).
    pub bases: Vec<(PathBuf, String, Option<ObjectId>)>,
}

/// The agent name of a run's worktree: the task's name and the run's short id, so
/// every attempt has a fresh worktree and branch (`fleet/fix-login-3f9a2b1c`).
pub fn worktree_name(task: &Task, run: &Run) -> String {
    let mut name: String = task.name.chars().take(80).collect();
    while name.ends_with('.') {
        name.pop();
    }
    format!("{name}-{}", run.short_id())
}

/// Make the run's worktree (all or nothing: `worktree::new` undoes a failure) and track
/// its branch as a running lane, publishing it first when the queue is on a remote.
pub fn place(
    ctx: &Context,
    queue: &Queue,
    name: &str,
    ui: &dyn crate::report::Ui,
) -> Result<Placed> {
    let made = new_worktree(ctx, name)?;
    if queue.remote().is_some() {
        // This fetches, racing the other drainers of this clone.
        crate::tasks::store::fetch_retried(|| {
            let resolved = queue.publish_to_track(ctx, std::slice::from_ref(&made.branch), ui)?;
            queue.track(ctx, &resolved, false)
        })?;
        // `worktree new` tracked the lane in this repository's own registry too when
        // fleet.toml names no remote; the remote's copy is the lane, so that one goes
        // (else `fleet status` here shows it running for ever).
        let here = Queue::configured(ctx);
        if here.remote().is_none() && here.load(ctx)?.0.get(&made.branch).is_some() {
            here.untrack(ctx, std::slice::from_ref(&made.branch))?;
        }
    }
    placed(ctx, made)
}

/// `worktree new` of agent `name`, for a run.
fn new_worktree(ctx: &Context, name: &str) -> Result<crate::worktree::NewOutcome> {
    let req = crate::worktree::NewRequest {
        name: crate::worktree::AgentName::parse(name)?,
        base: None,
        force_base: false,
        cwd: None,
    };
    // The drainer shows no worktree notes (they were dropped here before), so the one
    // that asks git about the guard hooks is not computed at all.
    crate::worktree::new_without_hooks_note(ctx, &req)
}

/// The worktree as made, with each repository's branch tip now.
fn placed(ctx: &Context, made: crate::worktree::NewOutcome) -> Result<Placed> {
    let bases = made
        .members
        .iter()
        .map(|m| {
            let tip = ctx.repo_at(&m.shared)?.branch_tip(&m.branch)?;
            Ok((m.shared.clone(), m.branch.clone(), tip))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Placed {
        path: made.path,
        branch: made.branch,
        bases,
    })
}

/// Make agent `name`'s worktree on a thread of its own, with a context of its own
/// ([`Context::for_thread`]: the drainer's repository and configuration, nothing read
/// again), so the worktree goes where the drainer's other runs' do. Only for a queue in
/// this repository: through a remote, making a run's lane publishes it, which reports
/// through the drainer's `Ui`.
fn place_in_background(
    ctx: &Context,
    name: String,
) -> std::io::Result<std::thread::JoinHandle<Result<Placed>>> {
    let own = ctx.for_thread();
    std::thread::Builder::new()
        .name(format!("worktree-{name}"))
        .spawn(move || placed(&own, new_worktree(&own, &name)?))
}

/// A follow-up task's worktree: the lane's own, as it is (see [`super::follow`]), with
/// the branch's tip now as the base that tells whether the agent committed.
pub fn continue_in(ctx: &Context, continues: &crate::tasks::Continues) -> Result<Placed> {
    let path = PathBuf::from(&continues.worktree);
    if !path.is_dir() {
        return Err(Error::env(format!(
            "the worktree {} of lane {} is gone, so the follow-up cannot continue it",
            path.display(),
            continues.branch
        ))
        .with_help(format!(
            "make it again (`fleet worktree new` on branch {}), or cancel this task",
            continues.branch
        )));
    }
    let tip = Repo::open(&ctx.shared)?.branch_tip(&continues.branch)?;
    Ok(Placed {
        path,
        branch: continues.branch.clone(),
        bases: vec![(ctx.shared.clone(), continues.branch.clone(), tip)],
    })
}

/// Write the plan into the worktree (see the module's doc) and return its path.
pub fn write_plan(repo: &Repo, worktree: &Path, text: &str) -> Result<PathBuf> {
    let exclude = repo.common_dir().join("info").join("exclude");
    let present = std::fs::read_to_string(&exclude)
        .is_ok_and(|t| t.lines().any(|l| l.trim() == EXCLUDE_LINE));
    if !present {
        use std::io::Write;
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(exclude.parent().unwrap_or(Path::new(".")))?;
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&exclude)?;
            writeln!(f, "\n# fleet drain: each run's plan\n{EXCLUDE_LINE}")
        };
        write().map_err(|e| Error::env(format!("cannot write {}: {e}", exclude.display())))?;
    }
    let plan = worktree.join(PLAN_PATH);
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(plan.parent().unwrap_or(worktree))?;
        std::fs::write(&plan, text)
    };
    write().map_err(|e| Error::env(format!("cannot write the plan {}: {e}", plan.display())))?;
    Ok(plan)
}

/// The agent's argv and environment for this run.
pub struct Launch {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// The retries a claude agent gets on an API error unless its profile or plan says
/// otherwise: with claude's own default it retries a 429 with back-off for minutes and
/// the run's timeout ends it with no result, so the limit would never be read.
pub const CLAUDE_MAX_RETRIES: &str = "2";

/// Build the launch: placeholders replaced inside their own argument, `FLEET_TASK`,
/// `FLEET_RUN`, `FLEET_PLAN` and `FLEET_WORKTREE` set, the profile's env added and then
/// the plan's over it (copies read from the drainer's environment), for a claude-json
/// profile `CLAUDE_CODE_MAX_RETRIES` ([`CLAUDE_MAX_RETRIES`]) unless either (or the
/// drainer's environment) sets it, and
/// with `home = "isolated"` a HOME and `CLAUDE_CONFIG_DIR` of the run's own carrying
/// the git identity over.
#[allow(clippy::too_many_arguments)]
pub fn launch(
    repo: &Repo,
    profile: &Profile,
    plan_env: Option<&crate::plans::Plan>,
    task: &Task,
    run: &Run,
    worktree: &Path,
    plan: &Path,
    prompt: &str,
    run_dir: &Path,
) -> Result<Launch> {
    let plan_s = plan.display().to_string();
    let worktree_s = worktree.display().to_string();
    let argv = profile.command.expand(&Values {
        prompt,
        plan: &plan_s,
        task: &task.name,
        run: &run.id,
        worktree: &worktree_s,
    });
    let mut env = vec![
        ("FLEET_TASK".to_string(), task.name.clone()),
        ("FLEET_RUN".to_string(), run.id.clone()),
        ("FLEET_PLAN".to_string(), plan_s),
        ("FLEET_WORKTREE".to_string(), worktree_s),
    ];
    let mut own = crate::agents::profile::resolve_env(profile, |v| std::env::var(v).ok())?;
    if let Some(plan) = plan_env {
        let over = Profile {
            env: plan.env.clone(),
            ..profile.clone()
        };
        let theirs = crate::agents::profile::resolve_env(&over, |v| std::env::var(v).ok())?;
        own.retain(|(k, _)| !theirs.iter().any(|(t, _)| t == k));
        own.extend(theirs);
    }
    if profile.result == crate::agents::result::ResultKind::ClaudeJson
        && !own.iter().any(|(k, _)| k == "CLAUDE_CODE_MAX_RETRIES")
        && std::env::var_os("CLAUDE_CODE_MAX_RETRIES").is_none()
    {
        own.push((
            "CLAUDE_CODE_MAX_RETRIES".into(),
            CLAUDE_MAX_RETRIES.to_string(),
        ));
    }
    // The agent's git runs its automatic maintenance in the foreground (see
    // `AGENT_CONFIG`), numbered after any `GIT_CONFIG_*` the agent inherits or its
    // profile gives it.
    let inherited = own
        .iter()
        .find(|(k, _)| k == "GIT_CONFIG_COUNT")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("GIT_CONFIG_COUNT").ok());
    let had = crate::git::cli::config_count(inherited.as_deref());
    own.retain(|(k, _)| k != "GIT_CONFIG_COUNT");
    env.extend(own);
    env.extend(crate::git::cli::config_env(
        &crate::git::cli::AGENT_CONFIG,
        had,
    ));
    if profile.home == Home::Isolated {
        let home = run_dir.join("home");
        let claude = home.join(".claude");
        std::fs::create_dir_all(&claude)
            .map_err(|e| Error::env(format!("cannot create {}: {e}", claude.display())))?;
        let mut gitconfig = String::from("[user]\n");
        for key in ["name", "email"] {
            if let Some(v) = repo.config_string(&format!("user.{key}")) {
                let quoted = v.replace('\\', "\\\\").replace('"', "\\\"");
                gitconfig.push_str(&format!("\t{key} = \"{quoted}\"\n"));
            }
        }
        let file = home.join(".gitconfig");
        std::fs::write(&file, gitconfig)
            .map_err(|e| Error::env(format!("cannot write {}: {e}", file.display())))?;
        env.push(("HOME".into(), home.display().to_string()));
        env.push(("CLAUDE_CONFIG_DIR".into(), claude.display().to_string()));
    }
    Ok(Launch { argv, env })
}

/// Has the agent committed anything, on its branch in any repository of the worktree?
pub fn committed(placed: &Placed) -> Result<bool> {
    for (shared, branch, base) in &placed.bases {
        if Repo::open(shared)?.branch_tip(branch)? != *base {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A claimed run with everything made for its agent but the agent: its worktree (recorded
/// on the run), plan and launch. [`super::Drainer::launch`] starts it; a run prepared
/// ahead that never starts is handed back ([`super::Drainer::hand_back`]).
pub(super) struct Prepared {
    name: crate::tasks::TaskName,
    task: Task,
    run: Run,
    profile: Profile,
    placed: Placed,
    launch: Launch,
    report: super::RunReport,
    /// When it was made: a run prepared ahead is handed back before its claim is stale.
    pub(super) at: std::time::Instant,
}

/// The run prepared ahead: ready, or its worktree still being made on a thread of its
/// own while the drainer goes on reaping ([`place_in_background`]).
pub(super) enum Ahead {
    Ready(Box<Prepared>),
    Making {
        claimed: Box<crate::tasks::Claimed>,
        worktree: std::thread::JoinHandle<Result<Placed>>,
        at: std::time::Instant,
    },
}

impl Ahead {
    /// Its worktree is made and the rest of it can be prepared without waiting.
    pub(super) fn made(&self) -> bool {
        match self {
            Ahead::Ready(_) => false,
            Ahead::Making { worktree, .. } => worktree.is_finished(),
        }
    }

    /// When its claim was prepared.
    pub(super) fn at(&self) -> std::time::Instant {
        match self {
            Ahead::Ready(p) => p.at,
            Ahead::Making { at, .. } => *at,
        }
    }
}

impl super::Drainer<'_> {
    /// Start the claimed task's run: its worktree, plan and agent. Anything failing
    /// before the agent runs ends the attempt as failed, with the reason.
    pub(super) fn spawn(&mut self, claimed: crate::tasks::Claimed) {
        if let Some(prepared) = self.prepare_run(claimed, false, None) {
            self.launch(prepared);
        }
    }

    /// Prepare the claimed run ahead: its worktree made on a thread of its own when it
    /// can be ([`place_in_background`]), else here and now.
    pub(super) fn prepare_ahead(&mut self, claimed: crate::tasks::Claimed) -> Option<Ahead> {
        if self.queue.remote().is_none() && claimed.task.continues.is_none() {
            let name = worktree_name(&claimed.task, &claimed.run);
            match place_in_background(self.ctx, name) {
                Ok(worktree) => {
                    return Some(Ahead::Making {
                        claimed: Box::new(claimed),
                        worktree,
                        at: std::time::Instant::now(),
                    });
                }
                Err(e) => self.ui.warn(&format!(
                    "cannot start a thread to make a worktree ({e}); making it now"
                )),
            }
        }
        self.prepare_run(claimed, true, None)
            .map(|p| Ahead::Ready(Box::new(p)))
    }

    /// The run prepared ahead, ready to launch (waiting for its worktree if it is still
    /// being made); `None` when its preparation failed (the attempt failed, with why).
    pub(super) fn finish_ahead(&mut self, ahead: Ahead) -> Option<Prepared> {
        match ahead {
            Ahead::Ready(prepared) => Some(*prepared),
            Ahead::Making {
                claimed,
                worktree,
                at,
            } => {
                let made = worktree
                    .join()
                    .unwrap_or_else(|_| Err(Error::env("the thread making the worktree panicked")));
                // Its hold runs from the claim, not from now.
                self.prepare_run(*claimed, true, Some(made))
                    .map(|p| Prepared { at, ..p })
            }
        }
    }

    /// Everything of the claimed task's run but its agent (see [`Prepared`]); `ahead`:
    /// while this drainer's every slot is busy, for the next free one. A failure ends
    /// the attempt as failed, with the reason, and gives `None`.
    /// `made`: its worktree, when made already ([`Drainer::prepare_ahead`]).
    pub(super) fn prepare_run(
        &mut self,
        claimed: crate::tasks::Claimed,
        ahead: bool,
        made: Option<Result<Placed>>,
    ) -> Option<Prepared> {
        let crate::tasks::Claimed { task, run } = claimed;
        let name = match crate::tasks::TaskName::parse(&task.name) {
            Ok(name) => name,
            Err(e) => {
                self.ui.warn(&e.message);
                return None;
            }
        };
        let run_dir = crate::state::run_dir(&self.ctx.repo.common_dir(), &run.id);
        let mut report = super::RunReport {
            task: task.name.clone(),
            run: run.id.clone(),
            attempt: run.attempt,
            agent: None,
            worktree: None,
            branch: None,
            stdout: run_dir.join("stdout"),
            stderr: run_dir.join("stderr"),
            outcome: None,
            error: None,
            state: None,
            check: None,
            plan: run.plan.clone(),
        };
        let prepared = crate::failpoint::hit("drain-after-claim")
            .and_then(|()| self.prepare(&name, &task, &run, &run_dir, &mut report, ahead, made));
        let (profile, placed, launch) = match prepared {
            Ok(p) => p,
            Err(e) => {
                let why = match &e.help {
                    Some(help) => format!("{} ({help})", e.message),
                    None => e.message.clone(),
                };
                self.settle_unstarted(&name, &run, report, why);
                return None;
            }
        };
        if let Some(why) = super::retry::oversized_argument(&launch.argv) {
            self.park_unstarted(&name, &run, report, why);
            return None;
        }
        Some(Prepared {
            name,
            task,
            run,
            profile,
            placed,
            launch,
            report,
            at: std::time::Instant::now(),
        })
    }

    /// Start the prepared run's agent on a thread of its own.
    pub(super) fn launch(&mut self, prepared: Prepared) {
        let Prepared {
            name,
            run,
            profile,
            placed,
            launch,
            report,
            ..
        } = prepared;
        let key = self.next_key;
        self.next_key += 1;
        let abort = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let job = super::agent::Job {
            key,
            argv: launch.argv,
            cwd: placed.path.clone(),
            env: launch.env,
            stdout: report.stdout.clone(),
            stderr: report.stderr.clone(),
            timeout: profile.timeout.0,
            max_output: self.ctx.config.drain.max_output_mib.saturating_mul(1 << 20),
        };
        if let Err(e) = super::agent::start(job, self.clock.clone(), abort.clone(), self.tx.clone())
        {
            self.settle_unstarted(&name, &run, report, format!("cannot start a thread: {e}"));
            return;
        }
        self.live.insert(
            key,
            super::Live {
                name,
                run,
                profile,
                placed: Some(placed),
                abort,
                started: false,
                lost: false,
                usage: None,
                report,
                launched: std::time::Instant::now(),
            },
        );
    }

    /// Hand back a run prepared ahead whose agent never started (the drainer stops, or
    /// it waited too long for a slot): the task queued again by compare-and-swap with no
    /// attempt used ([`crate::tasks::Store::release`]), its worktree, branch and lane
    /// removed (nothing ran there).
    pub(super) fn hand_back(&mut self, prepared: Prepared, why: &str) {
        let Prepared {
            name,
            task,
            run,
            mut report,
            ..
        } = prepared;
        let why = format!("handed back before its agent started: {why}");
        match self.store.release(&name, &run.id, &why, crate::time::now()) {
            Ok(task) => {
                self.ui.note(&format!("{name}: {why} (run {})", run.id));
                report.state = Some(task.state);
            }
            Err(e) => {
                self.ui.warn(&format!(
                    "{name}: run {} was not handed back: {}",
                    run.id, e.message
                ));
                report.error = Some(why);
                self.report.runs.push(report);
                return;
            }
        }
        self.remove_unstarted_worktree(&task, &run);
        report.error = Some(why);
        self.report.runs.push(report);
    }

    #[allow(clippy::type_complexity, clippy::too_many_arguments)]
    fn prepare(
        &self,
        name: &crate::tasks::TaskName,
        task: &Task,
        run: &Run,
        run_dir: &Path,
        report: &mut super::RunReport,
        ahead: bool,
        made: Option<Result<Placed>>,
    ) -> Result<(Profile, Placed, Launch)> {
        let (profile_name, profile) = self.profile_of(task, Some(run))?;
        let plan_env = match run.plan.as_deref() {
            Some(p) => Some(crate::plans::named(&self.ctx.config, p)?),
            None => None,
        };
        report.agent = Some(profile_name);
        std::fs::create_dir_all(run_dir)
            .map_err(|e| Error::env(format!("cannot create {}: {e}", run_dir.display())))?;
        let plan = self.store.load(name)?.and_then(|(_, plan)| plan);
        let own = plan.or_else(|| task.prompt.clone()).unwrap_or_default();
        let text = super::retry::plan_text(task, &own);
        let placed = match (made, &task.continues) {
            (Some(made), _) => made?,
            (None, Some(continues)) => continue_in(self.ctx, continues)?,
            (None, None) => place(self.ctx, self.queue, &worktree_name(task, run), self.ui)?,
        };
        report.worktree = Some(placed.path.clone());
        report.branch = Some(placed.branch.clone());
        crate::failpoint::hit("drain-after-worktree")?;
        if ahead {
            crate::failpoint::hit("drain-ahead-after-worktree")?;
        }
        self.store.place(
            name,
            &run.id,
            &placed.path.display().to_string(),
            &placed.branch,
        )?;
        crate::failpoint::hit("drain-after-place")?;
        let plan = write_plan(&self.ctx.repo, &placed.path, &text)?;
        let launch = launch(
            &self.ctx.repo,
            &profile,
            plan_env,
            task,
            run,
            &placed.path,
            &plan,
            &text,
            run_dir,
        )?;
        Ok((profile, placed, launch))
    }
}
