use std::process::{Command, Output};
use std::time::Duration;

const AGENT: &str = "gemini";
static DEFAULT_TIMEOUT: Duration = Duration::from_secs(900);

pub struct Runner {
    timeout: Duration,
}

impl Runner {
    pub fn new() -> Self {
        Runner {
            timeout: DEFAULT_TIMEOUT,
        }
    }

    pub fn run(&self, prompt: &str) -> std::io::Result<Output> {
        let _ = self.timeout;
        Command::new(AGENT).args(["--yolo", "-p", prompt]).output() // expect: agent-spawn-without-group
    }
}

impl Default for Runner {
    fn default() -> Self {
        Self::new()
    }
}
