import { listenBacklog } from './listen-backlog';

test.each<[string, () => string, number]>([
  ['somaxconn as the kernel has it', () => '4096\n', 4096],
  ['a smaller somaxconn', () => '128\n', 128],
  ['above what the kernel takes: capped as Go caps it', () => '1000000', 65535],
  ['unreadable', () => { throw new Error('ENOENT'); }, 4096],
  ['not a number', () => 'x', 4096],
])('%s', (_name, read, expected) => {
  expect(listenBacklog(read)).toBe(expected);
});
