#!/usr/bin/env node
// The `clet` binary's entry. The build bundles it (with everything it imports) into dist/main.js: see tools/bundle.js.
import { run } from './run';

let requestShutdown: () => void = () => undefined;
const shutdown = new Promise<void>((resolve) => {
  requestShutdown = resolve;
});
process.once('SIGTERM', () => requestShutdown());
process.once('SIGINT', () => requestShutdown());

/**
 * A writer that remembers the stream's failure (a closed pipe, a full disk) and throws it on the next write:
 * the logger then keeps running without the line, and its flush, which the `log` health check runs, fails.
 */
function writer(stream: NodeJS.WriteStream): (s: string) => void {
  let failed: Error | null = null;
  stream.on('error', (e) => (failed = e));
  return (s) => {
    if (failed) throw failed;
    stream.write(s);
  };
}

run(process.argv.slice(2), {
  stdout: writer(process.stdout),
  stderr: writer(process.stderr),
  env: process.env,
  shutdown,
  requestShutdown: () => requestShutdown(),
}).then(
  (code) => {
    // Anything still open (a pod runtime's stream, a lock holder) must not keep a finished agent alive;
    // flushing stdout first keeps `--help | head` and redirected output complete.
    process.stdout.write('', () => process.exit(code));
  },
  (e: unknown) => {
    process.stderr.write(`clet: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
