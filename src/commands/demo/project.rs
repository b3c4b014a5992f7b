//! The demo's throwaway project and the script of its tour: which commands run, where,
//! with which exit code expected, and which lines of their output the narration keeps.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use fleet::error::{Error, Result};
use fleet::proc::{self, Input};

use super::Ran;

/// Every command of the demo gets this long; a healthy run needs well under a second each.
const DEADLINE: Duration = Duration::from_secs(120);

/// The gate: red when a file says BUG.
const CHECK_SH: &str = "#!/bin/sh\n# The demo's gate: red when any file says BUG.\n! grep -rn BUG --exclude=check.sh . >&2\n";

/// The three scripted agents: a name and the shell script it runs in its worktree.
const AGENTS: [(&str, &str); 3] = [
    (
        "alpha",
        "echo '# alpha' > alpha.md && git add alpha.md && git commit -qm 'alpha: docs' && fleet ready",
    ),
    (
        "beta",
        "echo v2 > engine/engine.txt && git -C engine commit -qam 'beta: engine v2' && fleet ready",
    ),
    (
        "gamma",
        "echo 'BUG: off by one' > gamma.txt && git add gamma.txt && git commit -qm 'gamma: a bug' && fleet ready",
    ),
];

pub struct Project {
    /// The temporary folder everything lives in.
    pub root: PathBuf,
    /// Put first on the children's PATH, so the `fleet` they run is this binary.
    bin_dir: PathBuf,
}

/// A step's title and the commands it ran.
pub type Steps = Vec<(String, Vec<Ran>)>;

impl Project {
    /// A fresh folder under the system's temporary folder.
    pub fn create() -> Result<Project> {
        let exe = std::env::current_exe()
            .map_err(|e| Error::env(format!("fleet demo cannot find its own binary: {e}")))?;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let root = std::env::temp_dir().join(format!("fleet-demo-{}-{stamp}", std::process::id()));
        std::fs::create_dir(&root).map_err(|e| io_error(&root, e))?;
        let root = root.canonicalize().map_err(|e| io_error(&root, e))?;
        Ok(Project {
            bin_dir: exe.parent().map(Path::to_path_buf).unwrap_or_default(),
            root,
        })
    }

    /// Run the tour, calling `show` after each step; stops at the first command that
    /// could not run at all (a step whose command exits otherwise than expected goes on:
    /// the narration says so).
    pub fn tour(&self, show: &mut dyn FnMut(&str, &[Ran])) -> Result<Steps> {
        let mut steps = Steps::new();
        let mut step = |title: &str, ran: Vec<Ran>| {
            show(title, &ran);
            steps.push((title.to_string(), ran));
        };
        self.build()?;
        step(
            "1. A project: app/ with a nested repository app/engine/ and a gate (`sh check.sh`, red when a file says BUG). Adopt it:",
            vec![self.run("app", "fleet init", 0, keep_init)?],
        );
        let mut made = Vec::new();
        for (name, _) in AGENTS {
            made.push(self.run("app", &format!("fleet worktree new {name}"), 0, keep_made)?);
        }
        step(
            "2. Three agents, each in its own worktree and branch (nested repository included):",
            made,
        );
        step(
            "3. They work at the same time; each commits and marks its lane ready:",
            self.agents_at_once()?,
        );
        step(
            "4. The shared checkout refuses a commit and a switch, from anyone:",
            vec![
                self.run(
                    "app",
                    "git commit --allow-empty -qm 'quick fix'",
                    1,
                    keep_first,
                )?,
                self.run("app", "git switch -c experiment", 128, keep_first)?,
            ],
        );
        step(
            "5. Landing: one lane at a time, each candidate's exact tree through the gate:",
            vec![
                self.run("app", "fleet land --yes alpha beta gamma", 1, keep_verdicts)?,
                self.run("app", "fleet status", 0, keep_sorted)?,
            ],
        );
        step(
            "6. Every move of main has a green receipt for its exact tree:",
            vec![self.run("app", "fleet verify", 0, keep_verdicts)?],
        );
        Ok(steps)
    }

    /// Whether the repositories ended as the tour says: alpha's file and beta's engine
    /// change on the targets, gamma's bug not.
    pub fn landed_as_expected(&self) -> bool {
        let has = |dir: &str, spec: &str| self.git(dir, &["cat-file", "-e", spec]).is_ok();
        let engine = self
            .git("app/engine", &["show", "main:engine.txt"])
            .is_ok_and(|text| text == "v2\n");
        has("app", "main:alpha.md") && !has("app", "main:gamma.txt") && engine
    }

    /// Remove the project unless asked to keep it; returns the folder when kept.
    pub fn finish(&self, keep: bool) -> Option<PathBuf> {
        if keep {
            return Some(self.root.clone());
        }
        proc::kill_processes_under(&self.root);
        let _ = std::fs::remove_dir_all(&self.root);
        None
    }

    /// app/ (main: README, check.sh, fleet.toml) with engine/ (main: engine.txt) nested.
    fn build(&self) -> Result<()> {
        let gitconfig = "[user]\n\tname = fleet demo\n\temail = demo@fleet.invalid\n[init]\n\tdefaultBranch = main\n";
        self.write("gitconfig", gitconfig)?;
        self.write("app/README.md", "# app\n")?;
        self.write("app/check.sh", CHECK_SH)?;
        self.write("app/.gitignore", "engine/\n")?;
        self.write("app/fleet.toml", "[gate]\ncommands = [\"sh check.sh\"]\n")?;
        self.write("app/engine/engine.txt", "v1\n")?;
        for (dir, what) in [("app/engine", "the engine"), ("app", "the app")] {
            self.git(dir, &["init", "-q", "-b", "main"])?;
            self.git(dir, &["add", "-A"])?;
            self.git(dir, &["commit", "-q", "-m", what])?;
        }
        Ok(())
    }

    /// Every agent's script in its own worktree, all at once, each under `fleet run`.
    fn agents_at_once(&self) -> Result<Vec<Ran>> {
        std::thread::scope(|scope| {
            let running: Vec<_> = AGENTS
                .iter()
                .map(|(name, script)| {
                    let dir = format!(".fleet-work/app/{name}");
                    let line = format!("fleet run -- sh -c \"{script}\"");
                    scope.spawn(move || self.run(&dir, &line, 0, keep_all))
                })
                .collect();
            running
                .into_iter()
                .map(|t| {
                    t.join()
                        .unwrap_or_else(|_| Err(Error::env("a demo agent thread panicked")))
                })
                .collect()
        })
    }

    /// Run `line` with `sh -c` in `dir` (relative to the project), in its own process
    /// group, keeping the output lines `keep` picks.
    fn run(
        &self,
        dir: &str,
        line: &str,
        expected: i32,
        keep: fn(&str) -> Vec<String>,
    ) -> Result<Ran> {
        let mut cmd = self.command("sh", dir);
        cmd.args(["-c", line]);
        let out = proc::run(&mut cmd, Input::Closed, Some(DEADLINE), proc::DEFAULT_GRACE)
            .map_err(|e| Error::env(format!("fleet demo cannot run `{line}`: {e}")))?;
        let text = format!("{}{}", out.stdout_str(), out.stderr_str());
        Ok(Ran {
            dir: dir.to_string(),
            command: line.to_string(),
            exit_code: out.code(),
            expected,
            output: keep(&text).join("\n"),
        })
    }

    /// git in `dir`, its own group; its stdout, or an error saying what failed.
    fn git(&self, dir: &str, args: &[&str]) -> Result<String> {
        let mut cmd = self.command("git", dir);
        cmd.args(args);
        let out = proc::run(&mut cmd, Input::Closed, Some(DEADLINE), proc::DEFAULT_GRACE)
            .map_err(|e| Error::env(format!("fleet demo cannot run git: {e}")))?;
        if !out.success() {
            return Err(Error::env(format!(
                "fleet demo: `git {}` failed in {dir}: {}",
                args.join(" "),
                out.stderr_str().trim()
            ))
            .with_help("the demo needs a working git on PATH"));
        }
        Ok(out.stdout_str())
    }

    /// A child in the project: this binary first on PATH, and git reading only the
    /// demo's own config (a user's global `core.hooksPath` or signing must not leak in).
    fn command(&self, program: &str, dir: &str) -> Command {
        let mut cmd = Command::new(program);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![self.bin_dir.clone()];
        dirs.extend(std::env::split_paths(&path));
        cmd.current_dir(self.root.join(dir))
            .env("PATH", std::env::join_paths(dirs).unwrap_or(path))
            .env("GIT_CONFIG_GLOBAL", self.root.join("gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("NO_COLOR", "1")
            .env_remove("FLEET_ALLOW_SHARED");
        cmd
    }

    fn write(&self, rel: &str, text: &str) -> Result<()> {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
        }
        std::fs::write(&path, text).map_err(|e| io_error(&path, e))
    }
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::env(format!("fleet demo cannot write {}: {e}", path.display()))
        .with_help("the demo works in the system's temporary folder ($TMPDIR): make it writable")
}

fn keep_all(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

/// `fleet init`: what it decided, not the table of every hook.
fn keep_init(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("repo ") || l.starts_with("ok:"))
        .map(str::to_string)
        .collect()
}

/// `fleet worktree new`: where the worktrees went, not the progress line.
fn keep_made(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with("creating agent worktree"))
        .map(str::to_string)
        .collect()
}

/// A refusal: the guard's first line says it all.
fn keep_first(text: &str) -> Vec<String> {
    text.lines().take(1).map(str::to_string).collect()
}

/// A table whose rows come in the order the lanes became ready, which three agents at
/// once make arbitrary: by lane name instead.
fn keep_sorted(text: &str) -> Vec<String> {
    // A lane's row and the indented rows of its nested repositories sort as one.
    let mut rows: Vec<Vec<String>> = Vec::new();
    for line in keep_all(text) {
        match rows.last_mut() {
            Some(row) if line.starts_with(' ') => row.push(line),
            _ => rows.push(vec![line]),
        }
    }
    rows.sort();
    rows.concat()
}

/// `ok:` and `error:` lines.
fn keep_verdicts(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("ok:") || l.starts_with("error:"))
        .map(str::to_string)
        .collect()
}
