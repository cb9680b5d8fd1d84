const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_CAPTURE = 256;

/** The request id and method of a JSON-RPC message, when they could be read. */
export interface MessageHead {
  /** The top-level `id` (string, number or null), or undefined when absent or unreadable. */
  id?: string | number | null;
  /** The top-level `method`, or undefined when absent or unreadable. */
  method?: string;
}

/**
 * Reads the top-level `id` and `method` of a JSON object fed to it in pieces, without keeping
 * the message: used to answer a message too large to buffer with an error that carries the
 * request's id. Memory use is constant whatever the size of the message; strings nested deeper
 * than the top level are skipped byte by byte.
 */
export class MessageHeadScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The next string at depth 1 is a key. */
  private expectKey = false;
  /** Bytes of the string being captured (a depth-1 key, or the value of id/method). */
  private capture: number[] | undefined;
  private capturing: 'key' | 'value' | undefined;
  private lastKey: string | undefined;
  /** The key whose value is being read. */
  private valueOf: 'id' | 'method' | undefined;
  /** Bytes of a number or literal value of `id`. */
  private literal: number[] = [];
  private readonly head: MessageHead = {};

  /** Feeds the next piece of the message. */
  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) this.byte(bytes[i]!);
  }

  /** What was found so far. */
  result(): MessageHead {
    this.endLiteral();
    return { ...this.head };
  }

  private byte(b: number): void {
    if (this.inString) {
      if (this.escaped) {
        this.escaped = false;
      } else if (b === BACKSLASH) {
        this.escaped = true;
      } else if (b === QUOTE) {
        this.inString = false;
        this.endString();
        return;
      }
      if (this.capture && this.capture.length < MAX_CAPTURE) this.capture.push(b);
      else this.capture = undefined;
      return;
    }
    switch (b) {
      case QUOTE:
        this.inString = true;
        if (this.depth === 1 && this.expectKey) {
          this.capture = [];
          this.capturing = 'key';
        } else if (this.depth === 1 && this.valueOf && this.literal.length === 0) {
          this.capture = [];
          this.capturing = 'value';
        } else {
          this.capture = undefined;
          this.capturing = undefined;
          this.valueOf = undefined;
        }
        return;
      case 0x7b: // {
      case 0x5b: // [
        this.valueOf = undefined;
        this.depth++;
        this.expectKey = this.depth === 1 && b === 0x7b;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        this.endLiteral();
        this.depth--;
        return;
      case 0x2c: // ,
        this.endLiteral();
        if (this.depth === 1) this.expectKey = true;
        return;
      case 0x3a: // :
        if (this.depth === 1 && (this.lastKey === 'id' || this.lastKey === 'method')) {
          this.valueOf = this.lastKey;
          this.literal = [];
        }
        return;
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
        this.endLiteral();
        return;
      default:
        if (this.depth === 1 && this.valueOf === 'id' && this.literal.length < 64) {
          this.literal.push(b);
        }
    }
  }

  private endString(): void {
    const bytes = this.capture;
    const kind = this.capturing;
    this.capture = undefined;
    this.capturing = undefined;
    if (kind === 'key') {
      this.expectKey = false;
      this.lastKey = bytes ? decodeJsonString(bytes) : undefined;
      return;
    }
    if (kind === 'value' && this.valueOf) {
      const value = bytes ? decodeJsonString(bytes) : undefined;
      if (value !== undefined) {
        if (this.valueOf === 'id') this.head.id = value;
        else this.head.method = value;
      }
      this.valueOf = undefined;
    }
  }

  private endLiteral(): void {
    if (this.valueOf !== 'id' || this.literal.length === 0) return;
    const text = Buffer.from(this.literal).toString('latin1');
    this.literal = [];
    this.valueOf = undefined;
    try {
      const value = JSON.parse(text) as unknown;
      if (value === null || (typeof value === 'number' && Number.isFinite(value))) {
        this.head.id = value as number | null;
      }
    } catch {
      // not a valid literal: leave the id unknown
    }
  }
}

function decodeJsonString(bytes: number[]): string | undefined {
  try {
    const value = JSON.parse(`"${Buffer.from(bytes).toString('utf8')}"`) as unknown;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
