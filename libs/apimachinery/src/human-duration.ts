// Ages as kubectl's printers write them (k8s.io/apimachinery/pkg/util/duration.HumanDuration): `45s`, `3m20s`,
// `5h`, `2d3h`, `400d`, `3y20d`; more precision for recent times, less for old ones.
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** metav1.Time on the wire: RFC 3339 to the second, UTC. */
export function metaTime(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** metav1.MicroTime on the wire: RFC 3339 with microseconds, UTC. */
export function microTime(date: Date = new Date()): string {
  return date.toISOString().replace(/\.(\d+)Z$/, (_m, frac: string) => `.${frac.padEnd(6, '0').slice(0, 6)}Z`);
}
