// Image pulls by imagePullPolicy, serialised or parallel (serializeImagePulls), rate limited by
// registryPullQPS / registryBurst, with the image back-off and upstream's waiting reasons.
import { containerFieldPath, noPodEvents, type PodEventFn } from './pod-events';
import type { AuthConfig, CriClient, PodSandboxConfig } from '@cl/cri';
import { formatDuration } from '@cl/flags';
import type { Container, Pod } from './api-types';
import { Backoff } from './backoff';
import { logLine, type LogFn } from './log';
import { pullCredentials } from '../credential-provider';
import { podPullSecrets, type SecretGetter } from './pull-secrets';

/**
 * A failed image step: `reason` becomes the container's waiting reason; `retryAt` (ms since epoch, 0
 * for never) is when another sync is worth it.
 */
export class ImageError extends Error {
  constructor(readonly reason: 'ErrImagePull' | 'ImagePullBackOff' | 'ErrImageNeverPull' | 'InvalidImageName', message: string,
    readonly retryAt = 0) {
    super(message);
  }
}

/** After a failed pull the pod is synced again this soon, to show ImagePullBackOff while it lasts. */
const AFTER_PULL_ERROR_MS = 1000;

/** Appends `:latest` when the reference has neither tag nor digest (no registry normalisation). */
export function applyDefaultImageTag(image: string): string {
  if (image.includes('@')) return image;
  const last = image.slice(image.lastIndexOf('/') + 1);
  return last.includes(':') ? image : `${image}:latest`;
}

/** Token bucket: `qps` tokens per second up to `burst`; qps 0 means unlimited. */
class TokenBucket {
  private tokens: number;
  private last = Date.now();
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly qps: number, private readonly burst: number) {
    this.tokens = Math.max(1, burst);
  }

  take(): Promise<void> {
    if (this.qps <= 0) return Promise.resolve();
    const p = this.queue.then(async () => {
      const refill = () => {
        const now = Date.now();
        this.tokens = Math.min(Math.max(1, this.burst), this.tokens + ((now - this.last) / 1000) * this.qps);
        this.last = now;
      };
      refill();
      if (this.tokens < 1) {
        await new Promise((r) => setTimeout(r, ((1 - this.tokens) / this.qps) * 1000));
        refill();
      }
      this.tokens -= 1;
    });
    this.queue = p;
    return p;
  }
}

export interface ImagePullerOptions {
  serialize: boolean; qps: number; burst: number;
  /** The credential provider plugins' credentials for an image (--image-credential-provider-config). */
  credentials?: { lookup(image: string): Promise<AuthConfig[]> };
  /** Reads a pod's imagePullSecrets (API-server mode); their credentials are tried before the plugins'. */
  secrets?: SecretGetter;
}

export class ImagePuller {
  private readonly backoff = new Backoff();
  private readonly limiter: TokenBucket;
  private serial: Promise<unknown> = Promise.resolve();

  constructor(private readonly cri: CriClient, private readonly opts: ImagePullerOptions, private readonly log: LogFn,
    private readonly events: PodEventFn = noPodEvents) {
    this.limiter = new TokenBucket(opts.qps, opts.burst);
  }

  /** Makes sure the container's image is present; returns the image reference for CreateContainer. */
  async ensureImage(pod: Pod, c: Container, sandbox: PodSandboxConfig): Promise<string> {
    const image = applyDefaultImageTag(c.image ?? '');
    const policy = c.imagePullPolicy ?? 'IfNotPresent';
    const present = policy === 'Always' ? null : await this.cri.imageStatus({ image });
    const ref = containerFieldPath(pod, c);
    if (present) {
      this.events(pod, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`, ref);
      return present.id;
    }
    if (policy === 'Never') {
      this.events(pod, 'Warning', 'ErrImageNeverPull', `Container image "${c.image}" is not present with pull policy of Never`, ref);
      throw new ImageError('ErrImageNeverPull', `Container image "${c.image}" is not present with pull policy of Never`);
    }
    const key = `${pod.metadata.uid}_${image}`;
    // Upstream's IsInBackOffSinceUpdate: a pull is retried once the back-off from the last failure ran out.
    if (this.backoff.isInBackOffSinceUpdate(key, Date.now())) {
      throw new ImageError('ImagePullBackOff', `Back-off pulling image "${c.image}"`, this.backoff.lastUpdate(key) + this.backoff.get(key));
    }
    // As upstream, the pod's pull secrets are read (and the unreadable ones reported) before the pull starts.
    const secrets = await podPullSecrets(pod, this.opts.secrets, this.log, this.events);
    await this.limiter.take();
    this.events(pod, 'Normal', 'Pulling', `Pulling image "${c.image}"`, ref);
    const began = Date.now();
    const pull = async () => {
      const creds = await pullCredentials(secrets, image, this.opts.credentials);
      if (creds.length === 0) return this.cri.pullImage({ image }, undefined, sandbox);
      // As upstream: each credential in turn until one pull succeeds; the errors of all when none does.
      const errs: string[] = [];
      for (const auth of creds) {
        try {
          return await this.cri.pullImage({ image }, auth, sandbox);
        } catch (e) {
          errs.push((e as Error).message);
        }
      }
      throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    };
    try {
      let imageRef: string;
      if (this.opts.serialize) {
        const p = this.serial.then(pull, pull);
        this.serial = p.catch(() => undefined);
        imageRef = await p;
      } else {
        imageRef = await pull();
      }
      const took = formatDuration(Date.now() - began);
      this.events(pod, 'Normal', 'Pulled', `Successfully pulled image "${c.image}" in ${took} (${took} including waiting)`, containerFieldPath(pod, c));
      return imageRef;
    } catch (e) {
      this.backoff.next(key, Date.now());
      const msg = `Failed to pull image "${c.image}": ${(e as Error).message}`;
      this.events(pod, 'Warning', 'Failed', msg, ref);
      this.log(logLine('Failed to pull image', { image: c.image, err: (e as Error).message, backoff: formatDuration(this.backoff.get(key)) }));
      throw new ImageError('ErrImagePull', msg, Date.now() + AFTER_PULL_ERROR_MS);
    }
  }
}
