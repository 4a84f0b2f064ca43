import { ApiError } from '@cl/apimachinery';
import { containerLogsPath, logContainer, podLogOptions, type PodForLogs, type PodLogOptions } from './pod-log-options';

const statusOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { code: e.status.code, reason: e.status.reason, message: e.status.message };
    throw e;
  }
  throw new Error('no error');
};

const base: PodLogOptions = { container: '', follow: false, previous: false, timestamps: false, insecureSkipTLSVerifyBackend: false };

describe('podLogOptions', () => {
  test.each<[string, string, Partial<PodLogOptions>]>([
    ['nothing', '', {}],
    ['kubectl logs -f --timestamps -c c', 'follow=true&timestamps=true&container=c', { follow: true, timestamps: true, container: 'c' }],
    ['bools as Go reads them', 'follow=1&previous=False&timestamps=0&insecureSkipTLSVerifyBackend=yes', { follow: true, insecureSkipTLSVerifyBackend: true }],
    ['numbers', 'tailLines=10&limitBytes=100&sinceSeconds=5', { tailLines: 10, limitBytes: 100, sinceSeconds: 5 }],
    ['tailLines 0 is allowed', 'tailLines=0', { tailLines: 0 }],
    ['sinceTime to whole seconds', 'sinceTime=2026-01-02T03:04:05.678Z', { sinceTime: Date.parse('2026-01-02T03:04:05Z') }],
    ['sinceTime with an offset', 'sinceTime=2026-01-02T04:04:05%2B01:00', { sinceTime: Date.parse('2026-01-02T03:04:05Z') }],
  ])('%s', (_name, query, want) => {
    expect(podLogOptions('p', new URLSearchParams(query))).toEqual({ ...base, ...want });
  });

  test.each<[string, string, number, string]>([
    ['negative tailLines', 'tailLines=-1', 422, 'PodLogOptions "p" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'],
    ['limitBytes 0', 'limitBytes=0', 422, 'PodLogOptions "p" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
    ['sinceSeconds 0', 'sinceSeconds=0', 422, 'PodLogOptions "p" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
    ['both since forms', 'sinceSeconds=5&sinceTime=2026-01-02T03:04:05Z', 422, 'PodLogOptions "p" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'],
    ['every problem at once', 'tailLines=-1&limitBytes=0', 422, 'PodLogOptions "p" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]'],
    ['a number that is not', 'tailLines=ten', 400, 'strconv.ParseInt: parsing "ten": invalid syntax'],
  ])('%s', (_name, query, code, message) => {
    expect(statusOf(() => podLogOptions('p', new URLSearchParams(query)))).toMatchObject({ code, message });
  });

  test('a time that is not RFC 3339 is a 400', () => {
    expect(statusOf(() => podLogOptions('p', new URLSearchParams('sinceTime=yesterday')))).toMatchObject({ code: 400, reason: 'BadRequest' });
  });
});

const pod = (containers: string[], init: string[] = [], ephemeral: string[] = []): PodForLogs => ({
  metadata: { name: 'web', namespace: 'default' },
  spec: { nodeName: 'n1', containers: containers.map((name) => ({ name })), initContainers: init.map((name) => ({ name })), ephemeralContainers: ephemeral.map((name) => ({ name })) },
});

describe('logContainer', () => {
  test.each<[string, PodForLogs, string, string]>([
    ['the only container', pod(['app']), '', 'app'],
    ['a named container', pod(['a', 'b']), 'b', 'b'],
    ['an init container', pod(['a', 'b'], ['setup']), 'setup', 'setup'],
    ['an ephemeral container', pod(['a'], [], ['debugger']), 'debugger', 'debugger'],
  ])('%s', (_name, p, requested, want) => {
    expect(logContainer(p, requested)).toBe(want);
  });

  test.each<[string, PodForLogs, string, string]>([
    ['several containers', pod(['a', 'b']), '', 'a container name must be specified for pod web, choose one of: [a b]'],
    ['several with init containers', pod(['a', 'b'], ['i1', 'i2']), '', 'a container name must be specified for pod web, choose one of: [a b] or one of the init containers: [i1 i2]'],
    ['no containers', pod([]), '', 'a container name must be specified for pod web'],
    ['an unknown container', pod(['a']), 'z', 'container z is not valid for pod web'],
  ])('%s is a 400', (_name, p, requested, message) => {
    expect(statusOf(() => logContainer(p, requested))).toEqual({ code: 400, reason: 'BadRequest', message });
  });
});

describe('containerLogsPath', () => {
  test.each<[string, Partial<PodLogOptions>, string]>([
    ['no options', {}, '/containerLogs/default/web/app'],
    ['every option, keys sorted', { follow: true, previous: true, timestamps: true, tailLines: 3, limitBytes: 10, sinceSeconds: 60 }, '/containerLogs/default/web/app?follow=true&limitBytes=10&previous=true&sinceSeconds=60&tailLines=3&timestamps=true'],
    ['sinceTime in RFC 3339', { sinceTime: Date.parse('2026-01-02T03:04:05Z') }, '/containerLogs/default/web/app?sinceTime=2026-01-02T03%3A04%3A05Z'],
    ['insecureSkipTLSVerifyBackend is not the agent\'s', { insecureSkipTLSVerifyBackend: true }, '/containerLogs/default/web/app'],
  ])('%s', (_name, opts, want) => {
    expect(containerLogsPath(pod(['app']), 'app', { ...base, ...opts })).toBe(want);
  });
});
