// A program a function of the file returns (`exec.LookPath("codex")` with a fallback)
// is the program of the spawn calling it.
package agents

import (
	"os/exec"
	"syscall"
)

func codexPath() string {
	p, err := exec.LookPath("codex")
	if err != nil {
		return "codex"
	}
	return p
}

func goPath() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

func recursive() string {
	return recursive()
}

func Run(q string) error {
	return exec.Command(codexPath(), "exec", q).Run() // expect: agent-spawn-without-group
}

func Grouped(q string) error {
	cmd := exec.Command(codexPath(), "exec", q)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}

func Tools() error {
	if err := exec.Command(goPath(), "vet").Run(); err != nil {
		return err
	}
	return exec.Command(recursive(), "-v").Run()
}
