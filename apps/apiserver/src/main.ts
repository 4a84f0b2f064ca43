#!/usr/bin/env node
// apiserver [flags]: parse and validate every flag (all errors at once, exit 1 before any port is bound), start
// the server, and terminate gracefully on SIGTERM/SIGINT with exit 0.
import { anonymousAuthenticator, unionAuthenticator } from '@cl/auth';
import { createEgressSelector } from '@cl/egress';
import { createTracing } from '@cl/tracing';
import { buildAuthorization } from './authz';
import { loadConfigFiles, initializeAdmission } from './config-files';
import { createLogger } from './logger';
import { apiserverFlags, parseCommandLine } from './options';
import { startApiserver, type ServerParts } from './server';
import { versionInfo } from './version';

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
  const config = cl.errors.length === 0 ? loadConfigFiles(cl.options.values, cl.options.explicit) : { files: {}, errors: [] };
  const errors = [...cl.errors, ...config.errors];
  if (errors.length > 0) {
    for (const e of errors) process.stderr.write(`Error: ${e}\n`);
    if (cl.errors.length > 0) process.stderr.write(`Run 'apiserver --help' for usage.\n`);
    return 1;
  }
  const log = createLogger({ verbosity: cl.options.verbosity });
  let egress;
  try {
    egress = createEgressSelector(config.files.egress);
  } catch (e) {
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    return 1;
  }
  // OIDC discovery never goes through egress (the spec); webhooks use `controlplane`, the store `store`.
  const tracing = createTracing(config.files.tracing, { serviceName: 'apiserver', egress: egress.dialerFor('controlplane') });
  let authz;
  try {
    authz = buildAuthorization(cl.options.authorization, { egress, log });
  } catch (e) {
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    return 1;
  }
  const parts: ServerParts = {
    authenticator: unionAuthenticator(cl.options.anonymousAuth ? [anonymousAuthenticator()] : []),
    authorizer: authz.authorizer,
    routes: [...authz.routes],
    groupVersions: [...authz.groupVersions],
    onClose: () => authz.close(),
    egress,
    tracing,
    extraSteps: {
      'start-cl-apiserver-admission-initializer': async () => initializeAdmission(config.files.admission, (l) => log.info(l)),
    },
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
