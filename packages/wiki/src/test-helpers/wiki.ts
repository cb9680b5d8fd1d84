import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyToolDefinition } from '@lectern/core';
import { connectTools, errorOf } from '@lectern/core/testing';
import { wikiTools } from '../index.js';
import type { WikiOptions } from '../lib/wiki.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The bundled example wiki. */
export const EXAMPLE_WIKI = resolve(here, '../../../../examples/wiki');
/** The package folder (for spawning fixtures against dist). */
export const PACKAGE_DIR = resolve(here, '../..');

/** A temporary folder that tests remove in afterEach. */
export function tempDir(prefix = 'lectern-wiki-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes files (path -> text or bytes) under `dir`, creating folders. */
export function writeFiles(dir: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

/** A temporary copy of the example wiki. */
export function exampleCopy(): string {
  const dir = tempDir();
  cpSync(EXAMPLE_WIKI, dir, { recursive: true });
  return dir;
}

/** Removes a temporary folder. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** What a tool call returned over the SDK. */
export interface CallResult {
  isError: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: test access to arbitrary result fields
  data: any;
}

/**
 * The wiki tools registered on a real McpServer, with an SDK client connected in memory. The
 * client lists the tools first, so it checks every result against the output schemas.
 */
export async function connectWiki(
  options: WikiOptions,
  tools: (options: WikiOptions) => AnyToolDefinition[] = wikiTools,
) {
  const connected = await connectTools(tools(options));
  await connected.client.listTools();
  const call = async (name: string, args: Record<string, unknown>): Promise<CallResult> => {
    const res = await connected.client.callTool({ name, arguments: args });
    // An error result carries its { error, code, suggestions?, details? } in the text block.
    const isError = res.isError === true;
    return { isError, data: isError ? errorOf(res) : res.structuredContent };
  };
  return { ...connected, call };
}
