// An agent named right after a `\n` or `\t` escape in an `sh -c` string is still that
// script's command: the prefilter reads the escape as a word's end.
package main

import "os/exec"

func afterNewline() {
	exec.Command("sh", "-c", "cd /r\nclaude -p hi").Run() // expect: agent-spawn-without-group
}

func afterTab() {
	exec.Command("bash", "-c", "set -e;\tcodex exec hi").Run() // expect: agent-spawn-without-group
}

func aTool() {
	exec.Command("sh", "-c", "cd /r\ngo test ./...").Run()
}
