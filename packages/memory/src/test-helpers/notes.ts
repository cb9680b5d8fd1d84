import type { TempDir } from './fs.js';
import { seededRandom } from './random.js';

/**
 * Writes `count` notes of a Zipf-like vocabulary of 30 words (`va0q`, `vb1q`, …; the first
 * ones much more common), some with a second section: enough listed terms, common words and
 * ties for brute-force comparisons of rankings. The same `seed0` writes the same notes.
 */
export function writeNotes(dir: TempDir, count: number, seed0 = 11): void {
  const random = seededRandom(seed0);
  const vocab = Array.from({ length: 30 }, (_, i) => `v${String.fromCharCode(97 + (i % 26))}${i}q`);
  const word = () => vocab[Math.floor(vocab.length * random() ** 3)]!;
  const words = (n: number) => Array.from({ length: n }, word).join(' ');
  for (let i = 0; i < count; i++) {
    const sections = i % 3 === 0 ? `\n\n## ${words(2)}\n\n${words(4 + (i % 9))}\n` : '\n';
    dir.write(
      `n/${String(i).padStart(3, '0')}.md`,
      `# ${words(2)} ${i}\n\n${words(3 + (i % 17))}${sections}`,
    );
  }
}
