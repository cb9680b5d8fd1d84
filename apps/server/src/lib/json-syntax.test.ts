import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from './json-syntax.js';

describe('findJsonSyntaxError', () => {
  it('returns null for valid JSON, the same verdict as JSON.parse', () => {
    for (const text of [
      '{}',
      '[]',
      ' {"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"]}\n',
      '"s"',
      '0',
      '\ufeff{"bom":1}',
    ]) {
      expect(findJsonSyntaxError(text), text).toBeNull();
    }
  });

  it.each([
    ['{\n  "docs": [\n    {"id": "d"},\n  ]\n}', 4, 3, 'no comma before "]"'],
    ['{\n  "a": 1,\n}', 3, 1, 'no comma before "}"'],
    ['{\n  "a" 1\n}', 2, 7, '":"'],
    ['{\n  "a": "unterminated\n}', 2, 21, 'past the end of its line'],
    ['{\n  "a": tru\n}', 2, 8, 'a value'],
    ['{ "docs": ', 1, 11, 'the end of the file'],
    ['{} x', 1, 4, 'end of the file after'],
    ["{ 'a': 1 }", 1, 3, 'property name in double quotes'],
    ['{"a": 01}', 1, 8, '"," or "}"'],
  ])('locates the error in %j at line %i, column %i', (text, line, column, words) => {
    const found = findJsonSyntaxError(text);
    expect(found).toMatchObject({ line, column });
    expect(found?.message).toContain(words);
    expect(() => JSON.parse(text)).toThrow();
  });
});
