// SPDX-License-Identifier: MIT
'use strict';

// The decider COMMAND a run with askHost gives `confine --ask-host`
// (./ask-host.js writes the script that runs this): `ask-relay.js SOCKET
// HOST PORT` asks the package's process over SOCKET, prints the reason
// (one line) and exits 0 to allow, 1 to refuse. Any failure refuses.
const net = require('node:net');

const [socket, host, port] = process.argv.slice(2);
let reply = '';
const conn = net.connect(socket, () => conn.write(`${host} ${port}\n`));
conn.setEncoding('utf8');
conn.on('data', (chunk) => { reply += chunk; });
conn.on('error', (e) => {
  process.stdout.write(`the decider's relay failed: ${e.message}\n`);
  process.exitCode = 1;
});
conn.on('end', () => {
  const line = reply.split('\n')[0];
  const space = line.indexOf(' ');
  const word = space < 0 ? line : line.slice(0, space);
  process.stdout.write(`${space < 0 ? '' : line.slice(space + 1)}\n`);
  process.exitCode = word === 'allow' ? 0 : 1;
});
