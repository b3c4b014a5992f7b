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
                // FLEET_FUZZ_TRACE=FILE keeps the input being checked, for a crash that
                // takes the process down (a signal, not a panic).
                if let Ok(trace) = std::env::var("FLEET_FUZZ_TRACE") {
                    let _ = std::fs::write(trace, format!("{language:?}\n{text}"));
                }
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

/// Found by the property above: tree-sitter-bash's scanner called `isdigit()` on a wide
/// character after `{` and crashed the process (SIGSEGV), so shell text reaches the
/// grammar as ASCII.
#[test]
fn the_shell_grammar_crash_found_by_fuzzing_stays_fixed() {
    let rules = Rules::load(&[], &[]).unwrap();
    let input = "y\u{1f574}\u{1bc9f}<,.%O\u{10a57}\u{0988}\u{2da9}\u{023a}\u{0468}<Z\\\u{10d8e}%\u{0b47}\u{fffd}&\u{1258}\u{1fa35}=H*\u{1770}${\u{e01bf}\u{1d4bb}/{O,:$ko\u{1f574}n\u{0e0c})\u{0c5a}\\'\\\u{170d}\u{c9}{\u{0ac9}b\u{a5}\u{16e56}&\u{1035d}\u{023a}/\u{1f574}=\u{10eb0}\u{09e3}V\u{fd}\u{0468}u$x'\u{085e}=<\u{113be}\u{2d8a}\u{1f6f3}<&%{`\u{1103c}.\u{2b791}\u{14cb}\u{0c8f}\u{1f574}\u{fffd}-.\u{fffd}<=*V6PZ*\"\u{faad}\u{1d525}\u{1f574}\u{113c9}";
    let _ = lint::check_text("crash.sh", input, Language::Shell, &rules);
    let _ = lint::check_text(
        "crash.sh",
        &format!("# claude\n{input}"),
        Language::Shell,
        &rules,
    );
}

/// Found by the property above: tree-sitter's error recovery on this TSX ran for minutes.
/// A parse now gives up after its time budget and the file is reported as unparsable.
#[test]
fn the_tsx_input_that_parsed_forever_is_given_up_on() {
    let rules = Rules::load(&[], &[]).unwrap();
    let input = "{U?\u{1003c}4\u{1e2ab}]`.\u{1d457}.\u{09f4}Z\u{1f574}\u{113c5}4\u{fffd}\u{1f574}%\u{10587}\u{fffd}\u{a5}U4\u{1132a}=&,\u{0468}\u{16ac3}\u{1191a}\\\u{fe56}\u{101e3}&pkV\"\\<\u{f4}Y\u{0848}.`={GP\u{0468}\u{1b132}{`\u{0cdd}'\u{1f574}\u{1f801}\u{11337}$|*$\u{11372}\u{0468}&\u{10909}fx\u{a7d5}\u{113b0}\u{1d351}1=\u{fdcf}<{`'\u{1daa9}\u{07a0}P\u{c6}%%~\u{1bc9f}%\u{1e00b}:L\u{1ee5f}\u{0468}\u{0537}<\u{023a}\u{1293}\"B4H\u{10d81}\u{113d0}Y&/PZ$$:\u{0ead}B\u{1f033}\"\u{16f63}s\u{bf}D`\u{0b9e}\u{0f74}`l:9\u{09c2}\u{1f574}\u{0f43}%\u{106bb}`=\u{1aa1}X\u{a5}:";
    let (findings, error) = lint::check_text("hang.tsx", input, Language::Tsx, &rules);
    assert!(findings.is_empty());
    assert!(error.is_some());
}

/// Brackets, prefix operators and block forms (opening text, closing text) per language:
/// nested thousands deep, they overflowed the stack (syn recurses) or ran for minutes
/// (shell words holding every substitution inside them).
const NESTERS: [(Language, &[(&str, &str)]); 4] = [
    (
        Language::Rust,
        &[
            ("(", ")"),
            ("[", "]"),
            ("{", "}"),
            ("!", ""),
            ("-", ""),
            ("&", ""),
            ("*", ""),
            ("|a| ", ""),
            ("|a, b| ", ""),
            ("if a {", "}"),
            ("if a {} else ", ""),
            ("loop {", "}"),
            ("A<", ">"),
            ("A<B, ", ">"),
            ("x.f(", ")"),
            ("return ", ""),
            ("1 + ", ""),
            ("S { a: ", "}"),
            ("match a { _ => ", "}"),
            ("impl A { fn f() {", "}}"),
            ("async move {", "}"),
            ("a = ", ""),
            ("", ".b()"),
            ("", "?"),
            ("", " as u8"),
            ("vec![", "]"),
            ("1 + #[a] ", ""),
            ("#[a] ", ""),
            ("m! { x ", " }"),
        ],
    ),
    (
        Language::Python,
        &[
            ("(", ")"),
            ("[", "]"),
            ("{", "}"),
            ("-", ""),
            ("not ", ""),
            ("lambda: ", ""),
            ("f(", ")"),
            ("a if b else ", ""),
            ("1 + ", ""),
            ("", ".b()"),
        ],
    ),
    (
        Language::JavaScript,
        &[
            ("(", ")"),
            ("[", "]"),
            ("{a: ", "}"),
            ("!", ""),
            ("() => ", ""),
            ("f(", ")"),
            ("a ? b : ", ""),
            ("`${", "}`"),
            ("1 + ", ""),
            ("", ".b()"),
        ],
    ),
    (
        Language::Shell,
        &[
            ("$(", ")"),
            ("(", ")"),
            ("{ ", "; }"),
            ("if a; then ", "; fi"),
            ("\"$(", ")\""),
            ("x | ", ""),
        ],
    ),
];

/// `nesters` (indexes into the language's list) nested in that order around a spawn.
fn nested(language: Language, nesters: &[usize]) -> String {
    let list = NESTERS.iter().find(|(l, _)| *l == language).unwrap().1;
    let mut inner = String::from("claude");
    for &i in nesters.iter().rev() {
        let (open, close) = list[i % list.len()];
        inner = format!("{open}{inner}{close}");
    }
    match language {
        Language::Rust => format!("fn main() {{ let x = {inner}; Command::new(\"claude\"); }}\n"),
        Language::Python => format!("import subprocess\nx = {inner}\nsubprocess.run(['claude'])\n"),
        Language::JavaScript => {
            format!(
                "const cp = require('child_process');\nconst x = {inner};\ncp.spawn('claude');\n"
            )
        }
        _ => format!("{inner}\nclaude -p hi\n"),
    }
}

#[test]
fn deep_nesting_of_any_shape_is_never_a_crash() {
    let rules = Rules::load(&[], &[]).unwrap();
    for (language, list) in NESTERS {
        for (i, _) in list.iter().enumerate() {
            for depth in [1000, 20_000] {
                let text = nested(language, &vec![i; depth]);
                let (findings, _) = lint::check_text("deep", &text, language, &rules);
                assert!(!findings.is_empty(), "{language:?} shape {i} x {depth}");
            }
        }
    }
}

proptest! {
    #![proptest_config(RunnerConfig { cases: cases() / 40, failure_persistence: None, ..RunnerConfig::default() })]

    /// Random mixes of the shapes above, up to 4,000 deep: a finding or a clean
    /// parse, never a crash (the test thread's small stack included).
    #[test]
    fn deep_random_nesting_is_never_a_crash(
        language in 0usize..NESTERS.len(),
        nesters in proptest::collection::vec(0usize..64, 0..4000),
    ) {
        let rules = Rules::load(&[], &[]).unwrap();
        let language = NESTERS[language].0;
        let _ = lint::check_text("deep", &nested(language, &nesters), language, &rules);
    }
}

/// What the Rust depth bound must not count: doc comments (attributes are lists), long
/// flat tables in macros and arrays, items one after another, long match arms.
#[test]
fn long_flat_rust_is_linted_not_called_too_deep() {
    let rules = Rules::load(&[], &[]).unwrap();
    let spawn = "fn f() { std::process::Command::new(\"claude\").spawn(); }\n";
    let docs = format!("{}{spawn}", "//! A line of module docs.\n".repeat(5000));
    let items = format!("{}{spawn}", "#[inline]\nfn g() -> u8 { 1 }\n".repeat(3000));
    let table = format!(
        "static T: &[u32] = &[{}];\nconst V: Vec<u8> = vec![{}];\n{spawn}",
        "1, ".repeat(20_000),
        "(1, 2), ".repeat(20_000)
    );
    let arms = format!(
        "fn h(x: u8) -> u8 {{ match x {{ {} _ => 0 }} }}\n{spawn}",
        (0..3000)
            .map(|i| format!("{i} => {{ {i} }}\n"))
            .collect::<String>()
    );
    for text in [docs, items, table, arms] {
        let (findings, _) = lint::check_text("flat.rs", &text, Language::Rust, &rules);
        let rules: Vec<&str> = findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, ["agent-spawn-without-group"]);
    }
}

/// The Go checker, fuzzed like the others: random edits of a snippet holding every shape
/// it follows (aliases, constants, both halves, fields, closures), random text, and
/// nesting thousands deep around a spawn.
#[test]
fn the_go_checker_never_panics() {
    const SEED: &str = "package p\nimport (\n\tex \"os/exec\"\n\tsys \"syscall\"\n)\nconst a = \"/bin/\" + \"claude\"\ntype S struct{ c *ex.Cmd }\nfunc (s *S) Go(ctx context.Context) error {\n\ts.c = ex.CommandContext(ctx, filepath.Join(d, a), \"-p\")\n\ts.c.SysProcAttr = &sys.SysProcAttr{Setpgid: true}\n\ts.c.Cancel = func() error { return sys.Kill(-s.c.Process.Pid, 9) }\n\tgo func() { ex.Command(\"sh\", \"-c\", \"cd x && codex\").Run() }()\n\treturn s.c.Run()\n}\n";
    let rules = Rules::load(&["my-agent".into()], &["pkg.helper".into()]).unwrap();
    let mut runner = TestRunner::new(RunnerConfig {
        cases: cases(),
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let strategy = prop_oneof![mutated(SEED), "\\PC{0,200}", any::<String>()];
    runner
        .run(&strategy, |text| {
            let _ = lint::check_text("fuzz/file.go", &text, Language::Go, &rules);
            Ok(())
        })
        .unwrap();
    let (findings, _) = lint::check_text("seed.go", SEED, Language::Go, &rules);
    assert_eq!(findings.len(), 1, "the shell string's codex: {findings:?}");
    for (open, close) in [
        ("(", ")"),
        ("[]string{", "}"),
        ("func() string { return ", " }()"),
        ("f(", ")"),
        ("a + ", ""),
        ("-", ""),
        ("&S{c: ", "}"),
        ("", ".x"),
    ] {
        for depth in [1000, 20_000] {
            let inner = format!("{}x{}", open.repeat(depth), close.repeat(depth));
            let text = format!(
                "package p\nimport \"os/exec\"\nvar x = {inner}\nfunc f() {{ exec.Command(\"claude\").Run() }}\n"
            );
            let (findings, _) = lint::check_text("deep.go", &text, Language::Go, &rules);
            assert!(!findings.is_empty(), "Go shape {open:?} x {depth}");
        }
    }
}
