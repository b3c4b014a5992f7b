//! The lint's rule data: `lints/agent-spawn.toml`, embedded at build time, extended by
//! `[lint]` in fleet.toml.

use serde::Deserialize;

use crate::error::{Error, Result};

const DATA: &str = include_str!("../../lints/agent-spawn.toml");

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub id: String,
    pub agents: Vec<String>,
    pub helpers: Vec<String>,
    pub leader_alive: Vec<String>,
    pub python: Python,
    pub rust: Rust,
    pub javascript: JavaScript,
    pub shell: Shell,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Python {
    pub prefilter: Vec<String>,
    pub spawn: Vec<String>,
    pub shell_string: Vec<String>,
    pub no_group_option: Vec<String>,
    pub cleanup: Vec<Keyword>,
    pub which: Vec<String>,
    pub blocking: Vec<String>,
    pub group_kill: Vec<String>,
    pub kill_negative: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keyword {
    pub keyword: String,
    pub values: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rust {
    pub prefilter: Vec<String>,
    pub spawn: Vec<String>,
    pub macros: Vec<String>,
    pub cleanup: Vec<String>,
    pub which: Vec<String>,
    pub wrappers: Vec<String>,
    pub group_kill: Vec<String>,
    pub kill_negative: Vec<String>,
    pub blocking: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JavaScript {
    pub prefilter: Vec<String>,
    pub child_process: Vec<String>,
    pub modules: Vec<String>,
    pub execa: Vec<String>,
    pub no_group_option: Vec<String>,
    pub blocking: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shell {
    pub cleanup: Vec<String>,
    pub cleanup_unless: std::collections::BTreeMap<String, Vec<String>>,
    pub session_only: Vec<String>,
    pub transparent: Vec<String>,
    pub value_options: std::collections::BTreeMap<String, Vec<String>>,
    pub positional: std::collections::BTreeMap<String, usize>,
    pub no_command: std::collections::BTreeMap<String, Vec<String>>,
    pub split_options: std::collections::BTreeMap<String, Vec<String>>,
    pub shells: Vec<String>,
}

impl Rules {
    /// The built-in rules plus the project's own agents and helpers.
    pub fn load(extra_agents: &[String], extra_helpers: &[String]) -> Result<Rules> {
        let mut rules: Rules = toml::from_str(DATA)
            .map_err(|e| Error::env(format!("the built-in lint rules do not parse: {e}")))?;
        rules.agents.extend(extra_agents.iter().cloned());
        rules.helpers.extend(extra_helpers.iter().cloned());
        rules.agents.sort();
        rules.agents.dedup();
        Ok(rules)
    }

    /// Is `program` (a name or a path) an agent executable?
    pub fn agent(&self, program: &str) -> Option<&str> {
        let name = program.trim_matches(|c| c == '"' || c == '\'');
        let name = name.rsplit(['/', '\\']).next().unwrap_or(name);
        let name = name.strip_suffix(".exe").unwrap_or(name);
        self.agents.iter().find(|a| *a == name).map(String::as_str)
    }

    /// Is the function `qualified` (e.g. `my_pkg.spawn.spawn_group`) an approved helper?
    /// A helper named `my_pkg.spawn_group` also matches it defined in a submodule.
    pub fn is_helper(&self, qualified: &str) -> bool {
        let name = qualified.rsplit(['.', ':']).next().unwrap_or(qualified);
        self.helpers.iter().any(|h| {
            let h_name = h.rsplit(['.', ':']).next().unwrap_or(h);
            if h_name != name || h.contains(' ') {
                return false;
            }
            let h_prefix = h.trim_end_matches(h_name).trim_end_matches(['.', ':']);
            h_prefix.is_empty()
                || qualified
                    .replace("::", ".")
                    .starts_with(&h_prefix.replace("::", "."))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_rules_load_and_match_agents_by_file_name() {
        let rules = Rules::load(&["my-agent".into()], &["my_pkg.spawn_group".into()]).unwrap();
        assert_eq!(rules.agent("/usr/local/bin/claude"), Some("claude"));
        assert_eq!(rules.agent("my-agent"), Some("my-agent"));
        assert_eq!(rules.agent("claude-helper"), None);
        assert!(rules.is_helper("my_pkg.spawn_group"));
        assert!(rules.is_helper("my_pkg.proc.spawn_group"));
        assert!(!rules.is_helper("other.spawn_group"));
    }
}
