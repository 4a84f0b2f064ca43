// /metrics/resource (the kubelet's resource metrics collector: node, pod and container CPU and working
// set with sample timestamps, families sorted by name, labels by name) and /metrics/cadvisor (the
// subset of cAdvisor's container and machine metrics that CRI stats can back), both from the summary.
import type { PodSummary } from './stats-summary';
import type { CpuStats, MemoryStats } from './node-stats';

export const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

interface Sample { labels: Record<string, string>; value: number; timeMs?: number }
interface Family { name: string; help: string; type: 'counter' | 'gauge'; samples: Sample[] }

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/** Go's %g-like rendering Prometheus uses: integers plain, others in shortest form. */
function formatValue(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e21) return String(v);
  const s = String(v);
  return s.includes('e') ? s.replace(/e([+-])(\d)$/, 'e$10$2') : s;
}

export function renderFamilies(families: Family[]): string {
  let out = '';
  for (const f of [...families].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (f.samples.length === 0) continue;
    out += `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
    for (const s of f.samples) {
      const keys = Object.keys(s.labels).sort();
      const labels = keys.length ? `{${keys.map((k) => `${k}="${escapeLabel(s.labels[k])}"`).join(',')}}` : '';
      out += `${f.name}${labels} ${formatValue(s.value)}${s.timeMs !== undefined ? ` ${s.timeMs}` : ''}\n`;
    }
  }
  return out;
}

const ms = (t: string) => Date.parse(t);
const family = (name: string, help: string, type: Family['type']): Family => ({ name, help, type, samples: [] });
const cpuSeconds = (c: CpuStats) => c.usageCoreNanoSeconds / 1e9;

export interface ResourceInput {
  node: { cpu?: CpuStats; memory?: MemoryStats };
  pods: PodSummary[];
  scrapeError: boolean;
}

export function renderResourceMetrics(s: ResourceInput): string {
  const stable = (name: string, help: string, type: Family['type']) => family(name, `[STABLE] ${help}`, type);
  const nodeCpu = stable('node_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the node in core-seconds', 'counter');
  const nodeMem = stable('node_memory_working_set_bytes', 'Current working set of the node in bytes', 'gauge');
  const podCpu = stable('pod_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the pod in core-seconds', 'counter');
  const podMem = stable('pod_memory_working_set_bytes', 'Current working set of the pod in bytes', 'gauge');
  const cCpu = stable('container_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the container in core-seconds', 'counter');
  const cMem = stable('container_memory_working_set_bytes', 'Current working set of the container in bytes', 'gauge');
  const cStart = stable('container_start_time_seconds', 'Start time of the container since unix epoch in seconds', 'gauge');
  const scrape = stable('resource_scrape_error', '1 if there was an error while getting container metrics, 0 otherwise', 'gauge');
  if (s.node.cpu) nodeCpu.samples.push({ labels: {}, value: cpuSeconds(s.node.cpu), timeMs: ms(s.node.cpu.time) });
  if (s.node.memory) nodeMem.samples.push({ labels: {}, value: s.node.memory.workingSetBytes, timeMs: ms(s.node.memory.time) });
  for (const p of s.pods) {
    const pl = { pod: p.podRef.name, namespace: p.podRef.namespace };
    if (p.cpu) podCpu.samples.push({ labels: pl, value: cpuSeconds(p.cpu), timeMs: ms(p.cpu.time) });
    if (p.memory) podMem.samples.push({ labels: pl, value: p.memory.workingSetBytes, timeMs: ms(p.memory.time) });
    for (const c of p.containers) {
      const cl = { ...pl, container: c.name };
      cStart.samples.push({ labels: cl, value: Math.floor(ms(c.startTime) / 1000), timeMs: ms(c.startTime) });
      if (c.cpu) cCpu.samples.push({ labels: cl, value: cpuSeconds(c.cpu), timeMs: ms(c.cpu.time) });
      if (c.memory) cMem.samples.push({ labels: cl, value: c.memory.workingSetBytes, timeMs: ms(c.memory.time) });
    }
  }
  scrape.samples.push({ labels: {}, value: s.scrapeError ? 1 : 0 });
  return renderFamilies([nodeCpu, nodeMem, podCpu, podMem, cCpu, cMem, cStart, scrape]);
}

export interface CadvisorInput extends ResourceInput {
  machine: { cpuCores: number; memoryBytes: number };
  /** Container runtime ID and image by pod UID and container name. */
  containerInfo: (podUid: string, container: string) => { id: string; image: string } | undefined;
}

export function renderCadvisorMetrics(s: CadvisorInput): string {
  const cores = family('machine_cpu_cores', 'Number of logical CPU cores.', 'gauge');
  const mem = family('machine_memory_bytes', 'Amount of memory installed on the machine.', 'gauge');
  const cpu = family('container_cpu_usage_seconds_total', 'Cumulative cpu time consumed in seconds.', 'counter');
  const usage = family('container_memory_usage_bytes', 'Current memory usage in bytes, including all memory regardless of when it was accessed', 'gauge');
  const ws = family('container_memory_working_set_bytes', 'Current working set in bytes.', 'gauge');
  const rss = family('container_memory_rss', 'Size of RSS in bytes.', 'gauge');
  const start = family('container_start_time_seconds', 'Start time of the container since unix epoch in seconds.', 'gauge');
  const seen = family('container_last_seen', 'Last time a container was seen by the exporter', 'gauge');
  cores.samples.push({ labels: {}, value: s.machine.cpuCores });
  mem.samples.push({ labels: {}, value: s.machine.memoryBytes });
  const now = Date.now();
  // The root container ("/") is the node itself, as cAdvisor reports it.
  const root = { container: '', id: '/', image: '', name: '', namespace: '', pod: '' };
  if (s.node.cpu) cpu.samples.push({ labels: { ...root, cpu: 'total' }, value: cpuSeconds(s.node.cpu), timeMs: ms(s.node.cpu.time) });
  if (s.node.memory) {
    usage.samples.push({ labels: root, value: s.node.memory.usageBytes, timeMs: ms(s.node.memory.time) });
    ws.samples.push({ labels: root, value: s.node.memory.workingSetBytes, timeMs: ms(s.node.memory.time) });
    rss.samples.push({ labels: root, value: s.node.memory.rssBytes, timeMs: ms(s.node.memory.time) });
  }
  for (const p of s.pods) {
    for (const c of p.containers) {
      const info = s.containerInfo(p.podRef.uid, c.name);
      const l = { container: c.name, id: info ? `/${info.id}` : '', image: info?.image ?? '', name: info?.id ?? '', namespace: p.podRef.namespace, pod: p.podRef.name };
      start.samples.push({ labels: l, value: Math.floor(ms(c.startTime) / 1000) });
      seen.samples.push({ labels: l, value: Math.floor(now / 1000), timeMs: now });
      if (c.cpu) cpu.samples.push({ labels: { ...l, cpu: 'total' }, value: cpuSeconds(c.cpu), timeMs: ms(c.cpu.time) });
      if (c.memory) {
        usage.samples.push({ labels: l, value: c.memory.usageBytes, timeMs: ms(c.memory.time) });
        ws.samples.push({ labels: l, value: c.memory.workingSetBytes, timeMs: ms(c.memory.time) });
        rss.samples.push({ labels: l, value: c.memory.rssBytes, timeMs: ms(c.memory.time) });
      }
    }
  }
  return renderFamilies([cores, mem, cpu, usage, ws, rss, start, seen]);
}
