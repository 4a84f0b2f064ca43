// pods/log: the query as v1 PodLogOptions, upstream's validation of it, the container it names (or the pod's
// only one), and the node agent's /containerLogs path and query that upstream's LogLocation builds from them.
import { apiErrors, fieldErrors, type FieldError } from '@cl/apimachinery';

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  insecureSkipTLSVerifyBackend: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  /** Epoch milliseconds, whole seconds (RFC 3339 carries no fraction in a query). */
  sinceTime?: number;
}

export interface PodForLogs {
  metadata: { name: string; namespace?: string };
  spec?: {
    nodeName?: string;
    containers?: Array<{ name: string }>;
    initContainers?: Array<{ name: string }>;
    ephemeralContainers?: Array<{ name: string }>;
  };
}

/** Go's query-to-bool conversion: absent, "", "0" and "false" (any case) are false, anything else true. */
const queryBool = (v: string | null) => v !== null && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

function queryInt(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw apiErrors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/** The query decoded and validated; a bad number or time is a 400, an invalid combination upstream's 422 on PodLogOptions. */
export function podLogOptions(podName: string, q: URLSearchParams): PodLogOptions {
  const opts: PodLogOptions = {
    container: q.get('container') ?? '',
    follow: queryBool(q.get('follow')),
    previous: queryBool(q.get('previous')),
    timestamps: queryBool(q.get('timestamps')),
    insecureSkipTLSVerifyBackend: queryBool(q.get('insecureSkipTLSVerifyBackend')),
  };
  for (const name of ['tailLines', 'limitBytes', 'sinceSeconds'] as const) {
    const v = queryInt(q, name);
    if (v !== undefined) opts[name] = v;
  }
  const sinceTime = q.get('sinceTime');
  if (sinceTime) {
    const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(sinceTime) ? Date.parse(sinceTime) : NaN;
    if (Number.isNaN(ms)) throw apiErrors.badRequest(`parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTime)} as RFC 3339`);
    opts.sinceTime = Math.floor(ms / 1000) * 1000;
  }
  const errs: FieldError[] = [];
  if (opts.tailLines !== undefined && opts.tailLines < 0) errs.push(fieldErrors.invalid('tailLines', opts.tailLines, 'must be greater than or equal to 0'));
  if (opts.limitBytes !== undefined && opts.limitBytes < 1) errs.push(fieldErrors.invalid('limitBytes', opts.limitBytes, 'must be greater than 0'));
  if (opts.sinceSeconds !== undefined && opts.sinceTime !== undefined) errs.push(fieldErrors.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (opts.sinceSeconds !== undefined && opts.sinceSeconds < 1) errs.push(fieldErrors.invalid('sinceSeconds', opts.sinceSeconds, 'must be greater than 0'));
  if (errs.length > 0) throw apiErrors.invalid('', 'PodLogOptions', podName, errs);
  return opts;
}

const names = (cs: Array<{ name: string }> | undefined) => (cs ?? []).map((c) => c.name);

/**
 * The container whose log is asked for: the one named (any regular, init or ephemeral container), or the pod's
 * only container; otherwise upstream's 400 listing the choices.
 */
export function logContainer(pod: PodForLogs, requested: string): string {
  const name = pod.metadata.name;
  const containers = names(pod.spec?.containers);
  if (!requested) {
    if (containers.length === 1) return containers[0];
    if (containers.length === 0) throw apiErrors.badRequest(`a container name must be specified for pod ${name}`);
    const init = names(pod.spec?.initContainers);
    let message = `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    throw apiErrors.badRequest(message);
  }
  const all = [...containers, ...names(pod.spec?.initContainers), ...names(pod.spec?.ephemeralContainers)];
  if (!all.includes(requested)) throw apiErrors.badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/** `/containerLogs/{ns}/{pod}/{container}?...` with the query keys sorted, as Go's url.Values.Encode writes them. */
export function containerLogsPath(pod: PodForLogs, container: string, opts: PodLogOptions): string {
  const params: Array<[string, string]> = [];
  if (opts.follow) params.push(['follow', 'true']);
  if (opts.limitBytes !== undefined) params.push(['limitBytes', String(opts.limitBytes)]);
  if (opts.previous) params.push(['previous', 'true']);
  if (opts.sinceSeconds !== undefined) params.push(['sinceSeconds', String(opts.sinceSeconds)]);
  if (opts.sinceTime !== undefined) params.push(['sinceTime', new Date(opts.sinceTime).toISOString().replace(/\.\d{3}Z$/, 'Z')]);
  if (opts.tailLines !== undefined) params.push(['tailLines', String(opts.tailLines)]);
  if (opts.timestamps) params.push(['timestamps', 'true']);
  const query = new URLSearchParams(params).toString();
  const path = ['containerLogs', pod.metadata.namespace ?? '', pod.metadata.name, container].map(encodeURIComponent).join('/');
  return `/${path}${query ? `?${query}` : ''}`;
}
