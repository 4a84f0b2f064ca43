// Upstream's image/registry glob matching (credentialprovider.URLsMatchStr): both sides are scheme-less
// URLs; the hosts must have the same number of DNS labels and each label matches as a path.Match glob
// (so `*` stands for one label, never a dot); the ports must be equal; the glob's path is a string prefix
// of the target's path.

/** A scheme-less URL cut into host labels, port and path (upstream parses `dummy://` + text). */
export interface SchemelessURL { labels: string[]; port: string; path: string }

// The characters Go's url.Parse allows in a host name (encodeHost), besides letters and digits.
const HOST_CHARS = /^[A-Za-z0-9\-_.~!$&'()*+,;=[\]<>"%]*$/;

/** ParseSchemelessURL; throws with Go's url.Parse words when the text is not a URL. */
export function parseSchemelessURL(text: string): SchemelessURL {
  const quoted = `parse ${JSON.stringify('dummy://' + text)}`;
  // As url.Parse: `?` starts the query and `#` the fragment, neither of which takes part in matching.
  const cut = text.search(/[?#]/);
  if (cut >= 0) text = text.slice(0, cut);
  const slash = text.indexOf('/');
  const authority = slash < 0 ? text : text.slice(0, slash);
  const path = slash < 0 ? '' : text.slice(slash);
  const at = authority.lastIndexOf('@');
  const hostPort = at < 0 ? authority : authority.slice(at + 1);
  const colon = hostPort.lastIndexOf(':');
  const host = colon < 0 ? hostPort : hostPort.slice(0, colon);
  const port = colon < 0 ? '' : hostPort.slice(colon + 1);
  if (!/^\d*$/.test(port)) throw new Error(`${quoted}: invalid port ${JSON.stringify(':' + port)} after host`);
  for (const ch of host) {
    if (!HOST_CHARS.test(ch)) throw new Error(`${quoted}: invalid character ${JSON.stringify(ch)} in host name`);
  }
  return { labels: host.split('.'), port, path };
}

/**
 * Go's path.Match for one label: `*` any run, `?` one character, `[...]`/`[^...]` classes, `\` escapes.
 * Throws on a malformed pattern (Go's ErrBadPattern), which upstream counts as no match.
 */
export function globMatch(pattern: string, name: string): boolean {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else if (ch === '\\') {
      if (i + 1 >= pattern.length) throw new Error('syntax error in pattern');
      re += escapeRegExp(pattern[++i]);
    } else if (ch === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) throw new Error('syntax error in pattern');
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith('^');
      if (negate) body = body.slice(1);
      if (body === '') throw new Error('syntax error in pattern');
      re += `[${negate ? '^' : ''}${body.replace(/[\]\\^]/g, (c) => '\\' + c)}]`;
      i = end;
    } else re += escapeRegExp(ch);
  }
  return new RegExp(re + '$').test(name);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** URLsMatchStr(glob, target): false when either side does not parse or the glob is malformed. */
export function urlsMatch(glob: string, target: string): boolean {
  let g: SchemelessURL;
  let t: SchemelessURL;
  try {
    g = parseSchemelessURL(glob);
    t = parseSchemelessURL(target);
  } catch {
    return false;
  }
  if (g.labels.length !== t.labels.length) return false;
  try {
    if (!g.labels.every((label, i) => globMatch(label, t.labels[i]))) return false;
  } catch {
    return false;
  }
  if (g.port !== t.port) return false;
  return t.path.startsWith(g.path);
}

/**
 * The repository an image names, normalised as the pull path hands it to the keyring (ParseImageName):
 * tag and digest removed, `docker.io` for a reference without a registry, `library/` for its official images.
 */
export function repositoryOf(image: string): string {
  let name = image;
  const at = name.indexOf('@');
  if (at >= 0) name = name.slice(0, at);
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (colon > lastSlash) name = name.slice(0, colon);
  const first = name.split('/')[0];
  const hasRegistry = name.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasRegistry) return name;
  return `docker.io/${name.includes('/') ? name : `library/${name}`}`;
}

/** Upstream's parseRegistry: the part before the first slash (the Registry cache key). */
export const registryOf = (image: string): string => image.split('/')[0];
