// Bootstrap tokens (--enable-bootstrap-token-auth), as upstream's plugin/pkg/auth/authenticator/token/bootstrap:
// a bearer token `<id>.<secret>` authenticates as `system:bootstrap:<id>` (groups `system:bootstrappers` and the
// secret's `auth-extra-groups`) while the Secret `bootstrap-token-<id>` in kube-system of type
// `bootstrap.kubernetes.io/token` holds the same secret, allows authentication, and has not expired. Every
// refusal is "not mine" (the request then gets a 401 as an invalid bearer token); the reason is logged, never
// sent. Audience-agnostic: the token is no JWT.
import { timingSafeEqual } from 'node:crypto';
import type { AuthResponse, TokenAuthenticator } from '@cl/auth';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** The parts of a kube-system Secret the decision reads (data values base64, as stored). */
export interface BootstrapSecret {
  type?: string;
  metadata?: { deletionTimestamp?: string | null };
  data?: Record<string, string>;
}

export type BootstrapDecision = { user: { username: string; groups: string[] } } | { refused: string };

const field = (s: BootstrapSecret, key: string) => (s.data?.[key] !== undefined ? Buffer.from(s.data[key], 'base64').toString('utf8') : undefined);

/** `<id>` and `<secret>` of a token in bootstrap form, or null for any other token (someone else's). */
export function parseBootstrapToken(token: string): { id: string; secret: string } | null {
  const m = TOKEN.exec(token);
  return m ? { id: m[1], secret: m[2] } : null;
}

/** Whether the Secret lets this token authenticate, and as whom (upstream's checks, in its order). */
export function bootstrapDecision(token: { id: string; secret: string }, secret: BootstrapSecret | null, now: number): BootstrapDecision {
  const name = `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${token.id}`;
  if (!secret) return { refused: `No secret of name ${name} to match bootstrap bearer token` };
  if (secret.metadata?.deletionTimestamp) return { refused: `Secret ${name} is being deleted` };
  if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return { refused: `Bootstrap secret ${name} has invalid type ${JSON.stringify(secret.type ?? '')}, expected ${BOOTSTRAP_TOKEN_SECRET_TYPE}` };
  const want = Buffer.from(field(secret, 'token-secret') ?? '');
  const got = Buffer.from(token.secret);
  // Constant time: how much of a guess was right must not show in how long the refusal took.
  if (want.length !== got.length || !timingSafeEqual(want, got)) return { refused: `Bootstrap secret ${name} token secret does not match bearer token` };
  const idField = field(secret, 'token-id');
  if (idField !== token.id) return { refused: `Bootstrap secret ${name} has invalid token-id ${JSON.stringify(idField ?? '')}` };
  const expiration = field(secret, 'expiration');
  if (expiration) {
    const at = Date.parse(expiration);
    if (Number.isNaN(at) || at <= now) return { refused: `Bootstrap secret ${name} has expired` };
  }
  if (field(secret, 'usage-bootstrap-authentication') !== 'true') return { refused: `Bootstrap secret ${name} not marked usage-bootstrap-authentication=true.` };
  const extra = (field(secret, 'auth-extra-groups') ?? '').split(',').map((g) => g.trim()).filter(Boolean);
  const bad = extra.find((g) => !EXTRA_GROUP.test(g));
  if (bad) return { refused: `Bootstrap secret ${name} has invalid auth-extra-groups: group ${JSON.stringify(bad)} does not match the pattern system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]` };
  return { user: { username: `${BOOTSTRAP_USER_PREFIX}${token.id}`, groups: [...new Set([BOOTSTRAP_DEFAULT_GROUP, ...extra])] } };
}

/** Reads `bootstrap-token-<id>` in kube-system; null when it does not exist. */
export type BootstrapSecretGetter = (name: string) => Promise<BootstrapSecret | null>;

/**
 * The token authenticator. The secret getter is attached once the resource stores exist (the authentication
 * chain is built before the store opens); until then every bootstrap token is refused.
 */
export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  private getSecret: BootstrapSecretGetter | undefined;

  constructor(
    private readonly log: (line: string) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  attach(getSecret: BootstrapSecretGetter): void {
    this.getSecret = getSecret;
  }

  async authenticateToken(token: string): Promise<AuthResponse | null> {
    const parsed = parseBootstrapToken(token);
    if (!parsed || !this.getSecret) return null;
    const decision = bootstrapDecision(parsed, await this.getSecret(`${BOOTSTRAP_TOKEN_SECRET_PREFIX}${parsed.id}`), this.now());
    if ('refused' in decision) {
      this.log(decision.refused);
      return null;
    }
    return { user: { username: decision.user.username, uid: '', groups: decision.user.groups, extra: {} } };
  }
}
