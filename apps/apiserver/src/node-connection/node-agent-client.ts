// The API server's HTTPS client to node agents (upstream's KubeletClientConfig): connections dialled through the
// egress selector's `cluster` selection, the --kubelet-client-certificate pair as its identity, and the agent's
// serving certificate verified against --kubelet-certificate-authority (not verified without one, as upstream).
import * as https from 'node:https';
import * as tls from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { DialerHttpsAgent, type Dialer } from '@cl/egress';
import { hostPort, type NodeConnection } from './node-address';

export interface NodeAgentClientOptions {
  /** The `cluster` egress dialer. */
  dialer: Dialer;
  clientCertFile?: string;
  clientKeyFile?: string;
  caFile?: string;
  /** --kubelet-timeout: how long to wait for the agent's response headers. */
  timeoutMs: number;
}

export interface NodeAgentRequest {
  method: string;
  /** Path and query on the agent. */
  path: string;
  headers?: Record<string, string | string[]>;
  /** PodLogOptions.insecureSkipTLSVerifyBackend: this request does not verify the agent. */
  insecure?: boolean;
  /** A request body streamed to the agent (node proxy); none ends the request at once. */
  body?: NodeJS.ReadableStream;
}

export class NodeAgentClient {
  private readonly verifying: DialerHttpsAgent;
  private readonly insecure: DialerHttpsAgent;
  private readonly tlsOptions: tls.ConnectionOptions;

  constructor(private readonly opts: NodeAgentClientOptions) {
    const identity = opts.clientCertFile && opts.clientKeyFile ? { cert: readFileSync(opts.clientCertFile), key: readFileSync(opts.clientKeyFile) } : {};
    const ca = opts.caFile ? readFileSync(opts.caFile) : undefined;
    this.tlsOptions = { ...identity, ...(ca ? { ca, rejectUnauthorized: true } : { rejectUnauthorized: false }) };
    // Streams are long-lived and few: no pooling, so a closed stream closes its connection.
    this.verifying = new DialerHttpsAgent(opts.dialer, { ...identity, ...(ca ? { ca, rejectUnauthorized: true } : { rejectUnauthorized: false }), keepAlive: false });
    this.insecure = new DialerHttpsAgent(opts.dialer, { ...identity, rejectUnauthorized: false, keepAlive: false });
  }

  /** The `cluster` egress dialer, for what goes to pods rather than to the agent (pods/proxy). */
  get dialer(): Dialer {
    return this.opts.dialer;
  }

  /** Sends a request to the agent and resolves with its response once the headers arrived; the body is left to stream. */
  request(node: NodeConnection, r: NodeAgentRequest): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = https.request({
        agent: r.insecure ? this.insecure : this.verifying,
        host: node.host,
        port: node.port,
        method: r.method,
        path: r.path,
        headers: { ...r.headers, host: hostPort(node) },
        // Go sends no SNI for IP literals; Node refuses an IP as servername, so none is set for them.
        servername: isIp(node.host) ? '' : node.host,
      });
      const timer = setTimeout(() => req.destroy(new Error(`net/http: timeout awaiting response headers`)), this.opts.timeoutMs);
      req.once('response', (res) => {
        clearTimeout(timer);
        resolve(res);
      });
      req.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      if (r.body) r.body.pipe(req);
      else req.end();
    });
  }

  /**
   * A TLS connection to the agent for an upgraded stream (exec, attach, port-forward), dialled like `request`'s;
   * resolves once the handshake is done, so the caller can still answer a failure with a Status.
   */
  connect(node: NodeConnection): Promise<tls.TLSSocket> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error('i/o timeout')), this.opts.timeoutMs);
    return this.opts.dialer.dial(node.host, node.port, abort.signal).then(
      (stream) =>
        new Promise<tls.TLSSocket>((resolve, reject) => {
          // `host` names the agent for the certificate check (Node would check "localhost" otherwise); no SNI for IPs.
          const socket = tls.connect({ ...this.tlsOptions, socket: stream, host: node.host, ...(isIp(node.host) ? {} : { servername: node.host }) });
          const failed = (e: Error) => {
            clearTimeout(timer);
            socket.destroy();
            stream.destroy();
            reject(e);
          };
          socket.once('error', failed);
          stream.once('error', failed);
          abort.signal.addEventListener('abort', () => failed(new Error('i/o timeout')));
          socket.once('secureConnect', () => {
            clearTimeout(timer);
            socket.off('error', failed);
            stream.off('error', failed);
            // Errors of the inner stream end the TLS socket, which the relay watches.
            stream.once('error', (e) => socket.destroy(e));
            resolve(socket);
          });
        }),
      (e: Error) => {
        clearTimeout(timer);
        throw e;
      },
    );
  }

  close(): void {
    this.verifying.destroy();
    this.insecure.destroy();
  }
}

const isIp = (host: string) => /^[\d.]+$/.test(host) || host.includes(':');
