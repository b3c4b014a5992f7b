//! Throwaway repositories and a hermetic environment for driving the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub mod anthropic;
pub mod assert;
pub mod claude;
pub mod drain;
pub mod procs;
mod repos;
pub mod snap;

pub struct Env {
    pub tmp: tempfile::TempDir,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }
    pub fn code(self, code: i32) -> Run {
        assert_eq!(
            self.code, code,
            "expected exit {code}\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }
}

/// One command to run in an [`Env`]: the one way the tests spawn git and fleet.
pub struct Cmd {
    cmd: Command,
    input: Option<String>,
    what: String,
}

impl Cmd {
    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Cmd {
        self.cmd.env(key, value);
        self
    }

    pub fn envs(mut self, vars: &[(&str, &str)]) -> Cmd {
        for (k, v) in vars {
            self.cmd.env(k, v);
        }
        self
    }

    /// No git identity configured anywhere.
    pub fn anonymous(mut self) -> Cmd {
        for var in [
            "GIT_AUTHOR_NAME",
            "GIT_AUTHOR_EMAIL",
            "GIT_COMMITTER_NAME",
            "GIT_COMMITTER_EMAIL",
        ] {
            self.cmd.env_remove(var);
        }
        self
    }

    /// `text` on stdin (otherwise a pipe closed at once: never /dev/null on these machines).
    pub fn stdin(mut self, text: &str) -> Cmd {
        self.input = Some(text.to_string());
        self
    }

    /// Spawned, to wait for later with [`Env::wait`].
    pub fn spawn(mut self) -> std::process::Child {
        self.cmd.spawn().expect("spawn")
    }

    pub fn run(self) -> Run {
        use std::io::Write;
        let input = self.input.clone();
        let mut child = self.spawn();
        if let Some(text) = input {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
        }
        Env::wait(child)
    }

    /// Run, assert success, return trimmed stdout.
    pub fn stdout(self) -> String {
        let what = self.what.clone();
        let run = self.run();
        assert_eq!(run.code, 0, "{what}: {}", run.stderr);
        run.stdout.trim_end().to_string()
    }
}

impl Env {
    pub fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("home")).unwrap();
        std::fs::write(tmp.path().join("home/.gitconfig"), "").unwrap();
        Env { tmp }
    }

    pub fn path(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap()
    }

    fn hermetic(&self, cmd: &mut Command) {
        let home = self.path().join("home");
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
            .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
    }

    /// git in `dir` with the hermetic environment; `.run()` it, or add to it first.
    pub fn git_cmd(&self, dir: &Path, args: &[&str]) -> Cmd {
        self.command("git", dir, args)
    }

    /// The fleet binary under test in `dir` with the hermetic environment.
    pub fn fleet_cmd(&self, dir: &Path, args: &[&str]) -> Cmd {
        self.command(env!("CARGO_BIN_EXE_fleet"), dir, args)
    }

    fn command(&self, program: &str, dir: &Path, args: &[&str]) -> Cmd {
        let mut cmd = Command::new(program);
        self.hermetic(&mut cmd);
        cmd.current_dir(dir).args(args);
        Cmd {
            cmd,
            input: None,
            what: format!("{program} {args:?} in {}", dir.display()),
        }
    }

    /// fleet in `dir` on a terminal: util-linux `script` gives it a pseudo-terminal as
    /// stdout (its own log of the session goes to a file here). `None`, after saying
    /// SKIPPED, where `script` is missing.
    pub fn fleet_on_a_terminal(&self, dir: &Path, args: &[&str]) -> Option<Run> {
        if Command::new("script")
            .arg("--version")
            .stdin(Stdio::piped())
            .output()
            .is_err()
        {
            eprintln!("SKIPPED: util-linux `script` is not installed: no terminal to test on");
            return None;
        }
        let mut line = vec![env!("CARGO_BIN_EXE_fleet").to_string()];
        line.extend(
            args.iter()
                .map(|a| format!("'{}'", a.replace('\'', "'\\''"))),
        );
        let log = self.path().join("script.log");
        let log = log.to_str().unwrap();
        Some(
            self.command("script", dir, &["-qec", &line.join(" "), log])
                .run(),
        )
    }

    /// Run git, assert success, return trimmed stdout.
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        self.git_cmd(dir, args).stdout()
    }

    pub fn fleet(&self, dir: &Path, args: &[&str]) -> Run {
        self.fleet_cmd(dir, args).run()
    }

    /// `fleet worktree new NAME` in `repo`: the agent worktree's path.
    pub fn agent(&self, repo: &Path, name: &str) -> PathBuf {
        PathBuf::from(
            self.fleet(repo, &["worktree", "new", name])
                .ok()
                .stdout
                .trim(),
        )
    }

    /// Wait for a spawned command.
    pub fn wait(child: std::process::Child) -> Run {
        Run::from(child.wait_with_output().expect("wait"))
    }

    /// Agent `name` of the project `outer` (made by `outer_with_nested`) left nothing:
    /// no branch and no worktree record in any of its three repositories, no folder.
    pub fn assert_no_agent(&self, outer: &Path, name: &str) {
        let branch = format!("refs/heads/fleet/{name}");
        for repo in [
            outer.to_path_buf(),
            outer.join("cockpit"),
            outer.join("cockpit/engine"),
        ] {
            assert!(
                !self.branches(&repo).contains(&branch),
                "branch left in {}",
                repo.display()
            );
            let list = self.git(&repo, &["worktree", "list", "--porcelain"]);
            let wt = format!(".fleet-work/{}/{name}", outer_name(outer));
            assert!(
                !list.contains(&wt),
                "worktree record left in {}: {list}",
                repo.display()
            );
        }
        assert!(
            !self
                .path()
                .join(".fleet-work")
                .join(outer_name(outer))
                .join(name)
                .exists(),
            "folder left behind"
        );
    }

    pub fn branches(&self, dir: &Path) -> Vec<String> {
        self.git(dir, &["for-each-ref", "--format=%(refname)", "refs/heads"])
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Everything that must not change in a shared checkout: HEAD, branch, index, files.
    pub fn snapshot(&self, dir: &Path) -> String {
        let head = self.git(dir, &["rev-parse", "HEAD"]);
        let branch = self
            .git_cmd(dir, &["symbolic-ref", "-q", "HEAD"])
            .run()
            .stdout;
        let index = self.git(dir, &["ls-files", "-s"]);
        let status = self.git(dir, &["status", "--porcelain", "--ignored"]);
        let mut files = Vec::new();
        list_files(dir, dir, &mut files);
        files.sort();
        format!("{head}\n{branch}\n{index}\n{status}\n{}", files.join("\n"))
    }
}

fn list_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_name() == ".git" {
            continue;
        }
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            list_files(root, &path, out);
        } else {
            let text = std::fs::read(&path).unwrap_or_default();
            out.push(format!(
                "{} {}",
                path.strip_prefix(root).unwrap().display(),
                String::from_utf8_lossy(&text)
            ));
        }
    }
}

/// Cargo's target dir for this package: `CARGO_TARGET_DIR` when set (a relative one from
/// the package root, where the scripts run), else `target/`. The `.ci/install-*` scripts
/// put the tools the tests drive there, by the same rule.
pub fn target_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("CARGO_TARGET_DIR")
        .map(|t| manifest.join(t))
        .unwrap_or_else(|| manifest.join("target"))
}

/// An empty file at `path` last modified a minute ago: the lock file a killed process
/// left, old enough for fleet to call stale.
pub fn write_stale(path: &Path) {
    write(path, "");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(old))
        .unwrap();
}

pub fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// The folder name of a project's shared checkout: the default worktree root is
/// `../.fleet-work/<that name>`.
pub fn outer_name(outer: &Path) -> String {
    outer.file_name().unwrap().to_string_lossy().into_owned()
}

impl Env {
    /// `sh -ec script` in `dir` with the hermetic environment: for text a user types, run
    /// as they would type it (the README's steps).
    pub fn sh_cmd(&self, dir: &Path, script: &str) -> Cmd {
        self.command("sh", dir, &["-ec", script])
    }
}

fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

/// README.md's text, for the tests that keep its blocks true.
pub fn readme() -> String {
    std::fs::read_to_string(readme_path()).unwrap()
}

/// The byte range of `text` between the first `start` and the first `end` after it.
pub fn between(text: &str, start: &str, end: &str) -> Option<std::ops::Range<usize>> {
    let from = text.find(start)? + start.len();
    let to = from + text[from..].find(end)?;
    Some(from..to)
}

/// A fenced block of a Markdown text: its language, the heading it sits under, the
/// byte range of its body (between the fence lines, ending with a newline), and the
/// HTML comment on the line right before the opening fence, if any.
pub struct Fenced {
    pub lang: String,
    pub heading: String,
    pub body: std::ops::Range<usize>,
    pub note: Option<String>,
}

/// Every fenced block of `text` (fences of three backticks at the start of a line).
pub fn fenced_blocks(text: &str) -> Vec<Fenced> {
    let mut blocks = Vec::new();
    let mut heading = String::new();
    let mut previous = "";
    let mut open: Option<(String, usize, Option<String>)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        match open.take() {
            Some((lang, start, note)) if bare == "```" => blocks.push(Fenced {
                lang,
                heading: heading.clone(),
                body: start..at,
                note,
            }),
            Some(inside) => open = Some(inside),
            None => {
                if let Some(lang) = bare.strip_prefix("```") {
                    let note = previous
                        .strip_prefix("<!--")
                        .and_then(|c| c.strip_suffix("-->"))
                        .map(|c| c.trim().to_string());
                    open = Some((lang.to_string(), at + line.len(), note));
                } else if bare.starts_with('#') {
                    heading = bare.trim_start_matches('#').trim().to_string();
                }
            }
        }
        previous = bare;
        at += line.len();
    }
    blocks
}

/// Rewrite README.md as `edit` says, reading it afresh under a lock: the tests that
/// keep its blocks true run at the same time, each `FLEET_UPDATE_README=1` rewrite
/// must keep the others'.
pub fn update_readme(edit: impl FnOnce(&str) -> String) {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _held = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    std::fs::write(readme_path(), edit(&readme())).unwrap();
}

/// A `git` on PATH that logs its arguments, one line a call, then runs the real one:
/// the folder to put first on PATH, and the log.
pub fn counting_git(env: &Env) -> (PathBuf, PathBuf) {
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .stdin(std::process::Stdio::piped())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let bin = env.path().join("counting-bin");
    let log = env.path().join("git-calls.log");
    std::fs::create_dir_all(&bin).unwrap();
    let shim = bin.join("git");
    write(
        &shim,
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.trim()
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    (bin, log)
}
