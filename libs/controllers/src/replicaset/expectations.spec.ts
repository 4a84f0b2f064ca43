import { EXPECTATIONS_TIMEOUT_MS, PodExpectations } from './expectations';

describe('PodExpectations', () => {
  test('creations: unsatisfied until every one is observed', () => {
    const e = new PodExpectations();
    expect(e.satisfied('ns/rs')).toBe(true);
    e.expectCreations('ns/rs', 2);
    expect(e.satisfied('ns/rs')).toBe(false);
    e.creationObserved('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(false);
    e.creationObserved('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(true);
  });

  test('deletions: each expected pod counts once, others not at all', () => {
    const e = new PodExpectations();
    e.expectDeletions('ns/rs', ['ns/a', 'ns/b']);
    e.deletionObserved('ns/rs', 'ns/a');
    e.deletionObserved('ns/rs', 'ns/a'); // the graceful delete's second sighting
    e.deletionObserved('ns/rs', 'ns/c');
    expect(e.pending('ns/rs')).toEqual({ add: 0, del: 1 });
    e.deletionObserved('ns/rs', 'ns/b');
    expect(e.satisfied('ns/rs')).toBe(true);
  });

  test('expectations expire, so a lost watch event cannot stall a ReplicaSet', () => {
    let now = 0;
    const e = new PodExpectations(() => now);
    e.expectCreations('ns/rs', 1);
    now = EXPECTATIONS_TIMEOUT_MS;
    expect(e.satisfied('ns/rs')).toBe(false);
    now += 1;
    expect(e.satisfied('ns/rs')).toBe(true);
  });

  test('delete forgets everything', () => {
    const e = new PodExpectations();
    e.expectCreations('ns/rs', 3);
    e.delete('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(true);
  });
});
