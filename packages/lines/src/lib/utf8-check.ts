import { isUtf8 } from 'node:buffer';

/**
 * Checks a byte stream, chunk by chunk, for being NUL-free valid UTF-8 without decoding it.
 * A multi-byte sequence split across chunks is carried over to the next chunk.
 */
export class Utf8Check {
  #carry: Buffer = Buffer.alloc(0);
  #valid = true;

  /** Feeds the next chunk. */
  push(chunk: Buffer): void {
    if (!this.#valid) return;
    const data = this.#carry.length > 0 ? Buffer.concat([this.#carry, chunk]) : chunk;
    if (data.indexOf(0) !== -1) {
      this.#valid = false;
      return;
    }
    // Keep back an unfinished sequence at the end (at most 3 bytes).
    let cut = data.length;
    for (let back = 1; back <= 3 && back <= data.length; back++) {
      const b = data[data.length - back]!;
      if ((b & 0xc0) === 0x80) continue;
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      if (need > back) cut = data.length - back;
      break;
    }
    if (!isUtf8(data.subarray(0, cut))) {
      this.#valid = false;
      return;
    }
    this.#carry = Buffer.from(data.subarray(cut));
  }

  /** True when everything fed so far (and nothing left unfinished) is NUL-free valid UTF-8. */
  end(): boolean {
    return this.#valid && this.#carry.length === 0;
  }
}
