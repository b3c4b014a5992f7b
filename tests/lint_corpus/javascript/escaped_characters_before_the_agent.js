// A character written by its code in a string (`\x20`, `\u0020`, `\u{20}`, legacy octal
// `\040`) is that character: the shell string runs the agent after it. An escaped
// backslash (`\\x20`) is a backslash, and the shell reads `\x20claude` as no agent.
const { spawn, execSync } = require('child_process');

function hex() {
  execSync('cd /r;\x20claude -p hi'); // expect: agent-spawn-without-group
}

function unicode() {
  execSync("cd /r;\u0020codex exec hi"); // expect: agent-spawn-without-group
}

function unicodeBraces() {
  execSync(`cd /r;\u{20}gemini -p hi`); // expect: agent-spawn-without-group
}

function octal() {
  execSync('cd /r;\040claude -p hi'); // expect: agent-spawn-without-group
}

function inTheName() {
  spawn('\x63laude', ['-p', 'hi']); // expect: agent-spawn-without-group
}

function escapedBackslash() {
  execSync('cd /r;\\x20claude -p hi');
}

function grouped(q) {
  const child = spawn('claude', ['-p', q], { detached: true });
  child.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}
