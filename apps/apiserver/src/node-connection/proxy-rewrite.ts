// What upstream's proxy handler adds around pods/proxy and nodes/proxy. Both build their UpgradeAwareHandler with
// wrapTransport = true (pkg/registry/core/{pod,node}/rest), so upstream 1.33:
// - answers GET/HEAD of `.../proxy` (nothing after it: an empty backend path) with 301 to `.../proxy/`, query kept
//   (proxyRedirectsforRootPath, "a hack for issue 4958"); other methods go on to the backend's `/`;
// - sends X-Forwarded-Uri (the path the caller asked for) and X-Forwarded-For to the backend;
// - drops the backend's Access-Control-Allow-{Credentials,Headers,Methods,Origin} (corsRemovingTransport);
// - rewrites a `Location` answer, or else the links of a `text/html` body (proxy/transport.go), so that absolute
//   paths on the backend's own host go back through the proxy: `/x` -> `/api/v1/.../proxy/x`.
// The server side of a request carries no scheme or host in its URL, so upstream's rewritten links are paths
// (`X-Forwarded-Host`/`-Proto` are never set), except a link to the host the caller used, which keeps its host.
import * as path from 'node:path';
import * as zlib from 'node:zlib';

/** Where a `.../proxy` request without a trailing path is sent, or undefined when it is proxied. */
export function rootRedirect(method: string, requestPath: string, rest: string | undefined, search: string): string | undefined {
  if (rest !== undefined && rest !== '') return undefined;
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  return `${requestPath}/${search.length > 1 ? search : ''}`;
}

/** The part of the caller's path in front of the backend path: `/api/v1/namespaces/ns/pods/p/proxy`. */
export function pathPrepend(requestPath: string, backendPath: string): string {
  let suffix = backendPath;
  if (requestPath.endsWith('/') && !suffix.endsWith('/')) suffix += '/';
  return suffix && requestPath.endsWith(suffix) ? requestPath.slice(0, requestPath.length - suffix.length) : requestPath;
}

/** Go's path.Clean for an absolute path: no `.`/`..` segments, no double or trailing slashes. */
function cleanAbsolute(p: string): string {
  const normal = path.posix.normalize(p);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** path.Join(prepend, p), with p's trailing slash kept (upstream adds it back after the join). */
function joinKeepingSlash(prepend: string, p: string): string {
  const joined = cleanAbsolute(`${prepend}/${p}`);
  return p.endsWith('/') && !joined.endsWith('/') ? `${joined}/` : joined;
}

/** The X-Forwarded-Uri upstream sends: the caller's path for this backend path. */
export function forwardedUri(prepend: string, backendPath: string): string {
  return joinKeepingSlash(prepend, backendPath);
}

interface ParsedUrl {
  scheme: string;
  /** undefined: no `//` authority. */
  host: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string;
}

const URL_PARTS = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

/** A URL reference as Go's url.Parse splits it; undefined where Go refuses it (bad escapes, control characters). */
function parseUrl(s: string): ParsedUrl | undefined {
  // eslint-disable-next-line no-control-regex -- Go refuses ASCII control characters in URLs
  if (/[\x00-\x1f\x7f]/.test(s) || /%(?![0-9a-fA-F]{2})/.test(s) || s.startsWith(':')) return undefined;
  const m = URL_PARTS.exec(s);
  if (!m) return undefined;
  return { scheme: m[1] ?? '', host: m[2], path: m[3], query: m[4], fragment: m[5] ?? '' };
}

function formatUrl(u: ParsedUrl): string {
  let out = u.scheme ? `${u.scheme}:` : '';
  if (u.host) out += `//${u.host}`;
  out += u.path;
  if (u.query !== undefined) out += `?${u.query}`;
  if (u.fragment) out += `#${u.fragment}`;
  return out;
}

export interface LinkRewriter {
  /** The caller's path in front of the backend's: links are moved under it. */
  prepend: string;
  /** host:port the API server dialled (the page's own host). */
  backendHost: string;
  /** The Host the caller sent (its name for this server). */
  requestHost: string;
}

/**
 * One link or Location as upstream's rewriteURL treats it: links to another host, relative links and what does not
 * parse stay as they are; an absolute path on the backend's host (or with no host) goes under the proxy prefix.
 */
export function rewriteUrl(target: string, r: LinkRewriter): string {
  const u = parseUrl(target);
  if (!u) return target;
  const host = u.host ?? '';
  const differentHost = host !== '' && host !== r.backendHost && host !== r.requestHost;
  if (differentHost || !u.path.startsWith('/')) return target;
  // A link to the caller's own name for this server keeps its scheme and host; any other loses them.
  if (host !== r.requestHost) {
    u.scheme = '';
    u.host = undefined;
  }
  if (!u.path.startsWith(r.prepend)) u.path = joinKeepingSlash(r.prepend, u.path);
  return formatUrl(u);
}

/** Which attributes of which elements hold URLs (upstream's atomsToAttrs). */
const URL_ATTRIBUTES: Record<string, readonly string[]> = {
  a: ['href'], applet: ['codebase'], area: ['href'], audio: ['src'], base: ['href'], blockquote: ['cite'], body: ['background'],
  button: ['formaction'], command: ['icon'], del: ['cite'], embed: ['src'], form: ['action'], frame: ['longdesc', 'src'],
  head: ['profile'], html: ['manifest'], iframe: ['longdesc', 'src'], img: ['longdesc', 'src', 'usemap'],
  input: ['src', 'usemap', 'formaction'], ins: ['cite'], link: ['href'], object: ['classid', 'codebase', 'data', 'usemap'],
  q: ['cite'], script: ['src'], source: ['src'], video: ['poster', 'src'],
};

/** Elements whose content is text up to their end tag (the HTML tokenizer's raw text elements). */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext']);

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeHtml(s: string): string {
  return s.replace(/&(#[0-9]+|#[xX][0-9a-fA-F]+|amp|lt|gt|quot|apos);/g, (_, e: string) =>
    e.startsWith('#') ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)) : NAMED[e],
  );
}

/** Go's html escaping of attribute values. */
const escapeHtml = (s: string) => s.replace(/[&'<>"\r]/g, (c) => ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;', '\r': '&#13;' })[c]!);

/** The index after `<tag ...>` starting at `i` (at the `<`), collecting the tag name and its attributes' spans. */
function scanTag(html: string, i: number): { end: number; name: string; attrs: Array<{ name: string; start: number; end: number; quoted: boolean }> } {
  let j = i + 1;
  while (j < html.length && !/[\s/>]/.test(html[j])) j++;
  const name = html.slice(i + 1, j).toLowerCase();
  const attrs: Array<{ name: string; start: number; end: number; quoted: boolean }> = [];
  while (j < html.length && html[j] !== '>') {
    if (/[\s/]/.test(html[j])) {
      j++;
      continue;
    }
    const nameStart = j;
    while (j < html.length && !/[\s/>=]/.test(html[j])) j++;
    const attrName = html.slice(nameStart, j).toLowerCase();
    while (j < html.length && /\s/.test(html[j])) j++;
    if (html[j] !== '=') continue;
    j++;
    while (j < html.length && /\s/.test(html[j])) j++;
    const quote = html[j];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, j + 1);
      const end = close < 0 ? html.length : close;
      attrs.push({ name: attrName, start: j + 1, end, quoted: true });
      j = Math.min(end + 1, html.length);
    } else {
      const start = j;
      while (j < html.length && !/[\s>]/.test(html[j])) j++;
      attrs.push({ name: attrName, start, end: j, quoted: false });
    }
  }
  return { end: Math.min(j + 1, html.length), name, attrs };
}

/**
 * The document with the URL attributes of upstream's list rewritten by `rewrite`. Unlike upstream (which writes
 * every start tag back in its normalized form), everything but a changed value is kept byte for byte; a changed
 * value is written double-quoted and escaped as Go's html package writes it.
 */
export function rewriteHtml(html: string, rewrite: (url: string) => string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while ((i = html.indexOf('<', i)) >= 0) {
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (!/[a-zA-Z]/.test(html[i + 1] ?? '')) {
      // End tags, doctypes and processing instructions hold no links; a lone `<` is text.
      const close = /[/!?]/.test(html[i + 1] ?? '') ? html.indexOf('>', i) : i;
      i = close < 0 ? html.length : close + 1;
      continue;
    }
    const tag = scanTag(html, i);
    const wanted = URL_ATTRIBUTES[tag.name];
    for (const a of tag.attrs) {
      if (!wanted?.includes(a.name)) continue;
      // Values are bytes read as latin1 here; URLs are taken as UTF-8, as upstream assumes.
      const raw = Buffer.from(html.slice(a.start, a.end), 'latin1').toString('utf8');
      const value = unescapeHtml(raw);
      const next = rewrite(value);
      if (next === value) continue;
      out += html.slice(copied, a.quoted ? a.start - 1 : a.start) + Buffer.from(`"${escapeHtml(next)}"`, 'utf8').toString('latin1');
      copied = a.quoted ? a.end + 1 : a.end;
    }
    i = tag.end;
    if (RAW_TEXT.has(tag.name)) {
      const close = html.toLowerCase().indexOf(`</${tag.name}`, i);
      i = close < 0 ? html.length : close;
    }
  }
  return out + html.slice(copied);
}

/** The backend's headers as upstream passes them on: no CORS grants, Location rewritten. */
export function proxiedHeaders(headers: Record<string, string | string[]>, r: LinkRewriter): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (/^access-control-allow-(credentials|headers|methods|origin)$/i.test(k)) continue;
    out[k] = k.toLowerCase() === 'location' && typeof v === 'string' && v !== '' ? rewriteUrl(v, r) : v;
  }
  return out;
}

/** Whether upstream rewrites this response's body: no Location, Content-Type text/html, an encoding it can read. */
export function rewritesBody(headers: Record<string, string | string[] | undefined>): boolean {
  if (headers.location) return false;
  const type = String(headers['content-type'] ?? '').split(';', 1)[0].trim();
  return type === 'text/html' && ['', 'gzip', 'deflate'].includes(String(headers['content-encoding'] ?? ''));
}

/** The whole HTML body with its links rewritten, in the body's own content encoding (deflate is raw DEFLATE, as Go's flate). */
export function rewriteHtmlBody(body: Buffer, encoding: string, r: LinkRewriter): Buffer {
  const plain = encoding === 'gzip' ? zlib.gunzipSync(body) : encoding === 'deflate' ? zlib.inflateRawSync(body) : body;
  const rewritten = Buffer.from(rewriteHtml(plain.toString('latin1'), (u) => rewriteUrl(u, r)), 'latin1');
  if (encoding === 'gzip') return zlib.gzipSync(rewritten);
  if (encoding === 'deflate') return zlib.deflateRawSync(rewritten, { level: 9 });
  return rewritten;
}
