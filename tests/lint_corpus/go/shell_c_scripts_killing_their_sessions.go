// A `bash -c` script is checked as a shell script of its own: one that starts its
// agent in a session and kills that group itself needs no group from the exec.Command
// that starts the shell. One that never kills the session it starts, or kills the
// leader alone, is a finding.
package agent

import "os/exec"

func Owned() error {
	return exec.Command("bash", "-c", "setsid claude -p x & pid=$!; sleep 60; kill -- -$pid").Run()
}

func NeverKilled() error {
	return exec.Command("bash", "-c", "setsid claude -p x & sleep 60").Run() // expect: agent-spawn-without-group
}

func LeaderOnly() error {
	return exec.Command("sh", "-ec", "setsid codex exec hi & pid=$!; sleep 60; kill $pid").Run() // expect: agent-spawn-without-group
}
