//! `fleet lint`: the spawn lint over tracked files, a diff or the staged lines, as
//! annotated snippets, JSON or SARIF.

use std::path::PathBuf;

use fleet::config::Config;
use fleet::error::{Error, Result};
use fleet::lint::{self, Rules, Selection};

use super::CommandEnv;
use crate::render;

/// The spawn lint: agent CLIs started without a process group of their own
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Find code that starts an agent CLI (claude, codex, gemini, aider, ...) without a \
                  process group or session of its own, or in one that nothing kills as a group, so \
                  that killing it on timeout leaves its helpers running (rule agent-spawn-without-group). Rust (syn), Python, \
                  JavaScript/TypeScript, shell and Go (tree-sitter) are parsed, not grepped. By \
                  default every tracked file is read from the working tree; --diff REV reports \
                  only findings on lines added since REV (read from git objects; REV may be a \
                  range A..B), --staged only those on staged lines. A finding is silenced by \
                  `fleet: allow(agent-spawn-without-group) <reason>` on its line or the one \
                  above; a suppression without a reason is a finding itself. Only regular \
                  files are read (symbolic links are not followed: each one is named in a \
                  note), up to 16 MiB; a file the lint cannot check (larger, or nested too \
                  deep) is a finding of rule file-not-checked. Exits 1 on \
                  findings, 0 when clean, 2 on a usage error.",
    after_long_help = "Examples:\n  fleet lint\n  fleet lint src/agents/ tools/run.sh\n  fleet lint --diff origin/main --format sarif > lint.sarif\n  fleet lint --staged          # in a pre-commit hook\n  fleet lint --diff main..HEAD --json"
)]
pub struct Args {
    /// Files or folders to lint (default: every tracked file)
    #[arg(value_name = "PATH", conflicts_with_all = ["diff", "staged"])]
    paths: Vec<PathBuf>,
    /// Only findings on lines added since REV (or in the range A..B)
    #[arg(long, value_name = "REV", conflicts_with = "staged")]
    diff: Option<String>,
    /// Only findings on staged lines
    #[arg(long)]
    staged: bool,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Same as --format json
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let format = if args.json { Format::Json } else { args.format };
    let repo = fleet::git::Repo::discover(env.cwd())?;
    let root = repo.workdir().ok_or_else(|| {
        Error::usage("fleet lint needs a checkout, not a bare repository")
            .with_help("run it in a clone with a working tree")
    })?;
    let root = root.canonicalize().unwrap_or(root);
    let (config, _) = Config::load(&root)?;
    let rules = Rules::load(&config.lint.agents, &config.lint.helpers)?;
    let selection = if let Some(rev) = args.diff.as_deref() {
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
    } else if args.staged {
        Selection::Staged
    } else {
        for p in &args.paths {
            if !p.exists() {
                return Err(
                    Error::usage(format!("{}: no such file or folder", p.display()))
                        .with_help("give files or folders inside the repository"),
                );
            }
        }
        Selection::Worktree { paths: args.paths }
    };
    let report = lint::run(&repo, &root, &selection, &rules)?;
    match format {
        Format::Json => render::json(&report),
        Format::Sarif => render::json(&lint::sarif::render(&report.findings, &rules.id)),
        Format::Text => render_text(&report),
    }
    Ok(u8::from(!report.findings.is_empty()))
}

fn render_text(report: &lint::Report) {
    render::findings::findings(&report.findings);
    for e in &report.parse_errors {
        render::warn(&format!(
            "{}: {} (linted what could be parsed)",
            e.path, e.message
        ));
    }
    for s in &report.skipped {
        render::warn(&format!("{}: not linted: {}", s.path, s.reason));
    }
    let summary = format!(
        "{} finding(s); {} file(s) considered, {} parsed",
        report.findings.len(),
        report.files_considered,
        report.files_parsed
    );
    if report.findings.is_empty() {
        render::ok(&summary);
    } else {
        render::note(&summary);
    }
}
