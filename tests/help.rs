//! Every `--help` page, found by walking the binary's own "Commands:" lists (the tests
//! cannot see the clap definition), is pinned by a snapshot and has an `Examples:`
//! section. A new command without a snapshot fails; so does a snapshot of a command
//! that is gone.

use std::collections::BTreeSet;

use crate::common::{Env, snap};

/// The subcommand names in a help page's "Commands:" section (clap's `help` left out).
fn subcommands(page: &str) -> Vec<String> {
    page.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_help_page_is_pinned_and_has_examples() {
    let env = Env::new();
    let _snap = snap::exact().bind_to_scope();
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    let mut names = BTreeSet::new();
    while let Some(cmd) = todo.pop() {
        let mut args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        args.push("--help");
        let page = env.fleet(&env.path(), &args).ok().stdout;
        assert!(
            page.contains("\nExamples:\n"),
            "{cmd:?} --help has no example:\n{page}"
        );
        let name = std::iter::once("fleet")
            .chain(cmd.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("-");
        insta::assert_snapshot!(format!("help__{name}"), page);
        names.insert(format!("help__{name}.snap"));
        for sub in subcommands(&page) {
            let mut next = cmd.clone();
            next.push(sub);
            todo.push(next);
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let stale: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.starts_with("help__") && f.ends_with(".snap") && !names.contains(f))
        .collect();
    assert!(
        stale.is_empty(),
        "help snapshots of commands that no longer exist: {stale:?}"
    );
}

/// The man page kept in doc/ is the one the binary generates: a changed command or flag
/// fails here until `fleet completions man > doc/fleet.1` is run again.
#[test]
fn the_man_page_in_doc_is_the_binary_s_own() {
    let env = Env::new();
    let page = env.fleet(&env.path(), &["completions", "man"]).ok().stdout;
    let kept = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("doc/fleet.1"),
    )
    .unwrap();
    assert_eq!(
        kept, page,
        "doc/fleet.1 is stale: run `cargo run -q -- completions man > doc/fleet.1`"
    );
    assert!(page.contains(".TH fleet 1"), "{page}");
}

/// Completions for every shell list every command, and bash's script parses.
#[test]
fn completions_name_every_command_and_bash_s_parses() {
    let env = Env::new();
    let top = env.fleet(&env.path(), &["--help"]).ok().stdout;
    let commands = subcommands(&top);
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = env.fleet(&env.path(), &["completions", shell]).ok().stdout;
        for command in &commands {
            assert!(script.contains(command.as_str()), "{shell} lacks {command}");
        }
    }
    let bash = env.path().join("fleet.bash");
    let script = env.fleet(&env.path(), &["completions", "bash"]).ok().stdout;
    std::fs::write(&bash, script).unwrap();
    let parsed = std::process::Command::new("bash")
        .arg("-n")
        .arg(&bash)
        .stdin(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert!(
        parsed.status.success(),
        "{}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    env.fleet(&env.path(), &["completions", "tcsh"]).code(2);
}

/// Every command given `--json` prints exactly one JSON document on stdout, on failure
/// too: walked from the binary's own command lists, each run outside any repository
/// with its required arguments filled in, where all but a few fail.
#[test]
fn every_command_s_json_failure_is_one_json_document() {
    let env = Env::new();
    let nowhere = env.path().join("not-a-repository");
    std::fs::create_dir(&nowhere).unwrap();
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    let mut checked = 0;
    while let Some(cmd) = todo.pop() {
        let mut args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        args.push("--help");
        let page = env.fleet(&env.path(), &args).ok().stdout;
        let subs = subcommands(&page);
        if !subs.is_empty() {
            todo.extend(
                subs.into_iter()
                    .map(|sub| [cmd.clone(), vec![sub]].concat()),
            );
            continue;
        }
        // The hook entry point is git's, not a person's or a script's.
        if cmd == ["hook"] {
            continue;
        }
        let mut args: Vec<String> = cmd.clone();
        args.push("--json".into());
        args.extend(required_arguments(&page));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = env.fleet(&nowhere, &args);
        // `run`'s stdout is its command's: its report is the last line of stderr.
        let out = if cmd == ["run"] {
            run.stderr.lines().last().unwrap_or_default().to_string()
        } else {
            run.stdout.clone()
        };
        let docs: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&out)
            .into_iter()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}):\n{out}"));
        // `watchdog` streams one line per checkout; everything else is one document.
        assert!(
            docs.len() == 1 || (cmd == ["watchdog"] && run.code == 0),
            "{args:?}: {} JSON documents:\n{}",
            docs.len(),
            run.stdout
        );
        // A failure is an error document, or a check's own report saying it failed.
        let error = &docs[0]["error"];
        if run.code != 0 && docs[0]["ok"] != false {
            assert!(error["message"].is_string(), "{args:?}: {}", run.stdout);
            assert_eq!(error["exit_code"], run.code, "{args:?}");
        }
        checked += 1;
    }
    assert!(checked > 20, "only {checked} commands walked");
}

/// Values for a help page's required arguments (`<NAME>`, `-- <CMD>...`), from its
/// `Usage:` line.
fn required_arguments(page: &str) -> Vec<String> {
    let usage = page
        .lines()
        .find_map(|l| l.strip_prefix("Usage: "))
        .unwrap_or_default();
    let mut out = Vec::new();
    for word in usage.split_whitespace() {
        if word == "--" {
            out.push("--".into());
        } else if word.starts_with('<') {
            out.push(if out.last().is_some_and(|w| w == "--") {
                "fleet-test-no-such-program".into()
            } else {
                "x".into()
            });
        }
    }
    out
}
