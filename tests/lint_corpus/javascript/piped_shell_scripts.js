// A `sh -c` script that pipes text into a shell, or is written `$'...'`, is read as the
// shell reads it: the printed text is the inner shell's script, and `\n` ends a command.
const { spawn, execSync } = require('child_process');

function piped() {
  spawn('bash', ['-c', "echo 'claude -p hi' | bash -s"]); // expect: agent-spawn-without-group
}

function printfExec() {
  execSync("printf 'cd /r\\nclaude -p hi\\n' | bash"); // expect: agent-spawn-without-group
}

function ansiC() {
  spawn('bash', ['-c', "bash -c $'cd /r\\nclaude -p hi'"]); // expect: agent-spawn-without-group
}

function teed() {
  spawn('bash', ['-c', "echo 'claude -p hi' | tee prompt.txt"]);
}

function echoed() {
  execSync("bash -c $'echo claude\\n'");
}
