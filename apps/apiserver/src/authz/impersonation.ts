// User impersonation (k8s.io/apiserver endpoints/filters/impersonation.go): `Impersonate-User`,
// `Impersonate-Group`, `Impersonate-Uid` and `Impersonate-Extra-<key>` headers make the request act as another
// user, each requested part authorized first as verb `impersonate` on users / serviceaccounts / groups /
// uids / userextras (the last two in authentication.k8s.io). A refusal is upstream's 403 for the `impersonate`
// attributes; the headers are removed once the request acts as the new user.
import type { IncomingMessage } from 'node:http';
import type { Attributes, Decision, MaybePromise, UserInfo } from '@cl/auth';
import { SERVICE_ACCOUNT_PREFIX } from '@cl/rbac';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA = 'impersonate-extra-';
const AUTHN_GROUP = 'authentication.k8s.io';

/** Cheap test for the request path: no allocation unless a header starts with `impersonate-`. */
export function hasImpersonationHeaders(req: IncomingMessage): boolean {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const h = raw[i];
    if (h.length > 12 && (h.charCodeAt(0) | 0x20) === 0x69 && h.slice(0, 12).toLowerCase() === 'impersonate-') return true;
  }
  return false;
}

interface Requested {
  resource: 'users' | 'serviceaccounts' | 'groups' | 'uids' | 'userextras';
  apiGroup: string;
  namespace: string;
  name: string;
  subresource: string;
}

export type ImpersonationOutcome = { user: UserInfo } | { forbidden: Attributes; reason: string } | { error: Error };

const values = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** upstream's unescapeExtraKey: percent-decoding of the header's key part, kept as is when malformed. */
function extraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

function requested(req: IncomingMessage): Requested[] | Error {
  const out: Requested[] = [];
  const h = req.headers;
  const user = values(h[USER])[0];
  if (user) {
    if (user.startsWith(SERVICE_ACCOUNT_PREFIX)) {
      const [namespace, name] = user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
      if (namespace && name) out.push({ resource: 'serviceaccounts', apiGroup: '', namespace, name, subresource: '' });
      else out.push({ resource: 'users', apiGroup: '', namespace: '', name: user, subresource: '' });
    } else out.push({ resource: 'users', apiGroup: '', namespace: '', name: user, subresource: '' });
  }
  // Node joins repeated headers with ", " except for those it knows; read the raw ones to keep each value.
  const raw = req.rawHeaders;
  let others = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name === GROUP) out.push({ resource: 'groups', apiGroup: '', namespace: '', name: raw[i + 1], subresource: '' });
    else if (name.startsWith(EXTRA)) out.push({ resource: 'userextras', apiGroup: AUTHN_GROUP, namespace: '', name: raw[i + 1], subresource: extraKey(name.slice(EXTRA.length)) });
    else continue;
    others = true;
  }
  const uid = values(h[UID])[0];
  if (uid) {
    out.push({ resource: 'uids', apiGroup: AUTHN_GROUP, namespace: '', name: uid, subresource: '' });
    others = true;
  }
  if (others && !user) {
    const kinds = out.map((r) => `${r.resource}=${r.name}`);
    return new Error(`requested [${kinds.join(' ')}] without impersonating a user`);
  }
  return out;
}

/** Authorizes the impersonation the headers ask for and answers the user to act as. */
export async function impersonate(req: IncomingMessage, requestor: UserInfo, authorize: (a: Attributes) => MaybePromise<Decision>): Promise<ImpersonationOutcome> {
  const wanted = requested(req);
  if (wanted instanceof Error) return { error: wanted };
  let username = '';
  let uid = '';
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  const groupsGiven = wanted.some((w) => w.resource === 'groups');
  for (const w of wanted) {
    const attrs: Attributes = { user: requestor, verb: 'impersonate', isResourceRequest: true, path: '', namespace: w.namespace, apiGroup: w.apiGroup, apiVersion: 'v1', resource: w.resource, subresource: w.subresource, name: w.name };
    const d = await authorize(attrs);
    if (d.decision !== 'Allow') return { forbidden: attrs, reason: d.reason };
    switch (w.resource) {
      case 'users':
        username = w.name;
        break;
      case 'serviceaccounts':
        username = `${SERVICE_ACCOUNT_PREFIX}${w.namespace}:${w.name}`;
        if (!groupsGiven) groups.push('system:serviceaccounts', `system:serviceaccounts:${w.namespace}`);
        break;
      case 'groups':
        groups.push(w.name);
        break;
      case 'userextras':
        (extra[w.subresource] ??= []).push(w.name);
        break;
      case 'uids':
        uid = w.name;
        break;
    }
  }
  if (username !== 'system:anonymous') {
    if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
  } else if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  for (const name of Object.keys(req.headers)) if (name.startsWith('impersonate-')) delete req.headers[name];
  return { user: { username, uid, groups, extra } };
}
