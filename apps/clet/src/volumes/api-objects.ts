// The API objects pods reference, read with the node's client (its credentials are what the Node authorizer
// checks: only objects of pods bound to this node). A missing object is `undefined`; any other failure rejects.
export interface Secret {
  metadata?: { name?: string; namespace?: string };
  type?: string;
  /** Values are base64, as the API serves them. */
  data?: Record<string, string>;
}

export interface ConfigMap {
  metadata?: { name?: string; namespace?: string };
  data?: Record<string, string>;
  /** Values are base64. */
  binaryData?: Record<string, string>;
}

export interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: { apiVersion: string; kind: string; name: string; uid: string };
}

export interface TokenRequestResult {
  spec: { expirationSeconds?: number; audiences?: string[] };
  status: { token: string; expirationTimestamp: string };
}

export interface ApiObjects {
  secret(namespace: string, name: string): Promise<Secret | undefined>;
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  /** POST serviceaccounts/<name>/token. */
  requestToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec): Promise<TokenRequestResult>;
}

/** The subset of @cl/kube-client's KubeClient this needs. */
export interface ObjectClient {
  get<T>(path: string): Promise<T>;
  create<T>(path: string, body: unknown): Promise<T>;
}

const notFound = (e: unknown) => (e as { code?: number }).code === 404;

export function clientApiObjects(client: ObjectClient): ApiObjects {
  const get = async <T>(path: string): Promise<T | undefined> => {
    try {
      return await client.get<T>(path);
    } catch (e) {
      if (notFound(e)) return undefined;
      throw e;
    }
  };
  const ns = (n: string) => `/api/v1/namespaces/${encodeURIComponent(n)}`;
  return {
    secret: (namespace, name) => get<Secret>(`${ns(namespace)}/secrets/${encodeURIComponent(name)}`),
    configMap: (namespace, name) => get<ConfigMap>(`${ns(namespace)}/configmaps/${encodeURIComponent(name)}`),
    requestToken: (namespace, sa, spec) =>
      client.create<TokenRequestResult>(`${ns(namespace)}/serviceaccounts/${encodeURIComponent(sa)}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec }),
  };
}
