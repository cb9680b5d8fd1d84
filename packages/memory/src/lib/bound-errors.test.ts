import { jsonBytes } from '@lectern/core';
import { bySize } from '@lectern/core/testing';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createMemory } from '../store.js';
import { type TempDir, tempDir } from '../test-helpers/fs.js';
import type { MemoryStore } from '../types.js';
import { boundErrors } from './bound-errors.js';

// Issue 13 item 3: a reindex of many broken files keeps its error list within a byte budget.
describe('memory_reindex result size', () => {
  const BROKEN = bySize(200, 2_000);
  let dir: TempDir;
  let store: MemoryStore;
  beforeEach(() => {
    dir = tempDir();
    dir.write('ok.md', '# Fine\n\ntext\n');
    for (let i = 0; i < BROKEN; i++) dir.write(`broken/file-${i}.md`, `bin\u0000ary ${i}\n`);
    store = createMemory({ sources: [{ id: 'notes', path: dir.path }] });
  });
  afterEach(() => {
    store.close();
    dir.cleanup();
  });

  test('lists errors up to the budget and says how many more there are', async () => {
    const full = await store.reindex({});
    expect(full.errors.length).toBe(BROKEN);
    const bounded = boundErrors(full, 4096);
    expect(jsonBytes(bounded.errors)).toBeLessThanOrEqual(4096);
    expect(bounded.errors.length).toBeGreaterThan(0);
    expect(bounded.errors).toEqual(full.errors.slice(0, bounded.errors.length));
    const more = BROKEN - bounded.errors.length;
    expect(bounded.warnings.at(-1)).toContain(`${more} more files could not be indexed`);
    // within the budget, nothing changes
    expect(boundErrors(full, jsonBytes(full.errors) + full.errors.length)).toBe(full);
  }, 120_000);
});
