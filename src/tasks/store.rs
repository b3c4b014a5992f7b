//! Reading and changing the task refs, here or through a remote.
//!
//! Every change reads a task's ref, builds the next commit on it and moves the ref by
//! compare-and-swap from exactly the commit it read: locally with a ref transaction
//! that requires the old value ([`crate::git::Repo::cas_update`]), through a remote
//! with a push leased on that old value ([`remote::push`]). A change that loses reads again and
//! re-applies (its checks run again on what it finds); a claim that loses tries the next
//! candidate. Each ref is its own lock, so claims of different tasks never wait on each
//! other, and no fleet-wide lock is taken.
//!
//! Lists and claims read the task refs (not peeled, so no object is read) and take each
//! task from the memo of parsed tasks keyed by commit id (`tasks::memo`); only a
//! commit the memo does not know is read from git. A claim chooses from the memo, then
//! reads the chosen task's own commit and swaps from exactly that commit, so the memo
//! can make a claim slower (a lost race) but never wrong.
//!
//! Why one ref per task (`cargo bench --bench tasks`, 10,000 tasks, 4 claimers): a claim
//! contends only on its own task and writes one small file, where a registry blob
//! rewrites all 10,000 tasks under one lock (13 claims/s). With the memo a claim costs
//! a listing of the refs: 21 claims/s with 10,000 loose refs (45 ms to list them),
//! 119 with packed refs (3 ms); `fleet task list --json` 78 ms loose, 34 ms packed
//! (489 ms and 2 claims/s before the memo, when every task's commit was read each time).
//! Loose task refs are what every change leaves; fleet packs them once more than 1,000
//! are loose (`drain::pack`).

use std::cell::OnceCell;
use std::cell::{RefCell, RefMut};
use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::memo::{Memo, SAVE_AFTER_CHANGES};
use super::{Holder, Outcome, PLAN_FILE, Run, TASK_FILE, Task, TaskName, TaskState};
use crate::context::Context;
use crate::error::{Error, Kind, Result};
use crate::git::{ObjectId, cli::PushUpdate};
use crate::queue::Queue;
use crate::refs;
use crate::remote;

/// How often a change reads again after losing a race (or finding the ref locked).
const ATTEMPTS: usize = 50;
/// A ref lock older than this was left by a killed writer (git and gix hold one for
/// milliseconds).
const STALE_REF_LOCK: Duration = Duration::from_secs(10);
/// Swaps in a row that failed with nothing moved after which a change or a claim gives
/// up: each waited out a lock in its way (gix waits a second for `packed-refs.lock`),
/// so the lock is held or left over, and [`ATTEMPTS`] more would only take a minute to
/// say so.
const STUCK_SWAPS: usize = 3;
/// How many of the first claimable tasks a claim tries before it lists the refs again.
const CANDIDATES: usize = 16;
/// How long the candidates a claim listed and did not need are tried first by the
/// next claim of the same store, before it lists the refs again. Listing 10,000 task
/// refs is nearly all a claim costs (`cargo bench --bench tasks`); a drainer starting
/// several agents claims several in a row. Each is checked as a listed one is (its ref
/// still at the listed commit, that commit read from git, claimable, routed), so this
/// can make a claim take the second best task of a moment ago (or pass over one that a
/// route refused then and takes now), as two drainers listing at once can, but never
/// claim a task twice.
const LEFTOVER_FOR: Duration = Duration::from_millis(100);
/// A claim rewrites the memo file once it has fallen this share of the queue behind
/// (and at least [`SAVE_AFTER_CHANGES`]): a rewrite costs the whole queue, so this
/// keeps its cost per claim the same at 10,000 tasks as at 100.
const SAVE_SHARE: usize = 16;
/// How often a push of a task ref that the remote did not take, with nothing moved
/// there, is pushed again before it is an error.
const DECLINED_TRIES: usize = 4;
/// How often a failed fetch of a remote queue is tried again (four drainers of one
/// clone on a loaded machine lost five tries in a row).
const FETCH_TRIES: usize = 12;

/// Claim candidates, best first, as a listing chose them: each task's name and the
/// commit its ref named; and when they were listed.
type Listed = (Instant, Vec<(String, ObjectId)>);

/// A task just claimed, and its new run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Claimed {
    pub task: Task,
    pub run: Run,
}

/// The task queue where `queue` is: this repository's refs, or a remote's.
pub struct Store<'a> {
    ctx: &'a Context,
    queue: &'a Queue,
    /// Loaded on first use; see [`super::memo`].
    memo: RefCell<Option<Memo>>,
    /// The candidates a claim chose and did not need, with when they were listed: the
    /// next claim within [`LEFTOVER_FOR`] tries them before listing again.
    leftover: RefCell<Option<Listed>>,
    /// How many swaps in a row failed with nothing moved (a lock in the way), and the
    /// last one's error: a change or claim gives up at [`STUCK_SWAPS`], saying so
    /// ("kept changing" would not be true).
    stuck: RefCell<Option<(usize, String)>>,
}

impl<'a> Store<'a> {
    pub fn new(ctx: &'a Context, queue: &'a Queue) -> Store<'a> {
        Store {
            ctx,
            queue,
            memo: RefCell::new(None),
            leftover: RefCell::new(None),
            stuck: RefCell::new(None),
        }
    }

    /// Where the queue's task refs are read here.
    fn prefix(&self) -> String {
        match self.queue.remote() {
            None => refs::TASKS.to_string(),
            Some(remote) => refs::remote_tasks(remote),
        }
    }

    fn read_ref(&self, name: &str) -> String {
        format!("{}{name}", self.prefix())
    }

    /// With the queue on a remote: fetch it (its task refs among the rest), tried
    /// again after a failure ([`fetch_retried`]).
    pub fn refresh(&self) -> Result<()> {
        fetch_retried(|| self.queue.refresh(self.ctx)).map(|_| ())
    }

    fn read(&self, full_ref: &str, commit: ObjectId) -> Result<Task> {
        // A ref pushed by hand to a blob or a tree: say so, not gix's "supposed to be
        // of kind commit".
        if let Some(kind) = self.ctx.repo.object_kind(commit).filter(|k| *k != "commit") {
            let named = full_ref.strip_prefix(&self.prefix()).unwrap_or(full_ref);
            return Err(Error::env(format!(
                "the task at {full_ref} points to a {kind} ({commit}), not a task commit: \
                 written by hand, so no drainer runs it"
            ))
            .with_help(format!(
                "inspect it with `git cat-file -p {commit}`; {} removes it",
                self.removal(named)
            )));
        }
        let bytes = self.ctx.repo.file_at(commit, TASK_FILE)?.ok_or_else(|| {
            Error::env(format!("the task at {full_ref} has no {TASK_FILE}")).with_help(format!(
                "inspect it with `git show {full_ref}`; `git update-ref -d {full_ref}` removes it"
            ))
        })?;
        let task = Task::from_toml(&String::from_utf8_lossy(&bytes), full_ref)?;
        // A task is changed, claimed and run by the name its ref has: one whose file
        // names another (pushed by hand, copied from another task's ref) or no valid name
        // at all would be moved under a ref it was not read from, or stop every claim on
        // its name. It is left out, as an unreadable one is.
        let named = full_ref.strip_prefix(&self.prefix()).unwrap_or(full_ref);
        if task.name != named {
            return Err(Error::env(format!(
                "the task at {full_ref} calls itself {:?} in its {TASK_FILE}, not {named:?}: \
                 written by hand or copied from another task's ref, so no drainer runs it",
                task.name
            ))
            .with_help(format!(
                "inspect it with `git show {full_ref}:{TASK_FILE}`; {} removes it",
                self.removal(named)
            )));
        }
        TaskName::parse(&task.name).map_err(|e| {
            Error::env(format!("the task at {full_ref}: {}", e.message))
                .with_help(format!("{} removes it", self.removal(named)))
        })?;
        Ok(task)
    }

    /// The command that removes the task ref of `name` from the queue.
    fn removal(&self, name: &str) -> String {
        let own = refs::task(name);
        match self.queue.remote() {
            None => format!("`git update-ref -d {own}`"),
            Some(remote) => format!("`git push {remote} :{own}`"),
        }
    }

    /// The memo of parsed tasks, read from its file on first use.
    fn memo(&self) -> RefMut<'_, Memo> {
        RefMut::map(self.memo.borrow_mut(), |memo| {
            memo.get_or_insert_with(|| {
                Memo::load(
                    crate::state::task_memo(&self.ctx.repo.common_dir()),
                    &self.prefix(),
                )
            })
        })
    }

    /// Every task ref with the commit it names and the task that commit holds, from the
    /// memo or, for a commit the memo does not know, from git: for what the memo knows
    /// only the refs are read. Once the memo gained `save_after` entries it drops what
    /// no ref names and its file is rewritten (so it stays bounded in memory too).
    fn with_entries<T>(
        &self,
        save_after: impl Fn(usize) -> usize,
        f: impl FnOnce(&[(ObjectId, &Task)]) -> T,
    ) -> Result<T> {
        let refs = self.ctx.repo.ref_ids_under(&self.prefix())?;
        let save_after = save_after(refs.len());
        let mut memo = self.memo();
        for (full, commit) in &refs {
            if memo.get(commit).is_none() {
                // An unreadable task (garbage pushed to its ref, a newer fleet's) is left
                // out rather than stopping the whole queue; doctor's `unreadable-tasks`
                // and `fleet task show` name it.
                let Ok(task) = self.read(full, *commit) else {
                    continue;
                };
                memo.insert(*commit, task);
            }
        }
        if memo.changes() >= save_after {
            memo.retain(&refs.iter().map(|(_, c)| *c).collect());
            memo.save();
        }
        let prefix = self.prefix();
        // One commit may sit under two refs (a task's ref copied by hand): it is the task
        // only under the ref of its own name ([`Store::read`] refuses it elsewhere).
        let entries: Vec<(ObjectId, &Task)> = refs
            .iter()
            .filter_map(|(full, c)| {
                let task = memo.get(c)?;
                (full.strip_prefix(&prefix) == Some(task.name.as_str())).then_some((*c, task))
            })
            .collect();
        Ok(f(&entries))
    }

    /// Every task, in queue order (state, higher priority first, older first).
    pub fn list(&self) -> Result<Vec<Task>> {
        let mut tasks: Vec<Task> = self.with_entries(
            |_| 1,
            |entries| entries.iter().map(|(_, t)| (*t).clone()).collect(),
        )?;
        tasks.sort_by(Task::queue_order);
        Ok(tasks)
    }

    /// Task `name` and its plan (for a task made from a plan file), if there is one.
    pub fn load(&self, name: &TaskName) -> Result<Option<(Task, Option<String>)>> {
        let full = self.read_ref(name.as_str());
        let Some(commit) = self.ctx.repo.ref_target(&full)? else {
            return Ok(None);
        };
        let task = self.read(&full, commit)?;
        let plan = self
            .ctx
            .repo
            .file_at(commit, PLAN_FILE)?
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        Ok(Some((task, plan)))
    }

    /// The error for a task that is not in the queue.
    fn no_task(&self, name: &TaskName) -> Error {
        let whose = match self.queue.remote() {
            Some(remote) => format!(" on {remote}"),
            None => String::new(),
        };
        Error::usage(format!("there is no task `{name}`{whose}"))
            .with_help("`fleet task list` lists the tasks")
    }

    /// Add `task` (with its plan's text, for a task made from a plan file). Refused when
    /// a task of that name exists: the ref must be absent for the swap to go in.
    pub fn add(&self, task: &Task, plan: Option<&str>) -> Result<()> {
        let name = TaskName::parse(&task.name)?;
        for dep in &task.after {
            if dep == &task.name {
                return Err(Error::usage(format!("task `{dep}` cannot wait for itself")));
            }
        }
        let toml = task.to_toml()?;
        let mut files: Vec<(&str, &[u8])> = vec![(TASK_FILE, toml.as_bytes())];
        if let Some(plan) = plan {
            files.push((PLAN_FILE, plan.as_bytes()));
        }
        let what = format!("task {name}: added");
        let commit = self
            .ctx
            .repo
            .write_commit(&files, &format!("fleet: {what}"), &[])?;
        self.stuck.take();
        for _ in 0..ATTEMPTS {
            let full = self.read_ref(name.as_str());
            if self.ctx.repo.ref_target(&full)?.is_some() {
                return Err(
                    Error::refused(format!("task `{name}` exists already")).with_help(format!(
                        "`fleet task show {name}` shows it; choose another name"
                    )),
                );
            }
            if self.swap(&name, None, commit, &what)? {
                return Ok(());
            }
            if self.stuck() {
                break;
            }
        }
        Err(self.stuck_or(kept_changing(&name)))
    }

    /// Move task `name` from `old` to `new`. `Ok(false)` when it did not move: another
    /// process moved it first (read it again), or a writer held its lock.
    fn swap(
        &self,
        name: &TaskName,
        old: Option<ObjectId>,
        new: ObjectId,
        what: &str,
    ) -> Result<bool> {
        let repo = &self.ctx.repo;
        match self.queue.remote() {
            None => {
                let full = refs::task(name.as_str());
                let Err(e) = repo.cas_update(&full, old, new, what) else {
                    self.stuck.take();
                    return Ok(true);
                };
                // A writer killed while it held the lock left it; clear it once stale.
                repo.clear_stale_ref_lock(&full, STALE_REF_LOCK);
                if repo.ref_target(&full)? == old {
                    // Nothing moved it: a lock was in the way.
                    let times = self.stuck.take().map_or(0, |(n, _)| n) + 1;
                    *self.stuck.borrow_mut() = Some((times, e.message));
                    std::thread::sleep(Duration::from_millis(2));
                }
                Ok(false)
            }
            Some(remote) => {
                let update = PushUpdate {
                    dst: refs::task(name.as_str()),
                    new: new.to_string(),
                    expect: old.map(|id| id.to_string()),
                };
                // A push the remote did not take while nothing moved there (a hook of
                // its that says no at times, a push it could not take just then) is
                // pushed again, with the same lease, a few times before it is an error:
                // an error here costs a drainer the task it holds.
                for declined in 0.. {
                    let Some(why) = remote::push(self.ctx, remote, std::slice::from_ref(&update))?
                    else {
                        remote::set_tracking(repo, &self.read_ref(name.as_str()), new)?;
                        return Ok(true);
                    };
                    self.refresh()?;
                    if repo.ref_target(&self.read_ref(name.as_str()))? != old {
                        break;
                    }
                    if declined >= DECLINED_TRIES {
                        return Err(remote::push_refused(remote, &why));
                    }
                    std::thread::sleep(Duration::from_millis(100 * (declined as u64 + 1)));
                }
                Ok(false)
            }
        }
    }

    /// Apply `change` to task `name` and store it by compare-and-swap, reading again
    /// and re-applying when another process moved it first (`change` checks what it
    /// finds each time).
    fn change<T>(
        &self,
        name: &TaskName,
        what: &str,
        mut change: impl FnMut(&mut Task) -> Result<T>,
    ) -> Result<T> {
        let repo = &self.ctx.repo;
        let full = self.read_ref(name.as_str());
        self.stuck.take();
        for _ in 0..ATTEMPTS {
            let Some(old) = repo.ref_target(&full)? else {
                return Err(self.no_task(name));
            };
            let mut task = self.read(&full, old)?;
            let result = change(&mut task)?;
            let new = self.write_on(&task, old, what)?;
            if self.swap(name, Some(old), new, what)? {
                return Ok(result);
            }
            if self.stuck() {
                break;
            }
        }
        Err(self.stuck_or(kept_changing(name)))
    }

    /// Have the last [`STUCK_SWAPS`] swaps all failed with nothing moved?
    fn stuck(&self) -> bool {
        self.stuck
            .borrow()
            .as_ref()
            .is_some_and(|(times, _)| *times >= STUCK_SWAPS)
    }

    /// `changing`, unless the last swap failed with nothing moved: then the lock that
    /// was in the way is the error.
    fn stuck_or(&self, changing: Error) -> Error {
        match self.stuck.take() {
            Some((_, why)) => Error::locked(format!(
                "the task queue could not be written, though nothing else moved it: {why}"
            ))
            .with_help(
                "a lock file under the git dir is held, or was left by a killed git or fleet; fleet clears a leftover once it is 10 s old and no git of the repository runs; retry then",
            ),
            None => changing,
        }
    }

    /// `task` as a commit on `parent`, its plan kept.
    fn write_on(&self, task: &Task, parent: ObjectId, what: &str) -> Result<ObjectId> {
        let toml = task.to_toml()?;
        self.ctx.repo.commit_editing(
            Some(parent),
            &[parent],
            (TASK_FILE, toml.as_bytes()),
            &[],
            &format!("fleet: task {}: {what}", task.name),
        )
    }

    /// Cancel a task that no drainer holds (queued, parked, or after a failed attempt).
    pub fn cancel(&self, name: &TaskName, now: i64) -> Result<Task> {
        self.change(name, "cancelled", |task| {
            match task.state {
                TaskState::Queued | TaskState::Parked => {}
                s if s.is_failure() => {}
                TaskState::Claimed | TaskState::Running => {
                    let run = task.last_run();
                    return Err(Error::refused(format!(
                        "task `{name}` is {} (run {}, held by pid {} on {}); the drainer holding it owns it",
                        task.state.as_str(),
                        run.map_or("?", |r| r.id.as_str()),
                        run.map_or(0, |r| r.holder.pid),
                        run.map_or("?", |r| r.holder.host.as_str()),
                    ))
                    .with_help(format!(
                        "stop that drainer (or wait for the run to end), then `fleet task cancel {name}`"
                    )));
                }
                s => {
                    return Err(Error::refused(format!(
                        "task `{name}` is {} already; there is nothing to cancel",
                        s.as_str()
                    )));
                }
            }
            task.move_to(TaskState::Cancelled, now, None);
            Ok(task.clone())
        })
    }

    /// Queue a parked, cancelled or failed task again. The attempts it used are kept;
    /// when it has none left, the cap is raised so it gets exactly one more.
    pub fn retry(&self, name: &TaskName, now: i64) -> Result<Task> {
        self.change(name, "retried", |task| {
            match task.state {
                TaskState::Parked | TaskState::Cancelled => {}
                s if s.is_failure() => {}
                s => {
                    return Err(Error::refused(format!(
                        "task `{name}` is {}; only a parked, cancelled or failed task is retried",
                        s.as_str()
                    ))
                    .with_help("`fleet task show NAME` shows its runs"));
                }
            }
            task.max_attempts = task.max_attempts.max(task.attempts() + 1);
            task.not_before = None;
            task.parked_why = None;
            task.notify_owed = None;
            task.move_to(TaskState::Queued, now, None);
            Ok(task.clone())
        })
    }

    /// Claim the next task for `holder`: the queued task of highest priority, oldest
    /// first, whose back-off has passed and whose `after` tasks have all landed (see
    /// [`Store::claim_next_where`]). It moves to claimed with a fresh run (attempt
    /// counted here) whose lease runs `lease` from `now`. A lost race moves on to the
    /// next candidate; `None` when nothing is claimable.
    pub fn claim_next(
        &self,
        holder: &Holder,
        now: i64,
        lease: Duration,
    ) -> Result<Option<Claimed>> {
        self.claim_next_where(holder, now, lease, &|_| true)
    }

    /// [`Store::claim_next`] among the tasks `accept` takes (a drainer's caps). An
    /// `after` task counts as done when it succeeded and its lane has landed, derived
    /// from the lanes as `fleet status` derives it ([`crate::lanes::landed`]); only the
    /// succeeded tasks some claimable task waits for are looked at.
    pub fn claim_next_where(
        &self,
        holder: &Holder,
        now: i64,
        lease: Duration,
        accept: &dyn Fn(&Task) -> bool,
    ) -> Result<Option<Claimed>> {
        self.claim_next_routed(holder, now, lease, &|t| accept(t).then_some(None))
    }

    /// [`Store::claim_next_where`] where `route` both accepts a task (`Some`) and names
    /// the plan its run goes on, recorded on the run in the claim itself, so every
    /// drainer counting a plan's runs sees this one at once.
    pub fn claim_next_routed(
        &self,
        holder: &Holder,
        now: i64,
        lease: Duration,
        route: &dyn Fn(&Task) -> Option<Option<String>>,
    ) -> Result<Option<Claimed>> {
        // Only a listing can say there is nothing to claim.
        let fresh =
            |(at, left): &(Instant, Vec<_>)| at.elapsed() < LEFTOVER_FOR && !left.is_empty();
        let mut leftover = self.leftover.take().filter(fresh);
        self.stuck.take();
        for _ in 0..ATTEMPTS {
            let landed = Landed::new(self);
            let listed_at = Instant::now();
            let save_after = |refs: usize| SAVE_AFTER_CHANGES.max(refs / SAVE_SHARE);
            // Chosen from the memo: only the refs are read here.
            let (listed_at, candidates): Listed = match leftover.take() {
                Some(left) => left,
                None => (
                    listed_at,
                    self.with_entries(save_after, |entries| {
                        let succeeded: HashMap<&str, &Task> = entries
                            .iter()
                            .filter(|(_, t)| t.state == TaskState::Succeeded)
                            .map(|(_, t)| (t.name.as_str(), *t))
                            .collect();
                        let mut candidates: Vec<&(ObjectId, &Task)> = entries
                            .iter()
                            .filter(|(_, t)| {
                                claimable(t, now)
                                    && t.after.iter().all(|a| {
                                        succeeded.get(a.as_str()).is_some_and(|dep| landed.of(dep))
                                    })
                                    && route(t).is_some()
                            })
                            .collect();
                        // Only the first few are needed: a claimer that loses them all
                        // lists the refs again.
                        let order = |a: &&(ObjectId, &Task), b: &&(ObjectId, &Task)| {
                            Task::queue_order(a.1, b.1)
                        };
                        if candidates.len() > CANDIDATES {
                            candidates.select_nth_unstable_by(CANDIDATES, order);
                            candidates.truncate(CANDIDATES);
                        }
                        candidates.sort_by(order);
                        candidates
                            .into_iter()
                            .map(|(id, t)| (t.name.clone(), *id))
                            .collect()
                    })?,
                ),
            };
            if candidates.is_empty() {
                return Ok(None);
            }
            let mut candidates = candidates.into_iter();
            while let Some((name, old)) = candidates.next() {
                let name = TaskName::parse(&name)?;
                let full = self.read_ref(name.as_str());
                if self.ctx.repo.ref_target(&full)? != Some(old) {
                    // Taken (or changed) since the refs were listed: one ref read saves
                    // writing a commit only to lose the swap.
                    continue;
                }
                // The memo chose; git decides: the chosen commit itself is read, and the
                // swap goes from exactly that commit.
                let task = self.read(&full, old)?;
                if self.memo().get(&old) != Some(&task) {
                    // Only a memo file edited by hand can disagree with git: drop it
                    // all and choose again from git.
                    self.memo().clear();
                    break;
                }
                if !claimable(&task, now) {
                    continue;
                }
                let Some(plan) = route(&task) else {
                    continue;
                };
                let mut next = task;
                let mut run = next.claim(holder, now, lease.as_secs() as i64);
                run.plan = plan;
                if let Some(r) = next.runs.last_mut() {
                    r.plan = run.plan.clone();
                }
                let what = format!("claimed (run {}, attempt {})", run.id, run.attempt);
                let new = self.write_on(&next, old, &what)?;
                if self.swap(&name, Some(old), new, &what)? {
                    self.memo().insert(new, next.clone());
                    *self.leftover.borrow_mut() = Some((listed_at, candidates.collect()));
                    return Ok(Some(Claimed { task: next, run }));
                }
                if self.queue.remote().is_some() || self.stuck() {
                    // Fetched again on the loss: choose again from what the remote holds.
                    // Or every swap waits out a lock: give up, saying which.
                    break;
                }
            }
            if self.stuck() {
                break;
            }
        }
        Err(self.stuck_or(
            Error::env(format!(
                "the task queue kept changing under this claim ({ATTEMPTS} rounds)"
            ))
            .with_help("other drainers are claiming in a loop; retry in a moment"),
        ))
    }

    /// The claimed task's agent started in process group `pgid` at `started`:
    /// claimed -> running. Refused unless `run` still holds the task.
    pub fn start(&self, name: &TaskName, run: &str, pgid: i32, started: i64) -> Result<Task> {
        self.change(name, &format!("running (run {run})"), |task| {
            held_by(task, run, &[TaskState::Claimed])?;
            if let Some(r) = task.runs.last_mut() {
                r.started = Some(started);
                r.pgid = Some(pgid);
            }
            task.move_to(TaskState::Running, started, Some(run));
            Ok(task.clone())
        })
    }

    /// Run `run` of the task ended with `outcome` (and the tail of its error). Refused
    /// unless `run` still holds the task, so a holder that lost it cannot move it.
    pub fn finish(
        &self,
        name: &TaskName,
        run: &str,
        outcome: Outcome,
        error: Option<String>,
        now: i64,
    ) -> Result<Task> {
        self.end(name, run, outcome, error, outcome == Outcome::Limited, now)
    }

    /// [`Store::finish`], saying whether the run is `free` (does not use up an attempt:
    /// a usage limit, a drainer that stopped it).
    pub fn end(
        &self,
        name: &TaskName,
        run: &str,
        outcome: Outcome,
        error: Option<String>,
        free: bool,
        now: i64,
    ) -> Result<Task> {
        self.end_with_usage(name, run, outcome, error, free, None, now)
    }

    /// [`Store::end`], with what the run reported it used (summed for the task's budget).
    #[allow(clippy::too_many_arguments)]
    pub fn end_with_usage(
        &self,
        name: &TaskName,
        run: &str,
        outcome: Outcome,
        error: Option<String>,
        free: bool,
        usage: Option<crate::agents::result::Usage>,
        now: i64,
    ) -> Result<Task> {
        let to = outcome.state();
        self.change(name, &format!("{} (run {run})", to.as_str()), |task| {
            held_by(task, run, &[TaskState::Claimed, TaskState::Running])?;
            if let Some(r) = task.runs.last_mut() {
                r.ended = Some(now);
                r.outcome = Some(outcome);
                r.error = error.clone();
                r.free = free;
                r.usage = usage.clone();
            }
            task.move_to(to, now, Some(run));
            Ok(task.clone())
        })
    }

    /// Run `run`'s check passed but its lane could not be published or made ready yet
    /// (`record` says why and when): kept on the running run, so whichever drainer
    /// finishes it (this one later, or the next once this one is gone) knows to try the
    /// publish again and not the agent. Refused unless `run` still holds the task.
    pub fn unpublished(
        &self,
        name: &TaskName,
        run: &str,
        record: &super::Unpublished,
    ) -> Result<Task> {
        self.change(
            name,
            &format!("checked, lane not ready yet (run {run})"),
            |task| {
                held_by(task, run, &[TaskState::Running])?;
                if let Some(r) = task.runs.last_mut() {
                    r.unpublished = Some(record.clone());
                }
                Ok(task.clone())
            },
        )
    }

    /// Run `run`, claimed and prepared but never started, is handed back by its holder
    /// (a drainer that prepared it ahead and is stopping): claimed -> queued in one
    /// swap, the run kept as ended with `why` and free, so no attempt is used and the
    /// task is claimable again at once. Refused unless `run` still holds the task.
    pub fn release(&self, name: &TaskName, run: &str, why: &str, now: i64) -> Result<Task> {
        self.change(name, &format!("handed back (run {run})"), |task| {
            held_by(task, run, &[TaskState::Claimed])?;
            if let Some(r) = task.runs.last_mut() {
                r.ended = Some(now);
                r.error = Some(why.to_string());
                r.free = true;
            }
            task.move_to(TaskState::Queued, now, Some(run));
            Ok(task.clone())
        })
    }

    /// The drainer holding run `run` still does: its lease now runs to `lease_expires`.
    pub fn renew(&self, name: &TaskName, run: &str, lease_expires: i64) -> Result<Task> {
        self.change(name, &format!("lease renewed (run {run})"), |task| {
            held_by(task, run, &[TaskState::Claimed, TaskState::Running])?;
            if let Some(r) = task.runs.last_mut() {
                r.lease_expires = lease_expires;
            }
            Ok(task.clone())
        })
    }

    /// Run `run`'s worktree and branch, once made (before its agent starts, so a
    /// failed spawn still names them).
    pub fn place(&self, name: &TaskName, run: &str, worktree: &str, branch: &str) -> Result<Task> {
        self.change(name, &format!("worktree {worktree} (run {run})"), |task| {
            held_by(task, run, &[TaskState::Claimed])?;
            if let Some(r) = task.runs.last_mut() {
                r.worktree = Some(worktree.to_string());
                r.branch = Some(branch.to_string());
            }
            Ok(task.clone())
        })
    }

    /// After run `run` ended badly, the task cannot be helped by another attempt (over
    /// its budget; a plan no agent can be given): parked with `why` instead of queued
    /// again (see [`Store::requeue_after`] for the states it moves).
    pub fn park_now(&self, name: &TaskName, run: &str, now: i64, why: &str) -> Result<Task> {
        self.change(name, &format!("parked after run {run}: {why}"), |task| {
            held_by(
                task,
                run,
                &[
                    TaskState::Failed,
                    TaskState::TimedOut,
                    TaskState::Crashed,
                    TaskState::Limited,
                ],
            )?;
            task.parked_why = Some(why.to_string());
            task.move_to(TaskState::Parked, now, Some(run));
            Ok(task.clone())
        })
    }

    /// After a failed, timed-out, crashed or limited run `run`: queued again, not
    /// claimed before `now + backoff`, or parked when it has used all its attempts (a
    /// free run, see [`Run::free`], is never the one that parks it).
    pub fn requeue_after(
        &self,
        name: &TaskName,
        run: &str,
        now: i64,
        backoff: Duration,
    ) -> Result<Task> {
        self.requeue_owing(name, run, now, backoff, None)
    }

    /// [`Store::requeue_after`]; a park records that `notifier` (the drainer parking
    /// it, when `[drain] notify` is set) owes the notification, in the same swap, so a
    /// drainer killed before the command ran leaves it owed, not lost.
    pub fn requeue_owing(
        &self,
        name: &TaskName,
        run: &str,
        now: i64,
        backoff: Duration,
        notifier: Option<&Holder>,
    ) -> Result<Task> {
        self.change(name, &format!("after run {run}"), |task| {
            held_by(
                task,
                run,
                &[
                    TaskState::Failed,
                    TaskState::TimedOut,
                    TaskState::Crashed,
                    TaskState::Limited,
                ],
            )?;
            let free = task.last_run().is_some_and(|r| r.free);
            if !free && task.attempts() >= task.max_attempts {
                task.move_to(TaskState::Parked, now, Some(run));
                task.notify_owed = notifier.cloned();
            } else {
                task.not_before = Some(now + backoff.as_secs() as i64);
                task.move_to(TaskState::Queued, now, Some(run));
            }
            Ok(task.clone())
        })
    }
}

impl Store<'_> {
    /// The notification for the park of task `name`, owed by `from`, is owed by `to`
    /// now (`to` runs it). Refused unless `from` still owes it: of drainers taking it
    /// over at once, one wins.
    pub fn take_notify(&self, name: &TaskName, from: &Holder, to: &Holder) -> Result<Task> {
        self.change(name, "notify taken over", |task| {
            owes(task, from)?;
            task.notify_owed = Some(to.clone());
            Ok(task.clone())
        })
    }

    /// `by` ran the notification it owed for the park of task `name`.
    pub fn notified(&self, name: &TaskName, by: &Holder) -> Result<Task> {
        self.change(name, "notified", |task| {
            owes(task, by)?;
            task.notify_owed = None;
            Ok(task.clone())
        })
    }
}

/// Is `task` parked, its notification owed by `holder`?
fn owes(task: &Task, holder: &Holder) -> Result<()> {
    if task.state != TaskState::Parked || task.notify_owed.as_ref() != Some(holder) {
        return Err(Error::refused(format!(
            "task `{}` owes no notification of pid {} on {}",
            task.name, holder.pid, holder.host
        )));
    }
    Ok(())
}

/// Which succeeded tasks have landed, worked out once per claim and only for the tasks
/// asked about. A task's lane is its last run's branch; a task that succeeded with no
/// lane has nothing to land. An error reading the lanes counts as not landed: the
/// waiting task waits a little longer, never starts early.
struct Landed<'s, 'a> {
    store: &'s Store<'a>,
    lanes: OnceCell<Option<(crate::lanes::Registry, ObjectId)>>,
    known: std::cell::RefCell<HashMap<String, bool>>,
}

impl<'s, 'a> Landed<'s, 'a> {
    fn new(store: &'s Store<'a>) -> Self {
        Landed {
            store,
            lanes: OnceCell::new(),
            known: Default::default(),
        }
    }

    fn of(&self, task: &Task) -> bool {
        if let Some(&known) = self.known.borrow().get(&task.name) {
            return known;
        }
        let landed = self.work_out(task).unwrap_or(false);
        self.known.borrow_mut().insert(task.name.clone(), landed);
        landed
    }

    fn work_out(&self, task: &Task) -> Result<bool> {
        let Some(branch) = task.last_run().and_then(|r| r.branch.as_deref()) else {
            return Ok(true);
        };
        let (ctx, queue) = (self.store.ctx, self.store.queue);
        let lanes = self.lanes.get_or_init(|| {
            let registry = queue.load(ctx).ok()?.0;
            Some((registry, queue.target_tip(ctx).ok()?))
        });
        let Some((registry, target)) = lanes else {
            return Ok(false);
        };
        let tip = queue.lane_tip(ctx, branch)?;
        match (registry.get(branch), tip) {
            (Some(lane), Some(tip)) => {
                let ahead = ctx.repo.count_exclusive(tip, *target)?;
                crate::lanes::landed::has_landed(&ctx.repo, lane, tip, *target, ahead)
            }
            (Some(lane), None) => Ok(lane.state == crate::lanes::LaneState::Landed),
            (None, tip) => crate::lanes::landed::head_landed(&ctx.repo, tip, Some(*target)),
        }
    }
}

/// Is `task` queued, past its back-off, with attempts left (its `after` tasks aside)?
fn claimable(task: &Task, now: i64) -> bool {
    task.state == TaskState::Queued
        && task.not_before.is_none_or(|at| at <= now)
        && task.attempts() < task.max_attempts
}

/// Is the task's latest run `run`, in one of `states`? Else the refusal a stale holder
/// gets.
fn held_by(task: &Task, run: &str, states: &[TaskState]) -> Result<()> {
    let latest = task.last_run().map(|r| r.id.as_str());
    if latest != Some(run) {
        return Err(Error::refused(format!(
            "task `{}` is not held by run {run}: its latest run is {} and it is {}",
            task.name,
            latest.unwrap_or("none"),
            task.state.as_str()
        ))
        .with_help("this holder lost the task (its lease was taken over); leave it alone"));
    }
    if !states.contains(&task.state) {
        return Err(Error::refused(format!(
            "task `{}` (run {run}) is {}, which this step does not move",
            task.name,
            task.state.as_str()
        )));
    }
    Ok(())
}

/// `step`, which fetches the queue's remote, tried again after a failure of the
/// environment: two drainers in one clone fetch at once, and git refuses the fetch
/// whose tracking refs the other moved meanwhile ("cannot lock ref ... is at X but
/// expected Y"). `step` must be safe to repeat. The pauses grow, each with a part of
/// its own per process, so the fetchers of one clone fall out of step.
pub fn fetch_retried<T>(mut step: impl FnMut() -> Result<T>) -> Result<T> {
    let mut tries: u64 = 0;
    let offset = u64::from(std::process::id()) % 97;
    loop {
        match step() {
            Ok(done) => return Ok(done),
            Err(e)
                if tries >= FETCH_TRIES as u64
                    || !matches!(e.kind, Kind::Environment | Kind::Locked) =>
            {
                return Err(e);
            }
            Err(_) => {
                tries += 1;
                let own = (offset * tries * 31) % 100;
                std::thread::sleep(Duration::from_millis(50 * tries + own));
            }
        }
    }
}

fn kept_changing(name: &TaskName) -> Error {
    Error::env(format!(
        "task `{name}` kept changing under fleet ({ATTEMPTS} attempts); nothing was written"
    ))
    .with_help("another fleet process is updating it in a loop; retry in a moment")
}
