import { MESSAGE_LIMIT, fitErrorMessage, truncateMessage } from './failure-message';

test.each<[string, number, string[][], string[], string]>([
  ['no reasons at all', 0, [], [], '0/0 nodes are available:'],
  ['one node', 1, [['Insufficient cpu']], [], '0/1 nodes are available: 1 Insufficient cpu.'],
  ['several reasons of one node each count', 1, [['Insufficient cpu', 'Insufficient memory']], [], '0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.'],
  ['counts sort as strings, as Go sorts them', 12, [...Array(10).fill(['x']), ['y'], ['y']], [], '0/12 nodes are available: 10 x, 2 y.'],
  ['nodes without a status take the absent reasons', 3, [['No preemption victims found for incoming pod']], ['Preemption is not helpful for scheduling'], '0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.'],
])('%s', (_name, all, reasons, absent, want) => {
  expect(fitErrorMessage(all, reasons, absent)).toBe(want);
});

test('messages longer than an event may carry are cut with " ..."', () => {
  const long = 'x'.repeat(MESSAGE_LIMIT + 10);
  expect(truncateMessage(long)).toBe('x'.repeat(MESSAGE_LIMIT - 4) + ' ...');
  expect(truncateMessage('short')).toBe('short');
});
