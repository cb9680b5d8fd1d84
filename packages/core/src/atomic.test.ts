import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isTempName, TEMP_PREFIX, writeFileAtomic } from './atomic.js';

const dir = mkdtempSync(join(tmpdir(), 'lectern-atomic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('creates and replaces a file, leaving no temporary files', async () => {
    const p = join(dir, 'page.md');
    await writeFileAtomic(p, 'one');
    await writeFileAtomic(p, 'two');
    expect(readFileSync(p, 'utf8')).toBe('two');
    expect(readdirSync(dir).filter(isTempName)).toEqual([]);
  });

  it('removes its temporary file when the rename fails', async () => {
    const target = join(dir, 'a-folder');
    mkdirSync(target);
    writeFileSync(join(target, 'keep'), 'x');
    await expect(writeFileAtomic(target, 'data')).rejects.toThrow();
    expect(readdirSync(dir).filter((n) => n.startsWith(TEMP_PREFIX))).toEqual([]);
    expect(readFileSync(join(target, 'keep'), 'utf8')).toBe('x');
  });

  it('recognises its temporary names', () => {
    expect(isTempName(`${TEMP_PREFIX}page.md.abc`)).toBe(true);
    expect(isTempName('page.md')).toBe(false);
  });
});
