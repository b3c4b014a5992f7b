// Names agents, starts none: no finding.
package agents

import (
	"fmt"
	"os/exec"
)

const claudeDocs = "claude is only a word here"

func version() ([]byte, error) {
	return exec.Command("git", "--version").Output()
}

// A program known only at run time is out of the lint's reach: not a finding.
func dynamic(program string) error {
	return exec.Command(program, "-p", "hi").Run()
}

func printed() {
	fmt.Println("run claude -p yourself")
}

// Through fleet run, which makes the group and kills it.
func viaFleet(prompt string) error {
	return exec.Command("fleet", "run", "--timeout", "10m", "--", "claude", "-p", prompt).Run()
}
