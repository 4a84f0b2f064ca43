// The baseline for LIST: a bare node:https server that answers every request with one prepared JSON body (the
// same bytes the API server sent for the list), with the API server's certificate. Prints its port.
// Usage: node raw-list-server.js <cert> <key> <body-file>
const https = require('node:https');
const { readFileSync } = require('node:fs');

const [cert, key, bodyFile] = process.argv.slice(2);
const body = readFileSync(bodyFile);
const server = https.createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
