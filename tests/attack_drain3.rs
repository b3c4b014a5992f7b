//! A third adversarial review of `fleet drain`, through a remote: a run whose agent
//! and check did their work but whose lane could not be published or made ready (the
//! remote out of reach, a hook there saying no) is kept and finished, not failed and
//! run again; and drainers of two clones racing on one remote whose hook refuses pushes
//! at random. Each test is named after the promise it holds fleet to and checks the
//! state afterwards.

use std::path::Path;

use crate::common::drain::{
    LiveDrainer, add, json, project, runs, through_a_bare_remote, wait_for,
};
use crate::common::{Env, write};

/// A fake agent of these tests, as `[agents.NAME]` (`RUNS` is the fixtures' scratch
/// folder).
fn agent(env: &Env, name: &str, body: &str) -> String {
    let script = env.path().join("agents").join(format!("{name}.sh"));
    write(&script, &format!("#!/bin/sh\n{body}"));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "[agents.{name}]\ncommand = [{:?}]\ntimeout = \"120s\"\nenv = {{ RUNS = {:?} }}\n",
        script.display().to_string(),
        env.path().join("runs").display().to_string(),
    )
}

/// `fleet task show NAME --json --remote origin` in `dir`: the task.
fn show_remote(env: &Env, dir: &Path, name: &str) -> serde_json::Value {
    let doc = json(env.fleet(dir, &["task", "show", name, "--json", "--remote", "origin"]));
    doc.get("task").cloned().unwrap_or(doc)
}

/// The lanes of the remote's queue as clone `dir` sees them: (branch, state).
fn remote_lanes(env: &Env, dir: &Path) -> Vec<(String, String)> {
    let status = env
        .fleet(dir, &["status", "--remote", "origin", "--json"])
        .ok();
    let lanes: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    lanes
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["branch"].as_str().unwrap().to_string(),
                l["state"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The runs the agents of these tests logged in `$RUNS/ran`, one run id a line.
fn ran(env: &Env) -> Vec<String> {
    std::fs::read_to_string(env.path().join("runs/ran"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// After a task through the remote ended: it succeeded in one run whose agent ran once,
/// and its lane is on the remote, at the agent's commit, ready (as clone `other` sees it).
fn assert_published_once(env: &Env, remote: &Path, mine: &Path, other: &Path, task: &str) {
    let shown = show_remote(env, mine, task);
    assert_eq!(shown["state"], "succeeded", "{shown:#}");
    let all = runs(&shown);
    assert_eq!(all.len(), 1, "{shown:#}");
    assert_eq!(all[0]["outcome"], "succeeded", "{shown:#}");
    assert_eq!(all[0]["attempt"], 1, "{shown:#}");
    assert_eq!(ran(env), vec![all[0]["id"].as_str().unwrap().to_string()]);
    let branch = all[0]["branch"].as_str().unwrap();
    let here = env.git(mine, &["rev-parse", branch]);
    assert_eq!(env.git(remote, &["rev-parse", branch]), here);
    assert_eq!(
        env.git(remote, &["log", "-1", "--format=%s", branch]),
        "work"
    );
    assert!(
        remote_lanes(env, other).contains(&(branch.to_string(), "ready".to_string())),
        "{:?}",
        remote_lanes(env, other)
    );
}

/// Wait until the run the remote records for `task` is running (its start pushed).
fn until_running(remote: &Path) -> String {
    format!(
        "i=0; until git --git-dir={remote:?} log --format=%s \"refs/fleet/tasks/$FLEET_TASK\" 2>/dev/null | grep -q running; do sleep 0.1; i=$((i+1)); [ $i -gt 900 ] && break; done\n"
    )
}

#[test]
fn a_run_whose_publish_found_the_remote_gone_is_published_once_it_is_back_without_running_its_agent_again()
 {
    let env = Env::new();
    let remote = env.path().join("remote.git");
    let away = env.path().join("remote-away.git");
    // The agent commits, then takes the remote away (an outage just as the run ends,
    // before its check and its publish); a second run would only commit.
    let body = format!(
        "echo \"$FLEET_RUN\" >> \"$RUNS/ran\"\necho x > x.txt; git add -A; git commit -qm work\n{}if [ ! -e \"$RUNS/broke\" ]; then mv {remote:?} {away:?}; touch \"$RUNS/broke\"; fi\n",
        until_running(&remote)
    );
    let seed = project(&env, &agent(&env, "outage", &body));
    let (_, clones) = through_a_bare_remote(&env, &seed, &["a", "b"]);
    let (a, b) = (clones[0].clone(), clones[1].clone());
    add(&env, &a, "t", &["--remote", "origin", "--agent", "outage"]);
    let mut drainer = LiveDrainer::start(&env, &a, &["drain", "--remote", "origin"], &[]);
    drainer.wait_for_line("could not be made ready yet");
    std::fs::rename(&away, &remote).unwrap();

    wait_for("the task to succeed", || {
        show_remote(&env, &a, "t")["state"] == "succeeded"
    });
    let said = drainer.said();
    drop(drainer);
    assert!(said.contains("the agent does not run again"), "{said}");
    assert_published_once(&env, &remote, &a, &b, "t");
}

/// A `pre-receive` hook for the remote that refuses every branch but `main` while
/// `deny` exists (the task refs and the registry go in).
fn deny_lanes_hook(remote: &Path, deny: &Path) {
    let hook = remote.join("hooks/pre-receive");
    write(
        &hook,
        &format!(
            "#!/bin/sh\nwhile read old new ref; do\n  case \"$ref\" in refs/heads/main) ;; refs/heads/*) [ -e {deny:?} ] && {{ echo \"lanes closed: $ref\" >&2; exit 1; }} ;; esac\ndone\nexit 0\n"
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_drainer_killed_while_its_checked_run_waits_for_its_publish_leaves_it_to_the_next_which_publishes_it_once()
 {
    let env = Env::new();
    let deny = env.path().join("deny");
    // The agent commits and closes the remote's branches to pushes (a hook there says
    // no) as its run ends.
    let body = format!(
        "echo \"$FLEET_RUN\" >> \"$RUNS/ran\"\necho x > x.txt; git add -A; git commit -qm work\n[ -e \"$RUNS/denied\" ] || {{ touch {deny:?} \"$RUNS/denied\"; }}\n"
    );
    let seed = project(&env, &agent(&env, "denied", &body));
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["a", "b"]);
    deny_lanes_hook(&remote, &deny);
    let (a, b) = (clones[0].clone(), clones[1].clone());
    add(&env, &a, "t", &["--remote", "origin", "--agent", "denied"]);
    let mut drainer = LiveDrainer::start(&env, &a, &["drain", "--remote", "origin"], &[]);
    drainer.wait_for_line("could not be made ready yet");
    // What it kept is on the task, for whichever drainer finishes it.
    wait_for("the checked run to be recorded", || {
        let shown = show_remote(&env, &a, "t");
        shown["state"] == "running" && !runs(&shown)[0]["unpublished"].is_null()
    });
    drainer.kill9();
    std::fs::remove_file(&deny).unwrap();

    let next = json(env.fleet(&a, &["drain", "--once", "--json", "--remote", "origin"]));
    assert_eq!(next["taken_back"][0]["state"], "succeeded", "{next:#}");
    assert!(
        next["runs"].as_array().unwrap().is_empty(),
        "it ran an agent: {next:#}"
    );
    assert_published_once(&env, &remote, &a, &b, "t");
}
