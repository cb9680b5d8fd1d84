import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import { formatBytes, MAX_MESSAGE_BYTES } from './limits.js';
import { type MessageHead, MessageHeadScanner } from './message-head.js';

/** JSON-RPC error codes used by the transport. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** Options of {@link LineTransport}. */
export interface LineTransportOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Largest message read, in bytes (default {@link MAX_MESSAGE_BYTES}). */
  maxMessageBytes?: number;
  log?: Logger;
}

/**
 * MCP over stdio: one JSON-RPC message per line, in both directions. Unlike the SDK's stdio
 * transport, which closes itself (and so ends the process, silently) when a line outgrows its
 * 10 MiB buffer, a line over `maxMessageBytes` is skipped without being kept in memory, answered
 * with a JSON-RPC error carrying the request's id (read as the line streams past), logged, and
 * the server goes on with the next line. A line that is not JSON, or not a JSON-RPC message, is
 * answered with a parse or invalid-request error instead of being dropped. Lines are collected
 * as a list of chunks and joined once, so a large message costs linear time.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly input: NodeJS.ReadableStream;
  private readonly output: NodeJS.WritableStream;
  private readonly max: number;
  private readonly log: Logger | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while skipping an oversized line. */
  private scanner: MessageHeadScanner | undefined;
  private started = false;
  private closed = false;

  constructor(options: LineTransportOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.max = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.log = options.log;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LineTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.scanner = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve();
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  private readonly onInputError = (error: Error) => {
    this.onerror?.(error);
  };

  private readonly onData = (data: Buffer | string) => {
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      if (end > start) this.append(chunk.subarray(start, end));
      if (nl === -1) break;
      this.endLine();
      start = nl + 1;
    }
  };

  private append(piece: Buffer): void {
    this.size += piece.length;
    if (this.scanner) {
      this.scanner.feed(piece);
      return;
    }
    if (this.size > this.max) {
      // Too large: keep reading to the end of the line, but only its id and method.
      this.scanner = new MessageHeadScanner();
      for (const c of this.chunks) this.scanner.feed(c);
      this.scanner.feed(piece);
      this.chunks = [];
      return;
    }
    this.chunks.push(piece);
  }

  private endLine(): void {
    const { chunks, size, scanner } = this;
    this.chunks = [];
    this.size = 0;
    this.scanner = undefined;
    if (scanner) {
      this.refuseOversized(scanner.result(), size);
      return;
    }
    if (size === 0) return;
    const text = Buffer.concat(chunks, size).toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const head = headOf(chunks);
      this.log?.warn(
        `stdio: a ${formatBytes(size)} line is not JSON (${(error as Error).message}); answered with a parse error`,
      );
      void this.sendError(head.id ?? null, PARSE_ERROR, 'Parse error: the line is not valid JSON.');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const obj = (typeof value === 'object' && value !== null ? value : {}) as Record<
        string,
        unknown
      >;
      const id = typeof obj.id === 'string' || typeof obj.id === 'number' ? obj.id : null;
      this.log?.warn(`stdio: a line is JSON but not a JSON-RPC message; ignored it`);
      if (typeof obj.method === 'string' && id !== null) {
        void this.sendError(
          id,
          INVALID_REQUEST,
          'Invalid Request: not a JSON-RPC 2.0 message (jsonrpc "2.0", method, id).',
        );
      }
      return;
    }
    try {
      this.onmessage?.(parsed.data);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  private refuseOversized(head: MessageHead, size: number): void {
    const what = head.method ? `a ${head.method} message` : 'a message';
    const idText = head.id === undefined ? '' : ` (id ${JSON.stringify(head.id)})`;
    const isNotification = head.method !== undefined && head.id === undefined;
    this.log?.warn(
      `stdio: refused ${what}${idText} of ${formatBytes(size)}: over the ${formatBytes(this.max)} message limit${isNotification ? '' : '; answered with an error'}`,
    );
    if (isNotification) return;
    void this.sendError(
      head.id ?? null,
      INVALID_REQUEST,
      `Request too large: ${size} bytes, over the ${this.max}-byte (${formatBytes(this.max)}) message limit. Send less per call (smaller text, fewer operations).`,
      { size, max_bytes: this.max },
    );
  }

  private sendError(
    id: string | number | null,
    code: number,
    message: string,
    data?: Record<string, unknown>,
  ): Promise<void> {
    return this.send({
      jsonrpc: '2.0',
      id,
      error: { code, message, ...(data ? { data } : {}) },
    } as unknown as JSONRPCMessage);
  }
}

function headOf(chunks: Buffer[]): MessageHead {
  const scanner = new MessageHeadScanner();
  for (const c of chunks) scanner.feed(c);
  return scanner.result();
}
