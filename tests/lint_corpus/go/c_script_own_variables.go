// A `bash -c` script's own variables and arrays, and an expansion's default, are
// followed as a shell script file's are.
package agent

import "os/exec"

func Variable() error {
	return exec.Command("bash", "-c", "A=codex; $A exec").Run() // expect: agent-spawn-without-group
}

func Array() error {
	return exec.Command("bash", "-c", `CMD=(claude -p); "${CMD[@]}" hi`).Run() // expect: agent-spawn-without-group
}

func Default() error {
	return exec.Command("sh", "-c", `"${AGENT:-gemini}" -p hi`).Run() // expect: agent-spawn-without-group
}

func UnquotedDefault() error {
	return exec.Command("sh", "-c", "${AGENT:-aider} --yes").Run() // expect: agent-spawn-without-group
}

func NotAnAgent() error {
	return exec.Command("sh", "-c", "A=echo; $A claude").Run()
}
