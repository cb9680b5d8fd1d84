import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, configJsonSchema, loadConfigFile, parseConfig } from './config.js';

const dir = mkdtempSync(join(tmpdir(), 'lectern-config-'));
mkdirSync(join(dir, 'docs'));
mkdirSync(join(dir, 'wiki'));
writeFileSync(join(dir, 'not-a-folder.md'), '# x');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function problems(value: unknown): string[] {
  try {
    parseConfig(value, dir);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('resolves relative roots from the config folder and applies defaults', () => {
    const c = parseConfig({ docs: [{ id: 'docs', path: 'docs' }] }, dir);
    expect(c.docs?.[0]?.path).toBe(join(dir, 'docs'));
    expect(c).toMatchObject({ name: 'lectern', prefix: '', locale: 'en', rename: {}, limits: {} });
  });

  it('keeps a postgres:// memory db as a URL and resolves its TLS files from the config folder', () => {
    const c = parseConfig(
      {
        memory: {
          sources: [{ id: 'notes', path: 'docs' }],
          db: 'postgres://team@db.internal:5432/notes',
          postgres: { schema: 'team_a', passwordEnv: 'NOTES_PW', tls: { ca: 'certs/ca.pem' } },
        },
        http: { stateless: true },
      },
      dir,
    );
    expect(c.memory?.db).toBe('postgres://team@db.internal:5432/notes');
    expect(c.memory?.postgres?.tls?.ca).toBe(join(dir, 'certs', 'ca.pem'));
    expect(c.http?.stateless).toBe(true);
    // A file path is still resolved; PostgreSQL options without a URL are a mistake.
    expect(
      parseConfig({ memory: { sources: [{ id: 'n', path: 'docs' }], db: 'm.db' } }, dir).memory?.db,
    ).toBe(join(dir, 'm.db'));
    expect(
      problems({
        memory: { sources: [{ id: 'n', path: 'docs' }], db: 'm.db', postgres: { schema: 'x' } },
      }),
    ).toEqual(['memory.postgres: these options need memory.db to be a postgres:// URL']);
  });

  it('lists every problem at once, each with where it is', () => {
    const found = problems({
      docs: [
        { id: 'docs', path: 'missing' },
        { id: 'docs', path: 'not-a-folder.md' },
      ],
      wikis: [{ id: 'w', path: 'wiki' }],
      limits: { linesMaxLines: 500 },
    });
    expect(found).toEqual(
      expect.arrayContaining([expect.stringMatching(/^limits\.linesMaxLines: /)]),
    );
    // schema problems are reported first; fix them and the root problems show up together
    const roots = problems({
      docs: [
        { id: 'docs', path: 'missing' },
        { id: 'docs', path: 'not-a-folder.md' },
      ],
    });
    expect(roots).toEqual([
      `docs[0].path: ${join(dir, 'missing')} does not exist`,
      'docs[1].id: "docs" is used twice',
      `docs[1].path: ${join(dir, 'not-a-folder.md')} is a file, not a folder`,
    ]);
  });

  it('refuses unknown keys, bad ids, bad presets and limits out of range', () => {
    expect(problems({ dcos: [] })[0]).toMatch(/dcos/);
    expect(problems({ docs: [{ id: 'a b', path: 'docs' }] })[0]).toMatch(/^docs\[0\]\.id: /);
    expect(problems({ preset: 'atlass' })[0]).toMatch(/^preset: /);
    expect(problems({ limits: { linesMaxTextBytes: 64 * 1024 } })[0]).toMatch(
      /^limits\.linesMaxTextBytes: /,
    );
  });

  it('refuses a package listed without roots, and a preset mixed with packages', () => {
    expect(problems({ packages: ['wiki'] })).toEqual([
      'packages: "wiki" is listed but no wikis are configured',
    ]);
    expect(
      problems({ preset: 'atlas', packages: ['sections'], docs: [{ id: 'd', path: 'docs' }] })[0],
    ).toMatch(/^preset: /);
  });
});

describe('loadConfigFile', () => {
  it('reports unreadable files and malformed JSON', () => {
    expect(() => loadConfigFile(join(dir, 'nope.json'))).toThrow(/cannot read/);
    writeFileSync(join(dir, 'bad.json'), '{ "docs": ');
    expect(() => loadConfigFile(join(dir, 'bad.json'))).toThrow(/not valid JSON/);
  });
});

describe('configJsonSchema', () => {
  it('matches the committed lectern.schema.json (run `pnpm --filter lectern schema` after changes)', () => {
    const committed = JSON.parse(
      readFileSync(new URL('../lectern.schema.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(configJsonSchema());
  });

  it('describes every property for editors', () => {
    const schema = configJsonSchema() as { properties: Record<string, { description?: string }> };
    for (const [key, prop] of Object.entries(schema.properties)) {
      expect(prop.description, key).toBeTruthy();
    }
  });
});
