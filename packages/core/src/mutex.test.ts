import { describe, expect, it } from 'vitest';
import { Mutex } from './mutex.js';

describe('Mutex', () => {
  it('runs calls one at a time, in call order, each after the one before has settled', async () => {
    const lock = new Mutex();
    const log: string[] = [];
    const step = (name: string, turns: number) => async () => {
      log.push(`${name} start`);
      for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
      log.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([
      lock.run(step('a', 3)),
      lock.run(step('b', 1)),
      lock.run(step('c', 0)),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  it('passes a failure to its caller and still runs the calls after it', async () => {
    const lock = new Mutex();
    const failed = lock.run(async () => {
      throw new Error('boom');
    });
    const next = lock.run(async () => 'after');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('after');
  });
});
