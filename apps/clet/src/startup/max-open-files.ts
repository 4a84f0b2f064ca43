// --max-open-files: the agent's own RLIMIT_NOFILE, as upstream's rlimit.SetNumFiles at start. Node has no
// setrlimit, so util-linux's prlimit sets it on this process; a failure is logged and start goes on, as
// upstream logs "Failed to set rlimit on max file handles". The child runs while the start goes on (spawning
// holds this thread only until the fork has exec'd; prlimit's own run does not), and is not run at all when the
// limit already is what is asked (a unit file's LimitNOFILE, say).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { logLine, type LogFn } from '../log';

/** Soft and hard "Max open files" of a process, from /proc/<pid>/limits; null when unreadable. */
export function openFileLimits(limits: string): { soft: number; hard: number } | null {
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(limits);
  if (!m) return null;
  const n = (v: string) => (v === 'unlimited' ? Infinity : Number(v));
  return { soft: n(m[1]), hard: n(m[2]) };
}

export function setMaxOpenFiles(n: number, log: LogFn, pid = process.pid): Promise<boolean> {
  let now: { soft: number; hard: number } | null = null;
  try {
    now = openFileLimits(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  } catch {
    now = null;
  }
  if (now && now.soft === n && now.hard === n) return Promise.resolve(true);
  return new Promise((resolve) => {
    execFile('prlimit', ['--pid', String(pid), `--nofile=${n}:${n}`], { encoding: 'utf8' }, (err, _stdout, stderr) => {
      if (!err) return resolve(true);
      log(logLine('Failed to set rlimit on max file handles', { maxOpenFiles: n }, { severity: 'E', err: (stderr || err.message).trim() }));
      resolve(false);
    });
  });
}
