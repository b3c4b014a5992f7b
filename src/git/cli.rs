//! The git binary, for the operations gix 0.90 does not have. One function per
//! operation, each saying why gix cannot do it. Every call runs through
//! [`crate::proc`], in its own process group, with stdin closed.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::proc::{self, Input};

/// A git command rooted at `dir`, blind to repository overrides in fleet's environment:
/// the variables that would make git ignore `-C` and look at another repository, object
/// store or ref namespace ([`crate::repo_env::FOR_CHILDREN`], the one list).
fn git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(dir);
    for var in crate::repo_env::FOR_CHILDREN {
        cmd.env_remove(var);
    }
    cmd
}

fn run(cmd: Command, what: &str) -> Result<proc::Outcome> {
    run_with_input(cmd, Input::Closed, what)
}

fn run_with_input(cmd: Command, input: Input, what: &str) -> Result<proc::Outcome> {
    let out = run_any_exit(cmd, input, Duration::from_secs(600), what)?;
    if !out.success() {
        let stderr = out.stderr_str();
        // The exit status itself, also after a timeout.
        let message = format!(
            "git failed to {what} (exit {}): {}",
            proc::shell_code(out.status, false),
            stderr.trim()
        );
        // git says only in its text that another git holds the index lock.
        return Err(if stderr.contains("index.lock") {
            Error::locked(message)
        } else {
            Error::env(message)
        });
    }
    Ok(out)
}

/// Run git and hand back its output whatever its exit code (for the commands whose
/// non-zero exit is an answer, not a failure).
fn run_any_exit(
    mut cmd: Command,
    input: Input,
    timeout: Duration,
    what: &str,
) -> Result<proc::Outcome> {
    proc::run(&mut cmd, input, Some(timeout), proc::DEFAULT_GRACE).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::env("the git binary was not found on PATH")
                .with_help("install git 2.38 or newer")
        } else {
            Error::env(format!("cannot run git to {what}: {e}"))
        }
    })
}

/// Check out the submodule at `path` inside the worktree `workdir`, cloning from
/// `local_source` (the shared checkout's copy of that submodule) so no network is used.
///
/// Why git: gix 0.90 can read submodules but cannot init, clone or update them.
/// Only the `file` protocol is allowed, so a submodule we have no local copy of fails
/// loudly instead of reaching for the network.
///
/// `force` checks the recorded commit out again even where the submodule already has
/// it, rewriting the files of a checkout a crash cut short.
///
/// The submodule is named active on the command line too: git writes
/// `submodule.<name>.active` into the shared repository's config for one its own
/// settings leave inactive, and when another git holds that config's lock it skips the
/// submodule with exit 0. Nothing of the shared config is written this way.
pub fn submodule_update_from_local(
    workdir: &Path,
    name: &str,
    path: &str,
    local_source: &Path,
    force: bool,
) -> Result<()> {
    let mut cmd = git(workdir);
    cmd.env("GIT_ALLOW_PROTOCOL", "file")
        .env("GIT_TERMINAL_PROMPT", "0")
        .arg("-c")
        .arg(format!("submodule.{name}.url={}", local_source.display()))
        .arg("-c")
        .arg(format!("submodule.{name}.active=true"))
        .args(["-c", "protocol.file.allow=always"])
        .args(["submodule", "update", "--init", "--no-fetch"]);
    if force {
        cmd.arg("--force");
    }
    cmd.args(["--", path]);
    run(cmd, &format!("populate submodule {path}")).map(|_| ())
}

/// The commit `rev` names, as git reads it; `None` when git cannot resolve it either.
///
/// Why git: gix 0.90's rev-parse lacks parts of git's revision syntax (`@{upstream}` of a
/// branch that tracks a local branch fails in it). Only a fallback, after gix.
pub fn rev_parse_commit(repo_dir: &Path, rev: &str) -> Option<String> {
    let mut cmd = git(repo_dir);
    cmd.args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
        .arg(format!("{rev}^{{commit}}"));
    let out = run_any_exit(
        cmd,
        Input::Closed,
        Duration::from_secs(60),
        "resolve a revision",
    )
    .ok()?;
    out.success().then(|| out.stdout_str().trim().to_string())
}

/// Point a populated submodule's `origin` back at its real URL after a local clone.
///
/// Why git: gix 0.90 changes configuration in memory only; writing the repository's
/// config file back would mean fleet's own lock and rewrite of a file git writes under
/// `config.lock` (and the submodule was just cloned by git, which owns that file).
///
/// `git_dir` is the submodule's own git dir, given to git as `--git-dir`: in a folder
/// that is not a repository of its own, git would look upwards and change the
/// enclosing repository's `origin` instead.
pub fn set_origin_url(checkout: &Path, git_dir: &Path, url: &str) -> Result<()> {
    let mut cmd = git(checkout);
    cmd.arg("--git-dir")
        .arg(git_dir)
        .args(["remote", "set-url", "origin", url]);
    run(cmd, "restore the submodule's origin URL").map(|_| ())
}

/// Drop the records of worktrees whose folders are gone.
///
/// Why git: gix 0.90 has no worktree prune (crate-status lists it as missing).
pub fn worktree_prune(repo_dir: &Path) -> Result<String> {
    let mut cmd = git(repo_dir);
    cmd.args(["worktree", "prune", "--verbose"]);
    let out = run(cmd, "prune worktree records")?;
    Ok(format!("{}{}", out.stdout_str(), out.stderr_str()))
}

/// Settings the gate worktree's git must not take from the repository: they make a
/// checkout hold part of a tree (sparse checkout, read from the common config or a
/// per-worktree one), or trust an index over the files (`ignoreStat` marks paths
/// assume-unchanged, a file system monitor can say nothing changed). Given to every git
/// fleet runs there and, through `GIT_CONFIG_*`, to the gate's commands.
pub const GATE_CONFIG: [(&str, &str); 5] = [
    ("core.sparseCheckout", "false"),
    ("core.sparseCheckoutCone", "false"),
    ("index.sparse", "false"),
    ("core.ignoreStat", "false"),
    ("core.fsmonitor", "false"),
];

/// Settings every git an agent of `fleet drain` runs gets: git's automatic maintenance
/// after a commit (`gc --auto`) runs to its end inside that commit, in the run's process
/// group, instead of detaching into the background, where the drainer's stop of what a
/// run left behind would cut it off half way (a lock left in the repository every
/// worktree shares).
pub const AGENT_CONFIG: [(&str, &str); 2] = [
    ("maintenance.autoDetach", "false"),
    ("gc.autoDetach", "false"),
];

/// The `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` variables that give
/// every git a child runs `settings`, numbered after the `had` pairs the child's
/// environment already holds, so these win over them and over every config file.
pub fn config_env(settings: &[(&str, &str)], had: usize) -> Vec<(String, String)> {
    let mut vars = vec![(
        "GIT_CONFIG_COUNT".to_string(),
        (had + settings.len()).to_string(),
    )];
    for (i, (key, value)) in settings.iter().enumerate() {
        vars.push((format!("GIT_CONFIG_KEY_{}", had + i), key.to_string()));
        vars.push((format!("GIT_CONFIG_VALUE_{}", had + i), value.to_string()));
    }
    vars
}

/// How many `GIT_CONFIG_*` pairs a `GIT_CONFIG_COUNT` value declares (none when unset
/// or not a number, as git reads it).
pub fn config_count(value: Option<&str>) -> usize {
    value.and_then(|n| n.trim().parse().ok()).unwrap_or(0)
}

/// git in the gate worktree, with [`GATE_CONFIG`] on its command line. It never looks
/// above the worktree for a repository: one whose `.git` file a kill left unwritten
/// must fail, not reach whatever repository holds the folder it lives in.
fn gate_git(worktree: &Path) -> Command {
    let mut cmd = git(worktree);
    if let Some(parent) = worktree.parent() {
        cmd.env("GIT_CEILING_DIRECTORIES", parent);
    }
    for (key, value) in GATE_CONFIG {
        cmd.arg("-c").arg(format!("{key}={value}"));
    }
    cmd
}

/// Point the gate worktree at `commit`, discarding whatever a previous gate run left in
/// tracked files, so it holds the whole tree. Hooks are switched off: this is fleet's
/// private checkout. Paths an earlier run (a gate command) marked skip-worktree or
/// assume-unchanged in the gate's index lose those marks first: a checkout keeps them,
/// and with them a deleted or changed file would stay deleted or changed.
///
/// Why git: gix 0.90 can check out into a new folder but has no checkout, reset or
/// clean for an existing worktree.
pub fn checkout_gate_worktree(worktree: &Path, commit: &str, no_hooks: &Path) -> Result<()> {
    let mut list = gate_git(worktree);
    list.args(["ls-files", "-v", "-z"]);
    let listed = run(list, "list the gate worktree's index")?;
    // `-v` tags each path: `H` is a plain entry; `S` skip-worktree, a lower-case
    // letter assume-unchanged.
    let hidden: Vec<&[u8]> = listed
        .stdout
        .split(|b| *b == 0)
        .filter(|entry| entry.len() > 2 && !entry.starts_with(b"H "))
        .map(|entry| &entry[2..])
        .collect();
    if !hidden.is_empty() {
        let mut input = hidden.join(&0u8);
        input.push(0);
        // One mark per call: given both, update-index applies only the last.
        for mark in ["--no-skip-worktree", "--no-assume-unchanged"] {
            let mut clear = gate_git(worktree);
            clear.args(["update-index", mark, "-z", "--stdin"]);
            let input = Input::Bytes(input.clone());
            run_with_input(clear, input, "clear the gate index's hidden paths")?;
        }
    }
    let mut cmd = gate_git(worktree);
    cmd.arg("-c")
        .arg(format!("core.hooksPath={}", no_hooks.display()))
        .args(["checkout", "--quiet", "--force", "--detach", commit]);
    run(cmd, "check out the gate candidate").map(|_| ())
}

/// Remove everything untracked from the gate worktree (nested repositories included)
/// but keep ignored files, so build caches stay warm.
///
/// Why git: gix 0.90 has no clean.
pub fn clean_gate_worktree(worktree: &Path) -> Result<()> {
    let mut cmd = gate_git(worktree);
    cmd.args(["clean", "-ffdq"]);
    run(cmd, "clean the gate worktree").map(|_| ())
}

/// Bring a checkout's index and files from `old` to `new` after its branch moved from
/// one to the other, carrying local changes to files the move does not touch (a
/// two-tree `read-tree -m -u`, which refuses rather than overwrite a local change).
///
/// Why git: gix 0.90 has no checkout or merge of an index into an existing worktree.
pub fn move_checkout(checkout: &Path, old: &str, new: &str, no_hooks: &Path) -> Result<()> {
    let mut cmd = git(checkout);
    cmd.arg("-c")
        .arg(format!("core.hooksPath={}", no_hooks.display()))
        .args(["read-tree", "-m", "-u", old, new]);
    run(cmd, "update the shared checkout's files").map(|_| ())
}

/// Every path `git status` reports in a checkout (modified, staged, untracked, ignored;
/// ignored folders collapsed unless `only` names paths), against its HEAD, after
/// refreshing stat information.
///
/// Why git: it applies the user's filters, attributes and ignore rules exactly as git
/// does, which is what "would this overwrite something of yours" must mean.
pub fn status_paths(checkout: &Path, only: Option<&[String]>) -> Result<Vec<String>> {
    let mut cmd = git(checkout);
    cmd.args(["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
    match only {
        // Limited to the given paths: the cost follows the change, not the repository.
        Some(paths) => {
            cmd.arg("--ignored=matching").arg("--");
            cmd.args(paths.iter().map(|p| format!(":(literal){p}")));
        }
        None => {
            cmd.arg("--ignored=traditional");
        }
    }
    let out = run(cmd, "read the shared checkout's status")?;
    let mut paths = Vec::new();
    let mut fields = out.stdout.split(|b| *b == 0).filter(|f| !f.is_empty());
    while let Some(entry) = fields.next() {
        if entry.len() < 4 {
            continue;
        }
        let (code, path) = (&entry[..2], &entry[3..]);
        paths.push(
            String::from_utf8_lossy(path)
                .trim_end_matches('/')
                .to_string(),
        );
        // A rename or copy names its source in the next field.
        if (code[0] == b'R' || code[0] == b'C')
            && let Some(source) = fields.next()
        {
            paths.push(String::from_utf8_lossy(source).to_string());
        }
    }
    Ok(paths)
}

/// Set index entries directly (`mode sha\tpath` records, each ended by a NUL so any
/// path works; mode 0 removes the entry).
///
/// Why git: gix 0.90 can write a whole index file, but not edit entries of a live one
/// under git's `index.lock` protocol while keeping the extensions it does not know
/// (split index, untracked cache, fsmonitor): a user's index must come out exactly as
/// git would leave it.
pub fn update_index_info(checkout: &Path, lines: &str) -> Result<()> {
    let mut cmd = git(checkout);
    cmd.args(["update-index", "-z", "--index-info"]);
    run_with_input(
        cmd,
        Input::Bytes(lines.as_bytes().to_vec()),
        "update the shared checkout's index",
    )
    .map(|_| ())
}

/// Refresh the index's stat information so timestamps alone never look like changes.
///
/// Why git: see [`update_index_info`].
pub fn refresh_index(checkout: &Path) -> Result<()> {
    let mut cmd = git(checkout);
    cmd.args(["update-index", "-q", "--refresh"]);
    // Exit 1 only means "some entries need updating": not an error here.
    let _ = run_any_exit(
        cmd,
        Input::Closed,
        Duration::from_secs(600),
        "refresh the index",
    );
    Ok(())
}

/// The hooks folder git uses when it runs hooks in the worktree at `worktree`
/// (`core.hooksPath` from any config scope, a relative one resolved against that
/// worktree's root; otherwise the common dir's `hooks`).
///
/// Why git: this is git's own rule, including worktree-scoped config and includes;
/// asking git is the only way to be sure the hook lands where git will look.
pub fn hooks_dir(worktree: &Path) -> Result<std::path::PathBuf> {
    let mut cmd = git(worktree);
    cmd.args(["rev-parse", "--path-format=absolute", "--git-path", "hooks"]);
    let out = run(cmd, "find the hooks folder")?;
    Ok(std::path::PathBuf::from(out.stdout_str().trim()))
}

/// A checkout's state as trees: what is staged, and everything as it is now (tracked
/// files with their edits, staged changes, untracked files; not ignored ones).
pub struct WorkingState {
    pub staged: crate::git::ObjectId,
    pub working: crate::git::ObjectId,
    /// Untracked files left out for their size.
    pub skipped: Vec<String>,
}

/// Untracked files larger than this are left out of snapshots (each change would
/// otherwise store the whole file again).
pub const SNAPSHOT_MAX_FILE: u64 = 64 * 1024 * 1024;

/// Build [`WorkingState`] in a temporary copy of the index (`tmp_index`, removed
/// afterwards), so the checkout's own index, files and stash are untouched. `exclude`
/// names folders to leave out (nested repositories, snapshotted on their own).
///
/// Why git: gix 0.90 cannot add worktree files to an index with the user's filters
/// and ignore rules applied, nor write a tree from an index.
pub fn working_tree_snapshot(
    checkout: &Path,
    index: &Path,
    tmp_index: &Path,
    exclude: &[String],
) -> Result<WorkingState> {
    if index.exists() {
        std::fs::copy(index, tmp_index)
            .map_err(|e| Error::env(format!("cannot copy {}: {e}", index.display())))?;
    }
    let result = (|| {
        let write_tree = || {
            let mut write = git(checkout);
            write.env("GIT_INDEX_FILE", tmp_index).arg("write-tree");
            let out = run(write, "write the snapshot tree")?;
            crate::git::ObjectId::from_hex(out.stdout_str().trim().as_bytes())
                .map_err(|e| Error::env(format!("git write-tree printed no tree id: {e}")))
        };
        let staged = write_tree()?;
        // git refuses an exclude pathspec naming an ignored path; ignored ones are left
        // out by `add -A` anyway.
        let exclude = not_ignored(checkout, exclude)?;
        let exclude = exclude.as_slice();
        let skipped = large_untracked(checkout, exclude)?;
        let mut add = git(checkout);
        add.env("GIT_INDEX_FILE", tmp_index)
            .args(["add", "-A", "--ignore-errors", "--", "."]);
        for path in exclude.iter().chain(&skipped) {
            add.arg(format!(":(exclude,literal){path}"));
        }
        run(add, "collect the checkout's changes")?;
        Ok(WorkingState {
            staged,
            working: write_tree()?,
            skipped,
        })
    })();
    let _ = std::fs::remove_file(tmp_index);
    let mut lock = tmp_index.as_os_str().to_os_string();
    lock.push(".lock");
    let _ = std::fs::remove_file(std::path::PathBuf::from(lock));
    result
}

/// The paths of `paths` that the checkout's ignore rules do not ignore.
fn not_ignored(checkout: &Path, paths: &[String]) -> Result<Vec<String>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let ignored = check_ignore(checkout, paths, &[])?;
    Ok(paths
        .iter()
        .filter(|p| !ignored.contains(p))
        .cloned()
        .collect())
}

/// Which of `paths` git ignores in the worktree at `dir` (`git check-ignore`, with
/// `extra` flags such as `--no-index`).
fn check_ignore(dir: &Path, paths: &[String], extra: &[&str]) -> Result<Vec<String>> {
    let mut cmd = git(dir);
    cmd.args(["check-ignore", "-z", "--stdin"]).args(extra);
    let input: Vec<u8> = paths
        .iter()
        .flat_map(|p| p.bytes().chain(std::iter::once(0)))
        .collect();
    let out = run_any_exit(
        cmd,
        Input::Bytes(input),
        Duration::from_secs(60),
        "check the ignore rules",
    )?;
    // Exit 1: none ignored; 0: some are, listed NUL-terminated.
    match out.status.code() {
        Some(0 | 1) => Ok(out
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect()),
        _ => Err(Error::env(format!(
            "git failed to check the ignore rules: {}",
            out.stderr_str().trim()
        ))),
    }
}

/// Untracked, not ignored files over [`SNAPSHOT_MAX_FILE`].
fn large_untracked(checkout: &Path, exclude: &[String]) -> Result<Vec<String>> {
    let mut cmd = git(checkout);
    cmd.args([
        "ls-files",
        "-z",
        "--others",
        "--exclude-standard",
        "--",
        ".",
    ]);
    for path in exclude {
        cmd.arg(format!(":(exclude,literal){path}"));
    }
    let out = run(cmd, "list untracked files")?;
    Ok(out
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .filter(|p| {
            std::fs::symlink_metadata(checkout.join(p))
                .is_ok_and(|m| m.is_file() && m.len() > SNAPSHOT_MAX_FILE)
        })
        .collect())
}

/// Where one `fleet doctor` guard probe runs: a git command in `dir` whose hooks folder
/// is `hooks` (the probe's own, see [`crate::guard::doctor`]), whose new objects go to
/// `objects` (the repository's store `common_objects` read through it as an alternate,
/// so nothing is added to it) and, when given, with `index` as its index (the
/// checkout's own is never written).
pub struct Probe<'a> {
    pub dir: &'a Path,
    pub hooks: &'a Path,
    pub objects: &'a Path,
    pub common_objects: &'a Path,
    pub index: Option<&'a Path>,
}

/// Run `args` as a guard probe; hands back whether git succeeded and all it said.
/// The escape hatch is taken out, and the probe's identity set, so the guard decides.
///
/// Why git: the probe is of git itself running the hooks.
pub fn probe(p: &Probe, args: &[&str]) -> Result<(bool, String)> {
    let mut cmd = git(p.dir);
    cmd.env("GIT_OBJECT_DIRECTORY", p.objects)
        .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", p.common_objects)
        .env_remove(crate::guard::entry::ALLOW_VAR)
        .arg("-c")
        .arg(format!("core.hooksPath={}", p.hooks.display()))
        .args([
            "-c",
            "user.name=fleet doctor",
            "-c",
            "user.email=doctor@fleet.invalid",
            "-c",
            "commit.gpgSign=false",
        ])
        .args(args);
    if let Some(index) = p.index {
        cmd.env("GIT_INDEX_FILE", index);
    }
    let out = run_any_exit(
        cmd,
        Input::Closed,
        Duration::from_secs(15),
        "run a guard probe",
    )?;
    if out.timed_out {
        return Err(Error::env(format!(
            "the probe `git {}` did not finish in 15 s: a hook hangs",
            args.join(" ")
        )));
    }
    let said = format!("{}{}", out.stdout_str(), out.stderr_str())
        .trim()
        .to_string();
    Ok((out.success(), said))
}

/// Add a throwaway linked worktree at `path` (detached at HEAD, no files checked out),
/// with hooks off; [`remove_probe_worktree`] takes it away, record and all.
///
/// Why git: gix 0.90 has no worktree add.
pub fn add_probe_worktree(shared: &Path, path: &Path, no_hooks: &Path) -> Result<()> {
    let mut cmd = git(shared);
    cmd.arg("-c")
        .arg(format!("core.hooksPath={}", no_hooks.display()))
        .args(["worktree", "add", "--quiet", "--detach", "--no-checkout"])
        .arg(path)
        .arg("HEAD");
    run(cmd, "add the probe's worktree").map(|_| ())
}

/// Remove the worktree [`add_probe_worktree`] made: its folder and its record.
///
/// Why git: gix 0.90 has no worktree remove.
pub fn remove_probe_worktree(shared: &Path, path: &Path) -> Result<()> {
    let mut cmd = git(shared);
    cmd.args(["worktree", "remove", "--force", "--force"])
        .arg(path);
    run(cmd, "remove the probe's worktree").map(|_| ())
}

/// The blob ids of files in a checkout, through its clean filters (eol, LFS), in order.
///
/// Why git: gix 0.90 does not apply the user's filter drivers.
pub fn hash_files(checkout: &Path, paths: &[String]) -> Result<Vec<crate::git::ObjectId>> {
    let mut ids = Vec::with_capacity(paths.len());
    // As arguments, not `--stdin-paths` (which unquotes and splits on newlines), in
    // chunks that fit a command line.
    for chunk in paths.chunks(500) {
        let mut cmd = git(checkout);
        cmd.args(["hash-object", "--"]).args(chunk);
        let out = run(cmd, "hash files")?;
        for line in out.stdout_str().lines() {
            ids.push(
                crate::git::ObjectId::from_hex(line.trim().as_bytes())
                    .map_err(|e| Error::env(format!("git hash-object printed `{line}`: {e}")))?,
            );
        }
    }
    Ok(ids)
}

/// Write `paths` from the index to the files, through the smudge filters.
///
/// Why git: gix 0.90 cannot check out single paths of an existing worktree.
pub fn checkout_index(checkout: &Path, paths: &[String]) -> Result<()> {
    let mut cmd = git(checkout);
    cmd.args(["checkout-index", "-f", "-z", "--stdin"]);
    let input: Vec<u8> = paths
        .iter()
        .flat_map(|p| p.bytes().chain(std::iter::once(0)))
        .collect();
    run_with_input(cmd, Input::Bytes(input), "write files from the index").map(|_| ())
}

/// Which config file sets `key` for the repository at `dir` (`local`, `worktree`,
/// `global`, `system`, `command`), `None` when it is not set.
///
/// Why git: git's own view of every config scope and include, in the order it applies them.
pub fn config_scope(dir: &Path, key: &str) -> Result<Option<String>> {
    let mut cmd = git(dir);
    cmd.args(["config", "--show-scope", "--get", key]);
    let out = run_any_exit(
        cmd,
        Input::Closed,
        Duration::from_secs(60),
        "read the config",
    )?;
    if !out.success() {
        return Ok(None);
    }
    Ok(out.stdout_str().split_whitespace().next().map(String::from))
}

/// Does the index of the worktree at `dir` track any file under `prefix` (`a/b/`)?
///
/// Why git: pathspec matching as git does it, for a folder git may see under another case.
pub fn tracked_under(dir: &Path, prefix: &str) -> Result<bool> {
    let mut cmd = git(dir);
    cmd.args(["ls-files", "-z", "--"])
        .arg(format!(":(literal){prefix}"));
    let out = run(cmd, "list tracked files")?;
    Ok(!out.stdout.is_empty())
}

/// Would git ignore every one of `paths` (relative to the worktree at `dir`), so that
/// `git add -A` there never takes them? Tracked files are not asked about here.
///
/// Why git: the user's ignore rules (core.excludesFile, info/exclude, nested
/// .gitignore files) exactly as `git add` applies them.
pub fn all_ignored(dir: &Path, paths: &[String]) -> Result<bool> {
    Ok(check_ignore(dir, paths, &["--no-index"])?.len() == paths.len())
}

/// Fetch `refspecs` from `remote`, pruning tracking refs whose source is gone. Hooks are
/// off (fleet's own refs are written here, which the guard refuses to git commands),
/// and git never prompts: a lander runs unattended.
///
/// Why git: gix 0.90 fetches only with its network client features, which fleet leaves
/// out since push needs git anyway (see `push_atomic`); one tool for both keeps the
/// remote's URL, credentials and transport settings in git's hands.
pub fn fetch(dir: &Path, remote: &str, refspecs: &[String], no_hooks: &Path) -> Result<()> {
    let mut cmd = git(dir);
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .arg("-c")
        .arg(format!("core.hooksPath={}", no_hooks.display()))
        .args([
            "fetch",
            "--quiet",
            "--no-tags",
            "--prune",
            "--no-write-fetch-head",
        ])
        .arg("--")
        .arg(remote)
        .args(refspecs);
    run_with_input(cmd, Input::Closed, &format!("fetch from {remote}")).map(|_| ())
}

/// One ref a push sets: `dst` on the remote to `new`, only if it is now `expect`
/// (`None`: only if it does not exist).
pub struct PushUpdate {
    pub dst: String,
    pub new: String,
    pub expect: Option<String>,
}

/// Push `updates` to `remote` in one atomic transaction that applies only if every
/// ref is still what the caller expects (`--force-with-lease` per ref, `--atomic`):
/// the remote's compare-and-swap. `Ok(None)` when it applied; `Ok(Some(why))` when the
/// remote refused (a lost race or anything else; the caller looks at the remote again
/// to tell which). Hooks are off: this is fleet publishing its own gated result.
///
/// Why git: gix 0.90 cannot push (no send-pack; crate-status lists push as missing).
pub fn push_atomic(
    dir: &Path,
    remote: &str,
    updates: &[PushUpdate],
    no_hooks: &Path,
) -> Result<Option<String>> {
    let mut cmd = git(dir);
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .arg("-c")
        .arg(format!("core.hooksPath={}", no_hooks.display()))
        .args(["push", "--quiet", "--atomic", "--porcelain", "--no-verify"]);
    for u in updates {
        cmd.arg(format!(
            "--force-with-lease={}:{}",
            u.dst,
            u.expect.as_deref().unwrap_or("")
        ));
    }
    cmd.arg("--").arg(remote);
    for u in updates {
        cmd.arg(format!("{}:{}", u.new, u.dst));
    }
    let out = run_any_exit(
        cmd,
        Input::Closed,
        Duration::from_secs(600),
        &format!("push to {remote}"),
    )?;
    if out.success() {
        return Ok(None);
    }
    let why = format!("{}{}", out.stdout_str(), out.stderr_str());
    Ok(Some(why.trim().to_string()))
}

/// Commit exactly `paths` (as they are in the files) on the branch the checkout `dir`
/// has, the way a human adopting fleet commits them by hand: `git add`, then `git
/// commit --only`, with the guard's escape hatch set for this one git process. The
/// guard's hooks run as for any human commit and log it as allowed in guard.log; other
/// changes already staged stay staged and out of the commit. `Ok(Err(why))` when git
/// (or a hook of the user's) refused the commit.
///
/// Why git: a commit a human would make runs the repository's hooks (the guard's, and
/// the user's own chained before them) and updates the index; gix 0.90 runs no hooks
/// and cannot write a commit through the index of a checkout.
pub fn commit_paths_as_human(
    dir: &Path,
    paths: &[&str],
    message: &str,
) -> Result<std::result::Result<(), String>> {
    let mut add = git(dir);
    add.args(["add", "--"]).args(paths);
    run(add, "stage the files to commit")?;
    let mut commit = git(dir);
    commit
        .env(crate::guard::entry::ALLOW_VAR, "1")
        .args(["commit", "--quiet", "--only", "-m", message, "--"])
        .args(paths);
    let out = run_any_exit(commit, Input::Closed, Duration::from_secs(600), "commit")?;
    if out.success() {
        return Ok(Ok(()));
    }
    let why = format!("{}{}", out.stdout_str(), out.stderr_str());
    Ok(Err(why.trim().to_string()))
}

/// Move the loose refs whose names match `pattern` (a `git pack-refs --include`
/// wildmatch, `*` crossing `/`) into `packed-refs`, pruning their loose files. Without
/// `--all`, nothing else is packed and no other ref's loose file is touched (with
/// `--include`, git 2.47 does not add its default `refs/tags/*`). Hooks are off: git 2.47
/// runs `reference-transaction` for the rewrite of `packed-refs` and again for every
/// loose file it prunes (prepared and committed each time: 20,000 hook runs for 10,000
/// refs), and these are fleet's own refs.
///
/// Why git: gix 0.90 has no pack-refs. `Repository::edit_references` only ever deletes
/// from `packed-refs`; gix-ref 0.69 can write an entry there only as part of updating
/// each ref in a transaction (`PackedRefs::DeletionsAndNonSymbolicUpdatesRemoveLooseSourceReference`),
/// which would lock every loose ref at once and fail the whole pack when one claim moves
/// one of them meanwhile. git's pack-refs takes
/// `packed-refs.lock`, copies the refs' current values, commits `packed-refs`, and only
/// then prunes each loose file under that ref's own lock and only if it still holds the
/// copied value: a compare-and-swap that lands before the copy is copied, one that lands
/// after keeps its loose file, which shadows the packed copy. gix's own updates take
/// `packed-refs.lock` too once there are packed refs, so they wait out the rewrite
/// (`core.packedRefsTimeout`, 1 s by default). The other way round, every such update
/// holds `packed-refs.lock` for a moment, so with claimers busy git may wait for its turn
/// longer than its default second: it is given 5 s, and a lock it still cannot take is a
/// [`crate::error::Kind::Locked`] error (the refs stay loose; the next pack does it).
pub fn pack_refs(git_dir: &Path, pattern: &str, no_hooks: &Path) -> Result<()> {
    let mut cmd = git(git_dir);
    cmd.arg("-c")
        .arg(format!("core.hooksPath={}", no_hooks.display()))
        .args(["-c", "core.packedRefsTimeout=5000"])
        .args(["pack-refs", "--include", pattern]);
    let what = format!("pack the refs {pattern}");
    let out = run_any_exit(cmd, Input::Closed, Duration::from_secs(600), &what)?;
    if out.success() {
        return Ok(());
    }
    let message = format!(
        "git failed to {what} (exit {}): {}",
        proc::shell_code(out.status, false),
        out.stderr_str().trim()
    );
    Err(if out.stderr_str().contains("packed-refs.lock") {
        Error::locked(message)
    } else {
        Error::env(message)
    })
}
