import { createRootSync, type Root, suggest, ToolError } from '@lectern/core';

/** One named folder the line tools may read. */
export interface WorkspaceConfig {
  /** Name callers pass as `workspace`: 1-64 letters, digits, `_`, `-` or `.`. */
  id: string;
  /** Folder on disk; resolved with realpath once, when the tools are created. */
  path: string;
  /**
   * Read files that have more than one hard link (default false: refused with `PATH_HARD_LINK`,
   * since another name of the file may be outside the folder).
   */
  allowHardLinks?: boolean;
}

/** A configured workspace with its guarded root. */
export interface Workspace {
  id: string;
  root: Root;
}

const ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The set of workspaces of one tool set; looks up ids with suggestions on a miss. */
export class Workspaces {
  readonly #byId = new Map<string, Workspace>();

  /**
   * Creates every root synchronously. Throws `WORKSPACES_EMPTY`, `WORKSPACE_ID_INVALID`,
   * `WORKSPACE_DUPLICATE`, or core's `ROOT_*` codes for a missing, empty or non-folder path.
   */
  constructor(configs: ReadonlyArray<WorkspaceConfig>, maxFileBytes: number) {
    if (!Array.isArray(configs) || configs.length === 0) {
      throw new ToolError(
        'WORKSPACES_EMPTY',
        'at least one workspace ({ id, path }) must be configured for the line tools.',
      );
    }
    for (const config of configs) {
      const id = config?.id;
      if (typeof id !== 'string' || !ID_RE.test(id)) {
        throw new ToolError(
          'WORKSPACE_ID_INVALID',
          `workspace id ${JSON.stringify(id)} is invalid: use 1 to 64 letters, digits, '_', '-' or '.'.`,
        );
      }
      if (this.#byId.has(id)) {
        throw new ToolError('WORKSPACE_DUPLICATE', `workspace id "${id}" is configured twice.`);
      }
      this.#byId.set(
        id,
        Object.freeze({
          id,
          root: createRootSync(config.path, {
            maxFileBytes,
            allowHardLinks: config.allowHardLinks ?? false,
          }),
        }),
      );
    }
  }

  /** Configured ids, in configuration order. */
  get ids(): string[] {
    return [...this.#byId.keys()];
  }

  /** The workspace named `id`; throws `WORKSPACE_NOT_FOUND` with the closest ids otherwise. */
  get(id: string): Workspace {
    const found = this.#byId.get(id);
    if (found) return found;
    throw new ToolError(
      'WORKSPACE_NOT_FOUND',
      `workspace "${id}" is not configured; valid workspaces: ${this.ids.join(', ')}.`,
      { suggestions: suggest(id, this.ids, { max: 3 }), details: { workspaces: this.ids } },
    );
  }
}
