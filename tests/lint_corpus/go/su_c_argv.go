// An argv whose program is `su` runs its `-c` value as a shell script, the way an argv
// `sh -c` does, the user before or after it and `-` in front; a command that runs no
// agent is none.
package agent

import "os/exec"

func UserFirst() error {
	return exec.Command("su", "agent", "-c", "claude -p hi").Run() // expect: agent-spawn-without-group
}

func LoginShell() error {
	return exec.Command("su", "-", "agent", "-c", "codex exec hi").Run() // expect: agent-spawn-without-group
}

func CommandFirst() error {
	return exec.Command("/bin/su", "-c", "nohup gemini -p hi", "agent").Run() // expect: agent-spawn-without-group
}

func ATool() error {
	return exec.Command("su", "agent", "-c", "go test ./...").Run()
}

func NoCommand() error {
	return exec.Command("su", "agent").Run()
}
