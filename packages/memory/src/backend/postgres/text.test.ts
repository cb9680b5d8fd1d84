import { describe, expect, it } from 'vitest';
import { analyseChunk } from '../../lib/analysis.js';
import { chunkVector, quoteLexeme } from './text.js';

describe('tsvector text', () => {
  it('quotes a lexeme, doubling quotes and escaping backslashes only where there are some', () => {
    expect(quoteLexeme('cafe')).toBe("'cafe'");
    expect(quoteLexeme("l'eau")).toBe("'l''eau'");
    expect(quoteLexeme('a\\b')).toBe("'a\\\\b'");
    expect(quoteLexeme("\\'")).toBe("'\\\\'''");
  });

  it('gives each term its positions, field by field, labelled A (title) and B (headings)', () => {
    const v = chunkVector(analyseChunk('n.md', 'Wing > Flutter wing', 'the wing', 'simple'));
    // Each field starts one position past the previous one's end (a phrase never spans two).
    expect(v).toBe("'wing':1A,4B,7 'flutter':3B 'the':6");
  });
});
