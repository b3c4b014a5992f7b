//! The fixtures of the `fleet drain` tests (tests/drain.rs, tests/drain_race.rs): a
//! project whose fleet.toml has a profile per fake agent (small shell scripts), and
//! the calls that add tasks, drain them and read the queue back.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::procs;
use super::{Env, write};

/// The fake agents, by profile name: each a script the profile runs as its argv.
pub const AGENTS: &[(&str, &str)] = &[
    (
        "commit",
        "printf '%s\\n' \"$FLEET_TASK\" > \"done-$FLEET_TASK.txt\"\ncp \"$FLEET_PLAN\" \"$RUNS/plan-$FLEET_RUN\" 2>/dev/null || true\ngit add -A\ngit commit -qm \"agent: $FLEET_TASK\"\n",
    ),
    ("fail", "echo 'boom: the frobnicator broke' >&2\nexit 3\n"),
    ("nothing", "echo 'all done, honest'\nexit 0\n"),
    (
        "hang",
        "sleep 300 &\necho $! > \"$RUNS/hang-$FLEET_TASK.pid\"\nwait\n",
    ),
    ("crash", "kill -9 $$\n"),
    (
        // The first attempt hangs; the next commits.
        "hang-once",
        "if [ -e \"$RUNS/hung-$FLEET_TASK\" ]; then\n  echo x > x.txt; git add -A; git commit -qm again\n  exit 0\nfi\ntouch \"$RUNS/hung-$FLEET_TASK\"\nsleep 300 &\necho $! > \"$RUNS/hang-$FLEET_TASK.pid\"\nwait\n",
    ),
    (
        // Writes each of its arguments to a file, one per line after the count.
        "args",
        "{ echo \"$#\"; for a in \"$@\"; do printf '[%s]\\n' \"$a\"; done; } > args.txt\ngit add -A\ngit commit -qm args\n",
    ),
    (
        // For the races: says in `$RUNS/log` (appended to) that its run ran, and
        // `overlap` when another agent of its task holds the task's lock (a run twice
        // at once); pauses for `$RUNS/pause` seconds, if written; then commits.
        "race",
        "exec 9>>\"$RUNS/lock-$FLEET_TASK\"\nflock -n 9 || echo \"overlap $FLEET_TASK $FLEET_RUN\" >> \"$RUNS/log\"\necho \"run $FLEET_TASK $FLEET_RUN\" >> \"$RUNS/log\"\n[ -e \"$RUNS/pause\" ] && sleep \"$(cat \"$RUNS/pause\")\"\nprintf '%s\\n' \"$FLEET_TASK\" > \"done-$FLEET_TASK.txt\"\ngit add -A\ngit commit -qm \"agent: $FLEET_TASK\"\n",
    ),
    (
        "claude-ok",
        "echo ok > c.txt; git add -A; git commit -qm claude\ncat <<'EOF'\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"num_turns\":2,\"result\":\"Done.\",\"session_id\":\"s\",\"total_cost_usd\":0.01,\"usage\":{\"input_tokens\":10,\"output_tokens\":5},\"api_error_status\":null,\"terminal_reason\":\"completed\",\"stop_reason\":\"end_turn\",\"permission_denials\":[]}\nEOF\n",
    ),
    (
        "claude-429",
        "cat <<'EOF'\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"num_turns\":1,\"result\":\"API Error: Request rejected (429) · rate limited\",\"session_id\":\"s\",\"total_cost_usd\":0,\"usage\":{\"input_tokens\":0,\"output_tokens\":0},\"api_error_status\":429,\"terminal_reason\":\"api_error\"}\nEOF\nexit 1\n",
    ),
];

/// repo/ whose fleet.toml has a profile per fake agent (default `commit`), quick
/// back-offs, and `extra` appended; the fake agents' scratch folder is `runs/`.
pub fn project(env: &Env, extra: &str) -> PathBuf {
    let dir = env.path().join("repo");
    let bin = env.path().join("agents");
    std::fs::create_dir_all(env.path().join("runs")).unwrap();
    let mut toml = String::from(
        "[gate]\ncommands = [\"test -e README\"]\n[drain]\nagent = \"commit\"\nbackoff = \"1s\"\nbackoff_max = \"1s\"\nclaim_grace = \"60s\"\nstop_timeout = \"1s\"\n",
    );
    toml.push_str(extra);
    for (name, body) in AGENTS {
        let script = bin.join(format!("{name}.sh"));
        write(&script, &format!("#!/bin/sh\n{body}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let timeout = if name.starts_with("hang") {
            "120s"
        } else {
            "60s"
        };
        let result = if name.starts_with("claude") {
            "claude-json"
        } else {
            "exit-code"
        };
        let args = if *name == "args" {
            ", \"{prompt}\", \"{task}\""
        } else {
            ""
        };
        toml.push_str(&format!(
            "\n[agents.{name}]\ncommand = [{:?}{args}]\ntimeout = \"{timeout}\"\nresult = \"{result}\"\nenv = {{ RUNS = {:?} }}\n",
            script.display().to_string(),
            env.path().join("runs").display().to_string(),
        ));
    }
    env.repo(&dir, "main", &[("README", "r\n"), ("fleet.toml", &toml)]);
    dir
}

pub fn json(run: crate::common::Run) -> serde_json::Value {
    let run = run.ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

pub fn show(env: &Env, dir: &Path, name: &str) -> serde_json::Value {
    let doc = json(env.fleet(dir, &["task", "show", name, "--json"]));
    // `task show --json` is the task (with its plan alongside, when it has one).
    doc.get("task").cloned().unwrap_or(doc)
}

pub fn runs(task: &serde_json::Value) -> Vec<serde_json::Value> {
    task["run"].as_array().cloned().unwrap_or_default()
}

pub fn add(env: &Env, dir: &Path, name: &str, extra: &[&str]) {
    let mut args = vec!["task", "add", name, "--prompt", "do the thing"];
    args.extend_from_slice(extra);
    env.fleet(dir, &args).ok();
}

pub fn drain_once(env: &Env, dir: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["drain", "--once", "--json"];
    args.extend_from_slice(extra);
    json(env.fleet(dir, &args))
}

/// Wait (generously) until `done` holds.
pub fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// No process is left in any group a drainer started for its agents (their records
/// are gone too) and no fake agent's helper is alive.
pub fn assert_no_agent_left(env: &Env, dir: &Path) {
    let groups = dir.join(".git/fleet/groups");
    let left = || -> Vec<String> {
        std::fs::read_dir(&groups).map_or(Vec::new(), |d| {
            d.flatten()
                .map(|e| {
                    let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                    format!("{}: {text}", e.file_name().to_string_lossy())
                })
                .collect()
        })
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !left().is_empty() {
        assert!(
            Instant::now() < deadline,
            "the agents' group records never went: {:?}",
            left()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    for entry in std::fs::read_dir(env.path().join("runs"))
        .unwrap()
        .flatten()
    {
        let path = entry.path();
        // An empty file: the agent was killed between the shell creating it and
        // writing the pid; the scan below finds its helper all the same.
        if path.extension().is_some_and(|e| e == "pid")
            && std::fs::metadata(&path).is_ok_and(|m| m.len() > 0)
        {
            let pid = procs::read_pid(&path);
            wait_for(&format!("helper {pid} to die"), || !procs::live(pid));
        }
    }
    // Every agent's process (its helpers included) has the profile's `RUNS` in its
    // environment, whatever it managed to write.
    let runs = format!("RUNS={}", env.path().join("runs").display());
    wait_for("every process of the agents to die", || {
        procs::with_environment(&runs).is_empty()
    });
}

/// `seed` shared as machines share it: a bare `remote.git` cloned from it beside it, and
/// one clone of that per name in `clones` (each with `origin` pointing at the remote).
/// Returns the remote and the clones, in order.
pub fn through_a_bare_remote(env: &Env, seed: &Path, clones: &[&str]) -> (PathBuf, Vec<PathBuf>) {
    let remote = env.path().join("remote.git");
    env.git(
        &env.path(),
        &[
            "clone",
            "-q",
            "--bare",
            seed.to_str().unwrap(),
            "remote.git",
        ],
    );
    let clones = clones
        .iter()
        .map(|name| {
            env.git(
                &env.path(),
                &["clone", "-q", remote.to_str().unwrap(), name],
            );
            env.path().join(name)
        })
        .collect();
    (remote, clones)
}

/// A drainer running until stopped, its stderr read line by line as it comes; stopped
/// (SIGTERM, then SIGKILL) when dropped, so a failing test leaves no drainer behind.
pub struct LiveDrainer {
    pub child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    pub seen: Vec<String>,
}

impl LiveDrainer {
    pub fn start(env: &Env, dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> LiveDrainer {
        let mut child = env.fleet_cmd(dir, args).envs(vars).spawn();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        LiveDrainer {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Wait (generously) for a line of its stderr holding `text`.
    pub fn wait_for_line(&mut self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(90);
        while !self.seen.iter().any(|l| l.contains(text)) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "never said {text:?}: {:#?}", self.seen);
            if let Ok(line) = self.lines.recv_timeout(left) {
                self.seen.push(line);
            }
        }
    }

    /// What it said on stderr so far.
    pub fn said(&mut self) -> String {
        while let Ok(line) = self.lines.try_recv() {
            self.seen.push(line);
        }
        self.seen.join("\n")
    }

    /// `kill -9` it, and wait for it.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LiveDrainer {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
