// bench/api "hostile clients" row: GET load on the API server while 1,000 TLS connections sit idle after their
// handshake and 50 clients send request bodies at 1 byte/s, against the same GET load without them in alternating
// windows; and the server's RSS before them, with them, and once they are gone, split into V8's heap and the rest
// (malloc's arenas, where OpenSSL's and Node's native objects of each connection live).
// The idle connections and slow bodies are what a misbehaving or malicious client costs the server until its
// timeouts (header, idle, request) end them; a last phase leaves them to the server and reports when it closed them
// (ReadHeaderTimeout 32 s, --request-timeout).
const https = require('node:https');
const tls = require('node:tls');
const { readFileSync } = require('node:fs');
const { load, median } = require('../lib/https-load');

/** The process's resident set, MB (VmRSS from /proc). */
function rssMb(pid) {
  const kb = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  return kb / 1024;
}

/**
 * V8's heap (heapTotal, MB) as the server's /metrics reports it (prom-client's nodejs_heap_size_total_bytes, read from
 * process.memoryUsage() at the scrape): RSS less this is what lives outside V8's heap, which is where OpenSSL's and
 * Node's native objects of each connection are (malloc's arenas), next to the binary's code.
 */
function v8HeapMb(base) {
  return new Promise((resolve, reject) => {
    const u = new URL('/metrics', base);
    https
      .get({ host: u.hostname, port: u.port, path: u.pathname, rejectUnauthorized: false, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          const m = /^nodejs_heap_size_total_bytes (\d+)/m.exec(body);
          if (!m) return reject(new Error(`/metrics: ${res.statusCode}, no nodejs_heap_size_total_bytes`));
          resolve(Number(m[1]) / 1048576);
        });
      })
      .on('error', reject);
  });
}

/** `n` TLS connections that finish the handshake and then send nothing, opened `batch` at a time. */
async function idleConnections(base, n, batch = 50) {
  const u = new URL(base);
  const sockets = [];
  const closedAt = [];
  const t0 = Date.now();
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, () =>
        new Promise((resolve, reject) => {
          const s = tls.connect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false }, () => resolve());
          s.on('error', reject);
          s.on('close', () => closedAt.push(Date.now() - t0));
          sockets.push(s);
        }),
      ),
    );
  }
  return {
    closedAt,
    close() {
      for (const s of sockets) {
        s.removeAllListeners('close');
        s.on('error', () => {});
        s.destroy();
      }
    },
  };
}

/** `n` creates whose body arrives one byte a second (JSON whitespace after the opening of the object). */
function slowBodies(base, namespace, n) {
  const requests = [];
  const answers = [];
  const t0 = Date.now();
  const timer = setInterval(() => {
    for (const r of requests) if (!r.destroyed) r.write(' ');
  }, 1000);
  for (let i = 0; i < n; i++) {
    const u = new URL(`/api/v1/namespaces/${namespace}/configmaps`, base);
    const req = https.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', rejectUnauthorized: false, agent: false, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      answers.push({ status: res.statusCode, afterMs: Date.now() - t0 });
      res.resume();
    });
    req.on('error', () => {});
    req.write(`{"metadata":{"name":"slow-${i}"}`);
    requests.push(req);
  }
  return {
    answers,
    close() {
      clearInterval(timer);
      for (const r of requests) r.destroy();
    },
  };
}

/**
 * Alternating windows of GET `url` (10 connections, `duration` s): without hostile clients, then with them (opened
 * before the window, closed after it). Ratio per round (with / the window before), median reported; RSS (and V8's
 * heap within it) before the first round, the highest seen with them, after the last window without them (`settle`
 * s of GET load after the last close), and once the server has been quiet for up to `quietSeconds` (it stops waiting
 * as soon as RSS is within `rssTargetMb` of where it started).
 *
 * What a closed connection leaves (measured, see README): the server frees its OpenSSL and Node objects at the
 * close (malloc's in-use bytes fall back to within 3 MB of where they were), but glibc keeps the freed pages: they lie
 * between allocations that outlived the burst, below the arena's top, and glibc gives back only a free top (or
 * everything on an explicit malloc_trim, which Node never calls). A full V8 GC does not change that; what V8's memory
 * reducer gives back after some quiet is V8's own slack. The next burst reuses the pages: RSS after each round's close
 * (`rssAfterRoundMb`) grows a few MB a round, not by the first burst's thirty-odd.
 */
async function hostileClients({ base, pid, url, namespace, rounds, duration, connections, idle = 1000, slow = 50, settle = 4, waitSeconds = 100, quietSeconds = 60, rssTargetMb = 10 }) {
  await load(url, { duration: 2, connections });
  const rssBefore = rssMb(pid);
  const heapBefore = await v8HeapMb(base);
  let rssDuring = 0;
  let heapDuring = 0;
  const ratios = [];
  let quietRps = 0;
  let hostileRps = 0;
  const rssAfterRound = [];
  for (let round = 0; round < rounds; round++) {
    const quiet = await load(url, { duration, connections });
    if (quiet.non2xx || quiet.errors) throw new Error(`GET without hostile clients: ${quiet.non2xx} non-2xx, ${quiet.errors} errors`);
    const conns = await idleConnections(base, idle);
    const bodies = slowBodies(base, namespace, slow);
    const sampler = setInterval(() => (rssDuring = Math.max(rssDuring, rssMb(pid))), 200);
    const loaded = await load(url, { duration, connections });
    clearInterval(sampler);
    rssDuring = Math.max(rssDuring, rssMb(pid));
    heapDuring = Math.max(heapDuring, await v8HeapMb(base));
    conns.close();
    bodies.close();
    rssAfterRound.push(rssMb(pid));
    if (loaded.non2xx || loaded.errors) throw new Error(`GET with hostile clients: ${loaded.non2xx} non-2xx, ${loaded.errors} errors`);
    ratios.push(loaded.requests.average / quiet.requests.average);
    quietRps += quiet.requests.average / rounds;
    hostileRps += loaded.requests.average / rounds;
  }
  const after = await load(url, { duration: settle, connections });
  if (after.non2xx || after.errors) throw new Error(`GET after hostile clients: ${after.non2xx} non-2xx, ${after.errors} errors`);
  const rssAfter = rssMb(pid);
  const heapAfter = await v8HeapMb(base);
  let rssQuiet = rssAfter;
  let quietS = 0;
  while (quietS < quietSeconds && rssQuiet - rssBefore > rssTargetMb) {
    await new Promise((r) => setTimeout(r, 1000));
    quietS++;
    rssQuiet = rssMb(pid);
  }
  const heapQuiet = await v8HeapMb(base);
  const left = await leftToTheServer(base, namespace, idle, slow, waitSeconds);
  const ratio = median(ratios);
  return {
    idle,
    slow,
    quietRps,
    hostileRps,
    ratio,
    target: 0.8,
    ratioMet: ratio >= 0.8,
    rssBeforeMb: rssBefore,
    rssDuringMb: rssDuring,
    rssAfterMb: rssAfter,
    rssAfterRoundMb: rssAfterRound,
    rssQuietMb: rssQuiet,
    quietSeconds: quietS,
    rssTargetMb,
    rssMet: rssQuiet - rssBefore <= rssTargetMb,
    v8HeapMb: { before: heapBefore, during: heapDuring, after: heapAfter, quiet: heapQuiet },
    leftToTheServer: { ...left, rssMb: rssMb(pid) },
  };
}

/** The same clients, never closed by this side: when the server closed the idle connections and answered the slow bodies (or gave up waiting). */
async function leftToTheServer(base, namespace, idle, slow, waitSeconds) {
  const conns = await idleConnections(base, idle);
  const bodies = slowBodies(base, namespace, slow);
  const deadline = Date.now() + waitSeconds * 1000;
  while (Date.now() < deadline && (conns.closedAt.length < idle || bodies.answers.length < slow)) await new Promise((r) => setTimeout(r, 250));
  conns.close();
  bodies.close();
  const closed = [...conns.closedAt].sort((a, b) => a - b);
  const answered = bodies.answers.map((a) => a.afterMs).sort((a, b) => a - b);
  return {
    waitedSeconds: waitSeconds,
    idleClosed: closed.length,
    idleClosedFirstS: closed.length ? closed[0] / 1000 : null,
    idleClosedLastS: closed.length ? closed[closed.length - 1] / 1000 : null,
    slowAnswered: answered.length,
    slowStatuses: [...new Set(bodies.answers.map((a) => a.status))],
    slowAnsweredFirstS: answered.length ? answered[0] / 1000 : null,
    slowAnsweredLastS: answered.length ? answered[answered.length - 1] / 1000 : null,
  };
}

function formatHostile(h) {
  const l = h.leftToTheServer;
  const sign = (mb) => `${mb >= 0 ? '+' : ''}${mb.toFixed(1)}`;
  const span = (n, of, first, last, what) => (n ? `${n}/${of} ${what} after ${first.toFixed(1)}-${last.toFixed(1)} s` : `0/${of} ${what}`);
  const met = (ok) => (ok ? 'met' : 'NOT met');
  const v = h.v8HeapMb;
  const outside = (rss, heap) => (rss - heap).toFixed(0);
  return (
    `hostile clients      ${h.hostileRps.toFixed(0).padStart(8)} req/s GET with ${h.idle} idle TLS + ${h.slow} slow bodies vs ${h.quietRps.toFixed(0)} without   ratio ${h.ratio.toFixed(2)} (target >= 0.8: ${met(h.ratioMet)})\n` +
    `                     RSS before ${h.rssBeforeMb.toFixed(0)} MB, with them ${h.rssDuringMb.toFixed(0)} MB (+${(h.rssDuringMb - h.rssBeforeMb).toFixed(0)}), after ${h.rssAfterMb.toFixed(0)} MB (${sign(h.rssAfterMb - h.rssBeforeMb)}), ${h.rssQuietMb.toFixed(0)} MB (${sign(h.rssQuietMb - h.rssBeforeMb)}) after ${h.quietSeconds} s quiet (target within ${h.rssTargetMb} MB: ${met(h.rssMet)})\n` +
    `                     V8 heap ${v.before.toFixed(0)} -> ${v.during.toFixed(0)} -> ${v.after.toFixed(0)} -> ${v.quiet.toFixed(0)} MB, outside it ${outside(h.rssBeforeMb, v.before)} -> ${outside(h.rssDuringMb, v.during)} -> ${outside(h.rssAfterMb, v.after)} -> ${outside(h.rssQuietMb, v.quiet)} MB; RSS after each round's close ${h.rssAfterRoundMb.map((x) => x.toFixed(0)).join(', ')} MB\n` +
    `                     left to the server: ${span(l.idleClosed, h.idle, l.idleClosedFirstS, l.idleClosedLastS, 'idle closed')}, ${span(l.slowAnswered, h.slow, l.slowAnsweredFirstS, l.slowAnsweredLastS, `slow bodies answered ${l.slowStatuses.join(',')}`)} (waited up to ${l.waitedSeconds} s); RSS then ${l.rssMb.toFixed(0)} MB`
  );
}

module.exports = { hostileClients, formatHostile, rssMb };
