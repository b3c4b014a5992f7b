//! `fleet demo`: the whole loop in a throwaway project, for a first look. It runs the
//! same commands a user would (fleet's own binary and git, each in its own process
//! group), narrates each step in a few lines, and removes the project afterwards.
//!
//! The README's tour is this command's output: `tests/demo.rs` fails when they differ.

mod project;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use fleet::error::Result;

use super::CommandEnv;
use crate::cli::args::Output;
use crate::render;
use project::Project;

/// The whole loop in a throwaway project: agents, guard, gate, landing, verify
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Build a throwaway project in a temporary folder (a repository with a nested \
                  repository and a gate), give three scripted agents their own worktrees and \
                  let them work at once, show the guard refusing a commit and a switch in the \
                  shared checkout, land the green lanes through the gate and refuse the red \
                  one, and check every move of the target with `fleet verify`. Each step \
                  shows the command it ran. Needs git and nothing else: no network, nothing \
                  outside the temporary folder, which is removed at the end unless --keep.",
    after_long_help = "Examples:\n  fleet demo\n  fleet demo --keep    # then look around in the folder it names"
)]
pub struct Args {
    /// Leave the project in place to look around (the last line says where)
    #[arg(long)]
    keep: bool,
    #[command(flatten)]
    out: Output,
}

/// What `--json` reports: every command the demo ran, and whether the loop went as it
/// should (the green lanes landed, the red one refused, verify green).
#[derive(Serialize)]
struct Report {
    ok: bool,
    folder: Option<PathBuf>,
    steps: Vec<Step>,
}

#[derive(Serialize)]
struct Step {
    title: String,
    commands: Vec<Ran>,
}

/// One command the demo ran, with the exit code it expected.
#[derive(Serialize, Clone)]
pub struct Ran {
    pub dir: String,
    pub command: String,
    pub exit_code: i32,
    pub expected: i32,
    /// The lines of its output the narration shows.
    pub output: String,
}

pub fn run(_env: &CommandEnv, args: Args) -> Result<u8> {
    let started = Instant::now();
    let project = Project::create()?;
    let text = !args.out.json;
    if text {
        render::answer(&format!(
            "fleet demo: the whole loop in a throwaway project, $DEMO = {}\n",
            project.root.display()
        ));
    }
    let result = project.tour(&mut |title, ran| {
        if text {
            render::answer(&narrate(&project.root, title, ran));
        }
    });
    let landed = result.is_ok() && project.landed_as_expected();
    let folder = project.finish(args.keep);
    let steps = result?;
    let ok = landed
        && steps
            .iter()
            .flat_map(|(_, ran)| ran)
            .all(|r| r.exit_code == r.expected);
    if args.out.json {
        render::json(&Report {
            ok,
            folder,
            steps: steps
                .into_iter()
                .map(|(title, commands)| Step { title, commands })
                .collect(),
        });
    } else {
        render::answer(&closing(ok, &folder, started.elapsed()));
    }
    Ok(if ok { 0 } else { 1 })
}

/// A step as the README shows it: its title, then each command and what it printed,
/// indented, with the project folder written `$DEMO`.
fn narrate(root: &Path, title: &str, ran: &[Ran]) -> String {
    let mut out = format!("{title}\n");
    for r in ran {
        out.push_str(&format!("  {}$ {}\n", r.dir, r.command));
        for line in r.output.lines().filter(|l| !l.trim().is_empty()) {
            let line = line.replace(&root.display().to_string(), "$DEMO");
            out.push_str(&format!("    {line}\n"));
        }
        if r.exit_code != r.expected {
            out.push_str(&format!(
                "    (exit {}, expected {}: this step did not go as it should)\n",
                r.exit_code, r.expected
            ));
        }
    }
    out
}

fn closing(ok: bool, folder: &Option<PathBuf>, took: Duration) -> String {
    let verdict = if ok {
        "done: two lanes landed through the gate, the red one refused, every move of main verified"
    } else {
        "the demo did not go as it should (see the steps above)"
    };
    let after = match folder {
        Some(path) => format!(
            "kept {}: `cd {}/app && fleet status`",
            path.display(),
            path.display()
        ),
        None => "the project is removed; `fleet demo --keep` leaves it to look around".into(),
    };
    format!(
        "{verdict} ({:.1}s)\n{after}\nyour own project: `cd your-project && fleet init --commit`",
        took.as_secs_f64()
    )
}
