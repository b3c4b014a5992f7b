//! The README's ```console blocks, run for real. The tour's world (a repository `app`
//! with a nested repository `cockpit` that `app` ignores) is built in a temp folder that
//! stands in for the README's `/tmp/tour`; every `$ ` line runs with `sh -c`, in order,
//! the built fleet first on PATH, and what it prints (stdout and stderr as they came)
//! must be what the README shows under it, once what changes from run to run (object
//! ids, durations, times, log names) is masked on both sides. A `cd` holds for the
//! following lines and blocks of the same section; each section starts in `app`.
//! `FLEET_UPDATE_README=1` writes the real output into the blocks that differ, keeping
//! the lines that agree once masked; `FLEET_UPDATE_README=all` writes every block from
//! one run, so that their ids agree with each other again. A block
//! that cannot run says why on the line before it (`<!-- readme: not run (REASON) -->`);
//! the test counts and prints those, so none is skipped silently.

use std::path::{Path, PathBuf};

use crate::common::{Cmd, Env, Fenced, fenced_blocks, readme, update_readme};

/// The tour's folder as the README writes it.
const TOUR: &str = "/tmp/tour";

/// The note that marks a block not run, followed by the reason and `)`.
const NOT_RUN: &str = "readme: not run (";

/// What the prose says happened before a block, which the block itself does not show:
/// its section, its place among that section's console blocks, and a shell script run
/// in `app` first.
const SETUPS: &[(&str, usize, &str)] = &[
    // "Two workers finish; one of them broke the gate (`commands = [\"test ! -e
    // broken\"]`, committed on `main`)".
    (
        "Landing",
        0,
        r#"printf '[gate]\ncommands = ["test ! -e broken"]\n' > fleet.toml
git add fleet.toml && FLEET_ALLOW_SHARED=1 git commit -qm "gate: no file named broken"
a="$(fleet worktree new task-a)" && b="$(fleet worktree new task-b)"
(cd "$a" && echo a > a.txt && git add a.txt && git commit -qm "task a: a.txt")
(cd "$b" && echo b > broken && git add broken && git commit -qm "task b: breaks the gate")"#,
    ),
    // "Workers publish their lanes": a shared remote `origin` holding main, and a
    // worker's lane task-c with one commit.
    (
        "Landing at scale",
        0,
        r#"git init -q --bare ../origin.git && git remote add origin ../origin.git
git push -q origin main
c="$(fleet worktree new task-c)" && cd "$c" && echo c > c.txt && git add c.txt && git commit -qm "task c: c.txt""#,
    ),
    // "A bad `fleet.toml`".
    (
        "Landing at scale",
        1,
        r#"printf '[gate]\ncommands = ["test ! -e broken"]\n\n[worktrees]\nmax_behnd = 3\n' > fleet.toml"#,
    ),
    // A tracked Python script that starts `claude` in its caller's process group.
    (
        "The spawn lint and the CI gate",
        0,
        r#"git checkout -q -- fleet.toml
mkdir -p tools && cat > tools/ask.py <<'PY'
"""Ask Claude a question from a script."""
import subprocess as sp

CLAUDE = "claude"


def ask(prompt, t=60):
    # Runs claude headless and waits for its answer.
    return sp.run([CLAUDE, "-p", prompt], timeout=t)
PY
git add tools/ask.py"#,
    ),
];

/// One `$ ` line of a block, the output lines shown under it, and the blank lines that
/// separate it from the next.
struct Step {
    command: String,
    output: Vec<String>,
    blank_after: usize,
}

fn steps(body: &str) -> Result<Vec<Step>, String> {
    let mut steps: Vec<Step> = Vec::new();
    for line in body.lines() {
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                command: command.to_string(),
                output: Vec::new(),
                blank_after: 0,
            });
        } else {
            let Some(step) = steps.last_mut() else {
                return Err(format!("it starts with {line:?}, not a `$ ` line"));
            };
            step.output.push(line.to_string());
        }
    }
    for step in &mut steps {
        while step.output.last().is_some_and(|l| l.is_empty()) {
            step.output.pop();
            step.blank_after += 1;
        }
    }
    Ok(steps)
}

fn render(steps: &[Step]) -> String {
    let mut text = String::new();
    for step in steps {
        text.push_str(&format!("$ {}\n", step.command));
        for line in &step.output {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&"\n".repeat(step.blank_after));
    }
    text
}

/// The text with what changes from run to run replaced by a placeholder, applied to
/// the README and to the real output alike; the rest must match word for word.
fn masked(text: &str) -> String {
    let rules = [
        // Gate logs are named after the time (ns) and a pid.
        (r"-\d{10,}-\d+\.log\b", "-<time>-<pid>.log"),
        // Numbers a receipt records, and epoch seconds.
        (r"\b(duration_ms|at) = \d+", "$1 = <n>"),
        (r"\b1\d{9}\b", "<time>"),
        // Durations and ages: `0.1s`, `2 ms`, `3s ago`.
        (r"\b\d+(\.\d+)? ?(ns|µs|ms|s|m|h|d)\b", "<dur>"),
        // Padding, which a masked value's width changes, and trailing blanks.
        (r" {2,}", "  "),
        (r"(?m) +$", ""),
    ];
    let mut text = text.to_string();
    for (pattern, with) in rules {
        text = regex::Regex::new(pattern)
            .unwrap()
            .replace_all(&text, with)
            .into_owned();
    }
    // Object ids, full or abbreviated: a word of 7 to 40 hex digits with a digit in it.
    regex::Regex::new(r"\b[0-9a-f]{7,40}\b")
        .unwrap()
        .replace_all(&text, |c: &regex::Captures| {
            if c[0].bytes().any(|b| b.is_ascii_digit()) {
                "<id>".to_string()
            } else {
                c[0].to_string()
            }
        })
        .into_owned()
}

/// The real text, keeping the README's own line wherever the two agree once masked,
/// so that an update rewrites only what changed, not every id and duration.
fn merged(shown: &str, real: &str) -> String {
    let old: Vec<&str> = shown.lines().collect();
    let new: Vec<&str> = real.lines().collect();
    let masked_old: Vec<String> = old.iter().map(|l| masked(l)).collect();
    let masked_new: Vec<String> = new.iter().map(|l| masked(l)).collect();
    let mut text = String::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &masked_old, &masked_new) {
        let (tag, from_old, from_new) = op.as_tag_tuple();
        let lines = if tag == similar::DiffTag::Equal {
            &old[from_old]
        } else {
            &new[from_new]
        };
        for line in lines {
            text.push_str(line.trim_end());
            text.push('\n');
        }
    }
    text
}

/// What differs, as a diff of the lines as written (the README's, the real ones), with
/// two lines of context; lines that agree once masked count as the same.
fn diff(shown: &str, real: &str) -> String {
    let old: Vec<&str> = shown.lines().collect();
    let new: Vec<&str> = real.lines().collect();
    let masked_old: Vec<String> = old.iter().map(|l| masked(l)).collect();
    let masked_new: Vec<String> = new.iter().map(|l| masked(l)).collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &masked_old, &masked_new);
    let mut text = String::new();
    for group in similar::group_diff_ops(ops, 2) {
        text.push_str("@@\n");
        for op in group {
            let (tag, from_old, from_new) = op.as_tag_tuple();
            if tag == similar::DiffTag::Equal {
                old[from_old]
                    .iter()
                    .for_each(|l| text.push_str(&format!("  {l}\n")));
            } else {
                old[from_old]
                    .iter()
                    .for_each(|l| text.push_str(&format!("- {l}\n")));
                new[from_new]
                    .iter()
                    .for_each(|l| text.push_str(&format!("+ {l}\n")));
            }
        }
    }
    text
}

/// The tour's world in a test's temp folder.
struct World {
    env: Env,
    /// Stands in for `/tmp/tour`.
    root: PathBuf,
    /// First on PATH: `fleet`, the binary under test.
    bin: PathBuf,
    /// Commits are dated now, so "3s ago" is what a reader would see.
    now: String,
}

impl World {
    /// /tmp/tour/app (main: README.md, .gitignore naming cockpit/) holding the nested
    /// repository cockpit (main: ui.txt).
    fn new() -> World {
        let env = Env::new();
        let root = env.path().join("tour");
        let bin = env.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_fleet"), bin.join("fleet")).unwrap();
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let world = World {
            root,
            bin,
            now: format!("{secs} +0000"),
            env,
        };
        let app = world.app();
        world.sh(
            &world.env.path(),
            &format!(
                "mkdir -p {app}/cockpit && cd {app}/cockpit && git init -q -b main && echo ui > ui.txt \
                 && git add -A && git commit -qm 'the cockpit'\n\
                 cd {app} && git init -q -b main && echo '# app' > README.md && echo cockpit/ > .gitignore \
                 && git add -A && git commit -qm 'the app'",
                app = app.display()
            ),
        );
        world
    }

    fn app(&self) -> PathBuf {
        self.root.join("app")
    }

    /// `sh -ec script` in `dir` as the README's reader would run it.
    fn sh_cmd(&self, dir: &Path, script: &str) -> Cmd {
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        self.env
            .sh_cmd(dir, script)
            .env("PATH", path)
            .env("GIT_AUTHOR_DATE", &self.now)
            .env("GIT_COMMITTER_DATE", &self.now)
    }

    fn sh(&self, dir: &Path, script: &str) {
        let run = self.sh_cmd(dir, script).run();
        assert_eq!(
            run.code, 0,
            "setting up the tour: {script}\nstdout: {}\nstderr: {}",
            run.stdout, run.stderr
        );
    }

    /// One `$ ` line with `sh -c` in `dir`: its output (stderr in stdout, in the order
    /// written) and the folder it ended in.
    fn step(&self, dir: &Path, command: &str) -> (String, PathBuf) {
        let cwd = self.env.path().join("cwd");
        let root = self.root.display().to_string();
        let script = format!(
            "set +e\nexec 2>&1\n{}\nstatus=$?\npwd -P > '{}'\nexit $status\n",
            command.replace(TOUR, &root),
            cwd.display()
        );
        let run = self.sh_cmd(dir, &script).run();
        let ended = std::fs::read_to_string(&cwd)
            .map(|d| PathBuf::from(d.trim_end()))
            .unwrap_or_else(|_| dir.to_path_buf());
        let _ = std::fs::remove_file(&cwd);
        (self.localized(&run.stdout), ended)
    }

    /// Output with this run's folders written the way the README writes them.
    fn localized(&self, text: &str) -> String {
        text.replace(&self.root.display().to_string(), TOUR)
    }
}

/// A console block and what running it printed.
struct Ran {
    block: Fenced,
    /// Its place among the README's console blocks.
    index: usize,
    shown: String,
    real: String,
}

#[test]
fn readme_console_blocks_print_what_the_readme_shows() {
    let text = readme();
    let world = World::new();
    let mut used = vec![false; SETUPS.len()];
    let mut ran = Vec::new();
    let mut not_run = Vec::new();
    let mut heading = None;
    let mut ordinal = 0;
    let mut dir = world.app();
    for (index, block) in fenced_blocks(&text)
        .into_iter()
        .filter(|b| b.lang == "console")
        .enumerate()
    {
        if heading.as_ref() != Some(&block.heading) {
            heading = Some(block.heading.clone());
            ordinal = 0;
            dir = world.app();
        } else {
            ordinal += 1;
        }
        if let Some(note) = block.note.as_deref().filter(|n| n.starts_with("readme:")) {
            let reason = note
                .strip_prefix(NOT_RUN)
                .and_then(|r| r.strip_suffix(')'))
                .filter(|r| !r.trim().is_empty());
            let Some(reason) = reason else {
                panic!(
                    "README.md: the note {note:?} before a console block under {:?} is not \
                     `<!-- {NOT_RUN}REASON) -->`",
                    block.heading
                );
            };
            not_run.push(format!("{}: {reason}", block.heading));
            continue;
        }
        for (i, (section, n, script)) in SETUPS.iter().enumerate() {
            if *section == block.heading && *n == ordinal {
                world.sh(&world.app(), script);
                used[i] = true;
            }
        }
        let shown = &text[block.body.clone()];
        let mut steps = steps(shown).unwrap_or_else(|e| {
            panic!("README.md: a console block under {:?}: {e}", block.heading)
        });
        for step in &mut steps {
            let (output, ended) = world.step(&dir, &step.command);
            step.output = output.lines().map(str::to_string).collect();
            if let Some(line) = step.output.iter().find(|l| l.starts_with("$ ")) {
                panic!(
                    "`{}` (under {:?}) prints {line:?}, which the README would show as a \
                     command of its own: indent it in the output, or run something else",
                    step.command, block.heading
                );
            }
            dir = ended;
        }
        ran.push(Ran {
            shown: shown.to_string(),
            real: render(&steps),
            block,
            index,
        });
    }
    for (i, (section, n, _)) in SETUPS.iter().enumerate() {
        assert!(
            used[i],
            "README.md has no console block {n} under {section:?} that the setup is for"
        );
    }
    println!(
        "README.md: {} console blocks run, {} not run{}",
        ran.len(),
        not_run.len(),
        not_run
            .iter()
            .map(|b| format!("\n  not run: {b}"))
            .collect::<String>()
    );
    let update = std::env::var("FLEET_UPDATE_README").ok();
    // `all`: every block from this one run, so the ids of all blocks agree again.
    let all = update.as_deref() == Some("all");
    let differ: Vec<&Ran> = ran
        .iter()
        .filter(|r| all || masked(&r.shown) != masked(&r.real))
        .collect();
    if !differ.is_empty() && update.is_some() {
        // Each block found again in the README as it is now, by its place among the
        // console blocks (another test may have rewritten a block of its own).
        update_readme(|now| {
            let blocks: Vec<Fenced> = fenced_blocks(now)
                .into_iter()
                .filter(|b| b.lang == "console")
                .collect();
            let mut updated = now.to_string();
            for r in differ.iter().rev() {
                let body = blocks[r.index].body.clone();
                assert_eq!(now[body.clone()], r.shown, "README.md changed meanwhile");
                let real = if all {
                    merged("", &r.real)
                } else {
                    merged(&r.shown, &r.real)
                };
                updated.replace_range(body, &real);
            }
            updated
        });
        return;
    }
    let report: String = differ
        .iter()
        .map(|r| {
            format!(
                "\nunder {:?} (- README.md, + what it prints now):\n{}",
                r.block.heading,
                diff(&r.shown, &r.real)
            )
        })
        .collect();
    assert!(
        differ.is_empty(),
        "{} of the README's console blocks print something else now (ids, durations and \
         times are not compared):\n{report}\n\
         FLEET_UPDATE_README=1 cargo test --locked --test integration readme:: writes the real output",
        differ.len()
    );
}

/// The reader behind the test above: console blocks, the section each sits under, the
/// note before one, and a block's `$ ` lines with the output and blank lines under each.
#[test]
fn readme_reader_splits_blocks_into_sections_notes_and_steps() {
    let text = "# Top\n\n## One\n\n```console\n$ a\nout\n\n$ b\n```\n\n```toml\n# not a heading\n```\n\
                ### Two\n<!-- readme: not run (needs a terminal) -->\n```console\n$ c\n```\n";
    let blocks: Vec<Fenced> = fenced_blocks(text);
    let shape: Vec<(&str, &str, Option<&str>)> = blocks
        .iter()
        .map(|b| (b.lang.as_str(), b.heading.as_str(), b.note.as_deref()))
        .collect();
    assert_eq!(
        shape,
        [
            ("console", "One", None),
            ("toml", "One", None),
            ("console", "Two", Some("readme: not run (needs a terminal)")),
        ]
    );
    let body = &text[blocks[0].body.clone()];
    assert_eq!(body, "$ a\nout\n\n$ b\n");
    let parsed = steps(body).unwrap();
    assert_eq!(parsed.len(), 2);
    assert_eq!(
        (
            parsed[0].command.as_str(),
            &parsed[0].output[..],
            parsed[0].blank_after
        ),
        ("a", &["out".to_string()][..], 1)
    );
    assert_eq!(render(&parsed), body);
    assert!(steps("out\n$ a\n").is_err());
    // Run-to-run noise is masked, a word is not.
    let a = "ok: landed fleet/x as 421fe35a7e90 (gate 0.0s)\nclean   0s ago\n";
    let b = "ok: landed fleet/x as bae25c309e71 (gate 12.3s)\nclean  4m ago  \n";
    assert_eq!(masked(a), masked(b));
    assert_ne!(masked(a), masked(&a.replace("landed", "merged")));
    assert_eq!(
        merged(a, b),
        a,
        "an update keeps lines that agree once masked"
    );
}
