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
