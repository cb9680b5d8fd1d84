import { describe, expect, it } from 'vitest';
import { addRouting, type ToolFamily } from './routing.js';

const SEARCH: ToolFamily = {
  lead: 'Other search tools served here:',
  members: { a_search: 'for files', b_search: 'for docs', c_search: 'for notes' },
};
const READ: ToolFamily = {
  lead: 'To read elsewhere:',
  members: { a_read: 'for file lines', b_read: 'for doc sections' },
};

const tool = (name: string, description = `Does ${name}.`) => ({ name, description, extra: 1 });

describe('addRouting', () => {
  it('names every other served member of the family, in served order', () => {
    const out = addRouting(
      [tool('c_search'), tool('a_search'), tool('other'), tool('b_search')],
      [SEARCH],
    );
    expect(out.map((t) => t.description)).toEqual([
      'Does c_search. Other search tools served here: a_search for files or b_search for docs.',
      'Does a_search. Other search tools served here: c_search for notes or b_search for docs.',
      'Does other.',
      'Does b_search. Other search tools served here: c_search for notes or a_search for files.',
    ]);
    expect(out[0]?.extra).toBe(1);
  });

  it('adds nothing when a family has one member served, and keeps the same objects', () => {
    const input = [tool('a_search'), tool('a_read'), tool('other')];
    const out = addRouting(input, [SEARCH, READ]);
    expect(out).toEqual(input);
    for (const [i, t] of out.entries()) expect(t).toBe(input[i]);
  });

  it('does not modify its input', () => {
    const input = [tool('a_search'), tool('b_search')];
    const before = structuredClone(input);
    addRouting(input, [SEARCH]);
    expect(input).toEqual(before);
  });

  it('uses the names clients see and keeps a multi-line description multi-line', () => {
    const out = addRouting([tool('a_read', 'Line one.\nLine two.'), tool('b_read')], [READ], {
      displayName: (n) => `x_${n.toUpperCase()}`,
    });
    expect(out[0]?.description).toBe(
      'Line one.\nLine two.\nTo read elsewhere: x_B_READ for doc sections.',
    );
    expect(out[1]?.description).toBe('Does b_read. To read elsewhere: x_A_READ for file lines.');
  });

  it('gives a tool in two families one sentence for each', () => {
    const both: ToolFamily = { lead: 'Also:', members: { a_search: 'for files', z: 'for z' } };
    const out = addRouting([tool('a_search'), tool('b_search'), tool('z')], [SEARCH, both]);
    expect(out[0]?.description).toBe(
      'Does a_search. Other search tools served here: b_search for docs. Also: z for z.',
    );
  });
});
