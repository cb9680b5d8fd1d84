import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from '../package.js';
import { session, tempTree } from '../test-helpers/mcp.js';

/*
 * docs_search's ranking on small real documents: camel-case words met by their parts, and
 * markup a reader never sees.
 */

const SETUP = `# Setup

## Installing binaries with install

Run the install command to install binaries from the registry into your path.

## Installing on macOS

Download the installer for your system and run it; it sets up the tools.
`;

const MARKUP = `# Examples

## Fenced example

\`\`\`rust,ignore
let total = add(1, 2);
\`\`\`

<!-- deprecated: this example moves in the next edition -->

## Listing example

<Listing number="3-1" file-name="src/lib.rs" caption="A counter that wraps around">

\`\`\`rust
let wrapped = counter.wrapping_add(1);
\`\`\`

</Listing>
`;

let tree: ReturnType<typeof tempTree>;
let s: Awaited<ReturnType<typeof session>>;
beforeAll(async () => {
  tree = tempTree({ 'setup.md': SETUP, 'examples.md': MARKUP });
  s = await session(sectionTools({ roots: [{ id: 'docs', path: tree.dir }] }));
});
afterAll(async () => {
  await s.close();
  tree.cleanup();
});

const anchors = (r: { data: { results: Array<{ anchor: string }> } }) =>
  r.data.results.map((x) => x.anchor);

describe('docs_search ranking', () => {
  it('finds a camel-case word by its parts', async () => {
    const r = await s.call('docs_search', { query: 'How do I install on a Mac?' });
    expect(anchors(r)[0]).toBe('setup#installing-on-macos');
    const whole = await s.call('docs_search', { query: 'macOS' });
    expect(anchors(whole)[0]).toBe('setup#installing-on-macos');
  });

  it('does not count markup a reader never sees, and leaves it out of snippets', async () => {
    // "ignore" is only a fence's info string, "deprecated" only in an HTML comment, "main" and
    // "lib" only in a tag's attributes.
    for (const query of ['ignore', 'deprecated', 'file name lib']) {
      const r = await s.call('docs_search', { query });
      expect(anchors(r), query).not.toContain('examples#fenced-example');
      expect(anchors(r), query).not.toContain('examples#listing-example');
    }
    // A caption is shown: its words count, and the snippet shows them without the tag.
    const caption = await s.call('docs_search', { query: 'counter wraps around' });
    expect(anchors(caption)[0]).toBe('examples#listing-example');
    expect(caption.data.results[0].snippet).toContain('A counter that wraps around');
    expect(caption.data.results[0].snippet).not.toMatch(/Listing|number=|```/);
    // Code inside a fence is still searched.
    const code = await s.call('docs_search', { query: 'wrapping_add' });
    expect(anchors(code)[0]).toBe('examples#listing-example');
  });
});
