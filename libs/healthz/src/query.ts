// Go's url.ParseQuery (Go >= 1.17): pairs containing ';' or a bad %-escape are dropped, '+' is a space.
// The health handlers must agree with upstream on what counts as `verbose` or an `exclude`.

function queryUnescape(s: string): string | null {
  if (/%(?![0-9a-fA-F]{2})/.test(s)) return null;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return null; // escapes that are not valid UTF-8 sequences
  }
}

export function parseGoQuery(rawQuery: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === null || value === null) continue;
    const list = out.get(key);
    if (list) list.push(value);
    else out.set(key, [value]);
  }
  return out;
}

/** Splits a request target into its decoded path and raw query, or null when the path cannot be decoded. */
export function splitTarget(url: string): { path: string; rawQuery: string } | null {
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  if (/%(?![0-9a-fA-F]{2})/.test(rawPath)) return null;
  try {
    return { path: decodeURIComponent(rawPath), rawQuery };
  } catch {
    return null;
  }
}
