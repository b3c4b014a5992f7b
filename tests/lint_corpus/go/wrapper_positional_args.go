// A wrapper taking a positional argument before the command (taskset's mask, chrt's
// priority) or an option with a separate value (`stdbuf -o L`) keeps the agent in the
// caller's group; a wrapper acting on a running process (`taskset -p`) runs nothing.
package agents

import (
	"os/exec"
	"strconv"
)

func Masked() error {
	return exec.Command("taskset", "0x3", "claude", "-p", "hi").Run() // expect: agent-spawn-without-group
}

func Realtime() error {
	return exec.Command("chrt", "-f", "10", "claude", "-p", "hi").Run() // expect: agent-spawn-without-group
}

func LineBuffered(prompt string) error {
	return exec.Command("stdbuf", "-o", "L", "codex", "exec", prompt).Start() // expect: agent-spawn-without-group
}

func Repin(pid int) error {
	return exec.Command("taskset", "-p", "0x3", strconv.Itoa(pid)).Run()
}
