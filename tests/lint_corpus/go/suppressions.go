package agents

import "os/exec"

func interactive() error {
	// fleet: allow(agent-spawn-without-group) an interactive session in the user's terminal, ended by the user
	return exec.Command("claude").Run()
}

func version() ([]byte, error) {
	return exec.Command("codex", "--version").Output() // fleet: allow(agent-spawn-without-group) --version exits at once, no helpers
}

func lazy(prompt string) error {
	// expect: suppression-without-reason -- fleet: allow(agent-spawn-without-group)
	return exec.Command("gemini", "-p", prompt).Run() // expect: agent-spawn-without-group
}
