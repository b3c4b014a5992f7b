// os/exec and syscall under other names, and x/sys/unix.
package agents

import (
	ex "os/exec"
	sys "syscall"

	"golang.org/x/sys/unix"
)

func aliased(prompt string) error {
	cmd := ex.Command("claude", "-p", prompt) // expect: agent-spawn-without-group
	return cmd.Run()
}

func aliasedGroup(prompt string) error {
	cmd := ex.Command("codex", "exec", prompt)
	cmd.SysProcAttr = &sys.SysProcAttr{Setpgid: true}
	defer sys.Kill(-cmd.Process.Pid, sys.SIGKILL)
	return cmd.Run()
}

func withUnix(prompt string) error {
	cmd := ex.Command("gemini", "-p", prompt)
	cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true}
	defer func() { _ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL) }()
	return cmd.Run()
}

// Not os/exec: a package of the project's own that happens to have a Command.
type runner struct{}

func (runner) Command(name string, args ...string) *runner { return nil }

func notExec(r runner) {
	r.Command("claude", "-p")
}
