'use strict';
// The admin kubeconfig the API server's up.js writes, read back, and plain HTTPS requests with it: what the
// launcher (up.js) and bench/cluster-start need to watch the cluster come up, without a client library (they run
// before anything else is loaded, and must stay cheap to start).
const fs = require('node:fs');
const https = require('node:https');

/** The server, its CA and the admin client pair of a kubeconfig with inline (base64) data. */
function readKubeconfig(file) {
  const text = fs.readFileSync(file, 'utf8');
  const field = (name) => new RegExp(`${name}: (\\S+)`).exec(text)?.[1];
  const b64 = (name) => Buffer.from(field(name) ?? '', 'base64').toString('utf8');
  return { text, server: field('server'), ca: b64('certificate-authority-data'), cert: b64('client-certificate-data'), key: b64('client-key-data') };
}

/** One request as the admin; resolves { status, body }, rejects on a connection error or after 5 s of silence. */
function request(kc, method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const headers = body ? { 'content-type': 'application/json' } : {};
    const req = https.request(new URL(urlPath, kc.server), { method, ca: kc.ca, cert: kc.cert, key: kc.key, headers, timeout: 5000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

module.exports = { readKubeconfig, request };
