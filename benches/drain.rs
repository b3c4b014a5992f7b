//! Per-task overhead of `fleet drain` against the shell glue a user writes today, task
//! after task, with a trivial agent (a script that writes one file and commits it) and
//! a check that is `true`.
//!
//!   cargo bench --bench drain
//!
//! `FLEET_BENCH_TASKS` tasks per run (default 20), `FLEET_BENCH_RUNS` runs (default 5);
//! every run makes two fresh 200-file repositories, one per side, with the same
//! fleet.toml (the agent profile is unused by the glue); `FLEET_BENCH_PACKED=1` packs
//! their objects first, as `git gc` leaves a repository in use.
//!
//! - **drain:** the tasks are added first (`fleet task add`, not timed), then one
//!   `fleet drain --max 1` (one agent at a time, as the glue runs them) is timed from its
//!   start to the line saying the last task's lane is ready; then it is stopped.
//! - **drain, two at once** (a second row, not the goal's): the same with `--max 2`,
//!   against the same serial glue.
//! - **glue:** one `sh` script looping over the same task names:
//!   `wt=$(fleet worktree new NAME)`, `cd "$wt"`, `fleet run -- AGENT`, then the check
//!   `true` and `fleet ready --exit-code $? --log FILE`. Locally `worktree new` tracks
//!   the lane itself, so no `fleet track`.
//!
//! Both sides must end with every lane ready and holding the agent's commit. The
//! drainer's stderr lines are timestamped as they arrive, which splits its time per task
//! into: claiming (from the previous task's end), making the worktree (claimed ->
//! running), the agent (running -> checking), the check and `ready` (checking -> ready).
//! With `[drain] prepare_ahead` (the default) the next task is claimed and its worktree
//! made while the current one runs, so from the second task on "claim" shows 0 and
//! "claimed -> running" spans the previous run too: the steps overlap. "Between two
//! agents" (the previous task's lane ready -> this task's "running" line) is the
//! drainer's own time that no run prepared ahead hides.
//!
//! Last, each side's CPU per task (user and system of everything it reaped) against its
//! wall time: near 2 on this 2-core machine would mean a side is bound by the cores.
//!
//! `FLEET_BENCH_STEPS=1` times the drain's steps from outside it as well: both sides'
//! agent then logs the wall-clock time of its first and last command (two `date`
//! processes more), and the drainer's "ready" lines are stamped with the wall clock as
//! they arrive, which splits a drained task into: previous lane ready -> the agent's first
//! command, the agent, the agent's last command -> its lane ready.

mod common;

use std::io::BufRead;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime};

use common::{Env, median, ms, runs};

const AGENT: &str =
    "#!/bin/sh\necho done > done.txt\ngit add done.txt\ngit commit -qm 'agent: one file'\n";

/// [`AGENT`] logging the wall-clock time of its first and last command, for
/// `FLEET_BENCH_STEPS=1`.
const LOGGING_AGENT: &str = "#!/bin/sh
echo \"$FLEET_TASK start $(date +%s.%N)\" >> \"$FLEET_BENCH_AGENT_LOG\"
echo done > done.txt
git add done.txt
git commit -qm 'agent: one file'
echo \"$FLEET_TASK end $(date +%s.%N)\" >> \"$FLEET_BENCH_AGENT_LOG\"
";

/// Where the logging agent of the run in `dir` writes.
fn agent_log(dir: &Path) -> std::path::PathBuf {
    dir.parent().unwrap().join("agent-times")
}

fn count(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

fn main() {
    let env = Env::new();
    let n = count("FLEET_BENCH_TASKS", 20);
    let agent = env.base.join("agent.sh");
    let outside = std::env::var_os("FLEET_BENCH_STEPS").is_some_and(|v| v == "1");
    std::fs::write(&agent, if outside { LOGGING_AGENT } else { AGENT }).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let toml = format!(
        "[gate]\ncommands = [\"true\"]\n\n[drain]\nagent = \"bench\"\n\n[agents.bench]\ncommand = [{:?}]\ncheck = [\"true\"]\n",
        agent.display().to_string()
    );
    let names: Vec<String> = (0..n).map(|i| format!("t{i:03}")).collect();
    // A fresh repository holds every object loose, the worst case for a checkout (gix
    // maps each loose object into memory and out again); a repository in use is mostly
    // packed (`git gc`). `FLEET_BENCH_PACKED=1` packs both sides' before the runs.
    let packed = std::env::var_os("FLEET_BENCH_PACKED").is_some_and(|v| v == "1");

    let (mut drain, mut glue, mut drain2) = (Vec::new(), Vec::new(), Vec::new());
    let mut steps: Vec<Steps> = Vec::new();
    let mut worktree_alone = Vec::new();
    // CPU (user + system) of each timed side and everything it reaped, per task.
    let (mut drain_cpu, mut glue_cpu) = (Vec::new(), Vec::new());
    for run in 0..runs(5) {
        // Alternate which side goes first, so neither always runs on a warmer machine.
        // 1 and 2: `fleet drain --max N`; 0: the glue.
        let sides: [usize; 3] = match run % 3 {
            0 => [1, 0, 2],
            1 => [0, 2, 1],
            _ => [2, 1, 0],
        };
        for side in sides {
            let drain_side = side > 0;
            let dir = env.base.join(format!(
                "{}-{run}/repo",
                match side {
                    0 => "glue",
                    1 => "drain",
                    _ => "drain2",
                }
            ));
            env.base_repo(&dir, &toml);
            env.git(&dir, &["config", "user.name", "Bench"]);
            env.git(&dir, &["config", "user.email", "bench@example.invalid"]);
            // Both sides' agents commit; git's automatic maintenance after a commit may
            // detach a process from the agent's group, which the drainer then stops and
            // warns about (a warning fails the run), at random under load. Off for both.
            env.git(&dir, &["config", "maintenance.auto", "false"]);
            if packed {
                env.git(&dir, &["repack", "-adq"]);
                env.git(&dir, &["prune"]);
            }
            if drain_side {
                for name in &names {
                    env.fleet(&dir, &["task", "add", name, "--prompt", "commit one file"]);
                }
                let cpu_before = reaped_cpu();
                let (took, s) = time_drain(&env, &dir, &names, side);
                if side == 1 {
                    drain.push(took / n as u32);
                    drain_cpu.push((reaped_cpu() - cpu_before) / n as u32);
                    steps.push(s);
                } else {
                    drain2.push(took / n as u32);
                }
            } else {
                let cpu_before = reaped_cpu();
                glue.push(time_glue(&env, &dir, &names, &agent) / n as u32);
                glue_cpu.push((reaped_cpu() - cpu_before) / n as u32);
            }
            assert_lanes_ready(&env, &dir, n);
            if !drain_side {
                // The step both sides share, alone: `fleet worktree new` as a process.
                for k in 0..3 {
                    let name = format!("alone-{k}");
                    worktree_alone.push(env.time_fleet(&dir, &["worktree", "new", &name]));
                }
            }
        }
    }

    println!(
        "{n} tasks one after another, per task (median of {} runs; objects {})\n",
        drain.len(),
        if packed { "packed" } else { "loose" }
    );
    println!("| per task | shell glue | `fleet drain --max 1` | ratio drain/glue |");
    println!("| --- | ---: | ---: | ---: |");
    common::report("trivial agent, check `true`", &glue, &drain);
    common::report(
        "the same, `fleet drain --max 2` (two agents at once; not the goal's row)",
        &glue,
        &drain2,
    );

    let step = |f: fn(&Steps) -> Duration| ms(median(&steps.iter().map(f).collect::<Vec<_>>()));
    println!("\n| `fleet drain`, per task (medians over runs of each run's median) | time |");
    println!("| --- | ---: |");
    println!(
        "| claim (previous task ready -> claimed) | {} |",
        step(|s| s.claim)
    );
    println!(
        "| worktree, lane, plan, agent start (claimed -> running) | {} |",
        step(|s| s.place)
    );
    println!(
        "| between two agents (previous task ready -> running) | {} |",
        step(|s| s.between)
    );
    println!(
        "| the agent (running -> checking) | {} |",
        step(|s| s.agent)
    );
    println!(
        "| check and ready (checking -> lane ready) | {} |",
        step(|s| s.check)
    );
    println!(
        "| first task: drainer start -> claimed | {} |",
        step(|s| s.start)
    );
    println!(
        "| for comparison: `fleet worktree new` alone, as a process (median of {}) | {} |",
        worktree_alone.len(),
        ms(median(&worktree_alone))
    );

    let outside: Vec<Outside> = steps.iter().filter_map(|s| s.outside).collect();
    if !outside.is_empty() {
        let each = |f: fn(&Outside) -> Duration| {
            outside
                .iter()
                .map(|o| ms(f(o)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!("\n| `fleet drain --max 1`, timed from outside, each run's median | runs |");
        println!("| --- | ---: |");
        println!(
            "| previous lane ready -> the agent's first command | {} |",
            each(|o| o.before)
        );
        println!(
            "| the agent, first command to last | {} |",
            each(|o| o.agent)
        );
        println!(
            "| the agent's last command -> its lane ready | {} |",
            each(|o| o.after)
        );
    }

    // CPU against wall time says whether a side is bound by this machine's cores: with
    // 2 cores, a side whose CPU per task is near twice its wall time cannot go faster by
    // doing its work side by side, only by doing less of it.
    println!("\n| per task, medians of the runs | shell glue | `fleet drain --max 1` |");
    println!("| --- | ---: | ---: |");
    println!(
        "| CPU (user + system, with every process reaped) | {} | {} |",
        ms(median(&glue_cpu)),
        ms(median(&drain_cpu))
    );
    let busy = |cpu: &[Duration], wall: &[Duration]| {
        median(cpu).as_secs_f64() / median(wall).as_secs_f64()
    };
    println!(
        "| cores busy (CPU / wall) | {:.2} | {:.2} |",
        busy(&glue_cpu, &glue),
        busy(&drain_cpu, &drain)
    );
}

/// User and system CPU of every child this bench has reaped so far (with what they
/// reaped in turn), from getrusage(2).
fn reaped_cpu() -> Duration {
    // SAFETY: getrusage(2) writes one rusage into the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// One run's medians of the drainer's steps.
#[derive(Default)]
struct Steps {
    start: Duration,
    claim: Duration,
    /// From the previous task's lane ready to this task's "running" line: the drainer's
    /// own time between two agents, which no run prepared ahead hides. (The line comes
    /// within 0.1 ms of the agent's first command, measured with an agent that logs its
    /// start.)
    between: Duration,
    place: Duration,
    agent: Duration,
    check: Duration,
    outside: Option<Outside>,
}

/// One run's medians of a drained task's steps timed from outside the drainer.
#[derive(Clone, Copy)]
struct Outside {
    /// The previous task's lane ready -> this agent's first command.
    before: Duration,
    /// The agent's first command -> its last.
    agent: Duration,
    /// The agent's last command -> its lane ready.
    after: Duration,
}

/// Start `fleet drain --max MAX`, wait for every task's lane to be ready, stop it.
fn time_drain(env: &Env, dir: &Path, names: &[String], max: usize) -> (Duration, Steps) {
    let max = max.to_string();
    let mut cmd = env.fleet_cmd(dir, &["drain", "--max", &max]);
    cmd.env("FLEET_BENCH_AGENT_LOG", agent_log(dir))
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().expect("fleet drain");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send((Instant::now(), SystemTime::now(), line)).is_err() {
                break;
            }
        }
    });
    let mut lines: Vec<(Instant, String)> = Vec::new();
    let mut ready_wall: Vec<(String, SystemTime)> = Vec::new();
    let deadline = started + Duration::from_secs(300);
    let mut ready = 0;
    let mut done = started;
    while ready < names.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok((at, wall, line)) = rx.recv_timeout(left) else {
            let _ = child.kill();
            panic!(
                "fleet drain did not make {} lanes ready:\n{}",
                names.len(),
                lines
                    .iter()
                    .map(|(_, l)| l.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        };
        if line.contains("is ready to land") {
            ready += 1;
            done = at;
            let name = line.split(':').next().unwrap_or_default().to_string();
            ready_wall.push((name, wall));
        }
        assert!(
            !line.starts_with("warning") && !line.contains(": failed"),
            "fleet drain: {line}"
        );
        lines.push((at, line));
    }
    let took = done - started;
    // SAFETY: kill(2) on the pid of a child this process started and has not reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();

    let at = |name: &str, what: &str| -> Instant {
        lines
            .iter()
            .find(|(_, l)| l.starts_with(&format!("{name}: ")) && l.contains(what))
            .unwrap_or_else(|| panic!("no `{what}` line for {name}"))
            .0
    };
    let (mut claim, mut place, mut agent, mut check) = (vec![], vec![], vec![], vec![]);
    let mut between = vec![];
    let mut previous = None;
    let mut start = Duration::ZERO;
    for name in names {
        let claimed = at(name, ": claimed (run");
        let running = at(name, ": running in");
        let checking = at(name, "the agent succeeded; checking");
        let ready = at(name, "is ready to land");
        match previous {
            None => start = claimed - started,
            Some(p) => {
                claim.push(claimed.saturating_duration_since(p));
                between.push(running.saturating_duration_since(p));
            }
        }
        place.push(running - claimed);
        agent.push(checking - running);
        check.push(ready - checking);
        previous = Some(ready);
    }
    // One task has no previous one to count from.
    let median_or_zero = |times: &[Duration]| {
        if times.is_empty() {
            Duration::ZERO
        } else {
            median(times)
        }
    };
    let steps = Steps {
        start,
        claim: median_or_zero(&claim),
        between: median_or_zero(&between),
        place: median(&place),
        agent: median(&agent),
        check: median(&check),
        outside: timed_from_outside(&agent_log(dir), names, &ready_wall),
    };
    (took, steps)
}

/// The drain's steps from outside it (`FLEET_BENCH_STEPS=1`): the logging agent's
/// times in `log` against each lane's ready line, as wall-clock seconds. `None` without
/// the log.
fn timed_from_outside(
    log: &Path,
    names: &[String],
    ready: &[(String, SystemTime)],
) -> Option<Outside> {
    let text = std::fs::read_to_string(log).ok()?;
    let secs = |name: &str, kind: &str| -> f64 {
        text.lines()
            .filter_map(|l| {
                let mut words = l.split_whitespace();
                (words.next()? == name && words.next()? == kind).then(|| words.next())?
            })
            .next()
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no {kind} time for {name} in {}", log.display()))
    };
    let ready = |name: &str| -> f64 {
        let at = ready
            .iter()
            .find(|(n, _)| n == name)
            .expect("a ready line")
            .1;
        at.duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
    };
    let span = |from: f64, to: f64| Duration::from_secs_f64((to - from).max(0.0));
    let before: Vec<Duration> = names
        .windows(2)
        .map(|w| span(ready(&w[0]), secs(&w[1], "start")))
        .collect();
    let agent: Vec<Duration> = names
        .iter()
        .map(|n| span(secs(n, "start"), secs(n, "end")))
        .collect();
    let after: Vec<Duration> = names
        .iter()
        .map(|n| span(secs(n, "end"), ready(n)))
        .collect();
    Some(Outside {
        before: median(&before),
        agent: median(&agent),
        after: median(&after),
    })
}

/// The glue, as one shell script over the task names.
fn time_glue(env: &Env, dir: &Path, names: &[String], agent: &Path) -> Duration {
    let logs = dir.parent().unwrap().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let script = format!(
        r#"set -e
for t in {names}; do
  wt=$(fleet worktree new "$t")
  cd "$wt"
  fleet run -- {agent}
  code=0; true > {logs}/"$t".log 2>&1 || code=$?
  fleet ready --exit-code "$code" --log {logs}/"$t".log
  cd {dir}
done
"#,
        names = names.join(" "),
        agent = agent.display(),
        logs = logs.display(),
        dir = dir.display(),
    );
    let fleet_dir = env.fleet.parent().unwrap();
    let path = format!(
        "{}:{}",
        fleet_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = env.cmd(Path::new("sh"), dir, &["-c", &script]);
    cmd.env("PATH", path)
        .env("FLEET_BENCH_AGENT_LOG", agent_log(dir));
    common::timed(cmd)
}

/// `n` lanes, every one ready, each branch one commit ahead of main with `done.txt`.
fn assert_lanes_ready(env: &Env, dir: &Path, n: usize) {
    let status = env.fleet_cmd(dir, &["status", "--json"]);
    let out = common::check(status);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // An array of lanes (an object with them when it also shows tasks).
    let lanes = doc
        .as_array()
        .or_else(|| doc["lanes"].as_array())
        .expect("status --json lists the lanes");
    assert_eq!(lanes.len(), n, "{doc}");
    for lane in lanes {
        assert_eq!(lane["state"], "ready", "{lane}");
        let branch = lane["branch"].as_str().unwrap();
        let files = env.git_stdout(dir, &["diff", "--name-only", "main", branch]);
        assert_eq!(files.trim(), "done.txt", "{branch}");
    }
}
