import { spawnSync } from 'node:child_process';
import { closeSync, openSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pageWriteSeam } from '../lib/journal.js';
import { tempDir } from './wiki.js';

/**
 * A folder on a file system that can be filled up: a real tmpfs of `bytes` when this process
 * may mount one (root on Linux), else an ordinary folder whose page writes fail with ENOSPC
 * through the writer's test seam while it is "full" (removals still work, as on a full disk).
 */
export interface SmallDisk {
  dir: string;
  /** True when `dir` is a real tmpfs of the asked size. */
  real: boolean;
  /** Fills the disk: no page write succeeds until {@link free}. */
  fill(): void;
  /** Frees `bytes` of what {@link fill} took (writes up to about that size succeed again). */
  release(bytes: number): void;
  /** Frees what {@link fill} took. */
  free(): void;
  /** Unmounts and removes everything. */
  close(): void;
}

function enospc(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

export function smallDisk(bytes: number): SmallDisk {
  const dir = tempDir('lectern-disk-');
  let real = false;
  // LECTERN_TEST_NO_TMPFS=1 runs the injected-ENOSPC path even where a tmpfs could be mounted.
  if (
    process.platform === 'linux' &&
    process.getuid?.() === 0 &&
    !process.env.LECTERN_TEST_NO_TMPFS
  ) {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]);
    real = r.status === 0;
  }
  const filler = join(dir, '.filler');
  let full = false;
  let spare = 0;
  return {
    dir,
    real,
    fill() {
      full = true;
      if (!real) {
        pageWriteSeam.before = (_path, kind, size) => {
          if (full && kind === 'write' && size > spare) throw enospc();
        };
        return;
      }
      const fd = openSync(filler, 'a');
      try {
        for (const size of [1 << 20, 1 << 16, 4096, 512, 1]) {
          const chunk = Buffer.alloc(size, 120);
          for (;;) {
            try {
              writeSync(fd, chunk);
            } catch (e) {
              if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw e;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    release(bytes) {
      spare = bytes / 2;
      if (real) truncateSync(filler, Math.max(0, statSync(filler).size - bytes));
    },
    free() {
      full = false;
      if (real) rmSync(filler, { force: true });
    },
    close() {
      full = false;
      pageWriteSeam.before = undefined;
      if (real) spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
