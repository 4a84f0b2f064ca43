// Baseline: a bare node:https server answering "ok" with the same certificate, in its own process like the API server.
const https = require('node:https');
const fs = require('node:fs');
const [certFile, keyFile] = process.argv.slice(2);
const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, (req, res) => {
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end('ok');
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
