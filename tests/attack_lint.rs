//! Hostile input for `fleet lint`, `fleet gate` and the forbidden-marker check: code
//! nested past any stack, tracked symbolic links to a named pipe and to `/dev/zero`,
//! files over the size cap, and markers hidden in UTF-16 text.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{Cmd, Env, Run, write};

/// One spawn of an agent without a group, in each language the lint checks, after
/// `nesting` levels of brackets: (file name, text).
fn nested_in_every_language(nesting: usize) -> Vec<(&'static str, String)> {
    let open = |s: &str| s.repeat(nesting);
    let paren = format!("{}1{}", open("("), open(")"));
    vec![
        (
            "deep.rs",
            format!(
                "fn main() {{\n    let x = {paren};\n    std::process::Command::new(\"claude\").spawn();\n}}\n"
            ),
        ),
        (
            "deep.py",
            format!("import subprocess\nx = {paren}\nsubprocess.Popen([\"claude\"])\n"),
        ),
        (
            "deep.js",
            format!(
                "const cp = require(\"child_process\");\nconst x = {}1{};\ncp.spawn(\"claude\");\n",
                open("["),
                open("]")
            ),
        ),
        (
            "deep.ts",
            format!(
                "import {{ spawn }} from \"child_process\";\nconst x = {paren};\nspawn(\"claude\");\n"
            ),
        ),
        (
            "deep.tsx",
            format!(
                "import {{ spawn }} from \"child_process\";\nconst x = {paren};\nspawn(\"claude\");\n"
            ),
        ),
        (
            "deep.sh",
            format!("x={}echo 1{}\nclaude -p hi\n", open("$("), open(")")),
        ),
    ]
}

/// Every extension the lint reads, for the shapes that are the same in each language.
const EXTENSIONS: [&str; 6] = ["rs", "py", "js", "ts", "tsx", "sh"];

/// Run `cmd`, killing it (and failing the test) if it is still running after a
/// generous deadline: a hang must fail the test, never hang it.
fn run_or_kill(cmd: Cmd, what: &str) -> Run {
    let mut child = cmd.spawn();
    let pipe = |p: Option<Box<dyn Read + Send>>| {
        let mut p = p.unwrap();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = p.read_to_string(&mut text);
            text
        })
    };
    let stdout = pipe(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = pipe(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} still running after two minutes: killed");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// `fleet lint --json` in `repo`, bounded; exits 0 or 1 (never a crash), with its report.
fn lint_json(env: &Env, repo: &Path) -> (i32, serde_json::Value) {
    let run = run_or_kill(env.fleet_cmd(repo, &["lint", "--json"]), "fleet lint");
    assert!(
        run.code == 0 || run.code == 1,
        "fleet lint exit {}: {}",
        run.code,
        run.stderr
    );
    (run.code, serde_json::from_str(&run.stdout).unwrap())
}

/// `fleet gate --base BASE --json` in `repo`, bounded; exits 0 or 1, with the lint step.
fn gate_lint_step(env: &Env, repo: &Path, base: &str) -> (i32, serde_json::Value) {
    let run = run_or_kill(
        env.fleet_cmd(repo, &["gate", "--base", base, "--json"]),
        "fleet gate",
    );
    assert!(
        run.code == 0 || run.code == 1,
        "fleet gate exit {}: {}",
        run.code,
        run.stderr
    );
    let summary: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let step = summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "lint")
        .cloned()
        .unwrap();
    (run.code, step)
}

/// (path, rule) of every finding of a lint report.
fn findings(report: &serde_json::Value) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    all.sort();
    all
}

/// A repository with one empty commit; returns it and that commit.
fn empty_repo(env: &Env) -> (PathBuf, String) {
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("README", "r\n")]);
    let base = env.git(&repo, &["rev-parse", "HEAD"]);
    (repo, base)
}

#[test]
fn code_nested_past_any_stack_is_a_finding_of_lint_and_gate_in_every_language_never_a_crash() {
    let env = Env::new();
    let (repo, base) = empty_repo(&env);
    let files = nested_in_every_language(50_000);
    for (name, text) in &files {
        write(&repo.join(name), text);
    }
    // The shape that overflowed before, a thousand parentheses of Rust, is plain code:
    // linted, its spawn found.
    write(
        &repo.join("thousand.rs"),
        &nested_in_every_language(1000)[0].1,
    );
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "deep"]);

    let (code, report) = lint_json(&env, &repo);
    assert_eq!(code, 1);
    let mut expected: Vec<(String, String)> = files
        .iter()
        .map(|(name, _)| (name.to_string(), "file-not-checked".to_string()))
        .collect();
    expected.push(("thousand.rs".into(), "agent-spawn-without-group".into()));
    expected.sort();
    assert_eq!(findings(&report), expected, "{report:#}");
    let text = run_or_kill(env.fleet_cmd(&repo, &["lint", "deep.py"]), "fleet lint").code(1);
    assert!(
        text.stdout.contains("nested more than") && text.stdout.contains("cannot check"),
        "{}",
        text.stdout
    );

    let (code, step) = gate_lint_step(&env, &repo, &base);
    assert_eq!(code, 1);
    assert_eq!(step["passed"], false);
    let problems = step["problems"].to_string();
    for (name, _) in &files {
        assert!(
            problems.contains(&format!("{name}:")) && problems.contains("file-not-checked"),
            "{name}: {step:#}"
        );
    }
    assert!(problems.contains("thousand.rs:"), "{step:#}");
}

#[test]
fn lint_and_gate_never_read_through_symlinks_to_a_named_pipe_or_dev_zero() {
    let env = Env::new();
    let (repo, base) = empty_repo(&env);
    let fifo = env.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let mut links = Vec::new();
    for ext in EXTENSIONS {
        for (stem, target) in [("p", fifo.as_path()), ("z", Path::new("/dev/zero"))] {
            let name = format!("{stem}.{ext}");
            std::os::unix::fs::symlink(target, repo.join(&name)).unwrap();
            links.push(name);
        }
    }
    // An extensionless link too: it would be read for a `#!` line.
    std::os::unix::fs::symlink("/dev/zero", repo.join("tool")).unwrap();
    links.push("tool".into());
    // A link to a regular file of the repository: not followed, the file itself is linted.
    write(
        &repo.join("real.py"),
        "import subprocess\nsubprocess.Popen([\"claude\"])\n",
    );
    std::os::unix::fs::symlink("real.py", repo.join("alias.py")).unwrap();
    links.push("alias.py".into());
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "links"]);
    // A named pipe where a tracked file was.
    write(&repo.join("was_file.py"), "x = 1\n");
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "a file"]);
    std::fs::remove_file(repo.join("was_file.py")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(repo.join("was_file.py"))
        .status()
        .unwrap();
    assert!(made.success());

    let (code, report) = lint_json(&env, &repo);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(
        findings(&report),
        [(
            "real.py".to_string(),
            "agent-spawn-without-group".to_string()
        )]
    );
    let skipped: Vec<(String, String)> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_string(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut expected = links.clone();
    expected.push("was_file.py".into());
    expected.sort();
    let paths: Vec<String> = skipped.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(paths, expected, "{report:#}");
    for (path, reason) in &skipped {
        let kind = if path == "was_file.py" {
            "not a regular file"
        } else {
            "symbolic link"
        };
        assert!(reason.contains(kind), "{path}: {reason}");
    }
    // Said in the text output, not only in JSON.
    let text = run_or_kill(env.fleet_cmd(&repo, &["lint"]), "fleet lint").code(1);
    assert!(
        text.stderr.contains("z.py: not linted: a symbolic link"),
        "{}",
        text.stderr
    );
    // The pipe is still a pipe (a writer never came, no reader blocked on it).
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());

    // The gate reads the links from git objects: their blobs are paths, not code.
    let (code, step) = gate_lint_step(&env, &repo, &base);
    assert_eq!(code, 1, "{step:#}");
    let problems = step["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{step:#}");
    assert!(problems[0].as_str().unwrap().starts_with("real.py:2:"));
}

#[test]
fn a_file_over_the_size_cap_is_a_finding_of_lint_and_gate_in_every_language() {
    let env = Env::new();
    let (repo, base) = empty_repo(&env);
    // Just over 16 MiB: mostly a comment, with a spawn the lint would otherwise find.
    let filler = " ".repeat((16 << 20) + 1);
    let mut names = Vec::new();
    for ext in EXTENSIONS {
        let name = format!("big.{ext}");
        let (comment, spawn) = match ext {
            "rs" => (
                "//",
                "fn f() { std::process::Command::new(\"claude\").spawn(); }",
            ),
            "py" => ("#", "import subprocess\nsubprocess.Popen([\"claude\"])"),
            "sh" => ("#", "claude -p hi"),
            _ => ("//", "require(\"child_process\").spawn(\"claude\");"),
        };
        write(&repo.join(&name), &format!("{spawn}\n{comment}{filler}\n"));
        names.push(name);
    }
    names.sort();
    // A large file that is not code (no checked language) is not the lint's business.
    write(&repo.join("data.bin"), &filler);
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "big"]);

    let (code, report) = lint_json(&env, &repo);
    assert_eq!(code, 1);
    let expected: Vec<(String, String)> = names
        .iter()
        .map(|n| (n.clone(), "file-not-checked".to_string()))
        .collect();
    assert_eq!(findings(&report), expected, "{report:#}");
    let message = report["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("larger than 16 MiB"), "{message}");

    let (code, step) = gate_lint_step(&env, &repo, &base);
    assert_eq!(code, 1);
    let problems = step["problems"].to_string();
    for name in &names {
        assert!(
            problems.contains(&format!("{name}:1:1: larger than 16 MiB")),
            "{name}: {step:#}"
        );
    }
}

/// `text` as UTF-16 (little- or big-endian), behind a byte-order mark when `bom`.
fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
    let mut units: Vec<u16> = Vec::new();
    if bom {
        units.push(0xFEFF);
    }
    units.extend(text.encode_utf16());
    units
        .iter()
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

#[test]
fn a_forbidden_marker_in_a_utf16_file_is_refused_by_land_and_gate_and_binary_files_still_land() {
    let env = Env::new();
    // main forbids TODO_SCRUB; its gate always passes.
    let repo = env.gated_repo("true");
    let old = env.git(&repo, &["rev-parse", "main"]);
    let text = "first line\r\nsecond TODO_SCRUB line\r\n";
    let lanes: [(&str, &str, Vec<u8>); 4] = [
        ("le", "notes.txt", utf16(text, false, true)),
        ("be", "notes.txt", utf16(text, true, true)),
        ("nobom", "notes.txt", utf16(text, false, false)),
        // A real binary: NULs everywhere, bytes of every value, no marker.
        (
            "bin",
            "image.png",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"
                .iter()
                .copied()
                .chain((0..4096u32).map(|i| (i * 7 % 256) as u8))
                .collect(),
        ),
    ];
    let mut worktrees = Vec::new();
    for (lane, name, bytes) in &lanes {
        let wt = env.agent(&repo, lane);
        std::fs::write(wt.join(name), bytes).unwrap();
        env.git(&wt, &["add", "-A"]);
        env.git(&wt, &["commit", "-q", "-m", lane]);
        worktrees.push(wt);
    }

    // The gate, in each lane's checkout, against main.
    for ((lane, _, _), wt) in lanes.iter().zip(&worktrees) {
        let run = env.fleet(wt, &["gate", "--base", "main", "--json"]);
        let summary: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let protected = summary["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "protected")
            .cloned()
            .unwrap();
        if *lane == "bin" {
            assert_eq!(run.code, 0, "{summary:#}");
            assert_eq!(protected["passed"], true);
        } else {
            assert_eq!(run.code, 1, "{lane}: {summary:#}");
            assert!(
                protected["problems"]
                    .to_string()
                    .contains("adds forbidden marker TODO_SCRUB"),
                "{lane}: {summary:#}"
            );
        }
    }

    env.fleet(&repo, &["track", "--ready", "le", "be", "nobom", "bin"])
        .ok();
    let run = env.refused(&repo, &["land", "--all", "--yes"], "landed fleet/bin");
    // With a byte-order mark the text is decoded: the refusal names the line.
    assert_eq!(
        run.stderr
            .matches("notes.txt:2: adds forbidden marker TODO_SCRUB")
            .count(),
        2,
        "{}",
        run.stderr
    );
    // Without one, the bytes are searched in every encoding.
    assert!(
        run.stderr
            .contains("notes.txt: binary file adds forbidden marker TODO_SCRUB"),
        "{}",
        run.stderr
    );
    // main gained the binary and nothing else.
    let landed = env.git(&repo, &["diff", "--name-only", &old, "main"]);
    assert_eq!(landed, "image.png");
    let states = crate::common::assert::lane_states(&env, &repo);
    for lane in ["le", "be", "nobom"] {
        let state = states
            .iter()
            .find(|(b, _)| b == &format!("fleet/{lane}"))
            .map(|(_, s)| s.clone());
        assert!(
            state.as_deref().is_some_and(|s| s != "landed"),
            "{lane}: {states:?}"
        );
    }
}
