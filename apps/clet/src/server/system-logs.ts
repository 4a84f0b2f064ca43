// GET /logs/...: the node's /var/log as a static file server, as the kubelet serves it with Go's
// http.FileServer (directory listings as <pre> links, redirects that add or drop the trailing slash,
// 404/403 for missing or unreadable paths). The NodeLogQuery gate's query mode is not implemented.
import { open, readdir, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { posix } from 'node:path';
import { send } from './respond';

const BUILTIN_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'text/xml; charset=utf-8',
  '.gz': 'application/gzip',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

const htmlEscape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' })[c]!);

/** Go's DetectContentType, reduced to what log directories hold: gzip, binary, or text. */
function sniff(head: Buffer): string {
  if (head.length >= 3 && head[0] === 0x1f && head[1] === 0x8b && head[2] === 0x08) return 'application/x-gzip';
  for (const b of head) if (b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)) return 'application/octet-stream';
  return 'text/plain; charset=utf-8';
}

function redirect(res: ServerResponse, location: string, query: string): void {
  res.writeHead(301, { Location: location + query });
  res.end();
}

function fsError(res: ServerResponse, e: NodeJS.ErrnoException): void {
  if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return send(res, 404, '404 page not found\n');
  if (e.code === 'EACCES' || e.code === 'EPERM') return send(res, 403, '403 Forbidden\n');
  return send(res, 500, '500 Internal Server Error\n');
}

/** `urlPath` is the decoded request path starting with /logs/; `root` is /var/log. */
export async function serveSystemLogs(req: IncomingMessage, res: ServerResponse, urlPath: string, root: string): Promise<void> {
  if (!urlPath.startsWith('/logs/')) return send(res, 404, '404 page not found\n');
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'Method Not Allowed\n');
  const query = (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?')) : '';
  const rel = posix.resolve('/', urlPath.slice('/logs/'.length)); // cleans "..", never above the root
  if (urlPath.endsWith('/index.html')) return redirect(res, './', query);
  const file = posix.join(root, rel);
  let st;
  try {
    st = await stat(file);
  } catch (e) {
    return fsError(res, e as NodeJS.ErrnoException);
  }
  if (st.isDirectory()) {
    if (!urlPath.endsWith('/')) return redirect(res, posix.basename(urlPath) + '/', query);
    let entries;
    try {
      entries = await readdir(file, { withFileTypes: true });
    } catch (e) {
      return fsError(res, e as NodeJS.ErrnoException);
    }
    const lines = await Promise.all(
      entries
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map(async (d) => {
          // A symbolic link to a directory lists as a directory, as Go's Readdir (stat, not lstat) does.
          const isDir = d.isDirectory() || (d.isSymbolicLink() && (await stat(posix.join(file, d.name)).then((s) => s.isDirectory(), () => false)));
          const name = d.name + (isDir ? '/' : '');
          return `<a href="${htmlEscape(encodeURI(name).replace(/[?#]/g, encodeURIComponent))}">${htmlEscape(name)}</a>\n`;
        }),
    );
    const body = `<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n${lines.join('')}</pre>\n`;
    return send(res, 200, body, 'text/html; charset=utf-8', { 'Last-Modified': st.mtime.toUTCString() });
  }
  if (urlPath.endsWith('/')) return redirect(res, '../' + posix.basename(urlPath), query);
  let fh;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    return fsError(res, e as NodeJS.ErrnoException);
  }
  try {
    const head = Buffer.alloc(Math.min(512, st.size));
    await fh.read(head, 0, head.length, 0);
    const type = BUILTIN_TYPES[posix.extname(file).toLowerCase()] ?? sniff(head);
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': st.size, 'Last-Modified': st.mtime.toUTCString() });
    if (req.method === 'HEAD') return void res.end();
    const stream = fh.createReadStream({ start: 0, end: Math.max(0, st.size - 1), autoClose: false });
    if (st.size === 0) return void res.end();
    await new Promise<void>((resolve) => {
      stream.on('error', () => {
        res.destroy();
        resolve();
      });
      stream.on('end', () => resolve());
      res.on('close', () => {
        stream.destroy();
        resolve();
      });
      stream.pipe(res);
    });
  } finally {
    await fh.close();
  }
}
