import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AnyToolDefinition } from '@lectern/core';
import { connectTools, errorOf } from '@lectern/core/testing';

/** A temporary folder with helpers to fill it; remove it with `cleanup()`. */
export interface TempDir {
  dir: string;
  /** Writes a file (creating folders), returns its absolute path. */
  write(rel: string, content: string | Uint8Array): string;
  mkdir(rel: string): string;
  symlink(target: string, rel: string): void;
  /** Creates a FIFO with the real `mkfifo` command. */
  mkfifo(rel: string): string;
  abs(rel: string): string;
  cleanup(): void;
}

export function tempDir(prefix = 'lectern-lines-'): TempDir {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const abs = (rel: string) => path.join(dir, rel);
  return {
    dir,
    abs,
    write(rel, content) {
      const p = abs(rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
      return p;
    },
    mkdir(rel) {
      const p = abs(rel);
      fs.mkdirSync(p, { recursive: true });
      return p;
    },
    symlink(target, rel) {
      const p = abs(rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.symlinkSync(target, p);
    },
    mkfifo(rel) {
      const p = abs(rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      execFileSync('mkfifo', [p]);
      return p;
    },
    cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Test data inspected freely. */
// biome-ignore lint/suspicious/noExplicitAny: tests read nested result fields without narrowing
export type Loose = any;

/** Result of a tool call through the SDK client, unpacked. */
export interface Called {
  isError: boolean;
  /** structuredContent (success) or the error payload. */
  data: Record<string, Loose>;
  /** The first text block. */
  text: string;
}

/** Tools served over the SDK in-memory transport, with a small call helper. */
export async function serve(tools: readonly AnyToolDefinition[]) {
  const connected = await connectTools(tools);
  let listed = false;
  return {
    client: connected.client,
    close: connected.close,
    /**
     * Calls a tool through the SDK client after listing tools, so the client checks every
     * successful result against the tool's output schema, as a real client does. An error
     * result's payload (`{ error, code, suggestions?, details? }`) comes from its text block.
     */
    async call(name: string, args: Record<string, unknown>): Promise<Called> {
      if (!listed) {
        await connected.client.listTools();
        listed = true;
      }
      const result = (await connected.client.callTool({ name, arguments: args })) as {
        isError?: boolean;
        structuredContent?: Record<string, Loose>;
        content?: Array<{ type: string; text?: string }>;
      };
      const text = result.content?.find((c) => c.type === 'text')?.text ?? '';
      const error = errorOf(result);
      return {
        isError: result.isError === true,
        data: error ? (error as Record<string, Loose>) : (result.structuredContent ?? {}),
        text,
      };
    },
  };
}

/** Lines `prefix1`..`prefixN`, joined with `\n`, with a final newline. */
export function numbered(n: number, prefix = 'line '): string {
  let out = '';
  for (let i = 1; i <= n; i++) out += `${prefix}${i}\n`;
  return out;
}
