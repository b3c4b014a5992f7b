// A value rebuilt from itself again and again: evaluated within a budget, never for ever.
package agents

import "os/exec"

func Repeat(prompt string) error {
	x := "make"
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	x = x + x
	return exec.Command(x, prompt).Run()
}

func Plain(prompt string) error {
	return exec.Command("codex", "exec", prompt).Run() // expect: agent-spawn-without-group
}
