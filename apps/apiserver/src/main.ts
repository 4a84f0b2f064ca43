#!/usr/bin/env node
// apiserver [flags]: parse and validate every flag (all errors at once, exit 1 before any port is bound), start
// the server, and terminate gracefully on SIGTERM/SIGINT with exit 0.
import { anonymousAuthenticator, unionAuthenticator, type Authorizer } from '@cl/auth';
import { createLogger } from './logger';
import { apiserverFlags, parseCommandLine } from './options';
import { startApiserver, type ServerParts } from './server';
import { versionInfo } from './version';

const alwaysAllow: Authorizer = { authorize: async () => ({ decision: 'Allow', reason: '' }) };

export async function main(argv: readonly string[]): Promise<number> {
  const cl = parseCommandLine(argv);
  for (const w of cl.warnings) process.stderr.write(`${w}\n`);
  if (cl.help) {
    process.stdout.write(`The cl API server serves the Kubernetes API of a cl control plane.\n\nUsage:\n  apiserver [flags]\n\n${apiserverFlags().usage()}`);
    return 0;
  }
  if (cl.version) {
    process.stdout.write(`Kubernetes ${versionInfo().gitVersion}\n`);
    return 0;
  }
  if (cl.errors.length > 0) {
    for (const e of cl.errors) process.stderr.write(`Error: ${e}\n`);
    process.stderr.write(`Run 'apiserver --help' for usage.\n`);
    return 1;
  }
  const log = createLogger({ verbosity: cl.options.verbosity });
  const parts: ServerParts = {
    authenticator: unionAuthenticator(cl.options.anonymousAuth ? [anonymousAuthenticator()] : []),
    authorizer: alwaysAllow,
  };
  let server;
  try {
    server = await startApiserver(cl.options, parts, log);
  } catch (e) {
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    return 1;
  }
  const running = server;
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      log.info(`Received ${signal}, shutting down`);
      void running.shutdown().then(() => resolve(typeof process.exitCode === 'number' ? process.exitCode : 0));
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`Error: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
