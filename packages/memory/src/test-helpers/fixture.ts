import type { AnyToolDefinition } from '@lectern/core';
import { type ConnectedTools, connectTools } from '@lectern/core/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach } from 'vitest';
import { createMemory } from '../store.js';
import type { MemoryOptions, MemoryStore } from '../types.js';
import { type TempDir, tempDir } from './fs.js';
import type { BackendUnderTest } from './target.js';

/** A fresh notes folder per test, and the stores made over it on the backend under test. */
export interface StoreFixture {
  /** This test's temporary notes folder (removed after the test). */
  readonly dir: TempDir;
  /** A store over the test folder (source `notes`) on the backend under test; closed after the test. */
  make(options?: Partial<MemoryOptions> & { db?: string }): MemoryStore;
}

/**
 * Registers `beforeEach`/`afterEach` hooks that give every test its own temporary folder and
 * close every store the test made (then the backend's own clean-up, then the folder).
 */
export function storeFixture(target: BackendUnderTest): StoreFixture {
  let dir: TempDir | undefined;
  let stores: MemoryStore[] = [];
  beforeEach(async () => {
    dir = tempDir();
    stores = [];
    await target.beforeEach?.();
  });
  afterEach(async () => {
    for (const s of stores) await s.close();
    await target.afterEach?.();
    dir?.cleanup();
  });
  const current = (): TempDir => {
    if (!dir) throw new Error('storeFixture: used outside a test');
    return dir;
  };
  return {
    get dir() {
      return current();
    },
    make(options = {}) {
      const { db, ...rest } = options;
      const store = createMemory({
        sources: [{ id: 'notes', path: current().path }],
        backend: target.backend(db),
        ...rest,
      });
      stores.push(store);
      return store;
    },
  };
}

/** One store over a seeded folder, served as MCP tools to an SDK client. */
export interface ToolsFixture {
  /** This test's temporary notes folder. */
  readonly dir: TempDir;
  /** The store behind the tools. */
  readonly store: MemoryStore;
  /** The connected SDK client and server. */
  readonly conn: ConnectedTools;
  /** Calls one tool through the client. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

/**
 * Registers hooks that, for every test, write `files` into a fresh folder, open a store over it
 * as source `sourceId` on the backend under test, and connect `tools(store)` to an SDK client;
 * everything is closed and removed after the test.
 */
export function toolsFixture(
  target: BackendUnderTest,
  setup: {
    sourceId: string;
    files: Record<string, string>;
    tools: (store: MemoryStore) => readonly AnyToolDefinition[];
  },
): ToolsFixture {
  /** What the set-up has made so far (store and conn are missing if it failed before them). */
  type Made = { dir: TempDir; store?: MemoryStore; conn?: ConnectedTools };
  let state: Made | undefined;
  beforeEach(async () => {
    const s: Made = { dir: tempDir() };
    state = s;
    await target.beforeEach?.();
    for (const [rel, content] of Object.entries(setup.files)) s.dir.write(rel, content);
    s.store = createMemory({
      sources: [{ id: setup.sourceId, path: s.dir.path }],
      backend: target.backend(),
    });
    s.conn = await connectTools(setup.tools(s.store));
  });
  afterEach(async () => {
    // Whatever the set-up got to before a failure is closed; the backend is always cleaned.
    const s = state;
    state = undefined;
    await s?.conn?.close();
    await s?.store?.close();
    await target.afterEach?.();
    s?.dir.cleanup();
  });
  const current = () => {
    if (!state?.store || !state.conn) throw new Error('toolsFixture: used outside a test');
    return { dir: state.dir, store: state.store, conn: state.conn };
  };
  return {
    get dir() {
      return current().dir;
    },
    get store() {
      return current().store;
    },
    get conn() {
      return current().conn;
    },
    async call(name, args = {}) {
      return (await current().conn.client.callTool({ name, arguments: args })) as CallToolResult;
    },
  };
}
