import { deployment } from '../../test/workload-fixtures';
import { maxSurge, maxUnavailable, resolveFenceposts, scaledValue } from './fenceposts';

describe('resolveFenceposts: surge rounds up, unavailable rounds down, never both 0', () => {
  test.each([
    // [maxSurge, maxUnavailable, desired, surge, unavailable]
    ['25%', '25%', 10, 3, 2],
    ['25%', '25%', 4, 1, 1],
    ['25%', '25%', 1, 1, 0],
    ['25%', '25%', 3, 1, 0],
    ['0%', '1%', 2, 0, 1],
    ['1%', '25%', 2, 1, 0],
    ['0%', '0%', 5, 0, 1],
    [2, 0, 3, 2, 0],
    [0, 1, 3, 0, 1],
    ['100%', '100%', 7, 7, 7],
    [undefined, undefined, 5, 0, 1],
    ['50%', '50%', 0, 0, 0 + 1],
  ] as const)('surge %p unavailable %p of %d -> %d, %d', (s, u, desired, surge, unavailable) => {
    expect(resolveFenceposts(s, u, desired)).toEqual({ surge, unavailable });
  });

  test('a string that is no percentage is an error', () => {
    expect(() => scaledValue('5', 10, true)).toThrow('invalid value for IntOrString: invalid type: string is not a percentage');
    expect(() => scaledValue('x%', 10, true)).toThrow('invalid value for IntOrString: invalid value "x%"');
  });
});

describe('maxSurge / maxUnavailable of a Deployment', () => {
  test.each([
    ['rolling 25%/25% of 10', deployment({ replicas: 10 }), 3, 2],
    ['unavailable is capped at replicas', deployment({ replicas: 2, maxSurge: 0, maxUnavailable: 5 }), 0, 2],
    ['zero replicas: nothing may be unavailable', deployment({ replicas: 0 }), 0, 0],
    ['Recreate: neither', deployment({ replicas: 5, strategy: 'Recreate' }), 0, 0],
  ])('%s', (_name, d, surge, unavailable) => {
    expect(maxSurge(d)).toBe(surge);
    expect(maxUnavailable(d)).toBe(unavailable);
  });
});
