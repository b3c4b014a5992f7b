//! Shell scripts: an agent run without `setsid`, `timeout` (which signals the whole
//! group unless `--foreground`) or `fleet run` in front. Parsed with tree-sitter-bash;
//! a program held in a variable assigned in the script (`CLAUDE=claude`,
//! `BIN=$(command -v claude)`) is followed.

use std::collections::HashMap;

use tree_sitter::Node;

use super::rules::Rules;
use super::syntax::{self, Checked, raw_at, text};

pub fn check(src: &str, rules: &Rules) -> Checked {
    let Some(tree) = syntax::parse(tree_sitter_bash::LANGUAGE.into(), src) else {
        return Checked {
            findings: Vec::new(),
            parse_error: Some("the shell parser gave up".into()),
        };
    };
    let root = tree.root_node();
    let mut variables: HashMap<String, Vec<String>> = HashMap::new();
    syntax::walk(root, &mut |node| {
        if node.kind() == "variable_assignment"
            && let (Some(name), Some(value)) = (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            )
        {
            variables
                .entry(text(name, src).into())
                .or_default()
                .push(text(value, src).into());
        }
    });
    let mut findings = Vec::new();
    syntax::walk(root, &mut |node| {
        if node.kind() != "command" {
            return;
        }
        let words = command_words(node, src);
        if let Some(agent) = unguarded_agent(&words, rules, &variables) {
            findings.push(raw_at(
                node.child_by_field_name("name").unwrap_or(node),
                src,
                format!("`{agent}` is run without a process group of its own"),
                format!(
                    "run it as `setsid {agent} ...` and kill the group, or `timeout DUR {agent} \
                     ...` (it signals the whole group), or `fleet run --timeout DUR -- {agent} ...`"
                ),
            ));
        }
    });
    Checked {
        findings,
        parse_error: syntax::first_error(&tree),
    }
}

/// The command's words: its name, then its arguments, quotes removed.
fn command_words(node: Node, src: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "command_name"
            | "word"
            | "string"
            | "raw_string"
            | "simple_expansion"
            | "expansion"
            | "concatenation"
            | "command_substitution"
            | "number" => {
                words.push(unquote(text(child, src)));
            }
            _ => {}
        }
    }
    words
}

fn unquote(word: &str) -> String {
    word.trim_matches(|c| c == '"' || c == '\'').to_string()
}

/// The agent this command runs with no group of its own, looking through wrappers that
/// keep the group (`nohup`, `env`, `exec`, ...) and stopping at ones that make one.
fn unguarded_agent(
    words: &[String],
    rules: &Rules,
    variables: &HashMap<String, Vec<String>>,
) -> Option<String> {
    let shell = &rules.shell;
    let mut i = 0;
    while i < words.len() {
        let word = resolve(&words[i], variables);
        let name = word.rsplit('/').next().unwrap_or(&word);
        if name == "fleet" && words.get(i + 1).map(String::as_str) == Some("run") {
            return None;
        }
        if shell.cleanup.iter().any(|c| c == name) {
            let unless = shell.cleanup_unless.get(name).cloned().unwrap_or_default();
            if !words[i + 1..].iter().any(|w| unless.contains(w)) {
                return None;
            }
            i += 1;
            // `timeout --foreground 30 claude`: skip its options and the duration.
            while i < words.len()
                && (words[i].starts_with('-')
                    || words[i].chars().next().is_some_and(|c| c.is_ascii_digit()))
            {
                i += 1;
            }
            continue;
        }
        if shell.transparent.iter().any(|t| t == name) {
            i += 1;
            while i < words.len()
                && (words[i].starts_with('-') || (name == "env" && words[i].contains('=')))
            {
                i += 1;
            }
            continue;
        }
        return rules.agent(&word).map(String::from);
    }
    None
}

/// A `$VAR`/`${VAR}` word replaced by what the script assigns to it (an agent name,
/// or the name inside `$(command -v NAME)`/`$(which NAME)`).
fn resolve(word: &str, variables: &HashMap<String, Vec<String>>) -> String {
    let name = word
        .trim_start_matches('$')
        .trim_start_matches('{')
        .trim_end_matches('}');
    if !word.starts_with('$') || word.starts_with("$(") {
        return substitution_program(word).unwrap_or_else(|| word.to_string());
    }
    let Some(values) = variables.get(name) else {
        return word.to_string();
    };
    for value in values.iter().rev() {
        let value = unquote(value);
        let program = substitution_program(&value).unwrap_or(value);
        if !program.starts_with('$') {
            return program;
        }
    }
    word.to_string()
}

/// `$(command -v claude)`, `$(which claude)` -> `claude`.
fn substitution_program(value: &str) -> Option<String> {
    let inner = value.strip_prefix("$(")?.strip_suffix(')')?;
    let words: Vec<&str> = inner.split_whitespace().collect();
    match words.as_slice() {
        ["command", "-v", name] | ["which", name] | ["type", "-P", name] => Some(unquote(name)),
        _ => None,
    }
}
