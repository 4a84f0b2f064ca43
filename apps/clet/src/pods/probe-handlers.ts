// One probe attempt, as pkg/kubelet/prober runs it: exec through the runtime's ExecSync (exit code 0 succeeds),
// httpGet (a status from 200 to 399 succeeds; TLS is not verified, as upstream), tcpSocket (the connection
// opens), grpc (the standard health service answers SERVING). Each attempt is bounded by timeoutSeconds and a
// timeout is a failure.
import * as grpc from '@grpc/grpc-js';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { serviceClientsFromJson, type CriClient, type ProtoJson } from '@cl/cri';
import type { ContainerPort } from './api-types';

export interface ProbeSpec {
  exec?: { command?: string[] };
  httpGet?: { path?: string; port: number | string; host?: string; scheme?: string; httpHeaders?: Array<{ name: string; value: string }> };
  tcpSocket?: { port: number | string; host?: string };
  grpc?: { port: number; service?: string };
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export interface ProbeTarget {
  containerID: string;
  podIP: string;
  ports: ContainerPort[];
}

export interface ProbeOutcome {
  success: boolean;
  /** Why it failed, as upstream words it in the Unhealthy event. */
  message: string;
}

/** A port given by name is looked up among the container's ports (upstream's findPortByName). */
export function resolvePort(port: number | string, ports: ContainerPort[]): number {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  const named = ports.find((p) => p.name === port);
  if (!named) throw new Error(`couldn't find port: ${port} in ${JSON.stringify(ports.map((p) => p.name ?? ''))}`);
  return named.containerPort;
}

export async function runProbe(spec: ProbeSpec, target: ProbeTarget, cri: Pick<CriClient, 'execSync'>): Promise<ProbeOutcome> {
  const timeoutMs = Math.max(1, spec.timeoutSeconds ?? 1) * 1000;
  try {
    if (spec.exec) return await execProbe(spec.exec.command ?? [], target, cri, timeoutMs / 1000);
    if (spec.httpGet) return await httpProbe(spec.httpGet, target, timeoutMs);
    if (spec.tcpSocket) return await tcpProbe(spec.tcpSocket.host || target.podIP, resolvePort(spec.tcpSocket.port, target.ports), timeoutMs);
    if (spec.grpc) return await grpcProbe(target.podIP, spec.grpc.port, spec.grpc.service ?? '', timeoutMs);
    return { success: false, message: 'missing probe handler' };
  } catch (e) {
    return { success: false, message: (e as Error).message };
  }
}

async function execProbe(command: string[], target: ProbeTarget, cri: Pick<CriClient, 'execSync'>, timeoutSeconds: number): Promise<ProbeOutcome> {
  try {
    const r = await cri.execSync(target.containerID, command, timeoutSeconds);
    const output = Buffer.concat([r.stdout, r.stderr]).toString();
    return r.exitCode === 0 ? { success: true, message: output } : { success: false, message: output || `command ${JSON.stringify(command.join(' '))} exited with ${r.exitCode}` };
  } catch (e) {
    const msg = (e as Error).message;
    if (/deadline|timeout/i.test(msg)) return { success: false, message: `command ${JSON.stringify(command.join(' '))} timed out` };
    throw e;
  }
}

function httpProbe(h: NonNullable<ProbeSpec['httpGet']>, target: ProbeTarget, timeoutMs: number): Promise<ProbeOutcome> {
  const port = resolvePort(h.port, target.ports);
  const host = h.host || target.podIP;
  const scheme = (h.scheme ?? 'HTTP').toUpperCase();
  const headers: Record<string, string> = { 'User-Agent': 'kube-probe/1.33', Accept: '*/*' };
  for (const x of h.httpHeaders ?? []) headers[x.name] = x.value;
  const url = `${scheme.toLowerCase()}://${host.includes(':') ? `[${host}]` : host}:${port}${h.path?.startsWith('/') ? h.path : `/${h.path ?? ''}`}`;
  return new Promise((resolve) => {
    const send = scheme === 'HTTPS' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'GET', headers, timeout: timeoutMs, rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        if (body.length < 10 * 1024) body += d; // upstream reads at most 10 KiB of the body
      });
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        resolve(code >= 200 && code < 400 ? { success: true, message: body } : { success: false, message: `HTTP probe failed with statuscode: ${code}` });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
    req.on('error', (e) => resolve({ success: false, message: e.message.startsWith('Get "') ? e.message : `Get "${url}": ${e.message}` }));
    req.end();
  });
}

function tcpProbe(host: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ success: false, message: `dial tcp ${host}:${port}: i/o timeout` });
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ success: true, message: '' });
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ success: false, message: `dial tcp ${host}:${port}: connect: ${e.code === 'ECONNREFUSED' ? 'connection refused' : e.message}` });
    });
  });
}

/** grpc.health.v1, described inline (the standard health service has two messages and one call here). */
const HEALTH_JSON = {
  nested: {
    grpc: {
      nested: {
        health: {
          nested: {
            v1: {
              nested: {
                HealthCheckRequest: { fields: { service: { type: 'string', id: 1 } } },
                HealthCheckResponse: {
                  fields: { status: { type: 'ServingStatus', id: 1 } },
                  nested: { ServingStatus: { values: { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } } },
                },
                Health: { methods: { Check: { requestType: 'HealthCheckRequest', responseType: 'HealthCheckResponse' } } },
              },
            },
          },
        },
      },
    },
  },
};
let healthClient: grpc.ServiceClientConstructor | undefined;

function grpcProbe(host: string, port: number, service: string, timeoutMs: number): Promise<ProbeOutcome> {
  healthClient ??= serviceClientsFromJson(HEALTH_JSON as ProtoJson, ['grpc.health.v1.Health'], { enums: String, defaults: true })[0];
  const client = new healthClient(`${host.includes(':') ? `[${host}]` : host}:${port}`, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    (client as unknown as { Check: (req: object, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: { status: string }) => void) => void }).Check(
      { service },
      { deadline: Date.now() + timeoutMs },
      (err, res) => {
        client.close();
        if (err) {
          const why = err.code === grpc.status.DEADLINE_EXCEEDED ? `timeout: health rpc did not complete within ${timeoutMs / 1000}s` : `error: health rpc probe failed: ${err.details || err.message}`;
          resolve({ success: false, message: why });
        } else if (res.status === 'SERVING') resolve({ success: true, message: '' });
        else resolve({ success: false, message: `service unhealthy (responded with "${res.status}")` });
      },
    );
  });
}
