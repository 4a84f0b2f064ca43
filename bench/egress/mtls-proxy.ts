// The egress tests' mTLS HTTP CONNECT proxy (libs/egress/test/support/connect-proxy.ts) in a process of its own,
// so that it does not share the bench's event loop. Prints its port, then runs until SIGTERM.
// Run: node -r @swc-node/register bench/egress/mtls-proxy.ts <serving cert> <serving key> <client CA>
import { readFileSync } from 'node:fs';
import { startConnectProxy } from '../../libs/egress/test/support/connect-proxy';

async function main(): Promise<void> {
  const [cert, key, ca] = process.argv.slice(2).map((f) => readFileSync(f));
  const proxy = await startConnectProxy({ tls: { cert, key, ca, requestCert: true, rejectUnauthorized: true } });
  proxy.recordData = false;
  process.stdout.write(`${(proxy.address as { port: number }).port}\n`);
  process.once('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
}

void main();
