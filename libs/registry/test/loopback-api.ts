// The REST handlers served over loopback HTTP for the endpoint specs: a ResourceApi over the given stores, with the
// request info the API server's request-info stage would give it (the path split as sent, never resolved).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResourceApi, type ResourceApiOptions, type ResourceRequest, type ResourceStore } from '../src/index';

/** /api/v1/namespaces/<ns>/... or /apis/<group>/<version>/namespaces/<ns>/... as the handler's request info. */
export function infoOf(method: string, url: string): ResourceRequest {
  const u = new URL(url, 'http://x');
  const parts = url.split('?')[0].split('/').map(decodeURIComponent);
  const [apiGroup, apiVersion] = parts[1] === 'apis' ? [parts[2], parts[3]] : ['', parts[2]];
  const [, , , namespace, resource, name, subresource] = parts.slice(parts[1] === 'apis' ? 2 : 1);
  const watch = u.searchParams.get('watch') === 'true';
  const verb = method === 'POST' ? 'create' : method === 'PATCH' ? 'patch' : method === 'PUT' ? 'update' : method === 'DELETE' ? (name ? 'delete' : 'deletecollection') : name ? 'get' : watch ? 'watch' : 'list';
  return { verb, apiGroup, apiVersion, resource, namespace, name: name ?? '', subresource: subresource ?? '' };
}

/** A body read whole, without the server's limit. */
export function readWhole(req: IncomingMessage): Promise<Buffer> {
  return new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

export interface LoopbackApi {
  port: number;
  close(): void;
}

export async function serveResourceApi(stores: ResourceStore[], opts: Partial<ResourceApiOptions> = {}): Promise<LoopbackApi> {
  const api = new ResourceApi(stores, { readBody: readWhole, ...opts });
  const server: Server = createServer((req, res) => void api.handle(req, res, infoOf(req.method!, req.url!)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
