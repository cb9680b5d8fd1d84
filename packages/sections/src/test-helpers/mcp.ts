import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AnyToolDefinition } from '@lectern/core';
import { connectTools } from '@lectern/core/testing';

/** A temporary folder with files; `cleanup` removes it. */
export function tempTree(files: Record<string, string | Buffer>): {
  dir: string;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-sections-'));
  for (const [rel, content] of Object.entries(files)) writeTree(dir, rel, content);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes one file under `dir`, creating folders. */
export function writeTree(dir: string, rel: string, content: string | Buffer): void {
  const abs = join(dir, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, content);
}

/** A result as a test sees it: the structured payload (or the parsed text for errors). */
export interface CallResult {
  isError: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: test payloads are inspected dynamically
  data: any;
  text: string;
}

/** Connects tools through the SDK's in-memory transport and returns a small call helper. */
export async function session(tools: readonly AnyToolDefinition[]) {
  const { client, close } = await connectTools(tools);
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallResult> => {
    const r = await client.callTool({ name, arguments: args });
    const content = r.content as Array<{ type: string; text?: string }>;
    const text = content.find((c) => c.type === 'text')?.text ?? '';
    let data: unknown = r.structuredContent;
    if (data === undefined) {
      try {
        data = JSON.parse(text);
      } catch {
        data = undefined;
      }
    }
    return { isError: r.isError === true, data, text };
  };
  return { client, call, close };
}
