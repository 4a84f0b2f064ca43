// A client certificate that is replaced while its clients live: the node agent's --rotate-certificates renews
// its certificate before it expires and every client made from the same ClientConfig must use the new one.

export interface CertificatePair {
  /** PEM certificate (chain). */
  cert: Buffer;
  /** PEM private key. */
  key: Buffer;
}

export class RotatingCertificate {
  private pair: CertificatePair;
  private readonly listeners = new Set<(pair: CertificatePair) => void>();

  constructor(initial: CertificatePair) {
    this.pair = initial;
  }

  current(): CertificatePair {
    return this.pair;
  }

  /** Makes `next` the pair every new connection uses and tells the subscribers (they close the old connections). */
  rotate(next: CertificatePair): void {
    this.pair = next;
    for (const l of [...this.listeners]) l(next);
  }

  /** Calls `listener` after each rotation; returns the unsubscribe function. */
  onRotate(listener: (pair: CertificatePair) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
