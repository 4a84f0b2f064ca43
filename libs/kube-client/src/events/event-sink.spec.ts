import { eventSinkFor } from './event-sink';
import type { CoreEvent } from './types';

describe('eventSinkFor', () => {
  test('creates at the namespace events path and patches with a strategic merge patch', async () => {
    const requests: unknown[][] = [];
    const client = {
      create: async (path: string, body: unknown) => (requests.push(['create', path, body]), body),
      patch: async (path: string, body: unknown, type?: string) => (requests.push(['patch', path, body, type]), { patched: true }),
    };
    const sink = eventSinkFor(client);
    const event = { metadata: { name: 'nginx-1.18', namespace: 'web' } } as CoreEvent;
    await expect(sink.create('web', event)).resolves.toBe(event);
    await expect(sink.patch('default', 'node-1.18', { count: 2 })).resolves.toEqual({ patched: true });
    expect(requests).toEqual([
      ['create', '/api/v1/namespaces/web/events', event],
      ['patch', '/api/v1/namespaces/default/events/node-1.18', { count: 2 }, 'strategic'],
    ]);
  });
});
