//! What `fleet init` works out when it adopts a project: the gate the project's own files
//! suggest, where fleet.toml stands on the target, and committing it there while the
//! target has no gate yet. Decides and reports; `fleet init` (src/commands/init.rs) tells
//! the user.
//!
//! The gate is looked for in this order, the first found wins (the others are named in
//! the file's comment):
//!
//! 1. a Makefile (`GNUmakefile`, `makefile`, `Makefile`) with a `test` target: `make test`.
//!    First because it is the project's own word on how its tests run, and it usually
//!    wraps the language tools below (and sets up what they need);
//! 2. `Cargo.toml`: `cargo test --locked` (plain `cargo test` when no `Cargo.lock` is
//!    there: `--locked` would fail every gate);
//! 3. `go.mod`: `go test ./...`;
//! 4. `package.json` with a `scripts.test` that is not npm's placeholder ("no test
//!    specified"): `npm test`;
//! 5. `pyproject.toml` or `setup.cfg`: `pytest`. Last: these files also hold tool
//!    settings in projects whose tests are not Python's, and pytest is a guess (a
//!    separate tool the project may not use).

use std::path::Path;

use serde::Serialize;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::ObjectId;

/// A gate command a project file suggests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    /// The file that suggests it, relative to the checkout.
    pub file: String,
    pub command: String,
    /// Why that file means that command.
    pub why: String,
}

/// What [`detect_gate`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GateDetection {
    /// The first found in the documented order: the gate a new fleet.toml gets.
    pub chosen: Option<Suggestion>,
    /// The others found, in order.
    pub also: Vec<Suggestion>,
}

/// The order, in words, for messages and the file's comment.
pub const ORDER: &str = "a Makefile `test` target, Cargo.toml, go.mod, a package.json test \
                         script, pyproject.toml or setup.cfg";

/// The gate the files at the top of `checkout` suggest (see the module's order).
pub fn detect_gate(checkout: &Path) -> GateDetection {
    let detectors: [fn(&Path) -> Option<Suggestion>; 5] = [make, cargo, go, npm, python];
    let mut found = detectors.iter().filter_map(|detect| detect(checkout));
    GateDetection {
        chosen: found.next(),
        also: found.collect(),
    }
}

impl GateDetection {
    /// The `[gate] commands` a new fleet.toml gets.
    pub fn commands(&self) -> Vec<String> {
        self.chosen.iter().map(|s| s.command.clone()).collect()
    }

    /// Comment lines (each starting with `#`) that say what was chosen and why, or that
    /// nothing was found and how to set the gate.
    pub fn comment(&self) -> String {
        let Some(chosen) = &self.chosen else {
            return format!(
                "# fleet init found no test command (it looks for {ORDER}).\n\
                 # Set the command that tests this project, e.g. commands = [\"sh ci/test.sh\"], then\n\
                 # `fleet init --commit`: `fleet land` refuses to land anything until it is set.\n"
            );
        };
        let mut text = format!("# fleet init chose `{}`: {}.\n", chosen.command, chosen.why);
        if !self.also.is_empty() {
            let also: Vec<String> = self
                .also
                .iter()
                .map(|s| format!("{} (`{}`)", s.file, s.command))
                .collect();
            text.push_str(&format!(
                "# Also found: {}; the first in this order wins: {ORDER}.\n",
                also.join(", ")
            ));
        }
        text
    }
}

fn read(checkout: &Path, file: &str) -> Option<String> {
    let path = checkout.join(file);
    path.is_file()
        .then(|| std::fs::read_to_string(path).ok())
        .flatten()
}

fn make(checkout: &Path) -> Option<Suggestion> {
    // GNU make's own order of lookup.
    ["GNUmakefile", "makefile", "Makefile"]
        .into_iter()
        .find_map(|file| {
            let text = read(checkout, file)?;
            has_make_target(&text, "test").then(|| Suggestion {
                file: file.to_string(),
                command: "make test".to_string(),
                why: format!("{file} has a `test` target, the project's own way to run its tests"),
            })
        })
}

/// Does a makefile define `target` in a rule (`test:`, `check test: deps`, `test::`),
/// not a variable (`test := x`)?
fn has_make_target(text: &str, target: &str) -> bool {
    text.lines().any(|line| {
        if line.starts_with(['\t', ' ', '#']) {
            return false;
        }
        let Some((targets, rest)) = line.split_once(':') else {
            return false;
        };
        !rest.trim_start_matches(':').starts_with('=')
            && targets.split_whitespace().any(|t| t == target)
    })
}

fn cargo(checkout: &Path) -> Option<Suggestion> {
    read(checkout, "Cargo.toml")?;
    Some(if checkout.join("Cargo.lock").is_file() {
        Suggestion {
            file: "Cargo.toml".to_string(),
            command: "cargo test --locked".to_string(),
            why: "Cargo.toml is a Rust package; --locked tests with the committed Cargo.lock"
                .to_string(),
        }
    } else {
        Suggestion {
            file: "Cargo.toml".to_string(),
            command: "cargo test".to_string(),
            why: "Cargo.toml is a Rust package; with no Cargo.lock, --locked would fail every \
                  gate (commit Cargo.lock and add --locked)"
                .to_string(),
        }
    })
}

fn go(checkout: &Path) -> Option<Suggestion> {
    read(checkout, "go.mod")?;
    Some(Suggestion {
        file: "go.mod".to_string(),
        command: "go test ./...".to_string(),
        why: "go.mod is a Go module; ./... tests every package in it".to_string(),
    })
}

/// The text `npm init` puts in `scripts.test`: a script that only fails.
const NPM_PLACEHOLDER: &str = "no test specified";

fn npm(checkout: &Path) -> Option<Suggestion> {
    let text = read(checkout, "package.json")?;
    let package: serde_json::Value = serde_json::from_str(&text).ok()?;
    let script = package.get("scripts")?.get("test")?.as_str()?;
    (!script.trim().is_empty() && !script.contains(NPM_PLACEHOLDER)).then(|| Suggestion {
        file: "package.json".to_string(),
        command: "npm test".to_string(),
        why: format!("package.json has a test script ({script:?})"),
    })
}

fn python(checkout: &Path) -> Option<Suggestion> {
    let file = ["pyproject.toml", "setup.cfg"]
        .into_iter()
        .find(|file| checkout.join(file).is_file())?;
    Some(Suggestion {
        file: file.to_string(),
        command: "pytest".to_string(),
        why: format!("{file} is a Python project's; pytest is the usual runner"),
    })
}

/// The message of the commit that adopts fleet.
pub const COMMIT_MESSAGE: &str = "Adopt fleet: fleet.toml";

/// The command a human runs to commit fleet.toml in the shared checkout by hand; what
/// `fleet init --commit` does.
pub fn commit_by_hand() -> String {
    format!(
        "git add {file} && {var}=1 git commit -m '{COMMIT_MESSAGE}' -- {file}",
        file = crate::config::FILE_NAME,
        var = crate::guard::entry::ALLOW_VAR
    )
}

/// Where the shared checkout's fleet.toml stands on the target branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnTarget {
    /// The target's fleet.toml is this file, byte for byte.
    Committed,
    /// The target has no fleet.toml, or one with no gate commands: committing this
    /// one is adoption, and `fleet init --commit` does it.
    NoGateYet,
    /// The target's fleet.toml has a gate: changing it is a lane's job (a protected
    /// path, landed through that gate).
    Gated,
}

/// How the shared checkout's fleet.toml compares with the target's.
pub fn config_on_target(ctx: &Context) -> Result<OnTarget> {
    let Some(tip) = ctx.repo.branch_tip(ctx.target())? else {
        return Ok(OnTarget::NoGateYet);
    };
    let file = crate::config::FILE_NAME;
    let ours = std::fs::read(ctx.shared.join(file)).ok();
    let theirs = ctx.repo.file_at(tip, file)?;
    if ours.is_some() && ours == theirs {
        return Ok(OnTarget::Committed);
    }
    let gated = !crate::gate::policy::config_at(&ctx.repo, tip, "the target")
        .map(|config| config.gate.commands.is_empty())
        // A target's fleet.toml that does not parse has no gate that works.
        .unwrap_or(true);
    Ok(if gated {
        OnTarget::Gated
    } else {
        OnTarget::NoGateYet
    })
}

/// What [`commit_config`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Committed {
    /// The target's commit holding the file.
    pub commit: String,
    /// `false`: the target already had this very file.
    pub new: bool,
}

/// Commit the shared checkout's fleet.toml, and nothing else, on the target branch,
/// as a human would (see [`crate::git::cli::commit_paths_as_human`]: the guard logs it as
/// allowed). Only while the target has no gate: once it has one, fleet.toml is a
/// protected path that changes through a lane and that gate, so this cannot weaken it.
pub fn commit_config(ctx: &Context) -> Result<Committed> {
    let file = crate::config::FILE_NAME;
    let target = ctx.target();
    let on_branch = ctx
        .repo
        .main_head_ref()
        .as_deref()
        .and_then(crate::refs::branch_name)
        .map(String::from);
    if on_branch.as_deref() != Some(target) {
        return Err(Error::refused(format!(
            "the shared checkout {} is not on the target branch {target} (it is on {}): \
             fleet init --commit commits on the target only",
            ctx.shared.display(),
            on_branch.as_deref().unwrap_or("a detached HEAD")
        ))
        .with_help(format!(
            "switch the shared checkout back to {target} (`{}=1 git switch {target}`, logged), \
             or set `[lanes] target` in {file} to the branch lanes land on",
            crate::guard::entry::ALLOW_VAR
        )));
    }
    if ctx.config_path.is_none() {
        return Err(
            Error::refused(format!("there is no {file} in {}", ctx.shared.display()))
                .with_help("`fleet init` writes one"),
        );
    }
    match config_on_target(ctx)? {
        OnTarget::Committed => {
            return Ok(Committed {
                commit: tip_hex(ctx)?,
                new: false,
            });
        }
        OnTarget::Gated => {
            return Err(Error::refused(format!(
                "{target} already has a gate in its {file}: fleet init --commit only commits \
                 the first one"
            ))
            .with_help(format!(
                "change {file} in a lane and land it through the gate: `fleet land LANE \
                 --allow-protected` ({file} is a protected path)"
            )));
        }
        OnTarget::NoGateYet => {}
    }
    crate::git::cli::commit_paths_as_human(&ctx.shared, &[file], COMMIT_MESSAGE)?.map_err(
        |why| {
            Error::refused(format!("git refused to commit {file}: {why}")).with_help(format!(
                "fix what git says, then `fleet init --commit` again (or by hand: {})",
                commit_by_hand()
            ))
        },
    )?;
    Ok(Committed {
        commit: tip_hex(ctx)?,
        new: true,
    })
}

fn tip_hex(ctx: &Context) -> Result<String> {
    let tip: ObjectId = ctx.target_tip()?;
    Ok(tip.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    fn chosen(files: &[(&str, &str)]) -> Option<String> {
        detect_gate(project(files).path()).chosen.map(|s| s.command)
    }

    #[test]
    fn each_kind_of_project_gets_its_test_command() {
        assert_eq!(
            chosen(&[("Cargo.toml", "[package]"), ("Cargo.lock", "")]).as_deref(),
            Some("cargo test --locked")
        );
        assert_eq!(
            chosen(&[("Cargo.toml", "[package]")]).as_deref(),
            Some("cargo test")
        );
        assert_eq!(
            chosen(&[("go.mod", "module x")]).as_deref(),
            Some("go test ./...")
        );
        assert_eq!(
            chosen(&[("package.json", r#"{"scripts": {"test": "jest"}}"#)]).as_deref(),
            Some("npm test")
        );
        assert_eq!(
            chosen(&[("setup.cfg", "[metadata]")]).as_deref(),
            Some("pytest")
        );
        assert_eq!(
            chosen(&[("pyproject.toml", "[project]")]).as_deref(),
            Some("pytest")
        );
        assert_eq!(
            chosen(&[("Makefile", "all:\n\tcc x.c\n\ntest: all\n\t./t\n")]).as_deref(),
            Some("make test")
        );
    }

    #[test]
    fn placeholders_and_lookalikes_are_not_gates() {
        let placeholder = r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#;
        assert_eq!(chosen(&[("package.json", placeholder)]), None);
        assert_eq!(chosen(&[("package.json", r#"{"name": "x"}"#)]), None);
        assert_eq!(chosen(&[("package.json", "not json")]), None);
        assert_eq!(
            chosen(&[("Makefile", "test := 1\ntest ::= 2\nall:\n\techo test:\n")]),
            None
        );
        assert_eq!(chosen(&[("Makefile", "# test: nothing\n")]), None);
        assert_eq!(chosen(&[("README.md", "x")]), None);
        assert!(
            detect_gate(project(&[]).path())
                .comment()
                .contains("found no test command")
        );
    }

    #[test]
    fn several_kinds_choose_by_the_documented_order_and_name_the_others() {
        let found = detect_gate(
            project(&[
                ("pyproject.toml", ""),
                ("package.json", r#"{"scripts": {"test": "jest"}}"#),
                ("go.mod", "module x"),
                ("Cargo.toml", ""),
                ("Makefile", "check test:\n\ttrue\n"),
            ])
            .path(),
        );
        let commands: Vec<&str> = std::iter::once(found.chosen.as_ref().unwrap())
            .chain(&found.also)
            .map(|s| s.command.as_str())
            .collect();
        assert_eq!(
            commands,
            [
                "make test",
                "cargo test",
                "go test ./...",
                "npm test",
                "pytest"
            ]
        );
        let comment = found.comment();
        assert!(comment.contains("chose `make test`"), "{comment}");
        assert!(comment.contains("go.mod (`go test ./...`)"), "{comment}");
        assert!(comment.lines().all(|l| l.starts_with('#')), "{comment}");
    }
}
