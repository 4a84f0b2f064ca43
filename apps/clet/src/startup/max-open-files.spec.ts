import { openFileLimits } from './max-open-files';

const limits = (soft: string, hard: string) => [
  'Limit                     Soft Limit           Hard Limit           Units     ',
  'Max cpu time              unlimited            unlimited            seconds   ',
  `Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     `,
  'Max locked memory         8388608              8388608              bytes     ',
].join('\n');

test.each<[string, string, { soft: number; hard: number } | null]>([
  ['a soft and a hard limit', limits('1024', '1048576'), { soft: 1024, hard: 1048576 }],
  ['both the same', limits('20000', '20000'), { soft: 20000, hard: 20000 }],
  ['unlimited', limits('unlimited', 'unlimited'), { soft: Infinity, hard: Infinity }],
  ['no such line', 'Limit Soft Limit Hard Limit Units\n', null],
])('/proc/<pid>/limits with %s', (_name, text, expected) => {
  expect(openFileLimits(text)).toEqual(expected);
});
