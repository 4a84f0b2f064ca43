// The API server's authentication chain, as kube-apiserver 1.33 builds it (pkg/kubeapiserver/authenticator):
//   the loopback token (the server's own clients, ./loopback), then
//   x509 client certificates -> bearer token (JWT authenticators behind a 10s success cache)
//   -> system:authenticated added -> anonymous (fail-on-error, so a bad credential is never anonymous).
// The --authentication-config file is re-read when it changes.
import { readFileSync } from 'node:fs';
import {
  anonymousAuthenticator,
  authenticatedGroupAdder,
  bearerTokenAuthenticator,
  cachedTokenAuthenticator,
  unionAuthenticator,
  unionTokenAuthenticator,
  websocketProtocolAuthenticator,
  withAuthenticatedGroup,
  x509Authenticator,
  type RequestAuthenticator,
  type TokenAuthenticator,
} from '@cl/auth';
import { loadAuthenticationConfiguration, ValidationError, type AuthenticationConfiguration } from '@cl/config';
import { ReloadingJwtAuthenticator } from '@cl/jwt-authn';
import type { Logger } from '../logger';
import { loopbackAuthenticator, type LoopbackCredential } from './loopback';
import { instrumentAuthenticator } from './metrics';

export interface AuthenticationOptions {
  /** `--authentication-config` */
  authenticationConfig?: string;
  /** `--client-ca-file` */
  clientCAFile?: string;
  /** `--anonymous-auth` (ignored when the config file has an `anonymous` section; that combination is a flag error). */
  anonymousAuth: boolean;
  /** The in-process clients' credential, accepted before everything else (upstream's AuthorizeClientBearerToken). */
  loopback?: LoopbackCredential;
  /** Hashed into the reload metrics' `apiserver_id_hash`. */
  apiServerId?: string;
  log: Logger;
  /** Bound service account tokens (../serviceaccount, cached there), before the other token authenticators as upstream. */
  serviceAccounts?: TokenAuthenticator;
  /** --enable-bootstrap-token-auth: bootstrap tokens, tried before the JWT authenticators (./bootstrap-token). */
  bootstrapTokens?: TokenAuthenticator;
  /** Test hooks for the reload loop. */
  reloadPollMs?: number;
}

export interface Authentication {
  /** The whole request chain; resolves null only when nobody, not even anonymous, accepts the request. */
  authenticator: RequestAuthenticator;
  /** Bearer tokens alone (with `system:authenticated`), for TokenReview; null when no token authenticator is configured. */
  tokenAuthenticator: TokenAuthenticator | null;
  /** The client CA bundle, for the `extension-apiserver-authentication` ConfigMap. */
  clientCA: string | null;
  /** Starts the config-file watch (call once the server is up). */
  start(): void;
  close(): void;
}

/** Thrown before anything binds; `errors` are printed one per line. */
export class AuthenticationSetupError extends Error {
  constructor(readonly errors: string[]) {
    super(errors.join('\n'));
  }
}

function readOrCollect(path: string, errors: string[], wrap: (m: string) => string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    errors.push(wrap(`open ${path}: ${code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`));
    return null;
  }
}

function loadConfig(text: string): AuthenticationConfiguration {
  return loadAuthenticationConfiguration(text);
}

function configErrors(file: string, e: unknown): string[] {
  if (e instanceof ValidationError) {
    // Decode problems are single messages; validation problems are field errors.
    const msgs = e.errors.map((x) => x.message);
    return msgs.length === 1 && !/^jwt|^anonymous/.test(msgs[0])
      ? [`failed to load authentication configuration from file ${JSON.stringify(file)}: ${msgs[0]}`]
      : msgs.map((m) => `invalid authentication configuration: ${m}`);
  }
  return [`failed to load authentication configuration from file ${JSON.stringify(file)}: ${(e as Error).message}`];
}

export function buildAuthentication(opts: AuthenticationOptions): Authentication {
  const errors: string[] = [];
  let clientCA: string | null = null;
  let x509: RequestAuthenticator | null = null;
  if (opts.clientCAFile) {
    clientCA = readOrCollect(opts.clientCAFile, errors, (m) => `failed to load client CA file ${JSON.stringify(opts.clientCAFile)}: ${m}`);
    if (clientCA !== null) {
      try {
        x509 = x509Authenticator({ clientCA });
      } catch (e) {
        errors.push(`failed to load client CA file ${JSON.stringify(opts.clientCAFile)}: ${(e as Error).message}`);
      }
    }
  }
  let content: string | null = null;
  let config: AuthenticationConfiguration | null = null;
  if (opts.authenticationConfig) {
    content = readOrCollect(opts.authenticationConfig, errors, (m) => `failed to load authentication configuration from file ${JSON.stringify(opts.authenticationConfig)}: ${m}`);
    if (content !== null) {
      try {
        config = loadConfig(content);
      } catch (e) {
        errors.push(...configErrors(opts.authenticationConfig, e));
      }
    }
  }
  if (errors.length > 0) throw new AuthenticationSetupError(errors);

  const log = opts.log;
  let jwt: ReloadingJwtAuthenticator | null = null;
  if (config && content !== null && opts.authenticationConfig) {
    jwt = new ReloadingJwtAuthenticator({
      file: opts.authenticationConfig,
      initialContent: content,
      initialConfig: config,
      load: loadConfig,
      apiServerId: opts.apiServerId,
      log: (m) => (m.startsWith('reloaded') ? log.info(m) : log.error(m)),
      pollMs: opts.reloadPollMs,
    });
  }

  // Upstream adds the bearer-token authenticators only when some token authenticator exists.
  const tokenChain: TokenAuthenticator[] = [...(opts.bootstrapTokens ? [opts.bootstrapTokens] : []), ...(jwt ? [jwt] : [])];
  const tokens: TokenAuthenticator | null = tokenChain.length ? cachedTokenAuthenticator(unionTokenAuthenticator(tokenChain), { successTtlMs: 10_000, failureTtlMs: 0 }) : null;
  const credentialed: RequestAuthenticator[] = [];
  if (x509) credentialed.push(x509);
  // One bearer-token union, service account tokens first as upstream: a presented token that none of them accepts
  // is an error ("invalid bearer token"), so the request is a 401 and never falls through to anonymous (clients
  // refresh their credentials on the 401).
  const bearerChain = [...(opts.serviceAccounts ? [opts.serviceAccounts] : []), ...(tokens ? [tokens] : [])];
  if (bearerChain.length) {
    const bearer = unionTokenAuthenticator(bearerChain);
    credentialed.push(bearerTokenAuthenticator(bearer), websocketProtocolAuthenticator(bearer));
  }
  let authenticator = authenticatedGroupAdder(unionAuthenticator(credentialed));
  const anonymous = config?.anonymous ?? { enabled: opts.anonymousAuth };
  if (anonymous.enabled) {
    authenticator = unionAuthenticator([authenticator, anonymousAuthenticator({ conditions: anonymous.conditions })], { failOnError: true });
  }
  if (opts.loopback) authenticator = unionAuthenticator([loopbackAuthenticator(opts.loopback), authenticator]);
  const reviewTokens = opts.serviceAccounts ? unionTokenAuthenticator(tokens ? [opts.serviceAccounts, tokens] : [opts.serviceAccounts]) : tokens;
  const tokenAuthenticator: TokenAuthenticator | null = reviewTokens
    ? {
        async authenticateToken(token) {
          const res = await reviewTokens.authenticateToken(token);
          return res ? { ...res, user: withAuthenticatedGroup(res.user) } : null;
        },
      }
    : null;
  return {
    authenticator: instrumentAuthenticator(authenticator),
    tokenAuthenticator,
    clientCA,
    start: () => jwt?.start(),
    close: () => jwt?.close(),
  };
}
