import { agentErrorStatus } from './agent-errors';

describe('agentErrorStatus', () => {
  test.each<[number, string, { code: number; reason: string; message: string }]>([
    [400, 'previous terminated container "c" in pod "p" not found', { code: 400, reason: 'BadRequest', message: 'previous terminated container "c" in pod "p" not found' }],
    [500, 'boom', { code: 500, reason: 'InternalError', message: 'Internal error occurred: boom' }],
    [404, 'pod does not exist', { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource ( pods/log p)' }],
    [403, 'Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource=log)', { code: 403, reason: 'Forbidden', message: 'Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource=log) ( pods/log p)' }],
    [418, 'teapot', { code: 418, reason: '', message: 'the server responded with the status code 418 but did not return more information ( pods/log p)' }],
  ])('%d', (code, body, want) => {
    expect(agentErrorStatus(code, 'pods/log', 'p', body)).toMatchObject(want);
  });
});
