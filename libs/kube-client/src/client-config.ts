// What a KubeClient needs to reach an API server: the address, how to trust it, who to be, and how hard to push.
import type { RotatingCertificate } from './rotating-certificate';

export interface ClientConfig {
  /** "https://127.0.0.1:6443", no trailing slash (a path prefix is kept: "https://host/k8s"). */
  server: string;
  /** PEM bundle the server's certificate must chain to; absent: the system roots. */
  ca?: Buffer;
  insecureSkipTLSVerify?: boolean;
  /** Client certificate and key (PEM). */
  cert?: Buffer;
  key?: Buffer;
  /**
   * A client certificate replaced while the client lives (instead of cert/key): each connection uses the newest
   * pair, and a rotation closes the connections made with the old one, as client-go's connection rotation does
   * (watches start again with the new certificate). Copies of the config share it.
   */
  rotatingCertificate?: RotatingCertificate;
  /** Bearer token. */
  token?: string;
  /** Requests per second of the token bucket every request of this client shares: 0 or unset means 5, negative means no limit (client-go). */
  qps?: number;
  /** Bucket size: 0 or unset means 10. */
  burst?: number;
  /**
   * 'application/json' (the default) or 'application/vnd.kubernetes.protobuf'. With protobuf the client asks for
   * `application/vnd.kubernetes.protobuf, application/json` and still sends JSON bodies: this project's API
   * server answers JSON (its protobuf support is request bodies only), and JSON bodies are valid for every
   * server, so the setting only states the preference a kubelet would.
   */
  contentType?: string;
  userAgent?: string;
  /** Deadline of a non-watch request, from sending to the last byte; unset: none (client-go's default). */
  requestTimeoutMs?: number;
  /**
   * Whether starting a watch takes a rate-limiter token. Off by default, as client-go (rest.Request.Watch:
   * "we specifically don't want to rate limit watches"); the reflector's backoff paces re-watches instead.
   */
  throttleWatches?: boolean;
  /**
   * How many times a request answered 429 or 5xx with a Retry-After header is sent again after that many seconds
   * (client-go's maxRetries, 10 by default; 0 turns it off). Such an answer means the server did not act on it.
   */
  maxRetries?: number;
  /**
   * Requests of this client in flight at once, watches aside (over HTTP/1.1 each holds a connection, so this caps
   * the connections they open); more wait for a slot, in order. 0 or unset: 25 (client-go's MaxIdleConnsPerHost);
   * negative: no cap. Watches are never capped and never wait behind requests.
   */
  maxConnections?: number;
  /** A connection idle this long is closed (0: never); unset: 50 s, under the 65 s this project's API server keeps one. */
  idleConnectionTimeoutMs?: number;
}

export const JSON_MEDIA_TYPE = 'application/json';
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** The Accept header for a configured content type (request bodies are JSON either way, see ClientConfig.contentType). */
export function acceptFor(contentType: string | undefined): string {
  return contentType === PROTOBUF_MEDIA_TYPE ? `${PROTOBUF_MEDIA_TYPE}, ${JSON_MEDIA_TYPE}` : JSON_MEDIA_TYPE;
}
