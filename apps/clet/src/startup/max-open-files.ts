// --max-open-files: the agent's own RLIMIT_NOFILE, as upstream's rlimit.SetNumFiles at start. Node has no
// setrlimit, so util-linux's prlimit sets it on this process; a failure is logged and start goes on, as
// upstream logs "Failed to set rlimit on max file handles".
import { spawnSync } from 'node:child_process';
import { logLine, type LogFn } from '../log';

export function setMaxOpenFiles(n: number, log: LogFn, pid = process.pid): boolean {
  const r = spawnSync('prlimit', ['--pid', String(pid), `--nofile=${n}:${n}`], { encoding: 'utf8' });
  if (r.status === 0) return true;
  const err = r.error ? r.error.message : (r.stderr || `exit status ${r.status}`).trim();
  log(logLine('Failed to set rlimit on max file handles', { maxOpenFiles: n }, { severity: 'E', err }));
  return false;
}
