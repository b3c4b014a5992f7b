// A program a method of the file returns is the program of the spawn calling it, as for
// the file's functions: value and pointer receivers alike. A method returning what the
// file does not give (a field) stays out of reach, and a call on an imported package is
// no method of the file.
package agents

import (
	"os/exec"
	"path/filepath"
	"syscall"
)

const agent = "gemini"

type Cfg struct{}

func (Cfg) Bin() string { return "claude" }

type Runner struct {
	path string
}

func (r *Runner) bin() string {
	return agent
}

func (r *Runner) configured() string {
	return r.path
}

func (r *Runner) tool() string {
	return "gzip"
}

func agentBin() string { return "codex" }

func Run(c Cfg, q string) error {
	return exec.Command(c.Bin(), "-p", q).Run() // expect: agent-spawn-without-group
}

func (r *Runner) Run(q string) error {
	if err := exec.Command(agentBin(), "exec", q).Run(); err != nil { // expect: agent-spawn-without-group
		return err
	}
	return exec.Command(r.bin(), "-p", q).Run() // expect: agent-spawn-without-group
}

func (r *Runner) Grouped(q string) error {
	cmd := exec.Command(r.bin(), "-p", q)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}

func (r *Runner) Dynamic(q string) error {
	if err := exec.Command(r.configured(), "-p", q).Run(); err != nil {
		return err
	}
	if err := exec.Command(filepath.Base(q)).Run(); err != nil {
		return err
	}
	return exec.Command(r.tool(), q).Run()
}
