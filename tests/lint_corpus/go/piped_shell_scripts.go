// A `sh -c` script that pipes text into a shell, or is written `$'...'`, is read as the
// shell reads it: the printed text is the inner shell's script, and `\n` ends a command.
package main

import "os/exec"

func piped() {
	exec.Command("bash", "-c", "echo 'claude -p hi' | bash -s").Run() // expect: agent-spawn-without-group
}

func printfPipe() {
	exec.Command("sh", "-c", "printf 'cd /r\\nclaude -p hi\\n' | bash").Run() // expect: agent-spawn-without-group
}

func ansiC() {
	exec.Command("bash", "-c", `bash -c $'cd /r\nclaude -p hi'`).Run() // expect: agent-spawn-without-group
}

func teed() {
	exec.Command("bash", "-c", "echo 'claude -p hi' | tee prompt.txt").Run()
}
