//! `fleet gate`: the one step a CI merge-gate job runs on a candidate (a merge-queue
//! group, a merge request pipeline, a lane). Three checks, one summary:
//!
//! 1. the spawn lint over the lines added since the base;
//! 2. protected paths and forbidden markers (`[gate] protected`, `forbid`), unless
//!    approved with `--allow-protected`;
//! 3. the gate commands, each in its own process group with the gate's timeout.
//!
//! Everything is configured by the **base's** `fleet.toml`, never the candidate's: a
//! change cannot weaken its own gate.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::git::{ObjectId, Repo};
use crate::lint::{self, Rules, Selection};

pub struct Options {
    pub base: Option<String>,
    pub allow_protected: bool,
    pub junit: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
pub struct Step {
    pub name: String,
    pub passed: bool,
    pub detail: String,
    pub duration_ms: u64,
    /// The lines to show for a failure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Summary {
    pub base: String,
    pub head: String,
    pub passed: bool,
    pub steps: Vec<Step>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<PathBuf>,
    #[serde(skip)]
    pub findings: Vec<lint::Finding>,
}

/// The base to compare with: the given revision, else where HEAD left the target.
fn base_commit(repo: &Repo, head: ObjectId, given: Option<&str>, target: &str) -> Result<ObjectId> {
    if let Some(rev) = given {
        return repo.resolve_commit(rev).map_err(|e| {
            Error::usage(format!("--base {rev}: {}", e.message)).with_help(
                "give the commit the candidate is tested against, e.g. --base origin/main",
            )
        });
    }
    let tip = repo.branch_tip(target)?.ok_or_else(|| {
        Error::usage(format!(
            "no --base given, and the target branch `{target}` is not here"
        ))
        .with_help("pass --base REV (in CI: the merge target, e.g. origin/main)")
    })?;
    Ok(repo.merge_base(head, tip)?.unwrap_or(tip))
}

pub fn run(cwd: &Path, opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Summary> {
    let repo = Repo::discover(cwd)?;
    let root = repo.workdir().ok_or_else(|| {
        Error::usage("fleet gate needs a checkout of the candidate, not a bare repository")
    })?;
    let head = repo
        .head_id()?
        .ok_or_else(|| Error::usage("HEAD has no commit: check out the candidate first"))?;
    // The default base needs a target name: the candidate's own file names it, which is
    // only a pointer; every rule comes from the base's file below.
    let (local, _) = crate::config::Config::load(&root)?;
    let base = base_commit(
        &repo,
        head,
        opts.base.as_deref(),
        local.lanes.target.as_str(),
    )?;
    let config = super::policy::config_at(&repo, base, "the base")?;
    let mut steps = Vec::new();

    progress("lint: lines added since the base");
    let (lint, findings) = lint_step(&repo, &root, &config, base, head)?;
    steps.push(lint);

    progress("protected paths and forbidden markers");
    steps.push(protected_step(
        &repo,
        &config,
        base,
        head,
        opts.allow_protected,
    )?);

    let log = command_steps(&repo, &root, &config, progress, &mut steps)?;
    let summary = Summary {
        base: base.to_string(),
        head: head.to_string(),
        passed: steps.iter().all(|s| s.passed),
        steps,
        log,
        findings,
    };
    if let Some(path) = &opts.junit {
        std::fs::write(path, junit(&summary))
            .map_err(|e| Error::env(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(summary)
}

/// Check 1: the spawn lint over the lines added since the base.
fn lint_step(
    repo: &Repo,
    root: &Path,
    config: &Config,
    base: ObjectId,
    head: ObjectId,
) -> Result<(Step, Vec<lint::Finding>)> {
    let started = std::time::Instant::now();
    let rules = Rules::load(&config.lint.agents, &config.lint.helpers)?;
    let report = lint::run(repo, root, &Selection::Diff { base, head }, &rules)?;
    let step = Step {
        name: "lint".into(),
        passed: report.findings.is_empty(),
        detail: format!(
            "{} finding(s) on added lines, {} file(s) parsed",
            report.findings.len(),
            report.files_parsed
        ),
        duration_ms: started.elapsed().as_millis() as u64,
        problems: report
            .findings
            .iter()
            .map(|f| {
                format!(
                    "{}:{}:{}: {} [{}]",
                    f.path, f.line, f.column, f.message, f.rule
                )
            })
            .collect(),
    };
    Ok((step, report.findings))
}

/// Check 2: protected paths and forbidden markers, unless approved.
fn protected_step(
    repo: &Repo,
    config: &Config,
    base: ObjectId,
    head: ObjectId,
    allow_protected: bool,
) -> Result<Step> {
    let started = std::time::Instant::now();
    let changed = repo.changed_paths(repo.tree_of(base)?, repo.tree_of(head)?)?;
    let reasons = super::policy::block_reasons(repo, config, &changed, allow_protected)?
        .into_iter()
        .map(|r| {
            r.replace(
                "land with --allow-protected",
                "approve with --allow-protected",
            )
        })
        .collect::<Vec<_>>();
    Ok(Step {
        name: "protected".into(),
        passed: reasons.is_empty(),
        detail: format!("{} changed path(s) checked", changed.len()),
        duration_ms: started.elapsed().as_millis() as u64,
        problems: reasons,
    })
}

/// Check 3: the gate commands in the checkout itself, one step each (those after a
/// failure listed as not run). The log, when any ran.
fn command_steps(
    repo: &Repo,
    root: &Path,
    config: &Config,
    progress: &mut dyn FnMut(&str),
    steps: &mut Vec<Step>,
) -> Result<Option<PathBuf>> {
    if config.gate.commands.is_empty() {
        steps.push(Step {
            name: "commands".into(),
            passed: true,
            detail: "the base's fleet.toml names no gate commands".into(),
            duration_ms: 0,
            problems: Vec::new(),
        });
        return Ok(None);
    }
    progress("gate commands");
    let outcome = super::run(
        repo,
        root,
        &config.gate.commands,
        config.gate.timeout.0,
        &[],
        "ci",
        |command, _| progress(command),
    )?;
    for result in &outcome.results {
        steps.push(Step {
            name: format!("command: {}", result.command),
            passed: result.exit_code == 0,
            detail: if result.timed_out {
                format!("timed out after {} ms", result.duration_ms)
            } else {
                format!("exit {} after {} ms", result.exit_code, result.duration_ms)
            },
            duration_ms: result.duration_ms,
            problems: Vec::new(),
        });
    }
    for skipped in config.gate.commands.iter().skip(outcome.results.len()) {
        steps.push(Step {
            name: format!("command: {skipped}"),
            passed: false,
            detail: "not run: an earlier command failed".into(),
            duration_ms: 0,
            problems: Vec::new(),
        });
    }
    Ok(Some(outcome.log))
}

/// JUnit XML, which every CI system renders: one test case per step.
pub fn junit(summary: &Summary) -> String {
    let failures = summary.steps.iter().filter(|s| !s.passed).count();
    let total_ms: u64 = summary.steps.iter().map(|s| s.duration_ms).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!(
        "<testsuite name=\"fleet gate\" tests=\"{}\" failures=\"{failures}\" time=\"{:.3}\">\n",
        summary.steps.len(),
        total_ms as f64 / 1000.0
    ));
    for step in &summary.steps {
        xml.push_str(&format!(
            "  <testcase classname=\"fleet.gate\" name=\"{}\" time=\"{:.3}\"",
            escape(&step.name),
            step.duration_ms as f64 / 1000.0
        ));
        if step.passed {
            xml.push_str("/>\n");
        } else {
            xml.push_str(&format!(
                ">\n    <failure message=\"{}\">{}</failure>\n  </testcase>\n",
                escape(&step.detail),
                escape(&step.problems.join("\n"))
            ));
        }
    }
    xml.push_str("</testsuite>\n");
    xml
}

fn escape(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&apos;".to_string(),
            c => c.to_string(),
        })
        .collect()
}
