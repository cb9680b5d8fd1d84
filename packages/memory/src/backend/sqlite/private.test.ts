import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connectTools } from '@lectern/core/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryPackage } from '../../package.js';
import { errorOf, type TempDir, tempDir } from '../../test-helpers/fs.js';

// Issue 30 #11: `.lectern/memory.db` was created 644 in a 755 folder while the notes were 600:
// any local user could read the index's words back. Small item: DB_UNAVAILABLE showed the
// database's absolute path.
let dir: TempDir;
beforeEach(() => {
  dir = tempDir();
  dir.write('notes/secret.md', '# Secret\n\nThe vault code is marmalade.\n');
});
afterEach(() => dir.cleanup());

const mode = (p: string) => statSync(p).mode & 0o777;

describe('the SQLite index is private', () => {
  it('creates .lectern 0700 and memory.db, its -wal and -shm 0600, whatever the umask', async () => {
    const old = process.umask(0o022);
    const db = join(dir.path, 'notes', '.lectern', 'memory.db');
    const set = memoryPackage.tools({
      roots: [{ id: 'notes', path: join(dir.path, 'notes') }],
      db,
    });
    try {
      const c = await connectTools(set.tools);
      try {
        const r = (await c.client.callTool({
          name: 'memory_search',
          arguments: { query: 'marmalade' },
        })) as CallToolResult;
        expect(r.isError).toBeFalsy();
        expect(JSON.stringify(r.structuredContent)).toContain('notes/secret.md');
        expect(mode(join(dir.path, 'notes', '.lectern'))).toBe(0o700);
        expect(mode(db)).toBe(0o600);
        for (const extra of ['-wal', '-shm']) {
          expect(existsSync(db + extra), extra).toBe(true);
          expect(mode(db + extra), extra).toBe(0o600);
        }
      } finally {
        await c.close();
      }
    } finally {
      await set.close();
      process.umask(old);
    }
  });

  it('says DB_UNAVAILABLE without the database absolute path', async () => {
    dir.write('a-file', 'not a folder');
    const set = memoryPackage.tools({
      roots: [{ id: 'notes', path: join(dir.path, 'notes') }],
      db: join(dir.path, 'a-file', 'memory.db'),
    });
    try {
      const c = await connectTools(set.tools);
      try {
        const r = (await c.client.callTool({
          name: 'memory_search',
          arguments: { query: 'marmalade' },
        })) as CallToolResult;
        const e = errorOf(r);
        expect(e.code).toBe('DB_UNAVAILABLE');
        expect(e.error).toContain('memory.db');
        expect(e.error).not.toContain(dir.path);
      } finally {
        await c.close();
      }
    } finally {
      await set.close();
    }
  });
});
