#!/usr/bin/env node
// `cl-config validate FILE...`: loads each file as the API server would (kind detected from the file)
// and prints `FILE: <error>` for every problem. Exit 1 on any error, 0 when every file is valid.
import { ValidationError } from '../field';
import { loadConfigFile } from '../load/any';

const USAGE = 'usage: cl-config validate FILE...';

export function main(argv: string[], out: (s: string) => void, err: (s: string) => void): number {
  const [cmd, ...files] = argv;
  if (cmd === '-h' || cmd === '--help' || cmd === 'help') {
    out(USAGE);
    return 0;
  }
  if (cmd !== 'validate' || files.length === 0) {
    err(cmd && cmd !== 'validate' ? `unknown command ${JSON.stringify(cmd)}\n${USAGE}` : USAGE);
    return 2;
  }
  let failed = false;
  for (const file of files) {
    try {
      const loaded = loadConfigFile(file);
      out(`${file}: valid ${loaded.kind}`);
    } catch (e) {
      failed = true;
      const errors = e instanceof ValidationError ? e.errors : [e as Error];
      for (const x of errors) err(`${file}: ${x.message}`);
    }
  }
  return failed ? 1 : 0;
}

if (require.main === module) {
  process.exitCode = main(
    process.argv.slice(2),
    (s) => process.stdout.write(s + '\n'),
    (s) => process.stderr.write(s + '\n'),
  );
}
