// Go behaviours that leak into validation messages: net/url.Parse errors, DNS-1123 subdomain checks,
// filesystem checks, and Go %q / %#v printing of a few structs.
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { goQuote } from '../field';

export interface GoURL {
  scheme: string;
  hasUserinfo: boolean;
  rawQuery: string;
  fragment: string;
  host: string;
}

/** A port of the parts of Go's url.Parse whose errors and results the validators depend on. */
export function goParseURL(raw: string): GoURL | { error: string } {
  const fail = (msg: string) => ({ error: `parse ${goQuote(raw)}: ${msg}` });
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
    const bad = badEscape(fragment);
    if (bad) return fail(`invalid URL escape ${goQuote(bad)}`);
  }
  // eslint-disable-next-line no-control-regex -- Go rejects control characters in URLs
  if (/[\x00-\x1f\x7f]/.test(rest)) return fail('net/url: invalid control character in URL');
  let scheme = '';
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return fail('missing protocol scheme');
      scheme = rest.slice(0, i).toLowerCase();
      rest = rest.slice(i + 1);
    }
    break;
  }
  let rawQuery = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  const result: GoURL = { scheme, hasUserinfo: false, rawQuery, fragment, host: '' };
  if (!rest.startsWith('/')) {
    if (scheme !== '') return result; // opaque
    const seg = rest.split('/')[0]!;
    if (seg.includes(':')) return fail('first path segment in URL cannot contain colon');
  }
  if (rest.startsWith('//') && !rest.startsWith('///')) {
    const authEnd = rest.indexOf('/', 2);
    const authority = authEnd < 0 ? rest.slice(2) : rest.slice(2, authEnd);
    rest = authEnd < 0 ? '' : rest.slice(authEnd);
    const at = authority.lastIndexOf('@');
    let host = authority;
    if (at >= 0) {
      result.hasUserinfo = true;
      host = authority.slice(at + 1);
    }
    if (host.startsWith('[')) {
      const close = host.lastIndexOf(']');
      if (close < 0) return fail('missing \']\' in host');
      const port = host.slice(close + 1);
      if (port && !/^:\d*$/.test(port)) return fail(`invalid port ${goQuote(port)} after host`);
    } else {
      const colon = host.lastIndexOf(':');
      if (colon >= 0) {
        const port = host.slice(colon);
        if (!/^:\d*$/.test(port)) return fail(`invalid port ${goQuote(port)} after host`);
      }
    }
    const badHost = badEscape(host);
    if (badHost) return fail(`invalid URL escape ${goQuote(badHost)}`);
    result.host = host;
  }
  const badPath = badEscape(rest);
  if (badPath) return fail(`invalid URL escape ${goQuote(badPath)}`);
  return result;
}

function badEscape(s: string): string | null {
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '%') continue;
    const hex = s.slice(i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) return s.slice(i, i + 3);
    i += 2;
  }
  return null;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** apimachinery IsDNS1123Subdomain: the list of problems, empty when valid. */
export function dns1123SubdomainErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(v)) errs.push(DNS1123_SUBDOMAIN_MSG);
  return errs;
}

export type StatResult = { ok: true; regular: boolean } | { ok: false; error: string };

/** os.Stat with Go's error text (`stat <path>: no such file or directory`). Follows symlinks. */
export function goStat(path: string): StatResult {
  try {
    const st = statSync(path);
    return { ok: true, regular: st.isFile() };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file or directory'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'ENOTDIR'
            ? 'not a directory'
            : (e as Error).message;
    return { ok: false, error: `stat ${path}: ${reason}` };
  }
}

export const fileExists = (p: string) => goStat(p).ok;
export { isAbsolute };

/** Go `%#v` of a `*string` field inside a struct literal. */
export const goStringPtr = (v: string | undefined) => (v === undefined ? '(*string)(nil)' : '(*string)(0xc000000000)');
