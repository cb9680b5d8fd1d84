/** A file signature: bytes expected at an offset. */
interface Signature {
  type: string;
  at: number;
  bytes: number[] | string;
  /** A second signature that must also match (e.g. RIFF containers). */
  and?: { at: number; bytes: number[] | string };
}

const SIGNATURES: readonly Signature[] = [
  { type: 'image/png', at: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', at: 0, bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', at: 0, bytes: 'GIF87a' },
  { type: 'image/gif', at: 0, bytes: 'GIF89a' },
  { type: 'image/webp', at: 0, bytes: 'RIFF', and: { at: 8, bytes: 'WEBP' } },
  { type: 'audio/wav', at: 0, bytes: 'RIFF', and: { at: 8, bytes: 'WAVE' } },
  { type: 'image/bmp', at: 0, bytes: 'BM' },
  { type: 'image/tiff', at: 0, bytes: [0x49, 0x49, 0x2a, 0x00] },
  { type: 'image/tiff', at: 0, bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { type: 'image/x-icon', at: 0, bytes: [0x00, 0x00, 0x01, 0x00] },
  { type: 'application/pdf', at: 0, bytes: '%PDF-' },
  { type: 'application/zip', at: 0, bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'application/zip', at: 0, bytes: [0x50, 0x4b, 0x05, 0x06] },
  { type: 'application/gzip', at: 0, bytes: [0x1f, 0x8b] },
  { type: 'application/x-bzip2', at: 0, bytes: 'BZh' },
  { type: 'application/x-xz', at: 0, bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { type: 'application/zstd', at: 0, bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { type: 'application/x-7z-compressed', at: 0, bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { type: 'application/x-tar', at: 257, bytes: 'ustar' },
  { type: 'application/wasm', at: 0, bytes: [0x00, 0x61, 0x73, 0x6d] },
  { type: 'application/x-elf', at: 0, bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { type: 'application/vnd.sqlite3', at: 0, bytes: 'SQLite format 3\0' },
  { type: 'application/java-vm', at: 0, bytes: [0xca, 0xfe, 0xba, 0xbe] },
  { type: 'font/woff', at: 0, bytes: 'wOFF' },
  { type: 'font/woff2', at: 0, bytes: 'wOF2' },
  { type: 'audio/mpeg', at: 0, bytes: 'ID3' },
  { type: 'audio/ogg', at: 0, bytes: 'OggS' },
  { type: 'audio/flac', at: 0, bytes: 'fLaC' },
  { type: 'video/mp4', at: 4, bytes: 'ftyp' },
];

/** Bytes from the start of a file that {@link sniffMediaType} looks at. */
export const SNIFF_BYTES = 264;

function matches(head: Uint8Array, at: number, bytes: number[] | string): boolean {
  const want = typeof bytes === 'string' ? Array.from(bytes, (c) => c.charCodeAt(0)) : bytes;
  if (head.length < at + want.length) return false;
  for (let i = 0; i < want.length; i++) if (head[at + i] !== want[i]) return false;
  return true;
}

/**
 * Media type from the magic number at the start of a file (PNG, JPEG, GIF, WebP, PDF, ZIP,
 * gzip, WebAssembly, ELF, SQLite and more), or undefined when none matches.
 */
export function sniffMediaType(head: Uint8Array): string | undefined {
  for (const sig of SIGNATURES) {
    if (!matches(head, sig.at, sig.bytes)) continue;
    if (sig.and && !matches(head, sig.and.at, sig.and.bytes)) continue;
    return sig.type;
  }
  return undefined;
}
