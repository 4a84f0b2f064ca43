import { generateName, NAME_SUFFIX_ALPHABET, randomSuffix, RandomIndex } from './generate';

/** A RandomIndex that plays back fixed picks and records the bounds it was asked for. */
function scripted(picks: number[]): RandomIndex & { bounds: number[] } {
  const bounds: number[] = [];
  let i = 0;
  return Object.assign((n: number) => {
    bounds.push(n);
    return picks[i++ % picks.length];
  }, { bounds });
}

describe('generateName', () => {
  test.each<[string, number[], string]>([
    ['foo-', [0, 1, 2, 3, 26], 'foo-bcdf9'],
    ['web-', [19, 20, 21, 22, 23], 'web-z2456'],
    ['', [4, 5, 6, 7, 8], 'ghjkl'],
    // The base keeps at most 58 bytes so the name fits in 63.
    ['a'.repeat(70), [0], 'a'.repeat(58) + 'bbbbb'],
    ['a'.repeat(58), [0], 'a'.repeat(58) + 'bbbbb'],
    ['a'.repeat(57) + '-', [1], 'a'.repeat(57) + '-ccccc'],
    // A character that would not fit whole is left out: 29 two-byte characters are 58 bytes.
    ['é'.repeat(30), [0], 'é'.repeat(29) + 'bbbbb'],
  ])('%j with picks %j -> %j', (base, picks, expected) => {
    const random = scripted(picks);
    expect(generateName(base, random)).toBe(expected);
    expect(random.bounds).toEqual([27, 27, 27, 27, 27]);
  });

  test('by default draws five characters from the vowel-free alphabet', () => {
    const names = Array.from({ length: 20 }, () => generateName('pod-'));
    for (const name of names) expect(name).toMatch(/^pod-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    // 20 draws from 27^5 names: a repeat would mean the suffix is not random at all.
    expect(new Set(names).size).toBe(20);
  });

  test('the alphabet is upstream\'s', () => {
    expect(NAME_SUFFIX_ALPHABET).toBe('bcdfghjklmnpqrstvwxz2456789');
  });

  test.each<[number, string]>([
    [0, ''],
    [3, 'bbb'],
  ])('randomSuffix(%j)', (length, expected) => {
    expect(randomSuffix(length, scripted([0]))).toBe(expected);
  });
});
