// One scheduling decision, as a pure function of the pod and a snapshot of the nodes (upstream's schedulePod):
// filter the nodes, score the feasible ones, take the highest total. As upstream, in a large cluster the filters
// stop once enough feasible nodes are found (numFeasibleNodesToFind: all of them below 100 nodes, then an adaptive
// share, 50% less 1% per 125 nodes, at least 5% and 100 nodes), starting where the previous decision stopped so
// every node gets its turn. Ties are broken at random, as upstream's
// selectHost does by reservoir sampling, so equal nodes share the load. With no feasible node the answer is the
// FailedScheduling message.
import { NO_NODES_AVAILABLE_MESSAGE, fitErrorMessage } from './failure-message';
import { DEFAULT_FILTERS, runFilters, type FilterPlugin, type NodeStatus } from './filters';
import type { NodeInfo } from './node-info';
import { preemptionDryRun } from './preemption';
import { DEFAULT_SCORES, scoreNode, type ScorePlugin } from './scores';
import type { Pod } from './types';

export type ScheduleResult =
  /** `processedNodes`: how many nodes the filters looked at (the next decision starts after them). */
  | { nodeName: string; feasibleNodes: number; processedNodes: number }
  /** `Unschedulable` when no node fits, `SchedulerError` when there is nothing to try (upstream's condition reasons). */
  | { nodeName?: undefined; reason: 'Unschedulable' | 'SchedulerError'; message: string; statuses: ReadonlyMap<string, NodeStatus> };

export interface ScheduleOptions {
  filters?: readonly FilterPlugin[];
  scores?: readonly ScorePlugin[];
  /** For the tie-break among nodes with the highest score; Math.random by default. */
  random?: () => number;
  /** Where the filters start in `nodeInfos` (upstream's nextStartNodeIndex); 0 by default. */
  startIndex?: number;
  /** percentageOfNodesToScore; 0 (the default) is upstream's adaptive share. */
  percentageOfNodesToScore?: number;
}

const MIN_FEASIBLE_NODES_TO_FIND = 100;
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/** Upstream's numFeasibleNodesToFind: how many feasible nodes are enough to stop filtering. */
export function numFeasibleNodesToFind(allNodes: number, percentageOfNodesToScore = 0): number {
  if (allNodes < MIN_FEASIBLE_NODES_TO_FIND || percentageOfNodesToScore >= 100) return allNodes;
  let percentage = percentageOfNodesToScore;
  if (percentage <= 0) percentage = Math.max(50 - Math.trunc(allNodes / 125), MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND);
  return Math.max(Math.trunc((allNodes * percentage) / 100), MIN_FEASIBLE_NODES_TO_FIND);
}

export function schedulePod(pod: Pod, nodeInfos: readonly NodeInfo[], opts: ScheduleOptions = {}): ScheduleResult {
  if (nodeInfos.length === 0) return { reason: 'SchedulerError', message: NO_NODES_AVAILABLE_MESSAGE, statuses: new Map() };
  const filters = opts.filters ?? DEFAULT_FILTERS;
  const statuses = new Map<string, NodeStatus>();
  const feasible: NodeInfo[] = [];
  const enough = numFeasibleNodesToFind(nodeInfos.length, opts.percentageOfNodesToScore);
  const start = (opts.startIndex ?? 0) % nodeInfos.length;
  let processedNodes = 0;
  while (processedNodes < nodeInfos.length && feasible.length < enough) {
    const info = nodeInfos[(start + processedNodes++) % nodeInfos.length];
    const status = runFilters(pod, info, filters);
    if (status) statuses.set(info.node.metadata.name ?? '', status);
    else feasible.push(info);
  }
  if (feasible.length === 0) {
    const message = fitErrorMessage(nodeInfos.length, [...statuses.values()].map((s) => s.reasons));
    const preemption = preemptionDryRun(pod, nodeInfos, statuses, filters);
    // Where upstream would preempt, its PostFilter succeeds and adds nothing to the message.
    return { reason: 'Unschedulable', message: 'message' in preemption ? `${message} ${preemption.message}` : message, statuses };
  }
  if (feasible.length === 1) return { nodeName: feasible[0].node.metadata.name ?? '', feasibleNodes: 1, processedNodes };
  return { nodeName: highestScoring(pod, feasible, opts.scores ?? DEFAULT_SCORES, opts.random ?? Math.random), feasibleNodes: feasible.length, processedNodes };
}

function highestScoring(pod: Pod, feasible: readonly NodeInfo[], scores: readonly ScorePlugin[], random: () => number): string {
  let best = -Infinity;
  let ties: string[] = [];
  for (const info of feasible) {
    const score = scoreNode(pod, info, scores);
    const name = info.node.metadata.name ?? '';
    if (score > best) {
      best = score;
      ties = [name];
    } else if (score === best) {
      ties.push(name);
    }
  }
  return ties[Math.min(ties.length - 1, Math.floor(random() * ties.length))];
}
