// The konnectivity test fake (proxy-server + agent, `forward` mode) as a process of its own, for suites whose
// test process blocks on synchronous kubectl calls and so cannot relay tunnel traffic itself.
// Run: node -r @swc-node/register libs/egress/test/support/konnectivity-server-main.ts <socket path>
// Prints `listening <socket>` once it accepts, then `dial <address>` for every DIAL_REQ; stops on SIGTERM or
// when its stdin closes (the parent went away).
import { startKonnectivityServer } from './konnectivity-server';

async function main(): Promise<void> {
  const socketPath = process.argv[2];
  if (!socketPath) throw new Error('usage: konnectivity-server-main.ts <socket path>');
  const server = await startKonnectivityServer(socketPath, { kind: 'forward' });
  server.recordPackets = false;
  server.onDial = (address) => process.stdout.write(`dial ${address}\n`);
  process.stdout.write(`listening ${socketPath}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
