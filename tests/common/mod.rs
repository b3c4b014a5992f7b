//! Throwaway repositories and a hermetic environment for driving the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub struct Env {
    pub tmp: tempfile::TempDir,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
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

    fn finish(mut cmd: Command) -> Run {
        let child = cmd.spawn().expect("spawn");
        // stdin: a pipe closed at once (never /dev/null on these machines).
        let out: Output = child.wait_with_output().expect("wait");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    pub fn git_run(&self, dir: &Path, args: &[&str]) -> Run {
        let mut cmd = Command::new("git");
        self.hermetic(&mut cmd);
        cmd.current_dir(dir).args(args);
        Self::finish(cmd)
    }

    pub fn git_env(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = Command::new("git");
        self.hermetic(&mut cmd);
        cmd.current_dir(dir).args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        Self::finish(cmd)
    }

    /// Run git, assert success, return trimmed stdout.
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        let run = self.git_run(dir, args);
        assert_eq!(
            run.code,
            0,
            "git {args:?} in {}: {}",
            dir.display(),
            run.stderr
        );
        run.stdout.trim_end().to_string()
    }

    /// Run git with `input` on stdin, assert success, return trimmed stdout.
    pub fn git_input(&self, dir: &Path, args: &[&str], input: &str) -> String {
        use std::io::Write;
        let mut cmd = Command::new("git");
        self.hermetic(&mut cmd);
        cmd.current_dir(dir)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("spawn git");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim_end().to_string()
    }

    pub fn fleet(&self, dir: &Path, args: &[&str]) -> Run {
        self.fleet_env(dir, args, &[])
    }

    /// Run fleet with no git identity configured anywhere.
    pub fn fleet_anonymous(&self, dir: &Path, args: &[&str]) -> Run {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fleet"));
        self.hermetic(&mut cmd);
        for var in [
            "GIT_AUTHOR_NAME",
            "GIT_AUTHOR_EMAIL",
            "GIT_COMMITTER_NAME",
            "GIT_COMMITTER_EMAIL",
        ] {
            cmd.env_remove(var);
        }
        cmd.current_dir(dir).args(args);
        Self::finish(cmd)
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

    /// The fleet command with the hermetic environment, to spawn and wait for later.
    pub fn fleet_command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fleet"));
        self.hermetic(&mut cmd);
        cmd.current_dir(dir).args(args);
        cmd
    }

    /// Wait for a spawned command.
    pub fn wait(child: std::process::Child) -> Run {
        let out = child.wait_with_output().expect("wait");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    pub fn fleet_env(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fleet"));
        self.hermetic(&mut cmd);
        cmd.current_dir(dir).args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        Self::finish(cmd)
    }

    /// A repository with one commit holding `files`, on branch `branch`.
    pub fn repo(&self, dir: &Path, branch: &str, files: &[(&str, &str)]) {
        std::fs::create_dir_all(dir).unwrap();
        self.git(dir, &["init", "-q", "-b", branch]);
        for (name, text) in files {
            write(&dir.join(name), text);
        }
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", "initial"]);
    }

    pub fn commit_file(&self, dir: &Path, name: &str, text: &str, message: &str) -> String {
        write(&dir.join(name), text);
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", message]);
        self.git(dir, &["rev-parse", "HEAD"])
    }

    /// outer/ (branch main) holding nested repo cockpit/ (branch main), which holds
    /// cockpit/engine/ (branch dev). The outer repo ignores cockpit/.
    pub fn outer_with_nested(&self) -> PathBuf {
        let outer = self.path().join("outer");
        self.repo(
            &outer,
            "main",
            &[("README", "outer\n"), (".gitignore", "cockpit/\n")],
        );
        let cockpit = outer.join("cockpit");
        self.repo(
            &cockpit,
            "main",
            &[("c.txt", "cockpit\n"), (".gitignore", "engine/\n")],
        );
        self.repo(&cockpit.join("engine"), "dev", &[("e.txt", "engine\n")]);
        outer
    }

    /// outer/ with a submodule at vendor/lib, cloned from lib-origin/.
    pub fn outer_with_submodule(&self) -> PathBuf {
        let lib = self.path().join("lib-origin");
        self.repo(&lib, "main", &[("lib.txt", "lib\n")]);
        let outer = self.path().join("outer");
        self.repo(&outer, "main", &[("README", "x\n")]);
        let url = lib.to_str().unwrap();
        let add = [
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            url,
            "vendor/lib",
        ];
        self.git(&outer, &add);
        self.git(&outer, &["commit", "-q", "-m", "add submodule"]);
        outer
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
            let wt = format!(".fleet-work/{name}");
            assert!(
                !list.contains(&wt),
                "worktree record left in {}: {list}",
                repo.display()
            );
        }
        assert!(
            !self.path().join(".fleet-work").join(name).exists(),
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
        let branch = self.git_run(dir, &["symbolic-ref", "-q", "HEAD"]).stdout;
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
