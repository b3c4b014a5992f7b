//! `fleet demo`: the README's first command. It must run the whole loop, leave nothing
//! behind, and print exactly what the README's tour shows.

use std::path::Path;

use crate::common::{Env, between, readme, update_readme};

const START: &str = "<!-- fleet demo: start -->\n```text\n";
const END: &str = "```\n<!-- fleet demo: end -->";

/// The demo's text with what changes from run to run (its folder, object ids, times,
/// log names) written the way the README writes it.
fn normalized(text: &str) -> String {
    let rules = [
        (r"\$DEMO = \S+", "$$DEMO = /tmp/fleet-demo-…"),
        (r"gate-(\S+?)-\d+-\d+\.log", "gate-$1-….log"),
        (r"\b[0-9a-f]{12}\b", "<id>"),
        (r"\b\d+\.\ds\b", "0.1s"),
        (r"/tmp/fleet-demo-\S+?(/app)?`", "/tmp/fleet-demo-…$1`"),
    ];
    let mut text = text.to_string();
    for (pattern, with) in rules {
        text = regex::Regex::new(pattern)
            .unwrap()
            .replace_all(&text, with)
            .into_owned();
    }
    text
}

fn demo_folders(tmpdir: &Path) -> Vec<String> {
    std::fs::read_dir(tmpdir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("fleet-demo-"))
        .collect()
}

/// The tour in the README is the demo's own output: when the demo changes, this fails
/// and prints the new text (`FLEET_UPDATE_README=1` writes it into the README).
#[test]
fn demo_runs_the_whole_loop_as_the_readme_shows_and_leaves_nothing() {
    let env = Env::new();
    let tmpdir = env.path().join("tmp");
    std::fs::create_dir(&tmpdir).unwrap();
    let run = env
        .fleet_cmd(&env.path(), &["demo"])
        .env("TMPDIR", &tmpdir)
        .run()
        .ok();
    assert!(
        demo_folders(&tmpdir).is_empty(),
        "left behind: {:?}",
        demo_folders(&tmpdir)
    );
    let shown = normalized(&run.stdout);
    let readme = readme();
    let range = between(&readme, START, END).expect("README.md has the fleet demo block");
    let block = &readme[range];
    if block != shown && std::env::var_os("FLEET_UPDATE_README").is_some() {
        update_readme(|now| {
            let range = between(now, START, END).expect("README.md has the fleet demo block");
            let mut updated = now.to_string();
            updated.replace_range(range, &shown);
            updated
        });
        return;
    }
    assert_eq!(
        block, shown,
        "the README's demo block and `fleet demo` differ; the demo now prints:\n{shown}\n\
         (FLEET_UPDATE_README=1 cargo test --test integration demo:: writes it)"
    );
}

/// `--keep` leaves the project as the tour left it: alpha's and beta's work on the
/// targets of app and its nested engine, gamma's refused, and `--json` says so.
#[test]
fn demo_keep_leaves_the_project_as_the_tour_left_it() {
    let env = Env::new();
    let tmpdir = env.path().join("tmp");
    std::fs::create_dir(&tmpdir).unwrap();
    let run = env
        .fleet_cmd(&env.path(), &["demo", "--keep", "--json"])
        .env("TMPDIR", &tmpdir)
        .run()
        .ok();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["ok"], true, "{doc}");
    let folders = demo_folders(&tmpdir);
    assert_eq!(folders.len(), 1, "{folders:?}");
    let app = tmpdir.join(&folders[0]).join("app");
    assert_eq!(
        doc["folder"].as_str().map(Path::new),
        Some(app.parent().unwrap())
    );
    env.git(&app, &["cat-file", "-e", "main:alpha.md"]);
    assert_eq!(
        env.git(&app.join("engine"), &["show", "main:engine.txt"]),
        "v2"
    );
    assert!(
        env.git_cmd(&app, &["cat-file", "-e", "main:gamma.txt"])
            .run()
            .code
            != 0
    );
    assert_eq!(env.git(&app, &["status", "--porcelain"]), "");
    let status = env.fleet(&app, &["status", "--json"]).ok();
    assert!(status.stdout.contains("\"failed\""), "{}", status.stdout);
}
