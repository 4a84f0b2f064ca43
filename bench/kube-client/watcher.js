#!/usr/bin/env node
// The client side of bench/kube-client, one client library per process so memory and CPU are its own:
//   node --expose-gc bench/kube-client/watcher.js <kube-client|client-node> <kubeconfig> <namespace> <watchers>
// Opens <watchers> watches on the namespace's config maps (resourceVersion 0: each first gets ADDED for the
// objects already there), reports when all have their initial events and the memory then, and afterwards, for
// each write the parent makes (a config map whose data carries a sequence number and the write's monotonic
// time), reports once every watcher has it, with the delivery latencies. Talks to the parent over IPC.
const { join } = require('node:path');

const [, , which, kubeconfig, namespace, countArg] = process.argv;
const WATCHERS = Number(countArg);
const PATH = `/api/v1/namespaces/${namespace}/configmaps`;
const now = () => process.hrtime.bigint();

/** Opens one watch with the library under test; `onEvent(type, object)` per event. Returns a closer. */
async function opener() {
  if (which === 'kube-client') {
    const { KubeClient, loadKubeconfig } = require(join(__dirname, '..', '..', 'libs', 'kube-client', 'dist'));
    const client = new KubeClient(loadKubeconfig(kubeconfig));
    return {
      open: async (onEvent) => {
        client.watch(PATH, { resourceVersion: '0' }, onEvent);
      },
      close: () => client.close(),
    };
  }
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const watch = new k8s.Watch(kc);
  const controllers = [];
  return {
    open: async (onEvent) => {
      controllers.push(await watch.watch(PATH, { resourceVersion: '0' }, (type, object) => onEvent(type, object), () => undefined));
    },
    close: () => controllers.forEach((c) => c.abort()),
  };
}

function memory() {
  global.gc();
  global.gc();
  const m = process.memoryUsage();
  return { rssMB: m.rss / 2 ** 20, heapUsedMB: m.heapUsed / 2 ** 20 };
}

async function main() {
  const lib = await opener();
  const before = memory();
  const initial = Number(process.env.INITIAL_OBJECTS);
  // Per sequence number of the parent's writes: how many watchers have it, and their latencies in ms.
  const got = new Map();
  let established = 0;
  let allEstablished;
  const ready = new Promise((r) => (allEstablished = r));
  const t0 = now();
  const watchers = Array.from({ length: WATCHERS }, () => ({ added: 0 }));
  await Promise.all(
    watchers.map((w) =>
      lib.open((type, object) => {
        if (type === 'ADDED' && ++w.added === initial && ++established === WATCHERS) allEstablished();
        const seq = object?.data?.seq;
        if (type !== 'MODIFIED' || seq === undefined) return;
        const ms = Number(now() - BigInt(object.data.at)) / 1e6;
        const entry = got.get(seq) ?? { n: 0, ms: [] };
        got.set(seq, entry);
        entry.ms.push(ms);
        if (++entry.n === WATCHERS) process.send({ delivered: seq, ms: entry.ms });
      }),
    ),
  );
  await ready;
  const establishMs = Number(now() - t0) / 1e6;
  const after = memory();
  let cpu0;
  process.on('message', (m) => {
    if (m.begin) {
      cpu0 = process.cpuUsage();
      process.send({ begun: true });
    }
    if (m.end) {
      const cpu = process.cpuUsage(cpu0);
      process.send({ cpuMs: (cpu.user + cpu.system) / 1000 });
      lib.close();
      setTimeout(() => process.exit(0), 100);
    }
  });
  process.send({ established: true, establishMs, before, after });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
