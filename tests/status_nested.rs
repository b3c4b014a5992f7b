//! `fleet status` with nested repositories: a lane's part in each nested repository
//! (ahead/behind against that repository's target, `in target` once landed) under the
//! lane's line and as `nested` in `--json`.

use serde_json::Value;

use crate::common::{Env, snap};

fn lane<'a>(lanes: &'a Value, branch: &str) -> &'a Value {
    lanes
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["branch"] == branch)
        .unwrap_or_else(|| panic!("no {branch} in {lanes}"))
}

/// `alpha` landed work in the outer repository and in cockpit; `beta` has two commits in
/// cockpit and one in cockpit/engine, not landed; `gamma` has work in the outer
/// repository only, so its nested branches have nothing ahead: in JSON, not in the
/// table.
#[test]
fn status_shows_each_nested_repositorys_ahead_behind_under_the_lane() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.commit_file(
        &outer,
        "fleet.toml",
        "[gate]\ncommands = [\"test ! -e bad\"]\n",
        "gate",
    );
    let alpha = env.agent(&outer, "alpha");
    env.commit_file(&alpha, "a.txt", "a\n", "alpha outer");
    env.commit_file(&alpha.join("cockpit"), "a.txt", "a\n", "alpha cockpit");
    let beta = env.agent(&outer, "beta");
    env.commit_file(&beta, "b.txt", "b\n", "beta outer");
    env.commit_file(&beta.join("cockpit"), "b1.txt", "b\n", "beta cockpit 1");
    env.commit_file(&beta.join("cockpit"), "b2.txt", "b\n", "beta cockpit 2");
    env.commit_file(&beta.join("cockpit/engine"), "b.txt", "b\n", "beta engine");
    // cockpit's target moves on, so alpha's part there lands rebased (git still counts
    // it ahead: the table says `in target`).
    env.commit_file(&outer.join("cockpit"), "later.txt", "l\n", "cockpit moves");
    let gamma = env.agent(&outer, "gamma");
    env.commit_file(&gamma, "g.txt", "g\n", "gamma outer");
    env.fleet(&outer, &["track", "--ready", "alpha", "beta", "gamma"])
        .ok();
    env.fleet(&outer, &["land", "alpha", "--yes"]).ok();

    let lanes: Value =
        serde_json::from_str(&env.fleet(&outer, &["status", "--json"]).ok().stdout).unwrap();
    let nested = |branch: &str| -> Vec<(String, u64, u64, Option<String>)> {
        lane(&lanes, branch)["nested"]
            .as_array()
            .unwrap_or_else(|| panic!("{lanes}"))
            .iter()
            .map(|n| {
                (
                    n["rel"].as_str().unwrap().to_string(),
                    n["ahead"].as_u64().unwrap(),
                    n["behind"].as_u64().unwrap(),
                    n.get("state").map(|s| s.as_str().unwrap().to_string()),
                )
            })
            .collect()
    };
    let landed = Some("landed".to_string());
    // alpha landed: its part in cockpit (fast-forwarded or rebased) and its empty part
    // in engine are in their targets.
    let alpha_parts = nested("fleet/alpha");
    assert_eq!(alpha_parts[0].0, "cockpit", "{alpha_parts:?}");
    assert_eq!(alpha_parts[0].3, landed, "{alpha_parts:?}");
    assert!(alpha_parts.iter().all(|p| p.3 == landed), "{alpha_parts:?}");
    assert_eq!(
        nested("fleet/beta"),
        [
            ("cockpit".to_string(), 2, 2, None),
            ("cockpit/engine".to_string(), 1, 0, None),
        ]
    );
    assert_eq!(
        nested("fleet/gamma"),
        [
            ("cockpit".to_string(), 0, 1, None),
            ("cockpit/engine".to_string(), 0, 0, None),
        ]
    );
    // What git says in cockpit, for the record: beta's two commits are there.
    assert_eq!(
        env.git(
            &outer.join("cockpit"),
            &["rev-list", "--count", "main..fleet/beta"]
        ),
        "2"
    );

    let _snap = snap::settings(&env).bind_to_scope();
    let table = env.fleet(&outer, &["status"]).ok();
    for line in table.stdout.lines() {
        assert_eq!(line, line.trim_end(), "a row ends in spaces: {line:?}");
    }
    insta::assert_snapshot!("status_nested", snap::run(&table));
}
