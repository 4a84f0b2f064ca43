// Authorization for other Node services: a plain call over request attributes, and an Express (or plain
// node:http) middleware that answers 403/500 exactly as the API server does.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestAttributes, requestInfo, type Attributes, type UserInfo } from '@cl/auth';
import { authorizationErrorText, forbiddenStatus } from './responses';
import type { AuthorizationResult, ChainAuthorizer } from './types';

export interface MiddlewareOptions<Req extends IncomingMessage> {
  /** The authenticated user of the request; undefined answers 401. */
  user(req: Req): UserInfo | undefined;
  /** Called with every outcome (logging, metrics). */
  onDecision?(req: Req, attrs: Attributes, result: AuthorizationResult): void;
}

/** The full path the request was made with (Express rewrites `req.url` under a mount point). */
function requestUri(req: IncomingMessage): string {
  return (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
}

function send(res: ServerResponse, code: number, type: string, body: string): void {
  res.statusCode = code;
  res.setHeader('Content-Type', type);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * `(req, res, next)`: Allow calls `next()`; a failing authorizer answers 500 text; anything else 403 with a
 * Kubernetes Status. Authorizer errors are never thrown into the host application.
 */
export function authorizationMiddleware<Req extends IncomingMessage = IncomingMessage>(
  authorizer: ChainAuthorizer,
  opts: MiddlewareOptions<Req>,
): (req: Req, res: ServerResponse, next: (err?: unknown) => void) => void {
  return (req, res, next) => {
    const user = opts.user(req);
    if (!user) {
      const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      return send(res, 401, 'application/json', body);
    }
    const uri = requestUri(req);
    // Attributes come from the path below the mount point, so a Kubernetes-shaped API can be mounted anywhere.
    const attrs = requestAttributes(req, user, requestInfo(req.method ?? 'GET', req.url ?? '/'));
    // A synchronous answer or throw joins the same promise path as a webhook's.
    new Promise<AuthorizationResult>((resolve) => resolve(authorizer.authorize(attrs)))
      .catch((e: unknown): AuthorizationResult => ({ decision: 'NoOpinion', reason: '', error: e instanceof Error ? e : new Error(String(e)) }))
      .then((r) => {
        opts.onDecision?.(req, attrs, r);
        if (r.decision === 'Allow') return next();
        if (r.error) return send(res, 500, 'text/plain; charset=utf-8', authorizationErrorText(uri, r.error) + '\n');
        send(res, 403, 'application/json', JSON.stringify(forbiddenStatus(attrs, r.reason)) + '\n');
      }, next);
  };
}
