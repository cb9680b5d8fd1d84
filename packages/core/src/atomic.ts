import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Prefix of the temporary files {@link writeFileAtomic} creates; listings should hide them. */
export const TEMP_PREFIX = '.lectern-tmp-';

/**
 * A fresh temporary name for `name` in the same folder: the prefix, the name cut to stay well
 * under the 255-byte name limit, and a random suffix.
 */
export function tempNameFor(name: string): string {
  let stem = name;
  while (Buffer.byteLength(stem) > 160) stem = stem.slice(0, Math.floor(stem.length * 0.8));
  return `${TEMP_PREFIX}${stem}.${randomBytes(6).toString('hex')}`;
}

/** True for a name created by {@link writeFileAtomic} that was never renamed into place. */
export function isTempName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX);
}

/** fsyncs a directory so a rename inside it survives a crash. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const fd = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await fd.sync();
  } finally {
    await fd.close();
  }
}

/**
 * Replaces `path` atomically: writes a temporary file in the same folder (created exclusively,
 * never through a link), fsyncs it, renames it over `path`, then fsyncs the folder. Readers see
 * the old bytes or the new bytes, never a mix. The temporary file is removed on failure.
 */
export async function writeFileAtomic(
  path: string,
  data: Uint8Array | string,
  options: { mode?: number } = {},
): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, tempNameFor(basename(path)));
  const fd = await open(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    options.mode ?? 0o644,
  );
  try {
    try {
      await fd.writeFile(data);
      await fd.sync();
    } finally {
      await fd.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
  await fsyncDirectory(dir);
}
