// The guard's promises, as an agent meets them: hostile paths sent to every tool that takes a
// path, through the SDK client, each refused with a coded error and never an outside byte.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConnectedTools, connectTools, errorOf } from '@lectern/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, defaultConfig, presetConfig } from './compose.js';
import { parseConfig } from './config.js';
import { createLogger, MAX_LOG_MESSAGE_CHARS } from './log.js';

let base: string;
let conn: ConnectedTools;
let closeAll: () => Promise<void>;

const SECRET = 'OUTSIDE_SECRET_BYTES';

/** The same hostile layout inside every root. */
function plant(root: string): void {
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(root, 'page.md'), '# Page\n\ninside words\n');
  writeFileSync(join(root, 'sub', 'note.md'), '# Note\n\ninside words\n');
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, '.git', 'config.md'), `# git\n\n${SECRET}\n`);
  mkdirSync(join(root, '.lectern'));
  writeFileSync(join(root, '.lectern', 'memory.md'), `# state\n\n${SECRET}\n`);
  writeFileSync(join(root, '.hidden.md'), `# hidden\n\n${SECRET}\n`);
  symlinkSync(join(base, 'outside', 'secret.md'), join(root, 'link.md'));
  symlinkSync(join(base, 'outside'), join(root, 'linkdir'));
  execFileSync('mkfifo', [join(root, 'fifo.md')]);
  linkSync(join(base, 'outside', 'hard-secret.md'), join(root, 'hard.md'));
}

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'lectern-security-')));
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.md'), `# Secret\n\n${SECRET}\n`);
  writeFileSync(join(base, 'outside', 'hard-secret.md'), `# Hard\n\n${SECRET}\n`);
  for (const family of ['docs', 'ws', 'wiki', 'notes']) plant(join(base, family));
  const composition = await compose(
    parseConfig(
      {
        docs: [{ id: 'docs', path: join(base, 'docs') }],
        workspaces: [{ id: 'ws', path: join(base, 'ws') }],
        wikis: [{ id: 'wiki', path: join(base, 'wiki') }],
        memory: {
          sources: [{ id: 'notes', path: join(base, 'notes') }],
          db: join(base, 'm.db'),
        },
      },
      base,
    ),
  );
  closeAll = composition.close;
  conn = await connectTools(composition.tools, composition.registerOptions);
  await conn.client.callTool({ name: 'memory_reindex', arguments: {} });
});

afterAll(async () => {
  await conn?.close();
  await closeAll?.();
  rmSync(base, { recursive: true, force: true });
});

/** Every tool argument that names a path, keyed by a short label; `p` is the hostile path. */
const PATH_CALLS: Array<[string, string, (p: string) => Record<string, unknown>]> = [
  ['read_text', 'read_text', (p) => ({ workspace: 'ws', path: p })],
  ['read_artifact', 'read_artifact', (p) => ({ workspace: 'ws', path: p })],
  ['search_text', 'search_text', (p) => ({ workspace: 'ws', query: 'words', path: p })],
  ['list_files', 'list_files', (p) => ({ workspace: 'ws', path: p })],
  ['docs_outline path', 'docs_outline', (p) => ({ path: p })],
  ['docs_outline doc_id', 'docs_outline', (p) => ({ doc_id: p.replace(/\.md$/, '') })],
  ['docs_chunk', 'docs_chunk', (p) => ({ path: p })],
  ['docs_get_section', 'docs_get_section', (p) => ({ path: p, heading: 'Page' })],
  ['docs_read', 'docs_read', (p) => ({ anchor: p.replace(/\.md$/, '') })],
  ['read_page', 'read_page', (p) => ({ wiki: 'wiki', path: p })],
  [
    'write_batch',
    'write_batch',
    (p) => ({ wiki: 'wiki', operations: [{ op: 'put', path: p, content: 'x' }] }),
  ],
  ['list_pages', 'list_pages', (p) => ({ wiki: 'wiki', folder: p })],
  ['memory_read_fragment', 'memory_read_fragment', (p) => ({ path: `notes/${p}` })],
];

async function refusal(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await conn.client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
  expect(text, `${name} ${JSON.stringify(args).slice(0, 200)}`).not.toContain(SECRET);
  const error = errorOf(result);
  expect(error, `${name} accepted ${JSON.stringify(args).slice(0, 200)}`).toBeDefined();
  let code = error!.code;
  // write_batch reports each operation's own code inside BATCH_REJECTED
  const failures = (error!.details as { failures?: Array<{ code: string }> } | undefined)?.failures;
  if (code === 'BATCH_REJECTED' && failures?.[0]) code = failures[0].code;
  expect(code).not.toBe('INTERNAL_ERROR');
  expect(code).toMatch(/^[A-Z][A-Z_]+$/);
  return code;
}

/** Hostile paths, and the codes any path tool may answer with (the first ones are preferred). */
const TABLE: Array<[string, string, string[]]> = [
  ['climbs out', '../outside/secret.md', ['PATH_ESCAPES_ROOT', 'DOC_NOT_FOUND']],
  ['deep climb', `${'a/'.repeat(100)}${'../'.repeat(101)}outside/secret.md`, ['PATH_ESCAPES_ROOT']],
  ['absolute outside', '/etc/passwd', ['PATH_ABSOLUTE_OUTSIDE_ROOT', 'ROOT_NOT_FOUND']],
  ['NUL', 'page.md\u0000.txt', ['PATH_NUL', 'INVALID_INPUT']],
  ['link to a file', 'link.md', ['PATH_SYMLINK', 'DOC_NOT_FOUND', 'NOT_INDEXED']],
  [
    'through a linked folder',
    'linkdir/secret.md',
    ['PATH_SYMLINK', 'DOC_NOT_FOUND', 'NOT_INDEXED'],
  ],
  ['FIFO', 'fifo.md', ['PATH_NOT_REGULAR', 'DOC_NOT_FOUND', 'NOT_INDEXED', 'PATH_NOT_DIRECTORY']],
  ['hard link', 'hard.md', ['PATH_HARD_LINK', 'NOT_INDEXED', 'PATH_NOT_DIRECTORY']],
  ['state folder', '.lectern/memory.md', ['PATH_RESERVED']],
  ['long name', `${'n'.repeat(300)}.md`, ['PATH_TOO_LONG']],
  ['long path', `${'d/'.repeat(2100)}x.md`, ['INVALID_INPUT', 'PATH_TOO_LONG']],
];

describe('hostile paths, every path tool', () => {
  it.each(TABLE)('%s (%s) is refused with a code by every tool', async (_label, path, codes) => {
    const got: Record<string, string> = {};
    for (const [label, name, args] of PATH_CALLS) {
      const code = await refusal(name, args(path));
      got[label] = code;
      const allowed = [
        ...codes,
        // a folder tool given a file, or a page tool given a non-page, may say that instead
        'PATH_NOT_DIRECTORY',
        'PATH_NOT_PAGE',
        'FOLDER_NOT_FOUND',
        'PATH_HIDDEN',
        // docs_read takes an anchor: an unknown one is not a path error
        'ANCHOR_NOT_FOUND',
      ];
      expect(allowed, `${label}: ${code}`).toContain(code);
    }
    // the guard's own code wins wherever the guard is reached first
    expect(got.read_text).toBe(codes[0]);
    expect(got.read_artifact).toBe(codes[0]);
  });

  it('a name over 255 bytes is PATH_TOO_LONG on every path tool, never INTERNAL_ERROR', async () => {
    for (const [label, name, args] of PATH_CALLS) {
      const code = await refusal(name, args(`sub/${'é'.repeat(140)}.md`));
      expect(['PATH_TOO_LONG', 'PATH_NOT_PAGE'], label).toContain(code);
    }
  });

  it('docs tools never read hidden files or .git, search_text never enters .git', async () => {
    for (const path of ['.git/config.md', '.hidden.md', 'sub/../.git/config.md']) {
      expect(await refusal('docs_outline', { path })).toBe('PATH_HIDDEN');
      expect(await refusal('docs_chunk', { path })).toBe('PATH_HIDDEN');
    }
    expect(await refusal('docs_outline', { doc_id: '.git/config' })).toBe('DOC_NOT_FOUND');
    expect(await refusal('search_text', { workspace: 'ws', query: 'OUTSIDE', path: '.git' })).toBe(
      'PATH_EXCLUDED',
    );
    expect(await refusal('list_files', { workspace: 'ws', path: '.git' })).toBe('PATH_EXCLUDED');
    const listed = await conn.client.callTool({
      name: 'list_files',
      arguments: { workspace: 'ws', include_directories: true },
    });
    const names = JSON.stringify(listed.structuredContent);
    expect(names).not.toContain('.git');
    expect(names).not.toContain('.lectern');
  });

  it('bounds every path-like parameter of every tool and preset in its schema', async () => {
    const configs = [
      defaultConfig(),
      ...(['atlas', 'md-chunk', 'harness', 'wiki', 'memoria'] as const).map((p) => presetConfig(p)),
    ];
    const PATHISH =
      /^(path|doc_id|anchor|new_path|folder|scope|archivo|ruta|source|fuente|workspace|wiki|heading|cursor)$/;
    const unbounded: string[] = [];
    for (const config of configs) {
      const composition = await compose(config);
      const c = await connectTools(composition.tools, composition.registerOptions);
      try {
        const { tools } = await c.client.listTools();
        const visit = (tool: string, schema: Record<string, unknown>, at: string) => {
          const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
          for (const [key, value] of Object.entries(props)) {
            const where = at ? `${at}.${key}` : key;
            const variants = (value.anyOf ?? [value]) as Array<Record<string, unknown>>;
            for (const v of variants) {
              if (v.type === 'string' && PATHISH.test(key)) {
                const max = v.maxLength as number | undefined;
                if (max === undefined || max > 4096) unbounded.push(`${tool}.${where}`);
              }
              if (v.type === 'array' && v.items) {
                const items = v.items as Record<string, unknown>;
                for (const it of (items.anyOf ?? items.oneOf ?? [items]) as Array<
                  Record<string, unknown>
                >) {
                  if (it.type === 'object') visit(tool, it, `${where}[]`);
                }
              }
              if (v.type === 'object') visit(tool, v, where);
            }
          }
        };
        for (const t of tools) visit(t.name, t.inputSchema as Record<string, unknown>, '');
      } finally {
        await c.close();
        await composition.close();
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('a 5 MB path is refused by the schema, and a log line never carries it whole', async () => {
    const huge = 'x/'.repeat(2_500_000);
    const code = await refusal('read_text', { workspace: 'ws', path: huge });
    expect(code).toBe('INVALID_INPUT');
    const lines: string[] = [];
    const log = createLogger('debug', (s) => lines.push(s));
    log.error(`unexpected error in read_text: ENAMETOOLONG: open '${huge}'`);
    expect(lines[0]!.length).toBeLessThan(MAX_LOG_MESSAGE_CHARS + 200);
    expect(lines[0]).toContain('more characters cut');
  });

  it('a write never goes through a link, a FIFO or a hard link, and outside files stay as they were', async () => {
    const before = readFileSync(join(base, 'outside', 'secret.md'), 'utf8');
    for (const path of ['link.md', 'linkdir/new.md', 'fifo.md', 'sub/../../outside/x.md']) {
      await refusal('write_batch', {
        wiki: 'wiki',
        operations: [{ op: 'put', path, content: 'overwritten' }],
      });
    }
    expect(readFileSync(join(base, 'outside', 'secret.md'), 'utf8')).toBe(before);
    expect(existsSync(join(base, 'outside', 'new.md'))).toBe(false);
    expect(existsSync(join(base, 'outside', 'x.md'))).toBe(false);
    expect(readFileSync(join(base, 'outside', 'hard-secret.md'), 'utf8')).toContain(SECRET);
  });
});

describe('per-root hard-link opt-in', () => {
  it('reads a hard-linked file only from a root configured with allowHardLinks', async () => {
    const composition = await compose(
      parseConfig(
        { workspaces: [{ id: 'ws', path: join(base, 'ws'), allowHardLinks: true }] },
        base,
      ),
    );
    const c = await connectTools(composition.tools, composition.registerOptions);
    try {
      const res = await c.client.callTool({
        name: 'read_text',
        arguments: { workspace: 'ws', path: 'hard.md' },
      });
      expect(res.isError).toBeFalsy();
      expect(JSON.stringify(res.structuredContent)).toContain(SECRET);
    } finally {
      await c.close();
      await composition.close();
    }
  });
});
