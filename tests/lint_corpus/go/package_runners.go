// An agent's npm package run by a package runner (npx, bunx) is that agent, in the argv
// or in a command of its sh -c script; a runner given another package runs no agent.
package agent

import "os/exec"

func Npx(q string) error {
	return exec.Command("npx", "-y", "@anthropic-ai/claude-code", "-p", q).Run() // expect: agent-spawn-without-group
}

func Bunx(task string) error {
	return exec.Command("bunx", "@openai/codex", "exec", task).Run() // expect: agent-spawn-without-group
}

func Script() error {
	return exec.Command("sh", "-c", "cd /work && npx -y @anthropic-ai/claude-code -p hi").Run() // expect: agent-spawn-without-group
}

func Prettier() error {
	return exec.Command("npx", "-y", "prettier", "--check", ".").Run()
}
