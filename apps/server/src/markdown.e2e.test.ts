import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectStdio, type Loose, startHttpServer } from './test-helpers/spawn.js';

/*
 * One page, one outline: the same folder is served as docs, as a wiki and as memory notes, and
 * docs_outline, the wiki's headings (as write_batch checks [[page#heading]] links against them)
 * and memory citations' heading_path must agree on every document, tricky ones included.
 * Each section's body holds a token (`tokN`) that memory_search finds.
 */
const DOCS: Record<string, string> = {
  'setext.md': 'Alpha Title\n===========\n\ntok1 intro\n\nBeta part\n---------\n\ntok2 text\n',
  'fences.md': [
    '# Gamma',
    '',
    'tok3',
    '',
    '```sh',
    '# not a heading',
    '```',
    '',
    '~~~',
    '## also not',
    '~~~',
    '',
    '    # indented code',
    '',
    '## Delta',
    '',
    'tok4',
    '',
  ].join('\n'),
  'frontmatter.md': '---\ntitle: Front\nnote: |\n  # yaml text\n---\n# Epsilon\n\ntok5 body\n',
  'containers.md': [
    '# Zeta',
    '',
    'tok6',
    '',
    '- # listed heading',
    '- item',
    '',
    '> # quoted heading',
    '> more',
    '',
    '1. Setext in list',
    '   ---',
    '',
    '## Eta',
    '',
    'tok7',
    '',
  ].join('\n'),
  'html.md': [
    '<div>',
    '# in html',
    '</div>',
    '',
    '# Theta',
    '',
    'tok8',
    '',
    '<!--',
    '# in comment',
    '-->',
    '',
    '## Iota',
    '',
    'tok9',
    '',
  ].join('\n'),
  'inline.md': '# Kappa *with* emphasis\n\ntok10\n\nSetext `code` title\n==\n\ntok11\n',
};
/** Texts that look like headings but are not top-level ones (the old regex readers erred). */
const DECOYS: Record<string, string[]> = {
  'fences.md': ['not a heading', 'also not', 'indented code'],
  'frontmatter.md': ['yaml text'],
  'containers.md': ['listed heading', 'quoted heading', 'Setext in list'],
  'html.md': ['in html', 'in comment'],
};

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

describe('one Markdown structure for docs_outline, wiki headings and memory heading_path', () => {
  let dir: string;
  let client: Client;
  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'lectern-md-e2e-')));
    const root = join(dir, 'pages');
    mkdirSync(root);
    for (const [name, text] of Object.entries(DOCS)) writeFileSync(join(root, name), text);
    ({ client } = await connectStdio(
      ['--docs', `same=${root}`, '--wiki', `same=${root}`, '--notes', `same=${root}`],
      dir,
    ));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives every document the same headings everywhere', async () => {
    const indexed = await call(client, 'memory_reindex', {});
    expect(indexed.isError, JSON.stringify(indexed.data)).toBe(false);
    const outline = await call(client, 'docs_outline', {});
    expect(outline.isError).toBe(false);
    const byPath = new Map<string, Loose>(
      outline.data.documents.map((d: Loose) => [d.path, d.sections]),
    );
    for (const name of Object.keys(DOCS)) {
      const sections: Loose[] = byPath.get(name);
      expect(sections, name).toBeDefined();
      const headings = sections.map((s) => s.heading as string);
      // every expected heading, and no decoy, is in the outline
      for (const decoy of DECOYS[name] ?? []) expect(headings.map(norm)).not.toContain(decoy);

      // wiki: a link to each outline heading resolves, a link to each decoy is missing
      const page = name.replace(/\.md$/, '');
      const links = [...headings.map(norm), ...(DECOYS[name] ?? [])]
        .map((h) => `[[${page}#${h}]]`)
        .join('\n');
      const probe = await call(client, 'write_batch', {
        wiki: 'same',
        dry_run: true,
        operations: [{ op: 'put', path: `probe-${page}.md`, content: `${links}\n` }],
      });
      expect(probe.isError, JSON.stringify(probe.data)).toBe(false);
      const missing = (probe.data.broken_links as Loose[])
        .filter((b) => b.reason === 'missing_heading')
        .map((b) => (b.link as string).slice(page.length + 3, -2));
      expect(missing.sort(), name).toEqual([...(DECOYS[name] ?? [])].sort());

      // memory: the chunk holding each section's token cites that section's heading path
      for (const s of sections) {
        const body = DOCS[name]!.split('\n').slice(s.start_line - 1, s.end_line);
        const token = body.join('\n').match(/tok\d+/g)?.[0];
        if (!token) continue;
        const found = await call(client, 'memory_search', { query: token });
        expect(found.isError).toBe(false);
        const hit = (found.data.results as Loose[]).find((r) => r.path === `same/${name}`);
        expect(hit, `${name} ${token} ${JSON.stringify(found.data)}`).toBeDefined();
        const path: string[] = [];
        for (const t of sections) {
          if (t.start_line <= s.start_line && t.end_line >= s.end_line) path.push(norm(t.heading));
        }
        expect(hit.heading_path, `${name} ${token}`).toBe(path.join(' > '));
      }
    }
  }, 120_000);
});

/**
 * A document that takes the scanner seconds (linear, but the slowest kind per byte: a heading
 * of emphasis delimiter runs) and remark far longer.
 */
const HEAVY = `# ${'*a_'.repeat(1_000_000)}\n\n${'- '.repeat(4000)}x\n`;

describe('a heavy Markdown parse does not hold up other clients', () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'lectern-md-heavy-')));
    const root = join(dir, 'docs');
    mkdirSync(root);
    writeFileSync(join(root, 'small.md'), '# Small\n\ntext\n');
    writeFileSync(join(root, 'heavy.md'), HEAVY);
    server = await startHttpServer(['--docs', `docs=${root}`], { cwd: dir });
  }, 120_000);
  afterAll(() => {
    server?.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  const connect = async () => {
    const client = new Client({ name: 'heavy-e2e', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    return client;
  };

  it('answers a second client while a pathological document is parsed for the first', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const order: string[] = [];
    // seconds of parsing, in the worker thread
    const heavy = call(a, 'docs_outline', { doc_id: 'heavy' }).then((r) => {
      order.push('heavy');
      return r;
    });
    // give the server time to read the file and start parsing it
    await new Promise((r) => setTimeout(r, 500));
    const light = await call(b, 'docs_outline', { doc_id: 'small' });
    order.push('light');
    expect(light.isError).toBe(false);
    expect(light.data.documents[0].sections[0].heading).toBe('Small');
    const done = await heavy;
    // its one heading is about 5 MB of JSON, over the 64 KiB default answer budget: the parse
    // completes and the heading comes back cut (issue 29), within the budget, with a marker
    // naming the docs_read call that reads it whole
    expect(done.isError, JSON.stringify(done.data).slice(0, 300)).toBe(false);
    expect(Buffer.byteLength(JSON.stringify(done.data))).toBeLessThanOrEqual(64 * 1024);
    const [cut] = done.data.documents[0].sections;
    expect(cut.start_line).toBe(1);
    expect(cut.heading).toMatch(
      / … \[cut: \d+ of \d+ characters; docs_read "heavy" from offset 0 reads it whole\]$/,
    );
    // a parse on the event loop (it takes seconds) would have answered the light call last
    expect(order).toEqual(['light', 'heavy']);
    await a.close();
    await b.close();
  }, 180_000);
});
