import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  diffSnapshots,
  formatSnapshot,
  renderChangelog,
  renderChangelogMarkdown,
  renderChangeset,
  type Snapshot,
  showValue,
  snapshotTools,
} from './diff.js';
import type { ToolInput } from './types.js';

const fixture = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../../test-fixtures/seed-000/${name}`, import.meta.url), 'utf8'),
  );

describe('schema changelog on the seed 000 example', () => {
  const oldSnap = snapshotTools(fixture('v0.1.0.json').tools, fixture('v0.1.0.json').server);
  const newSnap = snapshotTools(fixture('v0.1.1.json').tools, fixture('v0.1.1.json').server);
  const expected = fixture('expected-changelog.json') as {
    heading: { count: number; version: string; date: string };
    firstObserved: { version: string; date: string };
    entries: { kind: string; path: string; value: string }[];
  };
  const diff = diffSnapshots(oldSnap, newSnap);

  it('reproduces the registry entries: kind, path, order and shown value', () => {
    expect(diff.changed).toEqual(['atlas_read']);
    expect(diff.added).toEqual([]);
    expect(diff.unchanged).toBe(3);
    const entries = diff.tools[0]!.entries;
    expect(entries).toHaveLength(expected.heading.count);
    expect(
      entries.map((e) => ({ kind: e.kind, path: e.pathText, value: `+${showValue(e.after)}` })),
    ).toEqual(expected.entries);
  });

  it('renders the registry layout with versions from the snapshots', () => {
    expect(diff.oldLabel).toBe(expected.firstObserved.version);
    expect(diff.newLabel).toBe(expected.heading.version);
    const text = renderChangelog(diff, {
      newDate: expected.heading.date,
      oldDate: expected.firstObserved.date,
    });
    expect(text).toContain('Changed 7 schema fields changed v0.1.1 Nov 6, 2026');
    expect(text).toContain('First observed v0.1.0 Nov 5, 2026');
    for (const e of expected.entries) {
      expect(text).toContain(`added ${e.path}`);
      expect(text).toContain(`Added value: ${e.value}`);
    }
    const lines = text.split('\n');
    const first = lines.findIndex((l) =>
      l.includes('added Input schema / properties / anchor / description'),
    );
    const last = lines.findIndex((l) =>
      l.includes('added Input schema / properties / offset / minimum'),
    );
    expect(first).toBeGreaterThan(0);
    expect(last).toBeGreaterThan(first);
  });

  it('classifies descriptions as patch and new range constraints as major', () => {
    const byPath = Object.fromEntries(diff.tools[0]!.entries.map((e) => [e.pathText, e.bump]));
    expect(byPath['Input schema / properties / anchor / description']).toBe('patch');
    expect(byPath['Input schema / properties / anchor / minLength']).toBe('major');
    expect(byPath['Input schema / properties / max_chars / maximum']).toBe('major');
    expect(diff.bump).toBe('major');
  });
});

const base = (): ToolInput => ({
  name: 'search',
  title: 'Search',
  description: 'Search notes.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words.' },
      mode: { type: 'string', enum: ['any', 'all'] },
      limit: { type: 'integer', minimum: 1, maximum: 50 },
    },
    required: ['query'],
  },
  outputSchema: {
    type: 'object',
    properties: { hits: { type: 'array' }, total: { type: 'integer' } },
    required: ['hits', 'total'],
  },
  annotations: { readOnlyHint: true, destructiveHint: false },
});

type Prop = Record<string, unknown>;
type Props = { query: Prop; mode?: Prop; limit: Prop; [k: string]: Prop | undefined };
/** A tool whose schema parts tests may poke at. */
type Editable = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { properties: Props; required: string[]; [k: string]: unknown };
  outputSchema: { properties: Record<string, Prop>; [k: string]: unknown };
  annotations: Record<string, unknown>;
};

const editable = (): Editable => structuredClone(base()) as unknown as Editable;

function bumpOf(mutate: (t: Editable) => void) {
  const next = editable();
  mutate(next);
  const d = diffSnapshots([base()], [next as unknown as ToolInput]);
  return { bump: d.bump, entries: d.tools[0]?.entries ?? [] };
}

describe('semver classification', () => {
  it('patch: description or title text', () => {
    expect(bumpOf((t) => (t.description = 'Search every note.')).bump).toBe('patch');
    expect(bumpOf((t) => (t.title = 'Find')).bump).toBe('patch');
    expect(
      bumpOf((t) => (t.inputSchema.properties.query.description = 'Words to find.')).bump,
    ).toBe('patch');
  });

  it('minor: new optional parameter, new tool, loosened constraint, relaxed annotation', () => {
    const added = bumpOf(
      (t) => (t.inputSchema.properties.scope = { type: 'string', description: 'Folder.' }),
    );
    expect(added.bump).toBe('minor');
    expect(added.entries).toHaveLength(1);
    expect(added.entries[0]).toMatchObject({
      kind: 'added',
      pathText: 'Input schema / properties / scope',
      after: { type: 'string', description: 'Folder.' },
    });
    expect(bumpOf((t) => (t.inputSchema.properties.limit.maximum = 100)).bump).toBe('minor');
    expect(bumpOf((t) => delete t.inputSchema.properties.limit.minimum).bump).toBe('minor');
    expect(
      bumpOf((t) => (t.inputSchema.properties.mode!.enum = ['any', 'all', 'phrase'])).bump,
    ).toBe('minor');
    expect(bumpOf((t) => (t.inputSchema.properties.query.type = ['string', 'null'])).bump).toBe(
      'minor',
    );
    expect(bumpOf((t) => (t.outputSchema.properties.took = { type: 'number' })).bump).toBe('minor');
    expect(diffSnapshots([base()], [base(), { ...base(), name: 'search2' }]).bump).toBe('minor');
    expect(bumpOf((t) => (t.annotations.readOnlyHint = true)).bump).toBe('none');
  });

  it('major: removed tool or parameter, newly required, changed type, narrowed enum or range, stricter annotation', () => {
    expect(diffSnapshots([base()], []).bump).toBe('major');
    expect(bumpOf((t) => delete t.inputSchema.properties.mode).bump).toBe('major');
    expect(bumpOf((t) => t.inputSchema.required.push('limit')).bump).toBe('major');
    const newRequired = bumpOf((t) => {
      t.inputSchema.properties.root = { type: 'string' };
      t.inputSchema.required.push('root');
    });
    expect(newRequired.entries.map((e) => [e.pathText, e.bump])).toEqual([
      ['Input schema / properties / root', 'major'],
      ['Input schema / required', 'major'],
    ]);
    expect(bumpOf((t) => (t.inputSchema.properties.limit.type = 'string')).bump).toBe('major');
    expect(bumpOf((t) => (t.inputSchema.properties.mode!.enum = ['any'])).bump).toBe('major');
    expect(bumpOf((t) => (t.inputSchema.properties.limit.maximum = 20)).bump).toBe('major');
    expect(bumpOf((t) => (t.inputSchema.properties.query.pattern = '^\\w+$')).bump).toBe('major');
    expect(bumpOf((t) => (t.annotations.readOnlyHint = false)).bump).toBe('major');
    expect(bumpOf((t) => (t.annotations.destructiveHint = true)).bump).toBe('major');
    expect(bumpOf((t) => delete t.annotations.destructiveHint).bump).toBe('major');
    expect(bumpOf((t) => delete t.outputSchema.properties.total).bump).toBe('major');
  });

  it('reports the deepest node present on one side only, sorted by path', () => {
    const r = bumpOf((t) => {
      t.annotations.openWorldHint = false;
      t.description = 'Search all notes.';
      t.inputSchema.properties.limit.default = 10;
    });
    expect(r.entries.map((e) => e.pathText)).toEqual([
      'Annotations / openWorldHint',
      'Description',
      'Input schema / properties / limit / default',
    ]);
    expect(r.entries[1]).toMatchObject({
      kind: 'changed',
      before: 'Search notes.',
      after: 'Search all notes.',
    });
  });
});

describe('snapshots, rendering and changesets', () => {
  it('writes canonical snapshots independent of key and tool order', () => {
    const a = formatSnapshot(
      snapshotTools([base(), { name: 'a', description: 'x' }], { name: 's', version: '1.0.0' }),
    );
    const reordered = {
      ...base(),
      inputSchema: {
        required: ['query'],
        properties: base().inputSchema!.properties,
        type: 'object',
      },
    };
    const b = formatSnapshot(
      snapshotTools([{ description: 'x', name: 'a' }, reordered], { version: '1.0.0', name: 's' }),
    );
    expect(a).toBe(b);
    expect(JSON.parse(a).tools.map((t: ToolInput) => t.name)).toEqual(['a', 'search']);
    expect(a.endsWith('}\n')).toBe(true);
  });

  it('shows objects as indented JSON and removals with a minus', () => {
    const next = editable();
    delete next.inputSchema.properties.mode;
    next.inputSchema.properties.limit.maximum = 80;
    const d = diffSnapshots(
      { tools: [base()], server: { version: '1.0.0' } } as Snapshot,
      { tools: [next as unknown as ToolInput], server: { version: '1.1.0' } } as Snapshot,
    );
    const text = renderChangelog(d);
    expect(text).toContain('removed Input schema / properties / mode');
    expect(text).toContain('Removed value: -{\n        "enum": [');
    expect(text).toContain('Previous value: -50');
    expect(text).toContain('New value: +80');
    expect(text).toContain('Changed 2 schema fields changed v1.1.0');
    const md = renderChangelogMarkdown(d);
    expect(md).toContain('**Bump: major**');
    expect(md).toContain('```diff');
  });

  it('writes a changeset with the bump and the changelog, or nothing when unchanged', () => {
    const d = diffSnapshots([base()], [base(), { name: 'extra', description: 'New.' }]);
    const cs = renderChangeset(d, '@lectern/sections');
    expect(cs).toMatch(
      /^---\n"@lectern\/sections": minor\n---\n\nTool schema changes old → new: 1 added \(extra\)\./,
    );
    expect(renderChangeset(diffSnapshots([base()], [base()]), '@lectern/x')).toBeNull();
    expect(() => renderChangeset(d, 'not a name!')).toThrow(/not a valid package name/);
  });
});

describe('labels and multi-line values', () => {
  const v = (description: string, extra: Record<string, unknown> = {}): Snapshot => ({
    server: { name: 'x', version: '0.2.0' },
    tools: [
      {
        name: 't',
        description,
        inputSchema: { type: 'object', properties: { ...extra } },
      } as ToolInput,
    ],
  });

  it('says which side is which when both snapshots report the same version', () => {
    const d = diffSnapshots(v('a'), v('b'));
    expect([d.oldLabel, d.newLabel]).toEqual(['v0.2.0 (old)', 'v0.2.0 (new)']);
  });

  it('shows a multi-line JSON value as one JSON block, not a +/- line per line', () => {
    const d = diffSnapshots(v('a'), v('a', { verbose: { type: 'boolean' } }));
    const md = renderChangelogMarkdown(d);
    expect(md).toContain('Added value:');
    expect(md).toContain('```json');
    expect(md).not.toMatch(/^\s*\+\s+"type"/m);
    expect(md).not.toMatch(/^\s*\+\}/m);
  });
});
