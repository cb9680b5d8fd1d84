import { fileKind, type Root, showPath, statInRoot, ToolError } from '@lectern/core';

/** A checked starting point of a walk: a folder, or (when allowed) one regular file. */
export interface Start {
  /** Normalised workspace-relative path (`''` for the workspace root). */
  path: string;
  kind: 'folder' | 'file';
}

/**
 * Checks a folder path (or, with `allowFile`, a file path) through core's guard: links,
 * traversal and missing paths are refused with core's codes; a file where a folder is needed
 * is `PATH_NOT_DIRECTORY`, a special file `PATH_NOT_REGULAR`, and anything inside `.git`
 * `PATH_EXCLUDED` (core refuses `.lectern` with `PATH_RESERVED`).
 */
export async function checkStart(root: Root, path: string, allowFile: boolean): Promise<Start> {
  const found = await statInRoot(root, path === '' ? '.' : path);
  if (found.relativePath.split('/').includes('.git')) {
    throw new ToolError(
      'PATH_EXCLUDED',
      (n) =>
        `${n('path')} ${showPath(path)} is inside .git, which listing and search never enter; read a file there with ${n('read_text')} if you need it.`,
      { details: { param: 'path' } },
    );
  }
  if (found.stat.isDirectory()) return { path: found.relativePath, kind: 'folder' };
  if (found.stat.isFile()) {
    if (allowFile && found.stat.nlink > 1 && !root.allowHardLinks) {
      throw new ToolError(
        'PATH_HARD_LINK',
        `file ${showPath(path)} has ${found.stat.nlink} hard links; another of its names may be outside the workspace, so it is not read.`,
      );
    }
    if (allowFile) return { path: found.relativePath, kind: 'file' };
    throw new ToolError(
      'PATH_NOT_DIRECTORY',
      (n) =>
        `${n('path')} ${path} is a file, not a folder; give a folder to list, or read the file with ${n('read_text')}.`,
      { details: { param: 'path' } },
    );
  }
  throw new ToolError(
    'PATH_NOT_REGULAR',
    `path ${path} is ${fileKind(found.stat)}; only folders${allowFile ? ' and regular files' : ''} can be used here.`,
  );
}
