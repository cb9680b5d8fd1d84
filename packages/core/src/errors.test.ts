import { describe, expect, it } from 'vitest';
import { editDistance, isToolError, suggest, ToolError } from './errors.js';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('install', 'instal')).toBe(1);
    expect(editDistance('flaw', 'lawn')).toBe(2);
  });

  it('is symmetric', () => {
    expect(editDistance('guide#install', 'guide#instal-1')).toBe(
      editDistance('guide#instal-1', 'guide#install'),
    );
  });
});

describe('suggest', () => {
  const anchors = ['guide#install', 'guide#install-1', 'guide#configure', 'api#errors', 'faq'];

  it('ranks the closest candidates first', () => {
    expect(suggest('guide#instal', anchors)[0]).toBe('guide#install');
    expect(suggest('api#eror', anchors)[0]).toBe('api#errors');
  });

  it('ranks by distance first, containment only breaks ties', () => {
    expect(suggest('configure', anchors)[0]).toBe('guide#configure');
    // a short prefix contained in the input must not beat the near-miss
    expect(suggest('wiki/harvets', ['wiki', 'wiki/harvest'])[0]).toBe('wiki/harvest');
    expect(suggest('ab', ['xab', 'abx', 'ba'])).toEqual(['abx', 'xab', 'ba']);
  });

  it('drops candidates beyond maxDistance', () => {
    expect(suggest('guide#instal', anchors, { maxDistance: 3 })).toEqual([
      'guide#install',
      'guide#install-1',
    ]);
    expect(suggest('zzzzzz', anchors, { maxDistance: 2 })).toEqual([]);
    expect(suggest('guide#instal', anchors, { maxDistance: 2 })).toEqual(['guide#install']);
  });

  it('is case-insensitive, de-duplicates and honours max', () => {
    expect(suggest('FAQ', ['faq', 'faq', 'x'])).toEqual(['faq', 'x']);
    expect(suggest('a', anchors, { max: 2 })).toHaveLength(2);
    expect(suggest('a', anchors, { max: 0 })).toEqual([]);
    expect(suggest('anything', [])).toEqual([]);
  });
});

describe('ToolError', () => {
  it('serialises to the error payload shape', () => {
    const e = new ToolError('UNKNOWN_ANCHOR', 'no such anchor', {
      suggestions: ['a', 'b'],
      details: { doc: 'guide' },
    });
    expect(e.toJSON()).toEqual({
      error: 'no such anchor',
      code: 'UNKNOWN_ANCHOR',
      suggestions: ['a', 'b'],
      details: { doc: 'guide' },
    });
    expect(isToolError(e)).toBe(true);
    expect(e).toBeInstanceOf(Error);
  });

  it('omits empty suggestions and absent details', () => {
    expect(new ToolError('X', 'm', { suggestions: [] }).toJSON()).toEqual({
      error: 'm',
      code: 'X',
    });
  });

  it('recognises a ToolError from another copy of the module by shape', () => {
    const foreign = Object.assign(new Error('m'), { name: 'ToolError', code: 'X' });
    expect(isToolError(foreign)).toBe(true);
    expect(isToolError(new Error('m'))).toBe(false);
    expect(isToolError('ToolError')).toBe(false);
  });
});
