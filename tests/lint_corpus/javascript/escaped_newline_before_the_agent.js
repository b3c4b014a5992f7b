// An agent named right after a `\n` escape in a shell string is still that string's
// command: the prefilter reads the escape as a word's end.
const { exec, spawn } = require('child_process');

exec("cd /r\ngemini -p hi"); // expect: agent-spawn-without-group
spawn('sh', ['-c', 'set -e\ncodex exec hi']); // expect: agent-spawn-without-group
exec("cd /r\nmake test");
