//! The labelled corpus of the spawn lint: snippets per language under tests/lint_corpus/,
//! each finding the lint must report marked on its line with `expect: RULE` in a comment
//! (several rules: `expect: A, B`). Lines without a marker expect nothing. The corpus is
//! copied into a throwaway repository and linted by the real binary; precision and recall
//! are printed per language and overall, and must both be 100%.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common::Env;

/// (path relative to the corpus root, 1-based line, rule)
type Label = (String, usize, String);

const MARKER: &str = "expect:";

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint_corpus")
}

fn corpus_files(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            corpus_files(&path, root, out);
        } else {
            let rel = path.strip_prefix(root).unwrap();
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The rules named after `expect:` on one line: words made of lowercase letters and
/// dashes, starting with a letter, separated by commas or spaces.
fn labels_on(line: &str) -> Vec<String> {
    let Some(at) = line.find(MARKER) else {
        return Vec::new();
    };
    line[at + MARKER.len()..]
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .take_while(|w| {
            w.starts_with(|c: char| c.is_ascii_lowercase())
                && w.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        })
        .map(str::to_string)
        .collect()
}

fn expected(root: &Path, files: &[String]) -> BTreeSet<Label> {
    let mut out = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for (i, line) in text.lines().enumerate() {
            for rule in labels_on(line) {
                out.insert((file.clone(), i + 1, rule));
            }
        }
    }
    out
}

fn language(path: &str) -> &str {
    path.split('/').next().unwrap_or(path)
}

fn percent(num: usize, den: usize) -> f64 {
    if den == 0 {
        100.0
    } else {
        100.0 * num as f64 / den as f64
    }
}

#[derive(Default)]
struct Tally {
    files: usize,
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Tally {
    fn line(&self, name: &str) -> String {
        format!(
            "{name:<12} files {:>3}  expected {:>3}  reported {:>3}  precision {:>6.2}%  recall {:>6.2}%",
            self.files,
            self.tp + self.fn_,
            self.tp + self.fp,
            percent(self.tp, self.tp + self.fp),
            percent(self.tp, self.tp + self.fn_),
        )
    }
}

/// Shown even when the test passes and output is captured.
fn show(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

#[test]
fn lint_corpus_precision_and_recall() {
    let root = corpus_root();
    let mut files = Vec::new();
    corpus_files(&root, &root, &mut files);
    assert!(!files.is_empty(), "no corpus under {}", root.display());

    let env = Env::new();
    let repo = env.path().join("corpus");
    std::fs::create_dir_all(&repo).unwrap();
    env.git(&repo, &["init", "-q", "-b", "main"]);
    for file in &files {
        let from = root.join(file);
        let to = repo.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "corpus"]);

    let run = env.fleet(&repo, &["lint", "--json"]);
    assert!(
        run.code == 0 || run.code == 1,
        "fleet lint failed ({})\nstdout: {}\nstderr: {}",
        run.code,
        run.stdout,
        run.stderr
    );
    let report: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stdout));

    let reported: BTreeSet<Label> = report["findings"]
        .as_array()
        .expect("findings array")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap() as usize,
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = expected(&root, &files);

    let mut per_language: BTreeMap<String, Tally> = BTreeMap::new();
    for file in &files {
        per_language
            .entry(language(file).to_string())
            .or_default()
            .files += 1;
    }
    let false_positives: Vec<&Label> = reported.difference(&expected).collect();
    let false_negatives: Vec<&Label> = expected.difference(&reported).collect();
    for label in reported.intersection(&expected) {
        per_language
            .entry(language(&label.0).into())
            .or_default()
            .tp += 1;
    }
    for label in &false_positives {
        per_language
            .entry(language(&label.0).into())
            .or_default()
            .fp += 1;
    }
    for label in &false_negatives {
        per_language
            .entry(language(&label.0).into())
            .or_default()
            .fn_ += 1;
    }
    let mut overall = Tally::default();
    for tally in per_language.values() {
        overall.files += tally.files;
        overall.tp += tally.tp;
        overall.fp += tally.fp;
        overall.fn_ += tally.fn_;
    }

    let source_line = |path: &str, line: usize| {
        std::fs::read_to_string(root.join(path))
            .ok()
            .and_then(|t| t.lines().nth(line - 1).map(|l| l.trim().to_string()))
            .unwrap_or_default()
    };
    let mut summary = String::from("\nspawn lint corpus (tests/lint_corpus):\n");
    for (name, tally) in &per_language {
        summary += &format!("  {}\n", tally.line(name));
    }
    summary += &format!("  {}\n", overall.line("overall"));
    for (path, line, rule) in &false_positives {
        summary += &format!(
            "  false positive: {path}:{line} {rule}\n      {}\n",
            source_line(path, *line)
        );
    }
    for (path, line, rule) in &false_negatives {
        summary += &format!(
            "  false negative: {path}:{line} {rule}\n      {}\n",
            source_line(path, *line)
        );
    }
    let parse_errors = report["parse_errors"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for error in &parse_errors {
        summary += &format!("  parse error: {error}\n");
    }
    show(&summary);

    assert!(
        parse_errors.is_empty(),
        "the corpus must parse cleanly{summary}"
    );
    assert!(
        false_positives.is_empty() && false_negatives.is_empty(),
        "precision and recall must be 100%{summary}"
    );
}

/// The findings `fleet lint --json ARGS` reports in `repo`.
fn lint_findings(env: &Env, repo: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let run = env.fleet(repo, args);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stdout));
    report["findings"].as_array().cloned().unwrap_or_default()
}

/// A repository whose first commit holds `files` of the corpus folder `root`, at the
/// same relative paths.
fn corpus_repo(env: &Env, root: &Path, files: &[&str]) -> PathBuf {
    let repo = env.path().join("repo");
    let texts: Vec<(&str, String)> = files
        .iter()
        .map(|f| (*f, std::fs::read_to_string(root.join(f)).unwrap()))
        .collect();
    let borrowed: Vec<(&str, &str)> = texts.iter().map(|(p, t)| (*p, t.as_str())).collect();
    env.repo(&repo, "main", &borrowed);
    repo
}

/// Go: each shape of a missing half gets the help that names its own fix (the corpus
/// test above checks where the findings are; this checks what they say).
#[test]
fn go_findings_name_the_fix_for_their_shape() {
    let env = Env::new();
    let repo = corpus_repo(
        &env,
        &corpus_root().join("go"),
        &[
            "no_group.go",
            "group_without_kill.go",
            "command_context.go",
            "leader_kill.go",
        ],
    );
    let findings = lint_findings(&env, &repo, &["lint", "--json"]);
    let at = |path: &str, line: u64| -> (String, String) {
        let f = findings
            .iter()
            .find(|f| f["path"] == path && f["line"] == line)
            .unwrap_or_else(|| panic!("no finding at {path}:{line}: {findings:#?}"));
        assert_eq!(f["language"], "go", "{f:#}");
        (
            f["message"].as_str().unwrap().to_string(),
            f["help"].as_str().unwrap().to_string(),
        )
    };
    // No group at all: both halves named.
    let (message, help) = at("no_group.go", 26);
    assert!(message.contains("without a process group"), "{message}");
    assert!(
        help.contains("Setpgid: true") && help.contains("syscall.Kill(-cmd.Process.Pid"),
        "{help}"
    );
    // A group nobody kills: the kill named, not the group.
    let (message, help) = at("group_without_kill.go", 12);
    assert!(
        message.contains("in a process group nothing kills"),
        "{message}"
    );
    assert!(
        help.contains("never killed") && !help.contains("SysProcAttr{"),
        "{help}"
    );
    // CommandContext alone: Cancel named.
    let (_, help) = at("command_context.go", 15);
    assert!(
        help.contains("CommandContext kills only the process") && help.contains("cmd.Cancel"),
        "{help}"
    );
    let (_, help) = at("command_context.go", 24);
    assert!(
        help.contains("default Cancel is Process.Kill") && help.contains("cmd.Cancel ="),
        "{help}"
    );
    // The leader alone killed: said as the other languages say it.
    let (message, help) = at("leader_kill.go", 12);
    assert!(
        message.contains("in a new process group, but only the leader is killed"),
        "{message}"
    );
    assert!(help.contains("reach only the group's leader"), "{help}");
    let (_, help) = at("leader_kill.go", 23);
    assert!(help.contains("reach only the agent"), "{help}");
}

/// Go files go through `--diff`, `--format sarif` and `fleet gate` like the others:
/// only the added spawn counts, and it is named in each.
#[test]
fn go_spawns_are_found_under_diff_sarif_and_the_gate() {
    let env = Env::new();
    let repo = env.path().join("repo");
    let old = "package tools\n\nimport \"os/exec\"\n\nfunc old() error {\n\treturn exec.Command(\"codex\").Run() // fleet: allow(agent-spawn-without-group) replaced next quarter\n}\n";
    env.repo(
        &repo,
        "main",
        &[
            ("fleet.toml", "[gate]\ncommands = [\"true\"]\n"),
            ("tools/old.go", old),
        ],
    );
    env.git(&repo, &["switch", "-q", "-c", "candidate"]);
    let new = "package tools\n\nimport \"os/exec\"\n\nconst agent = \"claude\"\n\nfunc ask(p string) error {\n\treturn exec.Command(agent, \"-p\", p).Run()\n}\n";
    env.commit_file(&repo, "tools/ask.go", new, "ask");

    let diff = lint_findings(&env, &repo, &["lint", "--diff", "main", "--json"]);
    let places: Vec<String> = diff
        .iter()
        .map(|f| format!("{}:{}", f["path"].as_str().unwrap(), f["line"]))
        .collect();
    assert_eq!(places, ["tools/ask.go:8"], "{diff:#?}");

    let sarif = env.fleet(&repo, &["lint", "--format", "sarif"]).code(1);
    let sarif: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{sarif:#}");
    let location = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"], "tools/ask.go",
        "{sarif:#}"
    );
    assert_eq!(location["region"]["startLine"], 8, "{sarif:#}");

    let gate = env
        .fleet(&repo, &["gate", "--base", "main", "--json"])
        .code(1);
    let gate: serde_json::Value = serde_json::from_str(&gate.stdout).unwrap();
    let lint = &gate["steps"][0];
    assert_eq!(lint["name"], "lint", "{gate:#}");
    assert_eq!(lint["passed"], false, "{gate:#}");
    let problems: Vec<&str> = lint["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str())
        .collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("tools/ask.go:8:"), "{problems:?}");
}

/// A group kill gated on the leader not having been reaped is its own finding, in Go as
/// in the other languages, with help that names the gate and the fix.
#[test]
fn a_group_kill_gated_on_the_leader_names_the_gate_in_every_language() {
    let env = Env::new();
    let repo = corpus_repo(
        &env,
        &corpus_root(),
        &[
            "go/leader_reaped_gate.go",
            "python/early_return_gate.py",
            "javascript/early_return_gate.js",
            "rust/early_return_gate.rs",
        ],
    );
    let findings = lint_findings(&env, &repo, &["lint", "--json"]);
    let at = |path: &str, line: u64| -> (String, String) {
        let f = findings
            .iter()
            .find(|f| f["path"] == path && f["line"] == line)
            .unwrap_or_else(|| panic!("no finding at {path}:{line}: {findings:#?}"));
        (
            f["message"].as_str().unwrap().to_string(),
            f["help"].as_str().unwrap().to_string(),
        )
    };
    for (path, line) in [
        ("go/leader_reaped_gate.go", 13),
        ("go/leader_reaped_gate.go", 31),
    ] {
        let (message, help) = at(path, line);
        assert!(
            message.contains("killed only while the leader has not been reaped"),
            "{path}:{line}: {message}"
        );
        assert!(
            help.contains("cmd.ProcessState == nil") && help.contains("unconditionally"),
            "{path}:{line}: {help}"
        );
    }
    for (path, line) in [
        ("python/early_return_gate.py", 10),
        ("javascript/early_return_gate.js", 7),
        ("rust/early_return_gate.rs", 13),
    ] {
        let (message, help) = at(path, line);
        assert!(
            message.contains("killed only while the leader is alive"),
            "{path}:{line}: {message}"
        );
        assert!(help.contains("unconditionally"), "{path}:{line}: {help}");
    }
    assert_eq!(findings.len(), 5, "{findings:#?}");
}

/// Python's `os.exec*` and `os.spawn*` take no session option: their help names the
/// shape that does (`subprocess.Popen(..., start_new_session=True)` with `os.killpg`),
/// never a keyword the call would reject.
#[test]
fn os_exec_and_spawn_findings_name_popen_not_a_keyword_they_lack() {
    let env = Env::new();
    let repo = corpus_repo(
        &env,
        &corpus_root().join("python"),
        &["os_exec_in_place.py"],
    );
    let findings = lint_findings(&env, &repo, &["lint", "--json"]);
    for line in [9u64, 13] {
        let f = findings
            .iter()
            .find(|f| f["path"] == "os_exec_in_place.py" && f["line"] == line)
            .unwrap_or_else(|| panic!("no finding at line {line}: {findings:#?}"));
        let help = f["help"].as_str().unwrap();
        assert!(
            help.contains("subprocess.Popen") && help.contains("os.killpg"),
            "line {line}: {help}"
        );
        assert!(
            !help.contains("pass start_new_session"),
            "line {line}: {help}"
        );
    }
    assert_eq!(findings.len(), 2, "{findings:#?}");
}
