// A minimal HTTP CONNECT proxy in its own process, the reference relay for bench/egress: after the 200 it
// only `pipe`s both ways (Node reads up to 64 KiB per syscall), so its row shows what a proxy that is not
// limited by a small relay buffer reaches on this machine next to tinyproxy.
// Run by run.ts; prints its port on stdout once listening on 127.0.0.1.
'use strict';
const net = require('node:net');

const server = net.createServer((client) => {
  client.on('error', () => client.destroy());
  let head = Buffer.alloc(0);
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    client.removeListener('data', onData);
    client.pause();
    const m = /^CONNECT (\S+):(\d+) HTTP\/1\.[01]\r\n/.exec(head.subarray(0, end + 2).toString('latin1'));
    if (!m) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const upstream = net.connect({ host: m[1], port: Number(m[2]) }, () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      if (head.length > end + 4) upstream.write(head.subarray(end + 4));
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.on('error', () => {
      client.destroy();
      upstream.destroy();
    });
    client.on('close', () => upstream.destroy());
  };
  client.on('data', onData);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
