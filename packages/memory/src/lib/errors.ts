import { isToolError, ToolError } from '@lectern/core';

/** A parameter of the store's API that an error can be about. */
export type MemoryParam =
  | 'query'
  | 'source'
  | 'pathGlob'
  | 'limit'
  | 'offset'
  | 'raw'
  | 'path'
  | 'startLine'
  | 'endLine'
  | 'startChar'
  | 'full';

/** An operation of the store, as an error message may point to it ("run the reindex"). */
export type MemoryOperation = 'search' | 'readFragment' | 'listSources' | 'reindex';

/**
 * How one surface spells the store's parameters and operations: the store API itself
 * (`startLine`, `reindex()`), the native MCP tools (`start_line`, `memory_reindex`) or a preset
 * (`desde`, `reindexar`). Error messages are templates filled with these names, so no layer
 * rewrites another layer's strings.
 */
export interface SurfaceNames {
  params: Readonly<Record<MemoryParam, string>>;
  operations: Readonly<Record<MemoryOperation, string>>;
}

/** The store API's own spelling, used when the store is called directly. */
export const API_NAMES: SurfaceNames = {
  params: {
    query: 'query',
    source: 'source',
    pathGlob: 'pathGlob',
    limit: 'limit',
    offset: 'offset',
    raw: 'raw',
    path: 'path',
    startLine: 'startLine',
    endLine: 'endLine',
    startChar: 'startChar',
    full: 'full',
  },
  operations: {
    search: 'search()',
    readFragment: 'readFragment()',
    listSources: 'listSources()',
    reindex: 'reindex()',
  },
};

/** The native MCP tools' spelling (`memory_search`, `path_glob`, …). */
export const TOOL_NAMES: SurfaceNames = {
  params: {
    query: 'query',
    source: 'source',
    pathGlob: 'path_glob',
    limit: 'limit',
    offset: 'offset',
    raw: 'raw',
    path: 'path',
    startLine: 'start_line',
    endLine: 'end_line',
    startChar: 'start_char',
    full: 'full',
  },
  operations: {
    search: 'memory_search',
    readFragment: 'memory_read_fragment',
    listSources: 'memory_list_sources',
    reindex: 'memory_reindex',
  },
};

/**
 * A message template: `{param:startLine}` becomes the surface's spelling of the parameter in
 * backquotes (`` `start_line` ``), `{op:reindex}` the surface's name of the operation.
 */
export type MessageTemplate = string;

const PLACEHOLDER = /\{(param|op):([A-Za-z]+)\}/g;

function fill(template: MessageTemplate, names: SurfaceNames): string {
  return template.replace(PLACEHOLDER, (whole, kind: string, name: string) => {
    if (kind === 'param') {
      const spelled = names.params[name as MemoryParam];
      return spelled === undefined ? whole : `\`${spelled}\``;
    }
    return names.operations[name as MemoryOperation] ?? whole;
  });
}

/**
 * A store error whose message names parameters and operations through a template, and whose
 * `details.param` names the parameter at fault in the current surface's spelling. `render`
 * re-spells it for another surface (the tool layer and presets call it); everything else
 * (code, suggestions, other details) is kept.
 */
export class MemoryError extends ToolError {
  /** The message before names were filled in. */
  readonly template: MessageTemplate;
  /** The parameter at fault, in the store API's spelling, if any. */
  readonly param: MemoryParam | undefined;
  /** Details without `param`, as given when the error was made. */
  readonly baseDetails: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: string,
    template: MessageTemplate,
    options: {
      param?: MemoryParam;
      suggestions?: readonly string[];
      details?: Record<string, unknown>;
      cause?: unknown;
      names?: SurfaceNames;
      /** The template has no placeholders: use it as the message unchanged. */
      literal?: boolean;
    } = {},
  ) {
    const names = options.names ?? API_NAMES;
    const details =
      options.param === undefined
        ? options.details
        : { ...options.details, param: names.params[options.param] };
    super(code, options.literal ? template : fill(template, names), {
      suggestions: options.suggestions,
      details,
      cause: options.cause,
    });
    this.template = template;
    this.param = options.param;
    this.baseDetails = options.details;
    this.literal = options.literal === true;
  }

  /** True when the message is used as written (no placeholders). */
  readonly literal: boolean;

  /**
   * A core error (root guard, decoding, line planning) attributed to one of the store's
   * parameters: same code, message, suggestions and details, plus `details.param`.
   */
  static about(error: ToolError, param: MemoryParam): MemoryError {
    return new MemoryError(error.code, error.message, {
      param,
      literal: true,
      suggestions: error.suggestions,
      details: error.details ? { ...error.details } : undefined,
      cause: error,
    });
  }

  /** The same error, spelled for another surface. */
  render(names: SurfaceNames): MemoryError {
    return new MemoryError(this.code, this.template, {
      param: this.param,
      suggestions: this.suggestions,
      details: this.baseDetails ? { ...this.baseDetails } : undefined,
      cause: this.cause,
      names,
      literal: this.literal,
    });
  }
}

/** True for a {@link MemoryError} (also across duplicated module copies). */
export function isMemoryError(value: unknown): value is MemoryError {
  return (
    isToolError(value) &&
    typeof (value as { render?: unknown }).render === 'function' &&
    typeof (value as { template?: unknown }).template === 'string'
  );
}

/** Re-spells a store error for a surface; any other value is returned unchanged. */
export function renderError(error: unknown, names: SurfaceNames): unknown {
  return isMemoryError(error) ? error.render(names) : error;
}

/** Runs a store call and re-spells its errors for a surface. */
export async function spelled<T>(names: SurfaceNames, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw renderError(error, names);
  }
}

/** The error a reindex gives after waiting `busyTimeoutMs` for another process's reindex. */
export function indexBusy(busyTimeoutMs: number): MemoryError {
  return new MemoryError(
    'INDEX_BUSY',
    `another process has been updating the memory index for over ${Math.round(busyTimeoutMs / 1000)} s; try again when it finishes.`,
  );
}
