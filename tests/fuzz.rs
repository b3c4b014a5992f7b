//! No panic on any input: the lint's parsers (every language) and fleet.toml loading,
//! fed random text and random edits of real snippets (proptest; `FLEET_FUZZ_CASES`
//! raises the number of cases per property, 2,000 by default).

use fleet::config::Config;
use fleet::lint::{self, Language, Rules};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestRunner};

const SEEDS: [(Language, &str); 6] = [
    (
        Language::Python,
        "import subprocess as sp\nfrom shutil import which\nC = which('claude')\ndef f(p):\n    return sp.run([C, '-p', p], timeout=5, **{'start_new_session': True})\n",
    ),
    (
        Language::Rust,
        "use std::process::Command;\nconst BIN: &str = \"claude\";\nfn f() { let mut c = Command::new(BIN); c.process_group(0); duct::cmd!(\"codex\").run(); }\n",
    ),
    (
        Language::JavaScript,
        "const { spawn: s } = require('node:child_process');\nconst c = s('claude', ['-p'], { detached: true, ...o });\nprocess.kill(-c.pid);\nexeca`aider ${x}`;\n",
    ),
    (
        Language::TypeScript,
        "import * as cp from 'child_process';\nconst B = process.env.X ?? 'claude';\ncp.execSync(`${B} -p x`) as string;\nnew Deno.Command('gemini', {});\n",
    ),
    (
        Language::Tsx,
        "import { spawn } from 'child_process';\nexport const A = () => <div onClick={() => spawn('claude')} />;\n",
    ),
    (
        Language::Shell,
        "#!/bin/sh\nCLAUDE=$(command -v claude)\nnohup \"$CLAUDE\" -p \"$x\" &\ntimeout --foreground 3 env A=b codex exec y | tee log\nsetsid claude # fleet: allow(agent-spawn-without-group)\n",
    ),
];

fn cases() -> u32 {
    std::env::var("FLEET_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

/// A seed with a random slice replaced by random text: mostly-valid code with damage.
fn mutated(seed: &'static str) -> impl Strategy<Value = String> {
    let len = seed.len();
    (0..=len, 0..=len, "[ -~\n\t\"'`(){}\\[\\]$\\\\é€]{0,40}").prop_map(move |(a, b, insert)| {
        let (a, b) = (a.min(b), a.max(b));
        let (a, b) = (floor(seed, a), floor(seed, b));
        format!("{}{insert}{}", &seed[..a], &seed[b..])
    })
}

fn floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[test]
fn the_lint_never_panics() {
    let rules = Rules::load(&["my-agent".into()], &["pkg.helper".into()]).unwrap();
    for (language, seed) in SEEDS {
        let mut runner = TestRunner::new(RunnerConfig {
            cases: cases(),
            failure_persistence: None,
            ..RunnerConfig::default()
        });
        let strategy = prop_oneof![mutated(seed), "\\PC{0,200}", any::<String>()];
        runner
            .run(&strategy, |text| {
                let _ = lint::check_text("fuzz/file", &text, language, &rules);
                Ok(())
            })
            .unwrap();
    }
}

#[test]
fn fleet_toml_loading_never_panics() {
    let seed = fleet::config::TEMPLATE;
    let mut runner = TestRunner::new(RunnerConfig {
        cases: cases(),
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let strategy = prop_oneof![mutated(seed), "\\PC{0,300}", any::<String>()];
    runner
        .run(&strategy, |text| {
            let _ = Config::parse(&text, "fuzz.toml");
            Ok(())
        })
        .unwrap();
}
