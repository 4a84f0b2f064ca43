#!/usr/bin/env node
// The `clet` binary.
import { run } from './run';

let requestShutdown: () => void = () => undefined;
const shutdown = new Promise<void>((resolve) => {
  requestShutdown = resolve;
});
process.once('SIGTERM', () => requestShutdown());
process.once('SIGINT', () => requestShutdown());

run(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
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
