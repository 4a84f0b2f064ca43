import * as zlib from 'node:zlib';
import { forwardedUri, pathPrepend, proxiedHeaders, rewriteHtml, rewriteHtmlBody, rewritesBody, rewriteUrl, rootRedirect, type LinkRewriter } from './proxy-rewrite';

const PREFIX = '/api/v1/namespaces/default/pods/web:8080/proxy';
const links: LinkRewriter = { prepend: PREFIX, backendHost: '10.0.0.5:8080', requestHost: '127.0.0.1:6443' };

describe('the redirect of `.../proxy` without a path', () => {
  test.each<[string, string | undefined, string, string | undefined]>([
    ['GET', undefined, '', `${PREFIX}/`],
    ['HEAD', undefined, '', `${PREFIX}/`],
    ['GET', undefined, '?a=1&b=2', `${PREFIX}/?a=1&b=2`],
    ['GET', undefined, '?', `${PREFIX}/`],
    ['POST', undefined, '', undefined],
    ['DELETE', undefined, '', undefined],
    ['GET', '/', '', undefined],
    ['GET', '/index.html', '', undefined],
  ])('%s with rest %j and query %j -> %j', (method, rest, search, want) => {
    expect(rootRedirect(method, rest === undefined ? PREFIX : PREFIX + rest, rest, search)).toBe(want);
  });
});

describe('the prefix and X-Forwarded-Uri', () => {
  test.each<[string, string, string, string]>([
    [`${PREFIX}/index.html`, '/index.html', PREFIX, `${PREFIX}/index.html`],
    [`${PREFIX}/`, '/', PREFIX, `${PREFIX}/`],
    [`${PREFIX}/a/b/`, '/a/b/', PREFIX, `${PREFIX}/a/b/`],
    [PREFIX, '', PREFIX, PREFIX],
    ['/api/v1/nodes/n1/proxy/healthz', '/healthz', '/api/v1/nodes/n1/proxy', '/api/v1/nodes/n1/proxy/healthz'],
  ])('%s (backend %s)', (requestPath, backendPath, prepend, uri) => {
    expect(pathPrepend(requestPath, backendPath)).toBe(prepend);
    expect(forwardedUri(prepend, backendPath)).toBe(uri);
  });
});

describe('links and Location values', () => {
  test.each<[string, string]>([
    ['/other.html', `${PREFIX}/other.html`],
    ['/sub/', `${PREFIX}/sub/`],
    ['/a/../b?x=1#top', `${PREFIX}/b?x=1#top`],
    ['/', `${PREFIX}/`],
    // Already under the prefix: kept.
    [`${PREFIX}/x`, `${PREFIX}/x`],
    // On the backend's own host: the host goes, the path goes under the prefix.
    ['http://10.0.0.5:8080/x', `${PREFIX}/x`],
    ['//10.0.0.5:8080/x', `${PREFIX}/x`],
    // On the host the caller used: scheme and host stay.
    ['https://127.0.0.1:6443/x', `https://127.0.0.1:6443${PREFIX}/x`],
    // Another host, relative links, other schemes and what does not parse: unchanged.
    ['http://example.com/x', 'http://example.com/x'],
    ['other.html', 'other.html'],
    ['../up', '../up'],
    ['#frag', '#frag'],
    ['?q=1', '?q=1'],
    ['mailto:a@b.c', 'mailto:a@b.c'],
    ['/bad%zzescape', '/bad%zzescape'],
    ['', ''],
  ])('%j -> %j', (target, want) => {
    expect(rewriteUrl(target, links)).toBe(want);
  });
});

describe('HTML bodies', () => {
  test.each<[string, string, string]>([
    ['a href', '<a href="/x">x</a>', `<a href="${PREFIX}/x">x</a>`],
    ['single quotes and case', "<A HREF='/x'>x</A>", `<A HREF="${PREFIX}/x">x</A>`],
    ['unquoted', '<img src=/i.png alt=x>', `<img src="${PREFIX}/i.png" alt=x>`],
    ['several attributes of a tag', '<img longdesc="/d" src="/i" usemap="#m">', `<img longdesc="${PREFIX}/d" src="${PREFIX}/i" usemap="#m">`],
    ['form action, script src, link href', '<form action="/post"></form><script src="/s.js"></script><link rel=stylesheet href="/c.css">',
      `<form action="${PREFIX}/post"></form><script src="${PREFIX}/s.js"></script><link rel=stylesheet href="${PREFIX}/c.css">`],
    ['an attribute not in the list', '<div data-x="/x" href="/y">', '<div data-x="/x" href="/y">'],
    ['entities in a value are read and written escaped', '<a href="/q?a=1&amp;b=2">', `<a href="${PREFIX}/q?a=1&amp;b=2">`],
    ['comments and script text are not tags', '<!-- <a href="/x"> --><script>var s = "<a href=\'/y\'>";</script><a href="/z">',
      `<!-- <a href="/x"> --><script>var s = "<a href='/y'>";</script><a href="${PREFIX}/z">`],
    ['text with a lone <', 'a < b <a href="/x">', `a < b <a href="${PREFIX}/x">`],
    ['other hosts and relative links', '<a href="http://example.com/">e</a><a href="rel">r</a>', '<a href="http://example.com/">e</a><a href="rel">r</a>'],
    ['UTF-8 around the links', '<p>é ✓</p><a href="/ü">', `<p>é ✓</p><a href="${PREFIX}/ü">`],
  ])('%s', (_name, html, want) => {
    const bytes = Buffer.from(html, 'utf8');
    expect(rewriteHtmlBody(bytes, '', links).toString('utf8')).toBe(want);
    expect(rewriteHtml(bytes.toString('latin1'), (u) => rewriteUrl(u, links))).toBe(Buffer.from(want, 'utf8').toString('latin1'));
  });

  test('gzip and (raw) deflate bodies are rewritten in their encoding', () => {
    const html = Buffer.from('<a href="/x">x</a>');
    const want = `<a href="${PREFIX}/x">x</a>`;
    expect(zlib.gunzipSync(rewriteHtmlBody(zlib.gzipSync(html), 'gzip', links)).toString()).toBe(want);
    expect(zlib.inflateRawSync(rewriteHtmlBody(zlib.deflateRawSync(html), 'deflate', links)).toString()).toBe(want);
  });

  test.each<[Record<string, string>, boolean]>([
    [{ 'content-type': 'text/html' }, true],
    [{ 'content-type': 'text/html; charset=utf-8' }, true],
    [{ 'content-type': ' text/html ;charset=utf-8' }, true],
    [{ 'content-type': 'text/html', 'content-encoding': 'gzip' }, true],
    [{ 'content-type': 'text/html', 'content-encoding': 'deflate' }, true],
    [{ 'content-type': 'text/html', 'content-encoding': 'br' }, false],
    [{ 'content-type': 'TEXT/HTML' }, false],
    [{ 'content-type': 'application/xhtml+xml' }, false],
    [{ 'content-type': 'text/plain' }, false],
    [{ 'content-type': 'application/json' }, false],
    [{}, false],
    [{ 'content-type': 'text/html', location: '/x' }, false],
  ])('body rewritten for %j: %s', (headers, want) => {
    expect(rewritesBody(headers)).toBe(want);
  });
});

test('the backend\'s CORS grants are dropped and its Location goes back through the proxy', () => {
  expect(
    proxiedHeaders(
      {
        location: '/sub/',
        'access-control-allow-origin': '*',
        'access-control-allow-credentials': 'true',
        'access-control-allow-headers': 'x',
        'access-control-allow-methods': 'GET',
        'access-control-expose-headers': 'y',
        'content-type': 'text/html',
      },
      links,
    ),
  ).toEqual({ location: `${PREFIX}/sub/`, 'access-control-expose-headers': 'y', 'content-type': 'text/html' });
});
