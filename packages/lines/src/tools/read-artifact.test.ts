import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineTools } from '../package.js';
import { serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

const MiB = 1024 * 1024;
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
let t: TempDir;
let s: Awaited<ReturnType<typeof serve>>;
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(100, 7),
]);
let big: Buffer;
beforeAll(async () => {
  t = tempDir();
  t.write('img/logo.png', png);
  t.write('notes.txt', 'héllo\n');
  t.write('blob.bin', Buffer.from([0xff, 0xfe, 0x41]));
  t.write('empty', '');
  // Over read_text's 16 MiB limit, which read_artifact still accepts.
  big = Buffer.alloc(17 * MiB, 0x61);
  big.write('END', big.length - 3);
  t.write('big.txt', big);
  t.symlink(t.abs('notes.txt'), 'link.txt');
  t.mkfifo('pipe');
  s = await serve(lineTools({ workspaces: [{ id: 'w', path: t.dir }] }));
});
afterAll(async () => {
  await s.close();
  t.cleanup();
});

const read = (args: Record<string, unknown>) =>
  s.call('read_artifact', { workspace: 'w', ...args });

describe('read_artifact over MCP', () => {
  it('returns bytes as base64 with size, hash and sniffed media type', async () => {
    const r = await read({ path: 'img/logo.png' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({
      path: 'img/logo.png',
      size: png.length,
      sha256: sha(png),
      media_type: 'image/png',
      offset: 0,
      length: png.length,
      has_more: false,
      next_offset: null,
      source_trust: 'untrusted',
    });
    expect(Buffer.from(r.data.data_base64, 'base64').equals(png)).toBe(true);
    expect((await read({ path: 'notes.txt' })).data.media_type).toBe('text/plain; charset=utf-8');
    expect((await read({ path: 'blob.bin' })).data.media_type).toBe('application/octet-stream');
    const empty = await read({ path: 'empty' });
    expect(empty.data).toMatchObject({ size: 0, length: 0, data_base64: '', has_more: false });
  });

  it('reads ranges of a file over the text limit, hashing the whole file', async () => {
    const r = await read({ path: 'big.txt', offset: big.length - 10, length: 100 });
    expect(r.data).toMatchObject({
      size: big.length,
      length: 10,
      has_more: false,
      sha256: sha(big),
    });
    expect(Buffer.from(r.data.data_base64, 'base64').toString()).toBe('aaaaaaaEND');
    const head = await read({ path: 'big.txt', length: 16 });
    expect(head.data).toMatchObject({ length: 16, has_more: true, next_offset: 16 });
    const atEnd = await read({ path: 'big.txt', offset: big.length });
    expect(atEnd.data).toMatchObject({ length: 0, has_more: false });
  });

  it('refuses bad ranges, changed files, links and special files with stable codes', async () => {
    const past = await read({ path: 'notes.txt', offset: 100 });
    expect(past.data.code).toBe('OFFSET_OUT_OF_RANGE');
    expect(past.data.error).toContain('7 bytes');
    const tooLong = await read({ path: 'notes.txt', length: MiB + 1 });
    expect(tooLong.isError).toBe(true);
    expect(tooLong.text).toMatch(/length/);
    const changed = await read({ path: 'notes.txt', expected_sha256: '0'.repeat(64) });
    expect(changed.data.code).toBe('FILE_CHANGED');
    expect(changed.data.details.current_sha256).toBe(sha('héllo\n'));
    expect(changed.data.data_base64).toBeUndefined();
    const ok = await read({ path: 'notes.txt', expected_sha256: sha('héllo\n') });
    expect(ok.isError).toBe(false);
    expect((await read({ path: 'link.txt' })).data.code).toBe('PATH_SYMLINK');
    expect((await read({ path: 'pipe' })).data.code).toBe('PATH_NOT_REGULAR');
    expect((await read({ path: '../x' })).data.code).toBe('PATH_ESCAPES_ROOT');
    expect((await read({ path: 'img' })).data.code).toBe('PATH_IS_DIRECTORY');
  });

  it('enforces a lowered file-size cap before reading', async () => {
    const small = await serve(
      lineTools({
        workspaces: [{ id: 'w', path: t.dir }],
        limits: { maxArtifactFileBytes: 16 * MiB },
      }),
    );
    try {
      const r = await small.call('read_artifact', { workspace: 'w', path: 'big.txt' });
      expect(r.data.code).toBe('FILE_TOO_LARGE');
      expect(r.data.error).toContain(String(16 * MiB));
    } finally {
      await small.close();
    }
  });
});
