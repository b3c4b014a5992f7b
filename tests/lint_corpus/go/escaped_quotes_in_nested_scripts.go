// A nested `-c` script quoted with escaped quotes: the string's value is what the shell
// reads (`bash -c "claude -p hi"`), not its source text with the backslashes.
package agents

import "os/exec"

func doubleQuoted() error {
	return exec.Command("sh", "-c", "bash -c \"claude -p hi\"").Run() // expect: agent-spawn-without-group
}

func onlyEchoed() error {
	return exec.Command("sh", "-c", "bash -c \"echo claude -p hi\"").Run()
}
