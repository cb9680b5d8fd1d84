import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectStdio, type Loose, run, scratch } from './test-helpers/spawn.js';

/**
 * The seed contracts: tool names per preset, and for the tool each seed page shows, its exact
 * input property names (and output fields where the seed lists them).
 */
const CONTRACTS = {
  atlas: {
    tools: ['atlas_outline', 'atlas_read', 'atlas_search', 'atlas_where'],
    shown: 'atlas_read',
    input: ['anchor', 'max_chars', 'offset'],
    required: ['anchor'],
    // seed 000's output schema is one required string holding the answer's JSON
    output: ['result'],
  },
  'md-chunk': {
    tools: ['chunk_markdown', 'get_section', 'outline_markdown'],
    shown: 'get_section',
    // the seed's parameters, plus offset to read a section past 200,000 characters
    input: ['anchor', 'heading', 'include_subsections', 'offset', 'path', 'text'],
    required: [],
    output: [
      'anchor',
      'chars',
      'end_line',
      'heading_path',
      'level',
      'matches',
      'start_line',
      'text',
      'title',
    ],
  },
  harness: {
    tools: ['list_project_files', 'read_artifact', 'read_project_text', 'search_project_text'],
    shown: 'read_project_text',
    input: ['expectedSha256', 'lineCount', 'path', 'startLine', 'tail', 'workspace'],
    required: ['path', 'workspace'],
    output: [
      'bom',
      'encoding',
      'endLine',
      'hasEarlier',
      'hasMore',
      'lines',
      'nextStartLine',
      'outputLimited',
      'reference',
      'sourceTrust',
      'startLine',
      'totalLines',
    ],
  },
  wiki: {
    tools: ['list_pages', 'list_wikis', 'read_page', 'search_wiki', 'write_batch'],
    shown: 'read_page',
    input: ['limit', 'offset', 'path', 'raw', 'wiki'],
    required: ['path', 'wiki'],
    output: ['content', 'end_line', 'start_line', 'total_lines', 'truncated', 'version'],
  },
  memoria: {
    tools: ['buscar_memoria', 'leer_fragmento', 'listar_fuentes', 'reindexar'],
    shown: 'leer_fragmento',
    input: ['archivo', 'desde', 'hasta'],
    required: ['archivo'],
    output: [],
  },
} as const;

type Preset = keyof typeof CONTRACTS;

const s = scratch();
afterAll(() => s.cleanup());

const ROOTS: Record<Preset, string[]> = {
  atlas: ['--docs', `${s.examples}/docs`],
  'md-chunk': ['--docs', `${s.examples}/docs`],
  harness: ['--workspace', `examples=${s.examples}`],
  wiki: ['--wiki', `garden=${s.examples}/wiki`],
  memoria: ['--notes', `notas=${s.examples}/notes`, '--db', `${s.dir}/memoria.db`],
};

/** Calls a tool with its first declared property set to a value of the wrong type. */
async function badInput(client: Client, tool: { name: string; inputSchema: Loose }) {
  const props = Object.entries(tool.inputSchema.properties ?? {}) as Array<[string, Loose]>;
  if (props.length === 0) return;
  const [name, schema] = props[0]!;
  const wrong = schema.type === 'string' ? 12345 : 'not-a-valid-value';
  const r = await call(client, tool.name, { [name]: wrong });
  expect(r.isError, `${tool.name} accepted ${name}=${JSON.stringify(wrong)}`).toBe(true);
  expect(r.text).toContain(name);
}

for (const preset of Object.keys(CONTRACTS) as Preset[]) {
  describe(`preset ${preset} over stdio`, () => {
    const contract = CONTRACTS[preset];
    let client: Client;
    let tools: Array<{
      name: string;
      inputSchema: Loose;
      outputSchema?: Loose;
      annotations?: Loose;
    }>;

    beforeAll(async () => {
      ({ client } = await connectStdio(['--preset', preset, ...ROOTS[preset]], s.dir));
      tools = (await client.listTools()).tools as typeof tools;
    }, 120_000);
    afterAll(async () => {
      await client?.close();
    });

    it('serves exactly the seed tool names', () => {
      expect(tools.map((t) => t.name).sort()).toEqual([...contract.tools]);
    });

    it(`gives ${contract.shown} the seed's input (and output) fields`, () => {
      const shown = tools.find((t) => t.name === contract.shown)!;
      expect(Object.keys(shown.inputSchema.properties).sort()).toEqual([...contract.input]);
      expect([...(shown.inputSchema.required ?? [])].sort()).toEqual([...contract.required]);
      const out = Object.keys(shown.outputSchema?.properties ?? {});
      for (const field of contract.output) expect(out).toContain(field);
      if (preset === 'harness' || preset === 'atlas')
        expect(out.sort()).toEqual([...contract.output]);
    });

    it('declares all four annotations and a description on every tool', () => {
      for (const t of tools) {
        for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
          expect(typeof t.annotations?.[hint], `${t.name}.${hint}`).toBe('boolean');
        }
        for (const [name, prop] of Object.entries(t.inputSchema.properties ?? {}) as Array<
          [string, Loose]
        >) {
          expect(prop.description, `${t.name}.${name}`).toBeTruthy();
        }
      }
    });

    it('refuses bad input on every tool with an error naming the parameter', async () => {
      for (const t of tools) await badInput(client, t);
    });

    it('answers every tool successfully', async () => {
      const ok = async (name: string, args: Record<string, unknown> = {}) => {
        const r = await call(client, name, args);
        expect(r.isError, `${name}: ${r.text}`).toBe(false);
        return r.data as Loose;
      };
      if (preset === 'atlas') {
        const outline = await ok('atlas_outline', {});
        expect(outline.documents.length).toBeGreaterThan(0);
        const found = await ok('atlas_search', { query: 'install' });
        const anchor = found.results[0].anchor as string;
        const answer = await ok('atlas_read', { anchor, max_chars: 100 });
        // a client of the seed server reads structuredContent.result and parses it
        const section = JSON.parse(answer.result);
        expect(section.anchor).toBe(anchor);
        expect(section.content.length).toBeLessThanOrEqual(100);
        const where = await ok('atlas_where', { query: 'retry a failed job' });
        expect(where.results.length).toBeGreaterThan(0);
        const miss = await call(client, 'atlas_read', { anchor: 'guide#instal' });
        expect(miss.isError).toBe(true);
        expect(miss.data.suggestions).toContain('guide#install');
        const limit = await call(client, 'atlas_read', { anchor, max_chars: 99 });
        expect(limit.isError).toBe(true);
      } else if (preset === 'md-chunk') {
        const section = await ok('get_section', {
          path: 'guide.md',
          text: '',
          anchor: '',
          heading: 'install',
        });
        expect(section.title).toBe('Install');
        expect(section.matches).toBeGreaterThanOrEqual(1);
        const outline = await ok('outline_markdown', { text: '# A\n\n## B\n\ntext\n' });
        expect(outline.headings.length).toBe(2);
        const chunks = await ok('chunk_markdown', { path: 'guide.md', max_chars: 500 });
        expect(chunks.chunks.length).toBeGreaterThan(1);
        const both = await call(client, 'get_section', {
          path: 'guide.md',
          text: '# x',
          heading: 'x',
        });
        expect(both.isError).toBe(true);
      } else if (preset === 'harness') {
        const read = await ok('read_project_text', {
          workspace: 'examples',
          path: 'docs/guide.md',
          lineCount: 3,
        });
        expect(read.lines).toHaveLength(3);
        expect(read.startLine).toBe(1);
        expect(read.hasMore).toBe(true);
        const tail = await ok('read_project_text', {
          workspace: 'examples',
          path: 'docs/guide.md',
          tail: true,
          lineCount: 2,
        });
        expect(tail.endLine).toBe(tail.totalLines);
        const changed = await call(client, 'read_project_text', {
          workspace: 'examples',
          path: 'docs/guide.md',
          expectedSha256: '0'.repeat(64),
        });
        expect(changed.isError).toBe(true);
        const files = await ok('list_project_files', { workspace: 'examples', path: 'docs' });
        expect(files.entries.length).toBeGreaterThan(0);
        const found = await ok('search_project_text', { workspace: 'examples', query: 'Harbor' });
        expect(found.matches.length).toBeGreaterThan(0);
        const bytes = await ok('read_artifact', {
          workspace: 'examples',
          path: 'docs/guide.md',
          length: 16,
        });
        expect(Buffer.from(bytes.dataBase64, 'base64')).toHaveLength(16);
        const outside = await call(client, 'read_project_text', {
          workspace: 'examples',
          path: '../../etc/passwd',
        });
        expect(outside.isError).toBe(true);
      } else if (preset === 'wiki') {
        const wikis = await ok('list_wikis');
        expect(wikis.wikis[0].id).toBe('garden');
        const pages = await ok('list_pages', { wiki: 'garden' });
        expect(pages.pages.length).toBeGreaterThan(3);
        const hits = await ok('search_wiki', { wiki: 'garden', query: 'queen' });
        expect(hits.results.length).toBeGreaterThan(0);
        const path = hits.results[0].path as string;
        const rendered = await ok('read_page', { wiki: 'garden', path });
        expect(rendered.content).not.toContain('[[');
        const raw = await ok('read_page', { wiki: 'garden', path, raw: true });
        const written = await ok('write_batch', {
          wiki: 'garden',
          operations: [
            {
              op: 'append',
              path,
              content: 'Added by the end-to-end test.\n',
              expected_version: raw.version,
            },
          ],
          log: 'e2e append',
        });
        expect(written.applied).toBe(true);
        const stale = await call(client, 'write_batch', {
          wiki: 'garden',
          operations: [{ op: 'append', path, content: 'lost?\n', expected_version: raw.version }],
        });
        expect(stale.isError).toBe(true);
        const after = await ok('read_page', { wiki: 'garden', path, raw: true });
        expect(after.content).toContain('Added by the end-to-end test.');
        expect(after.content).not.toContain('lost?');
      } else {
        const found = await ok('buscar_memoria', { consulta: 'backup' });
        expect(found.results.length).toBeGreaterThan(0);
        const cite = found.results[0];
        const frag = await ok('leer_fragmento', {
          archivo: cite.path,
          desde: cite.start_line,
          hasta: cite.end_line,
        });
        expect(frag.start_line).toBe(cite.start_line);
        const sources = await ok('listar_fuentes');
        expect(sources.sources[0].id).toBe('notas');
        const re = await ok('reindexar', {});
        expect(re.unchanged).toBeGreaterThan(0);
        const tooMany = await call(client, 'leer_fragmento', {
          archivo: cite.path,
          desde: 1,
          hasta: 500,
        });
        expect(tooMany.isError).toBe(true);
        const unknown = await call(client, 'leer_fragmento', { archivo: 'notas/no-such-note.md' });
        expect(unknown.isError).toBe(true);
      }
    }, 120_000);
  });
}

describe('lectern tools --preset', () => {
  it('prints exactly the harness seed tools', async () => {
    const r = await run(['tools', '--preset', 'harness'], { cwd: s.dir });
    expect(r.code).toBe(0);
    const names = r.stdout
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/)[0])
      .filter((n) => n && !/^\d+$/.test(n));
    expect(names).toEqual([
      'read_project_text',
      'list_project_files',
      'search_project_text',
      'read_artifact',
    ]);
    expect(r.stdout).toContain('4 tools');
  });
});
