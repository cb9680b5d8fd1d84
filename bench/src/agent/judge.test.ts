import { describe, expect, it } from 'vitest';
import { goldOf, grepWords, holdsAnswer, readPlan } from './judge.mjs';

describe('grepWords', () => {
  it('drops question words and cuts plural and verb endings', () => {
    expect(grepWords('How do I add elements to a vector?')).toEqual(['add', 'element', 'vector']);
    expect(grepWords('What is the difference between Fn, FnMut and FnOnce?')).toEqual([
      'difference',
      'fn',
      'fnmut',
      'fnonce',
    ]);
    expect(grepWords('How do I?')).toEqual([]);
  });
});

describe('goldOf and holdsAnswer', () => {
  const section = `### Shadowing\n\nYou can declare a new variable with the same name.\n\n${'More text. '.repeat(60)}`;
  const gold = goldOf(section);

  it('takes the heading line and the start of the body', () => {
    expect(gold.headingLine).toBe('### Shadowing');
    expect(gold.bodyStart.startsWith('You can declare')).toBe(true);
    expect(gold.bodyStart.length).toBeLessThanOrEqual(400);
  });

  it('needs both the heading and the body start in the text read', () => {
    expect(holdsAnswer(`intro\n${section}\n## Next`, gold)).toBe(true);
    expect(holdsAnswer('### Shadowing\n\nsomething else', gold)).toBe(false);
    expect(holdsAnswer(section.slice(20), gold)).toBe(false);
  });
});

describe('readPlan', () => {
  const m = (line: number, text: string) => ({ line, text });

  it('reads the head when the densest matches are early', () => {
    const plan = readPlan(
      [m(20, 'vector push'), m(25, 'push'), m(300, 'vector')],
      ['vector', 'push'],
      400,
    );
    expect(plan).toEqual({ head: 80 });
  });

  it('reads the tail when the densest matches are late', () => {
    const plan = readPlan(
      [m(20, 'vector'), m(350, 'vector push'), m(355, 'push')],
      ['vector', 'push'],
      400,
    );
    expect(plan).toEqual({ tail: 61 });
  });
});
