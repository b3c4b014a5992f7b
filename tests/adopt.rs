//! Adopting a project as the README says: its adoption steps, taken from README.md and
//! run literally in a fresh repository of each kind `fleet init` detects, up to a first
//! landing; and the guard after `fleet init --commit` refusing everything else.

use std::path::{Path, PathBuf};

use crate::common::{Env, assert::receipt, write};

const START: &str = "<!-- fleet adopt: start -->\n```sh\n";
const END: &str = "```\n<!-- fleet adopt: end -->";

/// The README's adoption steps: the shell text between the markers.
fn readme_steps() -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme
        .find(START)
        .expect("README.md has the fleet adopt block")
        + START.len();
    let end = start + readme[start..].find(END).expect("the block ends");
    readme[start..end].to_string()
}

/// A folder to put first on PATH: `fleet` (the binary under test) and fake `cargo`,
/// `npm`, `pytest`, `go` and `make`. The fakes stand in for the toolchains because a CI
/// machine lacks most of them (and a real `cargo test` of a fresh package takes minutes):
/// each appends its name and arguments to `tools.log` and exits 0, so what is tested is
/// that the gate runs the command `fleet init` detected, on the tree that lands.
fn fake_tools(env: &Env) -> (PathBuf, PathBuf) {
    let bin = env.path().join("bin");
    let log = env.path().join("tools.log");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_fleet"), bin.join("fleet")).unwrap();
    for tool in ["cargo", "npm", "pytest", "go", "make"] {
        let path = bin.join(tool);
        write(
            &path,
            &format!(
                "#!/bin/sh\necho \"{tool} $*\" >> '{}'\nexit 0\n",
                log.display()
            ),
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (bin, log)
}

fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A kind of project: its name, its files, and the gate `fleet init` must choose.
type Kind = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static str,
);

/// Each kind of project `fleet init` knows.
const KINDS: [Kind; 5] = [
    (
        "Cargo",
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"p\"\nversion = \"0.1.0\"\n",
            ),
            ("Cargo.lock", "version = 4\n"),
            ("src/lib.rs", "\n"),
        ],
        "cargo test --locked",
    ),
    (
        "npm",
        &[(
            "package.json",
            "{\"name\": \"p\", \"scripts\": {\"test\": \"node test.js\"}}\n",
        )],
        "npm test",
    ),
    (
        "Python",
        &[("pyproject.toml", "[project]\nname = \"p\"\n")],
        "pytest",
    ),
    (
        "Go",
        &[("go.mod", "module example.com/p\n")],
        "go test ./...",
    ),
    (
        "Make",
        &[("Makefile", "test:\n\t./run-tests\n")],
        "make test",
    ),
];

#[test]
fn readme_adoption_steps_land_a_first_lane_in_each_kind_of_project() {
    let steps = readme_steps();
    assert!(
        steps.contains("fleet init --commit") && steps.contains("fleet land"),
        "the README's adoption steps: {steps}"
    );
    for (kind, files, gate) in KINDS {
        let env = Env::new();
        let (bin, log) = fake_tools(&env);
        // The README's `your-project`, where the steps `cd` to.
        let project = env.path().join("your-project");
        env.repo(&project, "main", files);
        let before = env.git(&project, &["rev-parse", "main"]);
        let run = env
            .sh_cmd(&env.path(), &steps)
            .env("PATH", path_with(&bin))
            .run();
        assert_eq!(
            run.code, 0,
            "{kind}: the README's adoption steps failed\nstdout: {}\nstderr: {}",
            run.stdout, run.stderr
        );
        // The target moved: fleet.toml committed on it, then the lane landed on top.
        let tip = env.git(&project, &["rev-parse", "main"]);
        let line = env.git(&project, &["rev-list", "--first-parent", "main"]);
        let line: Vec<&str> = line.lines().collect();
        assert_eq!(line.len(), 3, "{kind}: main is {line:?}");
        assert_eq!(line[2], before, "{kind}");
        assert_eq!(
            env.git(
                &project,
                &["diff-tree", "--no-commit-id", "--name-only", "-r", line[1]]
            ),
            "fleet.toml",
            "{kind}: the adoption commit holds fleet.toml alone"
        );
        let config: toml::Value =
            toml::from_str(&env.git(&project, &["show", "main:fleet.toml"])).unwrap();
        assert_eq!(
            config["gate"]["commands"],
            toml::Value::Array(vec![toml::Value::String(gate.to_string())]),
            "{kind}"
        );
        assert_eq!(config["lanes"]["target"].as_str(), Some("main"), "{kind}");
        assert_eq!(env.git(&project, &["show", "main:HELLO.md"]), "hello");
        // The gate ran the detected command.
        let ran = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            ran.lines().any(|l| l.trim_end() == gate),
            "{kind}: the gate did not run `{gate}`: {ran:?}"
        );
        // The receipt verifies.
        let _ = receipt(&env, &project, &tip);
        env.fleet_cmd(&project, &["verify"])
            .env("PATH", path_with(&bin))
            .run()
            .ok();
        // The guard still refuses a plain commit in the shared checkout.
        env.guard_refuses(&project, &["commit", "--allow-empty", "-qm", "after"]);
        assert_eq!(env.git(&project, &["rev-parse", "main"]), tip, "{kind}");
        let log = std::fs::read_to_string(project.join(".git/fleet/guard.log")).unwrap();
        assert!(
            log.lines()
                .any(|l| l.contains("\"allowed\"") && l.contains("fleet.toml")),
            "{kind}: the adoption commit is not logged as allowed: {log}"
        );
    }
}

/// The shared checkout's guard is installed and refuses a plain commit; main stays at
/// `tip`.
fn guard_holds(env: &Env, project: &Path, tip: &str) {
    env.guard_refuses(project, &["commit", "--allow-empty", "-qm", "plain"]);
    assert_eq!(env.git(project, &["rev-parse", "main"]), tip);
}

#[test]
fn init_without_commit_prints_a_commit_command_that_works_under_the_guard() {
    let env = Env::new();
    let project = env.path().join("p");
    env.repo(&project, "main", &[("go.mod", "module p\n")]);
    let before = env.git(&project, &["rev-parse", "main"]);
    // Something of the human's staged already: not part of the adoption commit.
    write(&project.join("notes.txt"), "mine\n");
    env.git(&project, &["add", "notes.txt"]);
    let run = env.fleet(&project, &["init"]).ok();
    let by_hand = "git add fleet.toml && FLEET_ALLOW_SHARED=1 git commit -m 'Adopt fleet: fleet.toml' -- fleet.toml";
    assert!(
        run.stderr.contains("`fleet init --commit`") && run.stderr.contains(by_hand),
        "{}",
        run.stderr
    );
    assert_eq!(env.git(&project, &["rev-parse", "main"]), before);
    let json: serde_json::Value =
        serde_json::from_str(&env.fleet(&project, &["init", "--json"]).ok().stdout).unwrap();
    assert_eq!(json["on_target"], "no_gate_yet");
    assert_eq!(json["commit_command"], "fleet init --commit");
    assert_eq!(json["commit_by_hand"], by_hand);
    // The printed command, run as printed, in the shared checkout under the guard.
    env.sh_cmd(&project, json["commit_by_hand"].as_str().unwrap())
        .run()
        .ok();
    let tip = env.git(&project, &["rev-parse", "main"]);
    assert_eq!(env.git(&project, &["rev-parse", "main^"]), before);
    assert_eq!(
        env.git(
            &project,
            &["diff-tree", "--no-commit-id", "--name-only", "-r", &tip]
        ),
        "fleet.toml"
    );
    assert_eq!(
        env.git(&project, &["diff", "--cached", "--name-only"]),
        "notes.txt"
    );
    let json: serde_json::Value =
        serde_json::from_str(&env.fleet(&project, &["init", "--json"]).ok().stdout).unwrap();
    assert_eq!(json["on_target"], "committed");
    assert_eq!(json["commit_command"], serde_json::Value::Null);
    guard_holds(&env, &project, &tip);
}

#[test]
fn init_commit_commits_fleet_toml_alone_and_the_guard_refuses_everything_else() {
    let env = Env::new();
    let project = env.path().join("p");
    env.repo(&project, "main", &[("Makefile", "test:\n\ttrue\n")]);
    let before = env.git(&project, &["rev-parse", "main"]);
    write(&project.join("notes.txt"), "mine\n");
    env.git(&project, &["add", "notes.txt"]);
    let run = env.fleet(&project, &["init", "--commit", "--json"]).ok();
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let tip = env.git(&project, &["rev-parse", "main"]);
    assert_eq!(json["committed"]["commit"], tip.as_str());
    assert_eq!(json["committed"]["new"], true);
    assert_eq!(json["detected"]["chosen"]["command"], "make test");
    assert_eq!(json["gate"][0], "make test");
    assert_eq!(env.git(&project, &["rev-parse", "main^"]), before);
    assert_eq!(
        env.git(
            &project,
            &["diff-tree", "--no-commit-id", "--name-only", "-r", &tip]
        ),
        "fleet.toml"
    );
    // What the human had staged is still staged, and uncommitted.
    assert_eq!(
        env.git(&project, &["diff", "--cached", "--name-only"]),
        "notes.txt"
    );
    let log = std::fs::read_to_string(project.join(".git/fleet/guard.log")).unwrap();
    assert!(
        log.lines().any(|l| l.contains("\"allowed\"")
            && l.contains("\"commit\"")
            && l.contains("fleet.toml")),
        "{log}"
    );
    // Run again: nothing to do.
    let json: serde_json::Value = serde_json::from_str(
        &env.fleet(&project, &["init", "--commit", "--json"])
            .ok()
            .stdout,
    )
    .unwrap();
    assert_eq!(json["committed"]["new"], false);
    assert_eq!(env.git(&project, &["rev-parse", "main"]), tip);
    guard_holds(&env, &project, &tip);
    // Once the target has a gate, `--commit` cannot weaken it: a lane's job.
    let text = std::fs::read_to_string(project.join("fleet.toml"))
        .unwrap()
        .replace("commands = [\"make test\"]", "commands = [\"true\"]");
    write(&project.join("fleet.toml"), &text);
    let run = env.refused(&project, &["init", "--commit"], "already has a gate");
    assert!(run.stderr.contains("--allow-protected"), "{}", run.stderr);
    assert_eq!(env.git(&project, &["rev-parse", "main"]), tip);
    assert!(
        env.git(&project, &["show", "main:fleet.toml"])
            .contains("commands = [\"make test\"]")
    );
    guard_holds(&env, &project, &tip);
}

#[test]
fn init_with_no_gate_found_says_how_to_set_it_and_land_names_gate_commands() {
    let env = Env::new();
    let project = env.path().join("p");
    env.repo(&project, "main", &[("README.md", "hi\n")]);
    let run = env.fleet(&project, &["init", "--commit"]).ok();
    assert!(
        run.stderr.contains("found no test command") && run.stderr.contains("[gate] commands"),
        "{}",
        run.stderr
    );
    let text = std::fs::read_to_string(project.join("fleet.toml")).unwrap();
    assert!(
        text.contains("# fleet init found no test command"),
        "{text}"
    );
    assert!(text.contains("\ncommands = []"), "{text}");
    let wt = env.agent(&project, "first");
    env.commit_file(&wt, "a.txt", "a\n", "a");
    env.fleet(&wt, &["ready"]).ok();
    let tip = env.git(&project, &["rev-parse", "main"]);
    let run = env.fleet(&project, &["land", "first", "--yes"]).code(2);
    assert!(
        run.stderr.contains("[gate] commands") && run.stderr.contains("fleet init --commit"),
        "{}",
        run.stderr
    );
    assert_eq!(env.git(&project, &["rev-parse", "main"]), tip);
    // The fix the error names works: set the gate, commit it, land.
    write(
        &project.join("fleet.toml"),
        &text.replace("\ncommands = []", "\ncommands = [\"test -f README.md\"]"),
    );
    env.fleet(&project, &["init", "--commit"]).ok();
    env.fleet(&project, &["land", "first", "--yes"]).ok();
    assert_eq!(env.git(&project, &["show", "main:a.txt"]), "a");
    let tip = env.git(&project, &["rev-parse", "main"]);
    guard_holds(&env, &project, &tip);
}

#[test]
fn init_commit_on_an_unborn_branch_makes_fleet_toml_its_first_commit() {
    let env = Env::new();
    let project = env.path().join("p");
    std::fs::create_dir_all(&project).unwrap();
    env.git(&project, &["init", "-q", "-b", "trunk"]);
    write(&project.join("Cargo.toml"), "[package]\n");
    let json: serde_json::Value = serde_json::from_str(
        &env.fleet(&project, &["init", "--commit", "--json"])
            .ok()
            .stdout,
    )
    .unwrap();
    assert_eq!(json["target"], "trunk");
    // No Cargo.lock: `--locked` would fail every gate.
    assert_eq!(json["gate"][0], "cargo test");
    let tip = env.git(&project, &["rev-parse", "trunk"]);
    assert_eq!(
        env.git(&project, &["ls-tree", "--name-only", "-r", &tip]),
        "fleet.toml"
    );
    env.guard_refuses(&project, &["commit", "--allow-empty", "-qm", "plain"]);
    assert_eq!(env.git(&project, &["rev-parse", "trunk"]), tip);
}

#[test]
fn init_on_a_detached_head_refuses_and_writes_nothing() {
    let env = Env::new();
    let project = env.path().join("p");
    env.repo(&project, "main", &[("go.mod", "module p\n")]);
    env.git(&project, &["switch", "-q", "--detach"]);
    let run = env.refused(&project, &["init", "--commit"], "detached HEAD");
    assert!(run.stderr.contains("git switch"), "{}", run.stderr);
    assert!(!project.join("fleet.toml").exists());
}
