// A constant rebuilt from itself again and again: evaluated within a budget, never for ever
// (a template of itself once overflowed the stack).
const { spawn } = require('child_process');

var X = 'make';
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var X = `${X}${X}${X}${X}${X}${X}${X}${X}`;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;
var Y = X + X + X + X + X + X + X + X;

function repeated() {
  return spawn(X);
}

function plus() {
  return spawn(Y);
}

function plain(prompt) {
  return spawn('codex', ['exec', prompt]); // expect: agent-spawn-without-group
}

module.exports = { repeated, plus, plain };
