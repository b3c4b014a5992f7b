// A character written by its code in an interpreted string (`\x20`, `\u0020`,
// `\U00000020`, octal `\040`) is that character: the shell string runs the agent after
// it. A raw string keeps its backslashes, and the shell reads `\x20claude` as no agent.
package main

import (
	"os/exec"
	"syscall"
)

func hex() {
	exec.Command("sh", "-c", "cd /r;\x20claude -p hi").Run() // expect: agent-spawn-without-group
}

func unicode() {
	exec.Command("sh", "-c", "cd /r;\u0020codex exec hi").Run() // expect: agent-spawn-without-group
}

func unicodeLong() {
	exec.Command("sh", "-c", "cd /r;\U00000020gemini -p hi").Run() // expect: agent-spawn-without-group
}

func octal() {
	exec.Command("sh", "-c", "cd /r;\040claude -p hi").Run() // expect: agent-spawn-without-group
}

func raw() {
	exec.Command("sh", "-c", `cd /r;\x20claude -p hi`).Run()
}

func grouped() {
	cmd := exec.Command("claude", "-p", "hi")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Start()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
