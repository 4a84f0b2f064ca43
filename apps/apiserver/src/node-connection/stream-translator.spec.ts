import { Channel, channelMessage, failureStatus, parseClientMessage, remoteCommandStreams, spdyStreamPlan } from './stream-translator';

describe('remote command translation: WebSocket channels and SPDY streams', () => {
  test.each<[string, string, Array<[string, number]>]>([
    ['kubectl exec -i (stdin, stdout, stderr)', 'stdin=true&stdout=true&stderr=true&tty=false', [['error', 3], ['stdin', 0], ['stdout', 1], ['stderr', 2]]],
    ['kubectl exec (no stdin)', 'stdout=true&stderr=true', [['error', 3], ['stdout', 1], ['stderr', 2]]],
    ['kubectl exec -it: stderr merged, resize added', 'stdin=true&stdout=true&stderr=true&tty=true', [['error', 3], ['stdin', 0], ['stdout', 1], ['resize', 4]]],
    ['nothing asked: the error stream only', 'stdin=0&stdout=false', [['error', 3]]],
  ])('%s', (_name, query, want) => {
    expect(spdyStreamPlan(remoteCommandStreams(new URLSearchParams(query))).map((p) => [p.type, p.channel])).toEqual(want);
  });

  test.each<[string, number[], ReturnType<typeof parseClientMessage>]>([
    ['stdin data', [0, 104, 105], { kind: 'data', channel: Channel.STDIN, data: Buffer.from('hi') }],
    ['resize', [4, 123, 125], { kind: 'data', channel: Channel.RESIZE, data: Buffer.from('{}') }],
    ['v5 close of stdin', [255, 0], { kind: 'close', channel: Channel.STDIN }],
    ['an empty message', [], { kind: 'empty' }],
    ['a close without a channel', [255], { kind: 'empty' }],
  ])('client message: %s', (_name, bytes, want) => {
    expect(parseClientMessage(Buffer.from(bytes))).toEqual(want);
  });

  test('server messages carry the channel number first', () => {
    expect([...channelMessage(Channel.STDOUT, Buffer.from('ok'))]).toEqual([1, 111, 107]);
    expect([...channelMessage(Channel.ERROR, Buffer.alloc(0))]).toEqual([3]);
  });

  test('a failure before the command ran is an internal error Status on the error channel', () => {
    expect(JSON.parse(failureStatus('dial tcp: refused').toString())).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500, message: 'Internal error occurred: dial tcp: refused' });
  });
});
