//! `fleet hook NAME`: what the installed hook scripts call when they cannot decide alone.
//!
//! The rule (DESIGN.md, invariant 2): no commit, branch switch or reset in a shared
//! checkout (the main worktree of a guarded repository, outer or nested), and no move of
//! a guarded branch from anywhere. fleet's own ref updates go through gix, which runs no
//! hooks, so `fleet land` and the watchdog's restore never meet this guard: there is no
//! token to forge, and every `git` command, whoever runs it, is checked.
//!
//! git shows the hook's stderr to the user: what the guard says goes through the
//! reporter the command passes in.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::{ObjectId, Repo};
use crate::guard::hooks::read_guard_refs;
use crate::report::Ui;

/// The variable a human sets to get past the guard on purpose; every use is logged.
pub const ALLOW_VAR: &str = "FLEET_ALLOW_SHARED";

/// Where the hook runs: the repository, and whether this is its shared checkout.
struct Place {
    repo: Repo,
    common: PathBuf,
    shared: bool,
    guarded: bool,
}

impl Place {
    fn find() -> Result<Place> {
        let cwd = std::env::current_dir()
            .map_err(|e| Error::env(format!("cannot read the current folder: {e}")))?;
        // git exports GIT_DIR to hooks in linked worktrees; elsewhere the hook runs at the
        // worktree's root.
        let repo = match std::env::var_os("GIT_DIR") {
            Some(dir) => Repo::open(&cwd.join(dir))?,
            None => Repo::discover(&cwd)?,
        };
        let common = repo.common_dir();
        let guarded = crate::state::guard_refs(&common).is_file();
        // Not `is_submodule()`: `GIT_WORK_TREE`/`--work-tree` make gix report a configured
        // worktree, which would unguard the shared checkout. A submodule checkout is the
        // main worktree of its own repository (git exports its `.git/modules/NAME` as
        // GIT_DIR): shared when fleet guards it, that is when it lies in a shared
        // checkout (see `guard::submodules`); an agent worktree's submodules are clones
        // with no guard-refs, never guarded.
        let shared = !repo.is_linked_worktree();
        Ok(Place {
            repo,
            common,
            shared,
            guarded,
        })
    }

    fn workdir(&self) -> String {
        self.repo
            .workdir()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| self.common.display().to_string())
    }

    /// The branch the shared checkout has checked out (`refs/heads/...`), from the common
    /// dir's HEAD, which is the main worktree's.
    fn shared_branch(&self) -> Option<String> {
        self.repo
            .main_head_ref()
            .filter(|r| crate::refs::branch_name(r).is_some())
    }

    fn guarded_refs(&self) -> Vec<String> {
        let mut refs = read_guard_refs(&self.common);
        refs.extend(self.shared_branch());
        refs
    }
}

/// Run the hook `name` with git's `args`; refusals and their fixes are told to `ui`.
/// The exit code is the hook's.
pub fn run(name: &str, args: &[String], ui: &dyn Ui) -> Result<u8> {
    let place = Place::find()?;
    if !place.guarded {
        return Ok(0);
    }
    match name {
        "pre-commit" | "prepare-commit-msg" => commit(&place, name, ui),
        "reference-transaction" => {
            if args.first().map(String::as_str) != Some("prepared") {
                return Ok(0);
            }
            let mut input = Vec::new();
            std::io::stdin()
                .read_to_end(&mut input)
                .map_err(|e| Error::env(format!("cannot read the ref updates: {e}")))?;
            reference_transaction(&place, &String::from_utf8_lossy(&input), ui)
        }
        "post-checkout" => post_checkout(&place, args, ui),
        other => Err(
            Error::usage(format!("unknown hook `{other}`")).with_help(format!(
                "fleet handles {}",
                crate::guard::hooks::HOOKS.join(", ")
            )),
        ),
    }
}

fn commit(place: &Place, hook: &str, ui: &dyn Ui) -> Result<u8> {
    if !place.shared {
        return Ok(0);
    }
    let code = refuse(
        place,
        hook,
        &format!(
            "refusing to commit in the shared checkout {}",
            place.workdir()
        ),
        ui,
    )?;
    abort_hint(place, ui);
    Ok(code)
}

/// A refused merge, cherry-pick, revert, am or rebase has already changed files and left
/// its state behind; its own `--abort` puts the checkout back (and passes the guard).
fn abort_hint(place: &Place, ui: &dyn Ui) {
    use crate::git::Operation as Op;
    let command = match place.repo.operation_in_progress() {
        Some(Op::Am) => "git am --abort",
        Some(Op::Rebase { .. }) => "git rebase --abort",
        Some(Op::Merge) => "git merge --abort",
        Some(Op::CherryPick) => "git cherry-pick --abort",
        Some(Op::Revert) => "git revert --abort",
        // A bisect is not the refused command's doing.
        Some(Op::Bisect) | None
            if parent_git_subcommand(place).is_some_and(|sub| {
                matches!(
                    sub.as_str(),
                    "merge" | "cherry-pick" | "revert" | "am" | "pull"
                )
            }) =>
        {
            // Finished its work on the files without leaving a state file behind.
            "git reset --merge"
        }
        Some(Op::Bisect) | None => return,
    };
    if std::env::var(ALLOW_VAR).as_deref() != Ok("1") {
        ui.note(&format!(
            "  it left its work in progress here: `{command}` puts the checkout back"
        ));
    }
}

/// One line of a `reference-transaction` hook's stdin.
struct Update<'a> {
    old: &'a str,
    new: &'a str,
    name: &'a str,
}

fn parse_updates(input: &str) -> Vec<Update<'_>> {
    input
        .lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ' ');
            Some(Update {
                old: parts.next()?,
                new: parts.next()?,
                name: parts.next()?.trim_end(),
            })
        })
        .collect()
}

/// Does `update` point the shared checkout's HEAD somewhere else? `git rebase --abort`
/// rewrites HEAD to the branch it already names: that must pass, or a refused rebase
/// could never be ended.
fn moves_head(place: &Place, update: &Update, all: &[Update]) -> bool {
    match update.new.strip_prefix("ref:") {
        Some(branch) => place.shared_branch().as_deref() != Some(branch),
        // Detaching is a move even at the same commit: the branch no longer follows.
        // An update through HEAD to its branch (a reset) lists the branch as well.
        None => {
            let through_branch = place
                .shared_branch()
                .is_some_and(|b| all.iter().any(|u| u.name == b));
            (place.shared_branch().is_some() && !through_branch)
                || place
                    .repo
                    .head_id()
                    .ok()
                    .flatten()
                    .map(|id| id.to_string())
                    .as_deref()
                    != Some(update.new)
        }
    }
}

/// The stash, shared by every worktree of a repository.
const STASH: &str = "refs/stash";

const ZERO: &str = "0000000000000000000000000000000000000000";

/// Does `update` really move or delete the branch? `git pack-refs` (and `gc`) rewrite a
/// branch without changing it: a packed copy at its current value, then the loose file
/// deleted. A deletion names no old value (`0000… 0000…`), so it is told apart by the
/// command running it, or, where that cannot be read, by the packed copy being current.
fn moves_branch(place: &Place, update: &Update) -> bool {
    let current = place.repo.ref_target(update.name).ok().flatten();
    if update.new != ZERO {
        return current.map(|c| c.to_string()).as_deref() != Some(update.new);
    }
    let Some(current) = current.map(|c| c.to_string()) else {
        return false;
    };
    // pack-refs prunes the loose file naming its value, after writing the packed copy;
    // a user's delete names none (`0000… 0000…`) unless given one on purpose.
    let housekeeping = update.old == current
        && place.repo.packed_ref_is(update.name, &current)
        && parent_git_subcommand(place)
            .is_none_or(|sub| matches!(sub.as_str(), "pack-refs" | "gc" | "maintenance"));
    !housekeeping
}

fn reference_transaction(place: &Place, input: &str, ui: &dyn Ui) -> Result<u8> {
    let updates = parse_updates(input);
    let guarded = place.guarded_refs();
    // git holds `<common>/HEAD.lock` while it updates the shared checkout's own HEAD;
    // a new worktree's HEAD (`git worktree add` run from here) is locked under
    // `<common>/worktrees/<id>/` instead.
    // `main-worktree/HEAD` names the shared checkout's HEAD from any worktree.
    let moves_shared_head = updates.iter().any(|u| {
        u.old != u.new
            && ((u.name == "HEAD" && place.shared && place.repo.main_head_locked())
                || u.name == "main-worktree/HEAD")
            && moves_head(place, u, &updates)
    });
    let moved_branches: Vec<&str> = updates
        .iter()
        .filter(|u| {
            (guarded.iter().any(|g| g == u.name) || crate::refs::is_fleet_ref(u.name))
                && moves_branch(place, u)
        })
        .map(|u| u.name)
        .collect();
    // The stash is one ref in the common dir, seen by every worktree: a stash made here
    // hides everyone's uncommitted edits in the shared checkout, and any worktree can pop
    // them. git stores the stash before it cleans the files, so a refusal here leaves
    // files, index and untracked files as they were.
    let stashes = place.shared && updates.iter().any(|u| u.name == STASH && u.old != u.new);
    // `checkout -b`/`switch -c` create (or reset) the branch in a transaction of its own
    // before the one that moves HEAD: refused only then, the branch would stay behind.
    let switch_to = if place.shared && !moves_shared_head && moved_branches.is_empty() {
        branch_made_to_switch(place, &updates)
    } else {
        None
    };
    if !moves_shared_head && moved_branches.is_empty() && !stashes && switch_to.is_none() {
        return Ok(0);
    }
    let what = if let Some(branch) = switch_to {
        format!(
            "refusing to switch the shared checkout {} to branch {} (checkout -b/-B, \
             switch -c/-C): neither the switch nor the branch happens (`git branch NAME` \
             creates a branch without switching)",
            place.workdir(),
            crate::refs::branch_name(branch.name).unwrap_or(branch.name)
        )
    } else if stashes && !moves_shared_head && moved_branches.is_empty() {
        format!(
            "refusing to change the stash from the shared checkout {}: it is shared by every \
             worktree, and `git stash` here would hide everyone's uncommitted edits",
            place.workdir()
        )
    } else if moves_shared_head {
        format!(
            "refusing to move HEAD of the shared checkout {} (commit, switch, reset, rebase, pull)",
            place.workdir()
        )
    } else if moved_branches
        .iter()
        .all(|name| crate::refs::is_fleet_ref(name))
    {
        format!(
            "refusing to move {}: fleet's own refs (receipts, lanes, tasks) are moved only by \
             fleet itself (`fleet verify --remote NAME` fetches a remote's receipts)",
            moved_branches.join(", ")
        )
    } else {
        format!(
            "refusing to move {}: only `fleet land` moves a target branch",
            moved_branches.join(", ")
        )
    };
    if std::env::var(ALLOW_VAR).as_deref() == Ok("1") {
        return refuse(place, "reference-transaction", &what, ui);
    }
    let mut put_back = Vec::new();
    if moves_shared_head
        && place.shared
        && let Some(head) = updates.iter().find(|u| u.name == "HEAD")
        && !leaves_files_alone(place, head)
    {
        put_back = undo_file_changes(place, head).unwrap_or_else(|e| {
            ui.warn(&format!(
                "could not put the shared checkout's files back: {}",
                e.message
            ));
            Vec::new()
        });
    }
    if let Some(branch) = switch_to {
        // git rewrote the files to the new branch's tree before creating it.
        let head = Update {
            old: ZERO,
            new: branch.new,
            name: "HEAD",
        };
        put_back = undo_file_changes(place, &head).unwrap_or_else(|e| {
            ui.warn(&format!(
                "could not put the shared checkout's files back: {}",
                e.message
            ));
            Vec::new()
        });
    }
    let code = refuse(place, "reference-transaction", &what, ui)?;
    abort_hint(place, ui);
    if stashes && code != 0 {
        ui.note(
            "  to set edits aside without the shared stash:  git branch NAME \"$(git stash create)\"",
        );
    }
    if !put_back.is_empty() {
        ui.note(&format!(
            "fleet guard: put back {} file(s) the refused command had already changed",
            put_back.len()
        ));
    }
    Ok(code)
}

/// The branch a `git checkout` or `git switch` run in this checkout creates or resets
/// on its way to switching to it (`-b`, `-B`, `-c`, `-C`, `--track`, a remote branch's
/// name guessed). Those two commands change no branch without checking it out next; a
/// plain `git branch` moves nothing checked out and passes.
fn branch_made_to_switch<'a>(place: &Place, updates: &'a [Update<'a>]) -> Option<&'a Update<'a>> {
    let sub = parent_git_subcommand(place)?;
    if !matches!(sub.as_str(), "checkout" | "switch") {
        return None;
    }
    updates.iter().find(|u| {
        crate::refs::branch_name(u.name).is_some()
            && u.new != ZERO
            && u.old != u.new
            && moves_branch(place, u)
    })
}

/// Did the refused command leave the files and index alone? `git commit` (and
/// `--amend`) never writes them: after a refusal they hold the user's own changes and
/// must stay; so do `reset --soft`, `update-ref`, `symbolic-ref` and `branch`. Everything
/// else that moves HEAD here (switch, checkout, reset, merge, pull, rebase, am,
/// cherry-pick, revert) rewrote them first. Decided from the git process that runs the
/// hook; where that cannot be read, a new commit on top of (or replacing) the current
/// one counts as a commit.
fn leaves_files_alone(place: &Place, head: &Update) -> bool {
    if let Some((sub, args)) = parent_git_command(place) {
        return match sub.as_str() {
            "commit" | "update-ref" | "symbolic-ref" | "branch" => true,
            "reset" => args.iter().any(|a| a == "--soft"),
            _ => false,
        };
    }
    let (Ok(new), Ok(Some(old))) = (
        ObjectId::from_hex(head.new.as_bytes()),
        place.repo.head_id(),
    ) else {
        return false;
    };
    let (Ok(new_commit), Ok(old_commit)) =
        (place.repo.commit_info(new), place.repo.commit_info(old))
    else {
        return false;
    };
    new_commit.parents.first() == Some(&old) || new_commit.parents == old_commit.parents
}

fn undo_file_changes(place: &Place, head: &Update) -> Result<Vec<String>> {
    let Some(back_to) = place.repo.head_id()? else {
        return Ok(Vec::new());
    };
    if head.new == ZERO {
        return Ok(Vec::new());
    }
    // A switch to an unborn branch (`--orphan`) emptied the index and files.
    let moved_to = match head.new.strip_prefix("ref:") {
        Some(branch) => match place.repo.ref_target(branch)? {
            Some(id) => place.repo.tree_of(id)?,
            None => place.repo.empty_tree(),
        },
        None => place.repo.tree_of(place.repo.resolve_commit(head.new)?)?,
    };
    let back_to = place.repo.tree_of(back_to)?;
    if moved_to == back_to {
        return Ok(Vec::new());
    }
    let Some(workdir) = place.repo.workdir() else {
        return Ok(Vec::new());
    };
    crate::checkout::put_back(&place.repo, &workdir, moved_to, back_to)
}

/// Builtins an alias cannot shadow (git ignores such aliases).
const BUILTINS: [&str; 20] = [
    "commit",
    "switch",
    "checkout",
    "reset",
    "merge",
    "rebase",
    "pull",
    "cherry-pick",
    "revert",
    "am",
    "branch",
    "update-ref",
    "symbolic-ref",
    "stash",
    "worktree",
    "pack-refs",
    "gc",
    "maintenance",
    "fetch",
    "push",
];

/// The git subcommand of the process that runs this hook, and the arguments after it
/// (an alias resolved once).
fn parent_git_command(place: &Place) -> Option<(String, Vec<String>)> {
    let parent = process_chain().into_iter().next()?;
    let (sub, rest) = git_subcommand(&parent.args)?;
    if BUILTINS.contains(&sub.as_str()) {
        return Some((sub, rest));
    }
    let alias = place.repo.config_string(&format!("alias.{sub}"));
    match alias {
        Some(expansion) if !expansion.starts_with('!') => {
            let mut words = expansion.split_whitespace().map(String::from);
            let sub = words.next()?;
            Some((sub, words.chain(rest).collect()))
        }
        _ => Some((sub, rest)),
    }
}

fn parent_git_subcommand(place: &Place) -> Option<String> {
    parent_git_command(place).map(|(sub, _)| sub)
}

/// The subcommand in a git command line (the first argument after git's own options)
/// and the arguments after it.
fn git_subcommand(args: &[String]) -> Option<(String, Vec<String>)> {
    let program = Path::new(args.first()?).file_name()?.to_string_lossy();
    if let Some(sub) = program.strip_prefix("git-") {
        return Some((sub.to_string(), args[1..].to_vec()));
    }
    if program != "git" {
        return None;
    }
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
            | "--super-prefix" | "--attr-source" | "--list-cmds" | "--exec-path" => i += 2,
            a if a.starts_with('-') => i += 1,
            a => return Some((a.to_string(), args[i + 1..].to_vec())),
        }
    }
    None
}

#[derive(Clone, Debug, Serialize)]
pub struct ProcessInfo {
    pub pid: u32,
    pub args: Vec<String>,
}

/// This process's ancestors, nearest first, read from /proc (empty where there is none).
pub fn process_chain() -> Vec<ProcessInfo> {
    use crate::sys::procfs;
    let mut chain = Vec::new();
    let mut pid = std::os::unix::process::parent_id();
    while pid > 1 && chain.len() < 8 {
        let Some(cmdline) = procfs::cmdline(pid) else {
            break;
        };
        // The git command in full (enough to recognise it); its ancestors by name only,
        // so tokens on their command lines stay out of the logs.
        let cmdline = if chain.is_empty() {
            cmdline
        } else {
            procfs::comm(pid).unwrap_or_default()
        };
        let args = cmdline
            .split(|b| *b == 0 || *b == b'\n')
            .filter(|a| !a.is_empty())
            .take(12)
            .map(|a| {
                let text = String::from_utf8_lossy(a);
                match text.char_indices().nth(160) {
                    Some((cut, _)) => format!("{}…", &text[..cut]),
                    None => text.into_owned(),
                }
            })
            .collect();
        chain.push(ProcessInfo { pid, args });
        pid = procfs::Stat::read(pid)
            .and_then(|stat| stat.parent())
            .unwrap_or(0);
    }
    chain
}

#[derive(Serialize)]
struct LogLine<'a> {
    time: i64,
    event: &'a str,
    worktree: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    old: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    head: Option<String>,
    detail: &'a str,
    /// The git process that ran the hook ("pid start-ticks"): how the several hooks of
    /// one git command know it was told already.
    #[serde(skip_serializing_if = "Option::is_none")]
    git: Option<String>,
    /// The refusal, without the hook's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    what: Option<&'a str>,
    processes: Vec<ProcessInfo>,
}

/// Append one JSON line to `<common>/fleet/<file>`; a log that cannot be written must
/// not break the user's git command, so failures are only reported.
fn append_log(place: &Place, file: &str, line: &LogLine, ui: &dyn Ui) {
    use std::io::Write;
    let dir = crate::state::dir(&place.common);
    let path = dir.join(file);
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?;
        let text = serde_json::to_string(line).unwrap_or_default();
        f.write_all(format!("{text}\n").as_bytes())
    });
    if let Err(e) = written {
        ui.warn(&format!("cannot append to {}: {e}", path.display()));
    }
}

/// Refuse (exit 1) with a message that says where to work instead, unless a human set
/// the escape hatch: then allow, and log it.
fn refuse(place: &Place, hook: &str, what: &str, ui: &dyn Ui) -> Result<u8> {
    let allowed = std::env::var(ALLOW_VAR).as_deref() == Ok("1");
    let git = git_key();
    let told = Told::check(place, git.as_deref(), what);
    append_log(
        place,
        "guard.log",
        &LogLine {
            time: crate::time::now(),
            event: if allowed { "allowed" } else { "refused" },
            worktree: place.workdir(),
            old: None,
            new: None,
            head: place.shared_branch(),
            detail: &format!("{hook}: {what}"),
            git,
            what: Some(what),
            processes: process_chain(),
        },
        ui,
    );
    if allowed {
        if told == Told::Nothing {
            ui.note(&format!(
                "fleet guard: let through by {ALLOW_VAR}=1 (and logged): {}",
                action_of(what)
            ));
        }
        return Ok(0);
    }
    match told {
        // Another hook of this same git command already explained the refusal.
        Told::This => return Ok(1),
        Told::Other => {
            ui.note(&format!("fleet guard: {what}."));
            return Ok(1);
        }
        Told::Nothing => {}
    }
    if let Ok(value) = std::env::var(ALLOW_VAR) {
        ui.note(&format!(
            "fleet guard: {ALLOW_VAR}={value:?} does not let anything through; only 1 does"
        ));
    }
    ui.note(&format!("fleet guard: {what}."));
    ui.note(
        "  The shared checkout and its branch belong to everyone: a commit, switch or reset here \
         lands on the wrong branch or wipes someone's work.",
    );
    ui.note("  fix: work in your own worktree:  cd \"$(fleet worktree new NAME)\"");
    ui.note("       land finished work with:     fleet track --ready BRANCH && fleet land BRANCH");
    ui.note(&format!(
        "  a human who means it:  {ALLOW_VAR}=1 git ...  (logged)"
    ));
    Ok(1)
}

/// What the guard has already told the git command running this hook. One `git commit`
/// runs pre-commit, prepare-commit-msg and reference-transaction, each a fleet process
/// of its own: the git process and its start time, logged with each refusal, let the
/// later hooks stay quiet instead of repeating the explanation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Told {
    /// Nothing yet: say it in full.
    Nothing,
    /// This very refusal: say nothing more.
    This,
    /// Another refusal: its one line.
    Other,
}

impl Told {
    /// What was told before, from the end of guard.log (every refusal and allowed use
    /// is logged there with its git process). Unknown (no /proc, no log) counts as
    /// nothing told: saying it twice beats silence.
    fn check(place: &Place, git: Option<&str>, what: &str) -> Told {
        use std::io::{Read, Seek, SeekFrom};
        let Some(git) = git else {
            return Told::Nothing;
        };
        let path = crate::state::dir(&place.common).join("guard.log");
        let Ok(mut file) = std::fs::File::open(&path) else {
            return Told::Nothing;
        };
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let _ = file.seek(SeekFrom::Start(len.saturating_sub(16 * 1024)));
        let mut tail = String::new();
        let _ = file.read_to_string(&mut tail);
        let mut told = Told::Nothing;
        for line in tail.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if v["git"].as_str() == Some(git) {
                if v["what"].as_str() == Some(what) {
                    return Told::This;
                }
                told = Told::Other;
            }
        }
        told
    }
}

/// The git process running this hook (this process's parent: the hook script execs
/// fleet), as "pid start-ticks", which no later process shares.
fn git_key() -> Option<String> {
    let git = std::os::unix::process::parent_id();
    let ticks = crate::sys::procfs::start_ticks(git)?;
    Some(format!("{git} {ticks}"))
}

/// A refusal's action without its "refusing to" and its reason, for the line that says
/// a human let it through: "commit in the shared checkout /p".
fn action_of(what: &str) -> &str {
    let action = what.strip_prefix("refusing to ").unwrap_or(what);
    action.split_once(": ").map_or(action, |(head, _)| head)
}

fn post_checkout(place: &Place, args: &[String], ui: &dyn Ui) -> Result<u8> {
    let (old, new) = (args.first(), args.get(1));
    if !place.shared || old == new {
        return Ok(0);
    }
    let flag = args.get(2).map(String::as_str).unwrap_or("");
    append_log(
        place,
        "drift.log",
        &LogLine {
            time: crate::time::now(),
            event: "checkout",
            worktree: place.workdir(),
            old: old.map(String::as_str),
            new: new.map(String::as_str),
            head: place.shared_branch(),
            detail: if flag == "1" {
                "branch checkout"
            } else {
                "file checkout"
            },
            git: None,
            what: None,
            processes: process_chain(),
        },
        ui,
    );
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn finds_the_subcommand_after_gits_own_options() {
        let sub = |a: &[&str]| git_subcommand(&args(a)).map(|(s, _)| s);
        assert_eq!(
            sub(&["git", "commit", "-m", "x"]).as_deref(),
            Some("commit")
        );
        assert_eq!(
            sub(&["git", "--attr-source", "gc", "update-ref", "-d", "x"]).as_deref(),
            Some("update-ref")
        );
        let switch = [
            "/usr/bin/git",
            "-C",
            "d",
            "-c",
            "a=b",
            "--no-pager",
            "switch",
            "x",
        ];
        assert_eq!(
            git_subcommand(&args(&switch)),
            Some(("switch".to_string(), vec!["x".to_string()]))
        );
        assert_eq!(sub(&["git-merge", "x"]).as_deref(), Some("merge"));
        assert_eq!(sub(&["sh", "-c", "git commit"]), None);
    }

    #[test]
    fn reads_every_update_line() {
        let z = "0".repeat(40);
        let input = format!("{z} {z} AUTO_MERGE\n{z} ref:refs/heads/x HEAD\n");
        let updates = parse_updates(&input);
        assert_eq!(updates.len(), 2);
        assert_eq!(updates[1].new, "ref:refs/heads/x");
        assert_eq!(updates[1].name, "HEAD");
    }
}
