import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { ConnectionTrimmer, DEFAULT_TRIM_POLICY, trimDecision, type TrimState } from './malloc-trim';

const s = (closedSinceTrim: number, lastActivityAt: number, lastTrimAt: number | null = null, followUp = false): TrimState => ({ closedSinceTrim, lastActivityAt, lastTrimAt, followUp });

test.each([
  ['no connection closed', s(0, 0), 60_000, { kind: 'none' }],
  ['99 closed: not a burst, however quiet', s(99, 0), 60_000, { kind: 'none' }],
  ['100 closed, the last just now: wait for 2 s of quiet', s(100, 1_000), 1_000, { kind: 'wait', ms: 2_000 }],
  ['100 closed, 1.5 s quiet: the rest of the 2 s', s(100, 1_000), 2_500, { kind: 'wait', ms: 500 }],
  ['100 closed, 2 s quiet, never trimmed: trim', s(100, 1_000), 3_000, { kind: 'trim' }],
  ['1,000 closed, long quiet: trim', s(1_000, 0), 60_000, { kind: 'trim' }],
  ['quiet, but trimmed 4 s ago: wait for the 10 s interval', s(500, 1_000, 0), 4_000, { kind: 'wait', ms: 6_000 }],
  ['interval over, quiet not yet: wait for the quiet', s(500, 11_000, 0), 12_000, { kind: 'wait', ms: 1_000 }],
  ['interval over and quiet: trim', s(500, 11_000, 0), 13_000, { kind: 'trim' }],
  ['after a burst\'s trim, one close is enough for the follow-up', s(1, 11_000, 0, true), 13_000, { kind: 'trim' }],
  ['the follow-up waits for the interval too', s(10, 1_000, 0, true), 5_000, { kind: 'wait', ms: 5_000 }],
  ['after a burst\'s trim, no close: nothing', s(0, 0, 0, true), 60_000, { kind: 'none' }],
])('%s', (_name, state, now, want) => {
  expect(trimDecision(state, now, DEFAULT_TRIM_POLICY)).toEqual(want);
});

describe('ConnectionTrimmer', () => {
  const setup = () => {
    let t = 0;
    const timers: Array<{ at: number; fn: () => void }> = [];
    const trims: Array<[boolean, number]> = [];
    const trimmer = new ConnectionTrimmer({
      trim: () => true,
      now: () => t,
      setTimer: (fn, ms) => (timers.push({ at: t + ms, fn }), {}),
      onTrim: (released, closed) => trims.push([released, closed]),
    });
    // Runs the timers due by `to`, in order, as the clock moves.
    const advance = (to: number) => {
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        if (!timers.length || timers[0].at > to) break;
        const next = timers.shift()!;
        t = next.at;
        next.fn();
      }
      t = to;
    };
    return { trimmer, timers, trims, advance, at: (ms: number) => (t = ms) };
  };

  test('a burst of 1,000 closes arms one timer; the trim runs 2 s after the last close', () => {
    const { trimmer, timers, trims, advance, at } = setup();
    for (let i = 0; i < 1_000; i++) {
      at(i);
      trimmer.closed();
    }
    expect(timers.length).toBe(1);
    advance(2_998);
    expect(trims).toEqual([]);
    advance(2_999);
    expect(trims).toEqual([[true, 1_000]]);
    expect(timers.length).toBe(0);
  });

  test('an open during the wait pushes the trim back; the next burst waits for the interval', () => {
    const { trimmer, trims, advance, at } = setup();
    for (let i = 0; i < 100; i++) trimmer.closed();
    at(1_500);
    trimmer.opened();
    advance(3_000);
    expect(trims).toEqual([]);
    advance(3_500);
    expect(trims).toEqual([[true, 100]]);
    at(4_000);
    for (let i = 0; i < 100; i++) trimmer.closed();
    advance(13_000);
    expect(trims.length).toBe(1);
    advance(13_500);
    expect(trims).toEqual([[true, 100], [true, 100]]);
  });

  test('a burst\'s trim is followed by one more for what closed after it, then bursts only', () => {
    const { trimmer, trims, advance, at } = setup();
    for (let i = 0; i < 1_000; i++) trimmer.closed();
    advance(2_000);
    // The load that ran through the trim ends: its 10 connections close.
    at(5_000);
    for (let i = 0; i < 10; i++) trimmer.closed();
    advance(30_000);
    expect(trims).toEqual([[true, 1_000], [true, 10]]);
    at(40_000);
    for (let i = 0; i < 10; i++) trimmer.closed();
    advance(100_000);
    expect(trims.length).toBe(2);
  });

  test('watch: counts a server connection\'s open and its close once', () => {
    const { trimmer, timers } = setup();
    const server = new EventEmitter();
    trimmer.watch(server as never);
    for (let i = 0; i < 100; i++) {
      const socket = new EventEmitter() as unknown as Socket;
      server.emit('connection', socket);
      socket.emit('close');
      socket.emit('close');
    }
    expect(timers.length).toBe(1);
  });
});
