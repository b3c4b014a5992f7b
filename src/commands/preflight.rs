//! `fleet preflight`: say which repository, worktree, branch and lane this folder is;
//! pass only in an agent worktree on its own lane branch. With `--agent`, name (or
//! create) that agent's worktree.

use std::path::PathBuf;

use serde::Serialize;

use fleet::error::{Error, Result};
use fleet::preflight::{self, Place};
use fleet::worktree::{self, AgentName, NewRequest};

use super::CommandEnv;
use crate::cli::args::Output;
use crate::render;

/// Say which repo, worktree, branch and lane this is; fail when blind
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Say exactly which repository, worktree, branch and lane this folder is. \
                  Exits 0 only inside an agent worktree (outer or nested) on its own lane \
                  branch; exits 1 in the shared checkout, on a detached HEAD, in a bare repo, \
                  outside any repo, when GIT_DIR/GIT_WORK_TREE point elsewhere, or whenever \
                  anything is ambiguous.",
    after_long_help = "Examples:\n  fleet preflight || exit 1\n  cd \"$(fleet preflight --agent task-42 --create)\"   # from the shared checkout\n  fleet preflight --json"
)]
pub struct Args {
    /// In the shared checkout: print this agent's worktree path
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// With --agent: create the worktree when it does not exist
    #[arg(long, requires = "agent")]
    create: bool,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let mut report = preflight::inspect(env.cwd());
    // The guard step, where preflight finds the project as every command does: in a
    // shared checkout (outer or nested) and, for a nested agent worktree, the outer
    // project. An agent worktree, and anywhere blind, stays read-only: a worker's
    // check writes nothing. (`--agent` takes the step through `env.context()`.)
    let project = match report.place {
        Place::Shared | Place::NestedShared => report.worktree.as_deref(),
        Place::NestedAgent => report.repo.as_deref(),
        Place::Agent | Place::Blind => None,
    };
    if let Some(project) = project {
        env.sync_guard_at(project);
    }
    let mut agent_path = None;
    if let Some(agent) = args.agent.as_deref() {
        // Checked here, after the inspection, not by a clap value parser: clap would
        // word the refusal its own way.
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
            agent_path = Some(agent_worktree(env, agent, args.create));
        }
    }
    // The report first; then why the agent's worktree cannot be named, if it cannot.
    let (agent_path, agent_error) = match agent_path {
        Some(Ok(path)) => (Some(path), None),
        Some(Err(e)) => (None, Some(e)),
        None => (None, None),
    };
    if args.out.json {
        #[derive(Serialize)]
        struct WithPath<'a> {
            #[serde(flatten)]
            report: &'a preflight::Report,
            /// `nested` again, under the key every other document gives a repository
            /// relative to the project.
            rel: Option<&'a PathBuf>,
            agent_worktree: Option<&'a PathBuf>,
        }
        render::json(&WithPath {
            report: &report,
            rel: report.nested.as_ref(),
            agent_worktree: agent_path.as_ref(),
        });
    } else {
        // stdout is the answer: the report, unless it is the agent worktree's path
        // (`cd "$(fleet preflight --agent NAME)"`), and then the report is narration.
        render_report(&report, agent_path.is_none() && agent_error.is_none());
        if let Some(path) = &agent_path {
            render::note(&format!(
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
fn agent_worktree(env: &CommandEnv, agent: &str, create: bool) -> Result<PathBuf> {
    let ctx = env.context()?;
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
    worktree::path_of(&ctx, &name)?.map_err(|path| {
        let why = if path.exists() {
            "is not a worktree of this repository"
        } else {
            "does not exist"
        };
        Error::refused(format!(
            "agent {agent} has no worktree yet ({} {why})",
            path.display()
        ))
        .with_help(format!("add --create, or run `fleet worktree new {agent}`"))
    })
}

fn render_report(r: &preflight::Report, on_stdout: bool) {
    let say = |line: &str| {
        if on_stdout {
            render::answer(line)
        } else {
            render::note(line)
        }
    };
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
    say(&format!("repo:     {}", show(&r.repo)));
    say(&format!("worktree: {} ({place})", show(&r.worktree)));
    say(&format!(
        "branch:   {}",
        r.branch.as_deref().unwrap_or("(detached or unknown)")
    ));
    say(&format!("lane:     {}", r.lane.as_deref().unwrap_or("-")));
    match (&r.problem, on_stdout) {
        (None, true) => say("ok: this is an agent worktree on its own lane branch"),
        (None, false) => render::ok("this is an agent worktree on its own lane branch"),
        // A refusal is an error, on stderr like every other.
        (Some(problem), _) => render::error(&Error::refused(problem.clone())),
    }
}
