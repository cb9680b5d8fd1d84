import { describe, expect, it } from 'vitest';
import { buildDocumentAsync } from './async.js';
import { pathologicalDocument, realisticDocument } from './corpus.js';
import { buildDocument } from './document.js';

describe('buildDocumentAsync', () => {
  it('gives what buildDocument gives, in the worker thread or not', async () => {
    const texts = [
      realisticDocument(7, 20_000),
      `\uFEFF${realisticDocument(8, 5_000)}`,
      pathologicalDocument('mixed', 50_000),
      '',
    ];
    for (const text of texts) {
      const expected = buildDocument(text);
      expect(await buildDocumentAsync(text, { workerMinChars: 0 })).toEqual(expected);
      expect(await buildDocumentAsync(text, { workerMinChars: Infinity })).toEqual(expected);
    }
    expect(
      (await buildDocumentAsync('# A\n', { forceRemark: true, workerMinChars: 0 })).parser,
    ).toBe('remark');
  });

  it('leaves the event loop free while a heavy document is parsed', async () => {
    const heavy = pathologicalDocument('emphasis-heading', 1024 * 1024);
    const order: string[] = [];
    const parse = buildDocumentAsync(heavy, { workerMinChars: 0 }).then((doc) => {
      order.push('parse');
      return doc;
    });
    // on the calling thread the parse would finish (and its promise settle) before any timer
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        order.push('timer');
        resolve();
      }, 0),
    );
    const [doc] = await Promise.all([parse, timer]);
    expect(doc.sections).toHaveLength(1);
    expect(order).toEqual(['timer', 'parse']);
  }, 60_000);

  it('answers requests in order, many at once', async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `# Doc ${i}\n\n${'text '.repeat(i * 50)}\n`);
    const docs = await Promise.all(texts.map((t) => buildDocumentAsync(t, { workerMinChars: 0 })));
    expect(docs.map((d) => d.title)).toEqual(texts.map((_, i) => `Doc ${i}`));
  });
});
