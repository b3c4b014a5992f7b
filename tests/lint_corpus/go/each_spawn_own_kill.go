// Each spawn needs its own group kill: where a function starts several commands, a kill
// naming another one's (its pid, or a name taken from it) is that one's; a kill naming
// neither (a loop over both, a helper's parameter) counts for each.
package agents

import (
	"os/exec"
	"syscall"
)

func killsAOnly(q string) {
	a := exec.Command("claude", "-p", q)
	a.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	b := exec.Command("codex", "exec", q) // expect: agent-spawn-without-group
	b.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = a.Start()
	_ = b.Start()
	defer syscall.Kill(-a.Process.Pid, syscall.SIGKILL)
	_ = a.Wait()
	_ = b.Wait()
}

func killsAByItsPid(q string) {
	a := exec.Command("claude", "-p", q)
	a.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = a.Start()
	pa := a.Process.Pid
	b := exec.Command("gemini", "-p", q) // expect: agent-spawn-without-group
	b.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = b.Start()
	_ = b.Wait()
	_ = syscall.Kill(-pa, syscall.SIGKILL)
}

func killsEach(q string) {
	a := exec.Command("claude", "-p", q)
	a.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	b := exec.Command("codex", "exec", q)
	b.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = a.Start()
	_ = b.Start()
	defer syscall.Kill(-a.Process.Pid, syscall.SIGKILL)
	defer syscall.Kill(-b.Process.Pid, syscall.SIGKILL)
	_ = a.Wait()
	_ = b.Wait()
}

func killsInALoop(q string) {
	a := exec.Command("claude", "-p", q)
	a.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	b := exec.Command("codex", "exec", q)
	b.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = a.Start()
	_ = b.Start()
	for _, c := range []*exec.Cmd{a, b} {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}

func stopGroup(c *exec.Cmd) {
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
}

func killsThroughAHelper(q string) {
	a := exec.Command("claude", "-p", q)
	a.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	b := exec.Command("codex", "exec", q)
	b.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = a.Start()
	_ = b.Start()
	defer stopGroup(a)
	defer stopGroup(b)
}
