//! One function per command: call the library, render the result.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::{Cli, Command, HooksCommand, WorktreeCommand};
use crate::config::{self, Config};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::guard::hooks::{self, HookState, RepoReport};
use crate::preflight::{self, Place};
use crate::ui;
use crate::worktree::{self, AgentName, NewRequest};

/// Run a parsed command line; the returned code is the process exit code.
pub fn run(cli: Cli) -> Result<u8> {
    let cwd = match &cli.dir {
        Some(dir) if !dir.is_dir() => {
            return Err(
                Error::usage(format!("-C {}: no such folder", dir.display()))
                    .with_help("give -C a folder that exists"),
            );
        }
        Some(dir) => dir.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::env(format!("cannot read the current folder: {e}")))?,
    };
    match cli.command {
        Command::Init { print, out } => init(&cwd, print, out.json),
        Command::Config { default, out } => show_config(&cwd, default, out.json),
        Command::Worktree(cmd) => match cmd {
            WorktreeCommand::New {
                name,
                base,
                force_base,
                out,
            } => {
                let req = NewRequest {
                    name: AgentName::parse(&name)?,
                    base,
                    force_base,
                    cwd: Some(cwd.clone()),
                };
                worktree_new(&cwd, &req, out.json)
            }
            WorktreeCommand::List { out } => worktree_list(&cwd, out.json),
            WorktreeCommand::Rm { name, force, out } => {
                worktree_rm(&cwd, &AgentName::parse(&name)?, force, out.json)
            }
            WorktreeCommand::Prune { out } => worktree_prune(&cwd, out.json),
        },
        Command::Hooks(cmd) => match cmd {
            HooksCommand::Install { out } => hooks_command(&cwd, HooksAction::Install, out.json),
            HooksCommand::Uninstall { out } => {
                hooks_command(&cwd, HooksAction::Uninstall, out.json)
            }
            HooksCommand::Status { out } => hooks_command(&cwd, HooksAction::Status, out.json),
        },
        Command::Hook { name, args } => crate::guard::entry::run(&name, &args),
        Command::Doctor { out } => doctor(&cwd, out.json),
        Command::Gate {
            base,
            allow_protected,
            junit,
            out,
        } => merge_gate(
            &cwd,
            &crate::merge_gate::Options {
                base,
                allow_protected,
                junit,
            },
            out.json,
        ),
        Command::Lint {
            paths,
            diff,
            staged,
            format,
            json,
        } => {
            let format = if json {
                crate::cli::LintFormat::Json
            } else {
                format
            };
            lint(&cwd, paths, diff.as_deref(), staged, format)
        }
        Command::Watchdog {
            once,
            interval,
            restore,
            grace,
            json,
        } => watchdog(&cwd, once, interval, restore, grace, json),
        Command::Recover {
            list: _,
            id,
            branch,
            out,
        } => recover(&cwd, id.as_deref(), branch.as_deref(), out.json),
        Command::Preflight { agent, create, out } => {
            preflight(&cwd, agent.as_deref(), create, out.json)
        }
        Command::Track {
            ready,
            branches,
            queue,
            out,
        } => track(&cwd, queue.remote, &branches, ready, out.json),
        Command::Untrack { lanes, queue, out } => untrack(&cwd, queue.remote, &lanes, out.json),
        Command::Ready {
            lanes,
            exit_code,
            log,
            queue,
            out,
        } => ready(
            &cwd,
            queue.remote,
            &lanes,
            exit_code,
            log.as_deref(),
            out.json,
        ),
        Command::Status { queue, out } => status(&cwd, queue.remote, out.json),
        Command::Revert {
            lane,
            yes,
            dry_run,
            allow_protected,
            out,
        } => revert(
            &cwd,
            &lane,
            crate::land::LandOptions {
                yes,
                dry_run,
                allow_protected,
                ..Default::default()
            },
            out.json,
        ),
        Command::Land {
            lanes,
            all,
            include_running,
            yes,
            dry_run,
            allow_protected,
            batch,
            max,
            no_cache,
            queue,
            out,
        } => land(
            &cwd,
            queue.remote,
            crate::land::LandOptions {
                lanes,
                all,
                include_running,
                yes,
                dry_run,
                allow_protected,
                batch,
                max: max.map(|n| n as usize),
                no_cache,
            },
            out.json,
        ),
        Command::Verify { range, queue, out } => {
            verify(&cwd, queue.remote, &range.unwrap_or_default(), out.json)
        }
        Command::Run {
            timeout,
            grace,
            out,
            command,
        } => run_command(&cwd, &command, timeout, grace, out.json),
    }
}

#[derive(Serialize)]
struct InitReport {
    shared_checkout: PathBuf,
    config: PathBuf,
    config_written: bool,
    recorded: PathBuf,
    hooks: Vec<RepoReport>,
}

fn init(cwd: &Path, print: bool, json: bool) -> Result<u8> {
    if print {
        print!("{}", config::TEMPLATE);
        return Ok(0);
    }
    let ctx = Context::locate(cwd)?;
    let config_path = ctx.shared.join(config::FILE_NAME);
    let written = write_new_file(&config_path, config::TEMPLATE)?;
    let recorded = record_shared_checkout(&ctx)?;
    let hooks = hooks::install(&ctx)?;
    if json {
        ui::json(&InitReport {
            shared_checkout: ctx.shared.clone(),
            config: config_path,
            config_written: written,
            recorded,
            hooks,
        });
    } else {
        if written {
            ui::ok(&format!(
                "wrote {} (commit it: it is read from the target branch when landing)",
                config_path.display()
            ));
        } else {
            ui::note(&format!("kept the existing {}", config_path.display()));
        }
        ui::ok(&format!(
            "recorded {} as the shared checkout",
            ctx.shared.display()
        ));
        render_hooks(&hooks, HooksAction::Install);
        ui::note("next: `cd \"$(fleet worktree new NAME)\"` gives an agent its own worktree");
    }
    Ok(0)
}

/// Create `path` with `text` unless it exists; never overwrites (create_new is atomic).
fn write_new_file(path: &Path, text: &str) -> Result<bool> {
    use std::io::Write;
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(mut file) => {
            file.write_all(text.as_bytes())
                .map_err(|e| Error::env(format!("cannot write {}: {e}", path.display())))?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::env(format!("cannot create {}: {e}", path.display()))),
    }
}

/// The shared checkout is recorded in the common git dir, where every linked worktree
/// (and the guard's hooks) can read it.
fn record_shared_checkout(ctx: &Context) -> Result<PathBuf> {
    let dir = ctx.repo.common_dir().join("fleet");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    let file = dir.join("shared-checkout");
    std::fs::write(&file, format!("{}\n", ctx.shared.display()))
        .map_err(|e| Error::env(format!("cannot write {}: {e}", file.display())))?;
    Ok(file)
}

#[derive(Serialize)]
struct ConfigReport<'a> {
    source: Option<&'a Path>,
    config: &'a Config,
}

fn show_config(cwd: &Path, default: bool, json: bool) -> Result<u8> {
    let (config, source) = if default {
        (Config::default(), None)
    } else {
        let ctx = Context::locate(cwd)?;
        (ctx.config, ctx.config_path)
    };
    if json {
        ui::json(&ConfigReport {
            source: source.as_deref(),
            config: &config,
        });
    } else {
        let from = source.map_or_else(
            || "built-in defaults".to_string(),
            |p| p.display().to_string(),
        );
        println!("# effective configuration (from {from})");
        print!("{}", config.to_toml());
    }
    Ok(0)
}

fn worktree_new(cwd: &Path, req: &NewRequest, json: bool) -> Result<u8> {
    let ctx = Context::locate(cwd)?;
    if !json {
        ui::note(&format!(
            "creating agent worktree {} on {} ...",
            req.name.as_str(),
            ctx.branch_for(req.name.as_str())
        ));
    }
    let outcome = worktree::new(&ctx, req)?;
    for note in &outcome.notes {
        ui::warn(note);
    }
    if json {
        ui::json(&outcome);
        return Ok(0);
    }
    if outcome.created {
        for m in outcome.members.iter().skip(1) {
            ui::note(&format!(
                "  nested {} -> {}",
                m.rel.display(),
                m.path.display()
            ));
        }
    } else {
        ui::note("already there and consistent");
    }
    println!("{}", outcome.path.display());
    Ok(0)
}

fn worktree_list(cwd: &Path, json: bool) -> Result<u8> {
    let ctx = Context::locate(cwd)?;
    let list = worktree::list(&ctx)?;
    if json {
        ui::json(&list);
        return Ok(0);
    }
    if list.is_empty() {
        ui::note("no agent worktrees; create one with `fleet worktree new NAME`");
        return Ok(0);
    }
    for wt in &list {
        let line = format!(
            "{:<16} {:<24} {} {} {}",
            wt.name,
            wt.branch.as_deref().unwrap_or("(detached)"),
            ahead_behind(wt.ahead, wt.behind),
            dirty_word(wt.dirty, wt.missing),
            wt.last_commit.map(ui::age).unwrap_or_default()
        );
        ui::answer(&line);
        for n in &wt.nested {
            ui::answer(&format!(
                "  {} {:<24} {} {} {}",
                ui::paint(ui::DIM, &format!("{:<14}", n.rel.display())),
                n.branch.as_deref().unwrap_or("(detached)"),
                ahead_behind(n.ahead, n.behind),
                dirty_word(n.dirty, false),
                n.last_commit.map(ui::age).unwrap_or_default()
            ));
        }
    }
    Ok(0)
}

fn ahead_behind(ahead: Option<usize>, behind: Option<usize>) -> String {
    match (ahead, behind) {
        (Some(a), Some(b)) => format!("+{a:<3} -{b:<3}"),
        _ => "?     ?   ".to_string(),
    }
}

fn dirty_word(dirty: Option<bool>, missing: bool) -> &'static str {
    match (missing, dirty) {
        (true, _) => "missing",
        (false, Some(true)) => "dirty  ",
        (false, Some(false)) => "clean  ",
        (false, None) => "?      ",
    }
}

fn worktree_rm(cwd: &Path, name: &AgentName, force: bool, json: bool) -> Result<u8> {
    let ctx = Context::locate(cwd)?;
    let removed = worktree::rm(&ctx, name, force)?;
    if json {
        ui::json(&removed);
        return Ok(0);
    }
    for path in &removed.worktrees {
        ui::ok(&format!("removed {}", path.display()));
    }
    for branch in &removed.branches_deleted {
        ui::note(&format!(
            "deleted branch {branch}: its changes are in the target"
        ));
    }
    for branch in &removed.branches_kept {
        ui::warn(&format!(
            "kept branch {branch}: it has work the target does not have"
        ));
    }
    Ok(0)
}

fn worktree_prune(cwd: &Path, json: bool) -> Result<u8> {
    let ctx = Context::locate(cwd)?;
    let pruned = worktree::prune(&ctx)?;
    if json {
        ui::json(&pruned);
        return Ok(0);
    }
    for p in &pruned {
        let text = p.output.trim();
        if text.is_empty() {
            ui::note(&format!("{}: nothing to prune", p.repo.display()));
        } else {
            ui::note(&format!("{}:\n{text}", p.repo.display()));
        }
    }
    Ok(0)
}

fn preflight(cwd: &Path, agent: Option<&str>, create: bool, json: bool) -> Result<u8> {
    let mut report = preflight::inspect(cwd);
    let mut agent_path = None;
    if let Some(agent) = agent {
        AgentName::parse(agent)?;
        let elsewhere = report.agent.as_deref() != Some(agent);
        if elsewhere && matches!(report.place, Place::Agent | Place::NestedAgent) {
            // A worker that says who it is, in another agent's worktree: not a pass.
            report.problem = Some(format!(
                "this is agent {}'s worktree, not {agent}'s",
                report.agent.as_deref().unwrap_or("?")
            ));
            report.ok = false;
            report.place = Place::Blind;
        }
        if elsewhere && report.repo.is_some() {
            agent_path = Some(agent_worktree(cwd, agent, create));
        }
    }
    // The report first; then why the agent's worktree cannot be named, if it cannot.
    let (agent_path, agent_error) = match agent_path {
        Some(Ok(path)) => (Some(path), None),
        Some(Err(e)) => (None, Some(e)),
        None => (None, None),
    };
    if json {
        #[derive(Serialize)]
        struct WithPath<'a> {
            #[serde(flatten)]
            report: &'a preflight::Report,
            agent_worktree: Option<&'a PathBuf>,
        }
        ui::json(&WithPath {
            report: &report,
            agent_worktree: agent_path.as_ref(),
        });
    } else {
        render_preflight(&report);
        if let Some(path) = &agent_path {
            ui::note(&format!(
                "agent worktree: {}  (cd there to work)",
                path.display()
            ));
            println!("{}", path.display());
        }
    }
    if let Some(e) = agent_error {
        return Err(e);
    }
    Ok(if report.ok { 0 } else { 1 })
}

/// The path of `agent`'s worktree, creating it with `create`.
fn agent_worktree(cwd: &Path, agent: &str, create: bool) -> Result<PathBuf> {
    let ctx = Context::locate(cwd)?;
    let name = AgentName::parse(agent)?;
    if create {
        let req = NewRequest {
            name,
            base: None,
            force_base: false,
            cwd: None,
        };
        return Ok(worktree::new(&ctx, &req)?.path);
    }
    let path = ctx.worktree_root().join(name.as_str());
    let registered = ctx.repo.worktrees()?.into_iter().any(|w| {
        !w.is_main && !w.missing && w.path.canonicalize().ok() == path.canonicalize().ok()
    });
    if !registered || std::fs::read_link(&path).is_ok() {
        let why = if path.exists() {
            "is not a worktree of this repository"
        } else {
            "does not exist"
        };
        return Err(Error::refused(format!(
            "agent {agent} has no worktree yet ({} {why})",
            path.display()
        ))
        .with_help(format!("add --create, or run `fleet worktree new {agent}`")));
    }
    Ok(path)
}

fn render_preflight(r: &preflight::Report) {
    let show = |p: &Option<PathBuf>| p.as_ref().map_or("-".into(), |p| p.display().to_string());
    let place = match r.place {
        Place::Agent => format!("agent {}", r.agent.as_deref().unwrap_or("?")),
        Place::NestedAgent => format!(
            "nested {} of agent {}",
            show(&r.nested),
            r.agent.as_deref().unwrap_or("?")
        ),
        Place::Shared => "shared checkout".into(),
        Place::NestedShared => format!("shared checkout of nested repo {}", show(&r.nested)),
        Place::Blind => "unknown".into(),
    };
    ui::note(&format!("repo:     {}", show(&r.repo)));
    ui::note(&format!("worktree: {} ({place})", show(&r.worktree)));
    ui::note(&format!(
        "branch:   {}",
        r.branch.as_deref().unwrap_or("(detached or unknown)")
    ));
    ui::note(&format!("lane:     {}", r.lane.as_deref().unwrap_or("-")));
    match &r.problem {
        None => ui::ok("this is an agent worktree on its own lane branch"),
        Some(problem) => ui::error(&Error::refused(problem.clone())),
    }
}

#[derive(Serialize)]
struct RunReport {
    command: Vec<String>,
    code: i32,
    timed_out: bool,
    /// The signal that killed the command, if one did.
    signal: Option<i32>,
    /// A signal fleet received and forwarded to the command's group.
    forwarded_signal: Option<i32>,
    duration_ms: u128,
}

use std::os::fd::AsFd;

fn run_command(
    cwd: &Path,
    command: &[String],
    timeout: Option<std::time::Duration>,
    grace: std::time::Duration,
    json: bool,
) -> Result<u8> {
    use std::os::unix::process::ExitStatusExt;
    let (program, args) = command
        .split_first()
        .ok_or_else(|| Error::usage("no command given"))?;
    let mut cmd = std::process::Command::new(program);
    cmd.args(args).current_dir(cwd);
    // With --json, stdout carries only the JSON document: the command's own output goes
    // to stderr.
    if json {
        match std::io::stderr().as_fd().try_clone_to_owned() {
            Ok(fd) => {
                cmd.stdout(std::process::Stdio::from(fd));
            }
            Err(e) => {
                return Err(Error::env(format!(
                    "cannot redirect the command's output: {e}"
                )));
            }
        }
    }
    let started = std::time::Instant::now();
    let outcome = match crate::proc::run_foreground(&mut cmd, timeout, grace) {
        Ok(outcome) => outcome,
        Err(e) => {
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            if json {
                ui::json(&serde_json::json!({
                    "command": command,
                    "code": code,
                    "error": format!("cannot run `{program}`: {e}"),
                }));
            }
            ui::error(
                &Error::refused(format!("cannot run `{program}`: {e}"))
                    .with_help("check the command name and PATH"),
            );
            return Ok(code);
        }
    };
    if json {
        ui::json(&RunReport {
            command: command.to_vec(),
            code: outcome.code(),
            timed_out: outcome.timed_out,
            signal: outcome.status.signal(),
            forwarded_signal: outcome.forwarded,
            duration_ms: started.elapsed().as_millis(),
        });
    } else if outcome.timed_out {
        ui::warn(&format!(
            "`{program}` timed out; its process group was terminated"
        ));
    }
    Ok(u8::try_from(outcome.code()).unwrap_or(255))
}

fn track(
    cwd: &Path,
    remote: Option<String>,
    branches: &[String],
    ready: bool,
    json: bool,
) -> Result<u8> {
    let ctx = Context::locate(cwd)?.with_remote(remote)?;
    crate::land::refresh(&ctx)?;
    let mut resolved = Vec::new();
    let prefix = ctx.config.lanes.prefix.as_str();
    for given in branches {
        let branch = crate::lanes::resolve_branch(&ctx.repo, prefix, given)?
            .unwrap_or_else(|| given.clone());
        if let Some(remote) = &ctx.remote {
            crate::remote::publish_branch(&ctx, remote, &branch)?;
        }
        resolved.push(branch);
    }
    let tracked = crate::lanes::track(&ctx, &resolved, ready)?;
    if json {
        ui::json(&tracked);
    } else {
        let state = if ready { "ready" } else { "running" };
        for lane in &tracked {
            ui::ok(&format!("tracking {lane} ({state})"));
        }
    }
    Ok(0)
}

fn untrack(cwd: &Path, remote: Option<String>, lanes: &[String], json: bool) -> Result<u8> {
    let ctx = Context::locate(cwd)?.with_remote(remote)?;
    let gone = crate::lanes::untrack(&ctx, lanes)?;
    if json {
        ui::json(&gone);
    } else {
        for lane in &gone {
            ui::ok(&format!(
                "no longer tracking {lane} (the branch is untouched)"
            ));
        }
    }
    Ok(0)
}

fn ready(
    cwd: &Path,
    remote: Option<String>,
    lanes: &[String],
    exit_code: Option<i32>,
    log: Option<&Path>,
    json: bool,
) -> Result<u8> {
    let ctx = Context::locate(cwd)?.with_remote(remote)?;
    let lanes: Vec<String> = if lanes.is_empty() {
        let branch = current_branch(cwd)?;
        if branch == ctx.target() {
            return Err(Error::usage(format!(
                "this checkout is on `{branch}`, the target branch, not on a lane"
            ))
            .with_help(
                "run `fleet ready` in the lane's worktree, or name the lane: `fleet ready LANE`",
            ));
        }
        vec![branch]
    } else {
        lanes.to_vec()
    };
    let log = log.map(|l| cwd.join(l));
    let worker = match exit_code {
        None => None,
        Some(code) => Some(crate::lanes::WorkerTest {
            exit_code: code,
            log: log
                .as_deref()
                .map(|l| keep_worker_log(&ctx, l))
                .transpose()?,
            at: crate::lanes::now(),
        }),
    };
    if let Some(remote) = &ctx.remote {
        crate::land::refresh(&ctx)?;
        let (registry, _) = crate::lanes::load(&ctx)?;
        let prefix = ctx.config.lanes.prefix.as_str();
        for given in &lanes {
            if let Some(branch) = crate::lanes::lane_name(&registry, prefix, given) {
                crate::remote::publish_branch(&ctx, remote, &branch)?;
            }
        }
    }
    let marked = crate::lanes::ready(&ctx, &lanes, worker)?;
    if json {
        ui::json(&marked);
    } else {
        for lane in &marked {
            ui::ok(&format!("{lane} is ready to land"));
        }
    }
    Ok(0)
}

/// The branch checked out where the user stands.
fn current_branch(cwd: &Path) -> Result<String> {
    let repo = crate::git::Repo::discover(cwd)?;
    repo.head_branch()?.ok_or_else(|| {
        Error::refused("HEAD is detached here, so there is no lane to mark")
            .with_help("name the lane: `fleet ready LANE`")
    })
}

/// Copy a worker's log into the common git dir, where every worktree can read it.
fn keep_worker_log(ctx: &Context, log: &Path) -> Result<String> {
    let dir = ctx.repo.common_dir().join("fleet/logs");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    let name = format!(
        "worker-{}-{}.log",
        log.file_stem().unwrap_or_default().to_string_lossy(),
        crate::lanes::now()
    );
    let dest = dir.join(name);
    std::fs::copy(log, &dest).map_err(|e| {
        Error::usage(format!("cannot read the log {}: {e}", log.display()))
            .with_help("pass an existing file to --log")
    })?;
    Ok(dest.display().to_string())
}

fn status(cwd: &Path, remote: Option<String>, json: bool) -> Result<u8> {
    let ctx = Context::locate(cwd)?.with_remote(remote)?;
    crate::land::refresh(&ctx)?;
    let views = crate::status::lanes(&ctx)?;
    if json {
        ui::json(&views);
        return Ok(0);
    }
    if views.is_empty() {
        ui::note("no lanes; track one with `fleet track BRANCH`");
        return Ok(0);
    }
    for v in &views {
        let mut line = format!(
            "{:<28} {:<10} {}",
            v.branch,
            v.state.as_str(),
            ahead_behind(v.ahead, v.behind)
        );
        if v.missing {
            line.push_str(" branch missing");
        }
        if v.stale {
            line.push_str(" stale");
        }
        if !v.conflicts.is_empty() {
            line.push_str(&format!(" conflicts: {}", v.conflicts.join(", ")));
        }
        if let Some(gate) = &v.gate {
            let verdict = if gate.green { "green" } else { "red" };
            line.push_str(&format!(
                " gate {verdict} {:.1}s",
                gate.duration_ms as f64 / 1000.0
            ));
            if !gate.green {
                line.push_str(&format!(" log {}", gate.log));
            }
        }
        if !v.detail.is_empty() {
            line.push_str(&format!(" ({})", v.detail.join("; ")));
        }
        ui::answer(&line);
    }
    Ok(0)
}

/// The terminal side of landing: progress on stderr (a live line on a terminal), the
/// question on the terminal.
struct TermUi {
    live: bool,
}

impl TermUi {
    /// The terminal side of a landing; without a terminal to ask on, landing needs
    /// `--yes` (or `--dry-run`).
    fn for_landing(opts: &crate::land::LandOptions, json: bool) -> Result<TermUi> {
        use std::io::IsTerminal;
        if !opts.yes && !opts.dry_run && !std::io::stdin().is_terminal() {
            return Err(
                Error::refused("no terminal to ask for confirmation").with_help(
                    "pass --yes to land without asking (CI), or --dry-run to see what would land",
                ),
            );
        }
        Ok(TermUi {
            live: !json && std::io::stderr().is_terminal(),
        })
    }
}

impl crate::land::Ui for TermUi {
    fn note(&self, message: &str) {
        ui::note(message);
    }

    fn progress(&self, lane: &str, command: &str, elapsed: std::time::Duration) {
        if self.live {
            anstream::eprint!("\r\x1b[2Kgate {lane}: `{command}` {}s", elapsed.as_secs());
        }
    }

    fn confirm(&self, lane: &str, summary: &str) -> bool {
        use std::io::BufRead;
        ui::note(&format!("{lane} would land with:\n{summary}"));
        anstream::eprint!("land {lane}? [y/N] ");
        let mut answer = String::new();
        if std::io::stdin().lock().read_line(&mut answer).is_err() {
            return false;
        }
        matches!(answer.trim(), "y" | "Y" | "yes")
    }
}

fn land(
    cwd: &Path,
    remote: Option<String>,
    opts: crate::land::LandOptions,
    json: bool,
) -> Result<u8> {
    let ctx = Context::locate(cwd)?.with_remote(remote)?;
    let term = TermUi::for_landing(&opts, json)?;
    let landing = crate::land::land(&ctx, &opts, &term)?;
    if opts.batch && !opts.dry_run {
        if json {
            ui::json(&landing);
            return Ok(land_exit_code(&landing.lanes));
        }
        ui::note(&format!(
            "{} gate run{} for {} lane{}",
            landing.gate_runs,
            if landing.gate_runs == 1 { "" } else { "s" },
            landing.lanes.len(),
            if landing.lanes.len() == 1 { "" } else { "s" }
        ));
    }
    render_land(&landing.lanes, &term, json)
}

fn revert(cwd: &Path, lane: &str, opts: crate::land::LandOptions, json: bool) -> Result<u8> {
    let ctx = Context::locate(cwd)?;
    let term = TermUi::for_landing(&opts, json)?;
    let report = crate::land::revert(&ctx, lane, &opts, &term)?;
    render_land(&[report], &term, json)
}

/// 0 when every lane landed (or would), the stopping error's code, else 1.
fn land_exit_code(reports: &[crate::land::LaneReport]) -> u8 {
    let stopped = reports.iter().find_map(|r| match &r.outcome {
        crate::land::Outcome::Error { exit_code, .. } => Some(*exit_code),
        _ => None,
    });
    stopped.unwrap_or(if reports.iter().all(|r| r.ok()) { 0 } else { 1 })
}

fn render_land(reports: &[crate::land::LaneReport], term: &TermUi, json: bool) -> Result<u8> {
    use crate::land::Outcome;
    if term.live {
        anstream::eprint!("\r\x1b[2K");
    }
    let code = land_exit_code(reports);
    if json {
        ui::json(&reports);
        return Ok(code);
    }
    if reports.is_empty() {
        ui::note("nothing to land: no lane is ready (`fleet ready LANE` marks one)");
    }
    for r in reports {
        match &r.outcome {
            Outcome::Landed {
                candidate,
                gate_ms,
                cached,
                ..
            } => ui::ok(&format!(
                "landed {} as {} (gate {:.1}s{})",
                r.lane,
                &candidate[..12.min(candidate.len())],
                *gate_ms as f64 / 1000.0,
                if *cached { ", cached" } else { "" }
            )),
            Outcome::AlreadyLanded => ui::note(&format!("{}: already landed", r.lane)),
            Outcome::Failed {
                log,
                exit_code,
                command,
                cached,
            } => {
                ui::error(&Error::refused(format!(
                    "{}: gate failed: `{command}` exited {exit_code}{}; log {}",
                    r.lane,
                    if *cached {
                        " (cached result; --no-cache runs it again)"
                    } else {
                        ""
                    },
                    log.display()
                )));
                ui::note(&crate::gate::log_tail(log, 20));
            }
            Outcome::Conflicted { files } => ui::error(&Error::refused(format!(
                "{}: conflicts with the target in {}",
                r.lane,
                files.join(", ")
            ))),
            Outcome::Blocked { reasons } => ui::error(&Error::refused(format!(
                "{}: blocked:\n  {}",
                r.lane,
                reasons.join("\n  ")
            ))),
            Outcome::Refused { reason } => {
                ui::error(&Error::refused(format!("{}: {reason}", r.lane)))
            }
            Outcome::Error { message, help, .. } => {
                let mut e = Error::refused(format!("{}: {message}", r.lane));
                e.help = help.clone();
                ui::error(&e);
            }
            Outcome::WouldLand {
                base,
                files,
                commands,
                ..
            } => ui::note(&format!(
                "{}: would land on {} ({files} files), gate: {}",
                r.lane,
                &base[..12.min(base.len())],
                commands.join(" && ")
            )),
        }
    }
    Ok(code)
}

fn verify(
    cwd: &Path,
    remote: Option<String>,
    range: &crate::verify::RevRange,
    json: bool,
) -> Result<u8> {
    use anstyle::{AnsiColor, Style};
    let ctx = Context::locate(cwd)?.with_remote(remote)?;
    crate::land::refresh(&ctx)?;
    let report = crate::verify::verify(&ctx, range)?;
    let code = u8::from(!report.ok());
    if json {
        ui::json(&report);
        return Ok(code);
    }
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    for u in &report.unverified {
        ui::answer(&format!(
            "{} {}\n             {}",
            ui::paint(red, &u.id[..12]),
            u.subject,
            u.detail
        ));
    }
    let r = &report.range;
    let short = |id: &str| id[..12.min(id.len())].to_string();
    let top = range.to.clone().unwrap_or_else(|| ctx.target().to_string());
    let span = match (&r.from, r.since_adoption) {
        (Some(from), true) => format!("{top} since fleet was adopted at {}", short(from)),
        (Some(from), false) => format!("{}..{top}", short(from)),
        (None, _) => format!("{top}, all of its history"),
    };
    let summary = format!(
        "{} commit(s) checked ({span}): {} verified, {} not",
        report.checked,
        report.verified.len(),
        report.unverified.len()
    );
    if report.ok() {
        ui::ok(&summary);
    } else {
        ui::error(&Error::refused(summary).with_help(
            "the listed commits did not pass the gate on their exact tree through `fleet land`; \
             `git notes --ref fleet show ID` shows what a receipt says",
        ));
    }
    Ok(code)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum HooksAction {
    Install,
    Uninstall,
    Status,
}

fn hooks_command(cwd: &Path, action: HooksAction, json: bool) -> Result<u8> {
    let ctx = Context::locate(cwd)?;
    let reports = match action {
        HooksAction::Install => hooks::install(&ctx)?,
        HooksAction::Uninstall => hooks::uninstall(&ctx)?,
        HooksAction::Status => hooks::status(&ctx)?,
    };
    let healthy = reports.iter().all(|r| {
        r.dirs.iter().all(|d| {
            d.hooks
                .iter()
                .all(|h| matches!(h.state, HookState::Installed | HookState::Chained))
        })
    });
    if json {
        ui::json(&reports);
    } else {
        render_hooks(&reports, action);
    }
    Ok(u8::from(action == HooksAction::Status && !healthy))
}

fn render_hooks(reports: &[RepoReport], action: HooksAction) {
    use anstyle::{AnsiColor, Style};
    for report in reports {
        let refs = if report.guarded_refs.is_empty() {
            String::new()
        } else {
            format!(" (guarding {})", report.guarded_refs.join(", "))
        };
        ui::answer(&format!("repo {}{refs}", report.repo.display()));
        for dir in &report.dirs {
            ui::answer(&format!("  {}", dir.dir.display()));
            for hook in &dir.hooks {
                let (word, colour) = match (action, hook.state) {
                    (HooksAction::Uninstall, _) => ("", AnsiColor::Cyan),
                    (_, HookState::Installed) => ("installed", AnsiColor::Green),
                    (_, HookState::Chained) => ("chained", AnsiColor::Green),
                    (_, HookState::Stale) => ("stale", AnsiColor::Yellow),
                    (_, HookState::Missing) => ("missing", AnsiColor::Red),
                };
                // The detail only when it says more than the state word.
                let detail = if hook.detail == word {
                    ""
                } else {
                    &hook.detail
                };
                let word = ui::paint(
                    Style::new().fg_color(Some(colour.into())),
                    &format!("{word:<9}"),
                );
                let line = format!("    {:<22} {word} {detail}", hook.name);
                ui::answer(line.trim_end());
            }
        }
        for warning in &report.warnings {
            ui::warn(warning);
        }
    }
}

fn watchdog(
    cwd: &Path,
    once: bool,
    interval: std::time::Duration,
    restore: bool,
    grace: std::time::Duration,
    json: bool,
) -> Result<u8> {
    use crate::guard::watchdog::{self, Verdict};
    let opts = watchdog::Options { restore, grace };
    loop {
        // Re-read each time: the configuration and the nested repositories may change.
        let ctx = Context::locate(cwd)?;
        let findings = watchdog::check(&ctx, opts)?;
        let mut code = 0;
        for f in &findings {
            if !matches!(f.verdict, Verdict::Ok | Verdict::Restored) {
                code = 1;
            }
            if json {
                println!("{}", serde_json::to_string(f).unwrap_or_default());
                continue;
            }
            let mut line = format!(
                "{:<9} {} ({}; head {}): {}",
                format!("{:?}", f.verdict).to_lowercase(),
                f.checkout.display(),
                f.branch,
                f.head,
                f.detail
            );
            if let Some(s) = &f.snapshot {
                line.push_str(&format!(
                    "; snapshot {}",
                    s.trim_start_matches(watchdog::SNAPSHOTS)
                ));
            }
            ui::answer(&line);
        }
        if once {
            return Ok(code);
        }
        std::thread::sleep(interval);
    }
}

fn recover(cwd: &Path, id: Option<&str>, branch: Option<&str>, json: bool) -> Result<u8> {
    use crate::guard::watchdog;
    let ctx = Context::locate(cwd)?;
    if let (Some(id), Some(branch)) = (id, branch) {
        let (checkout, commit) = watchdog::recover(&ctx, id, branch)?;
        if json {
            ui::json(&serde_json::json!({
                "id": id, "branch": branch, "commit": commit.to_string(), "repo": checkout,
            }));
        } else {
            ui::ok(&format!(
                "branch {branch} now holds snapshot {id} (in {}); `git diff {branch}~1 {branch}` shows what it saved",
                checkout.display()
            ));
        }
        return Ok(0);
    }
    let snapshots = watchdog::list_snapshots(&ctx)?;
    if json {
        ui::json(&snapshots);
        return Ok(0);
    }
    if snapshots.is_empty() {
        ui::note("no snapshots (the watchdog writes one when a shared checkout is dirty)");
    }
    for s in &snapshots {
        ui::answer(&format!(
            "{}  {:<10} {} file(s) changed  repo {}",
            s.id,
            ui::age(s.time),
            s.files,
            s.repo.display()
        ));
    }
    Ok(0)
}

fn doctor(cwd: &Path, json: bool) -> Result<u8> {
    use crate::guard::doctor::{self, Verdict};
    use anstyle::{AnsiColor, Style};
    let ctx = Context::locate(cwd)?;
    let checks = doctor::run(&ctx)?;
    let failed = checks.iter().any(|c| c.verdict == Verdict::Fail);
    if json {
        ui::json(&checks);
        return Ok(u8::from(failed));
    }
    for c in &checks {
        let (word, colour) = match c.verdict {
            Verdict::Ok => ("ok", AnsiColor::Green),
            Verdict::Warn => ("warn", AnsiColor::Yellow),
            Verdict::Fail => ("FAIL", AnsiColor::Red),
        };
        let word = ui::paint(
            Style::new().fg_color(Some(colour.into())),
            &format!("{word:<4}"),
        );
        ui::answer(&format!("{word} {:<20} {}", c.name, c.detail));
        if !c.fix.is_empty() && c.verdict != Verdict::Ok {
            ui::answer(&format!("     {:<20} fix: {}", "", c.fix));
        }
    }
    Ok(u8::from(failed))
}

fn lint(
    cwd: &Path,
    paths: Vec<PathBuf>,
    diff: Option<&str>,
    staged: bool,
    format: crate::cli::LintFormat,
) -> Result<u8> {
    use crate::cli::LintFormat;
    use crate::lint::{self, Rules, Selection};
    let repo = crate::git::Repo::discover(cwd)?;
    let root = repo.workdir().ok_or_else(|| {
        Error::usage("fleet lint needs a checkout, not a bare repository")
            .with_help("run it in a clone with a working tree")
    })?;
    let root = root.canonicalize().unwrap_or(root);
    let (config, _) = Config::load(&root)?;
    let rules = Rules::load(&config.lint.agents, &config.lint.helpers)?;
    let selection = if let Some(rev) = diff {
        let (base, head) = match rev.split_once("..") {
            Some((a, b)) => (a, if b.is_empty() { "HEAD" } else { b }),
            None => (rev, "HEAD"),
        };
        let resolve = |r: &str| {
            repo.resolve_commit(r).map_err(|e| {
                Error::usage(format!("--diff {rev}: {}", e.message))
                    .with_help("give a commit, branch or tag, or a range A..B")
            })
        };
        Selection::Diff {
            base: resolve(base)?,
            head: resolve(head)?,
        }
    } else if staged {
        Selection::Staged
    } else {
        for p in &paths {
            if !p.exists() {
                return Err(
                    Error::usage(format!("{}: no such file or folder", p.display()))
                        .with_help("give files or folders inside the repository"),
                );
            }
        }
        Selection::Worktree { paths }
    };
    let report = lint::run(&repo, &root, &selection, &rules)?;
    match format {
        LintFormat::Json => ui::json(&report),
        LintFormat::Sarif => ui::json(&lint::sarif::render(&report.findings, &rules.id)),
        LintFormat::Text => render_lint(&report),
    }
    Ok(u8::from(!report.findings.is_empty()))
}

fn merge_gate(cwd: &Path, opts: &crate::merge_gate::Options, json: bool) -> Result<u8> {
    let summary = crate::merge_gate::run(cwd, opts, &mut |step| {
        if !json {
            ui::note(&format!("fleet gate: {step} ..."));
        }
    })?;
    if json {
        ui::json(&summary);
        return Ok(u8::from(!summary.passed));
    }
    render_findings(&summary.findings);
    for step in &summary.steps {
        let word = if step.passed { "ok  " } else { "FAIL" };
        ui::answer(&format!("{word} {:<28} {}", step.name, step.detail));
        for problem in &step.problems {
            ui::answer(&format!("       {problem}"));
        }
    }
    if let Some(log) = &summary.log {
        if !summary.passed {
            ui::answer(&crate::gate::log_tail(log, 40));
        }
        ui::note(&format!("gate log: {}", log.display()));
    }
    if summary.passed {
        ui::ok(&format!(
            "the candidate {} passed the gate",
            &summary.head[..12]
        ));
    } else {
        ui::error(&Error::refused(format!(
            "the candidate {} did not pass the gate",
            &summary.head[..12]
        )));
    }
    Ok(u8::from(!summary.passed))
}

fn render_lint(report: &crate::lint::Report) {
    render_findings(&report.findings);
    for e in &report.parse_errors {
        ui::warn(&format!(
            "{}: {} (linted what could be parsed)",
            e.path, e.message
        ));
    }
    let summary = format!(
        "{} finding(s); {} file(s) considered, {} parsed",
        report.findings.len(),
        report.files_considered,
        report.files_parsed
    );
    if report.findings.is_empty() {
        ui::ok(&summary);
    } else {
        ui::note(&summary);
    }
}

fn render_findings(findings: &[crate::lint::Finding]) {
    use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
    let renderer = Renderer::styled();
    for f in findings {
        let line = f.source_line.as_str();
        let byte = |col: usize| {
            line.char_indices()
                .nth(col.saturating_sub(1))
                .map_or(line.len(), |(i, _)| i)
        };
        let start = byte(f.column);
        let end = if f.end_line == f.line {
            byte(f.end_column)
                .max(start + 1)
                .min(line.len().max(start + 1))
        } else {
            line.len().max(start + 1)
        };
        let end = end.min(line.len()).max(start);
        let title = Level::ERROR
            .primary_title(f.message.as_str())
            .id(f.rule.as_str());
        let snippet = Snippet::source(line)
            .line_start(f.line)
            .path(f.path.as_str())
            .annotation(AnnotationKind::Primary.span(start..end));
        let group = Group::with_title(title)
            .element(snippet)
            .element(Level::HELP.message(f.help.as_str()));
        anstream::println!("{}\n", renderer.render(&[group]));
    }
}
