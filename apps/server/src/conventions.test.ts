import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../../../packages/', import.meta.url));
const toolPackages = ['sections', 'lines', 'wiki', 'memory'];
const sources = (pkg: string, sub: string) =>
  readdirSync(join(PACKAGES, pkg, 'src', sub), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => ({ name: f, text: readFileSync(join(PACKAGES, pkg, 'src', sub, f), 'utf8') }));

// The house rules of issue 16 item 5, pinned so that a new tool follows them.
describe('one vocabulary across the tool packages', () => {
  it('names every tool and preset file in kebab-case', () => {
    const bad: string[] = [];
    for (const pkg of toolPackages)
      for (const sub of ['tools', 'presets'])
        for (const f of readdirSync(join(PACKAGES, pkg, 'src'), { withFileTypes: true })
          .filter((d) => d.name === sub && d.isDirectory())
          .flatMap(() => sources(pkg, sub)))
          if (!/^[a-z0-9]+(-[a-z0-9]+)*\.ts$/.test(f.name)) bad.push(`${pkg}/${sub}/${f.name}`);
    expect(bad).toEqual([]);
  });

  it('takes tool annotations from core’s shared constants, never a literal object', () => {
    const literal: string[] = [];
    for (const pkg of toolPackages)
      for (const f of sources(pkg, '.'))
        if (!f.name.startsWith('test-helpers') && /readOnlyHint\s*:/.test(f.text))
          literal.push(`${pkg}/${f.name}`);
    expect(literal).toEqual([]);
  });

  it('says has_more, not truncated, for "more follows" in native output schemas', () => {
    // truncated is kept for a value that was cut: search_text's excerpted line; the presets
    // keep their seeds' words.
    const found: string[] = [];
    for (const pkg of toolPackages)
      for (const f of sources(pkg, 'tools'))
        for (const m of f.text.matchAll(/^\s+truncated: z[\s\S]*?describe\(\s*'([^']*)'/gm))
          if (!/cut|excerpt/.test(m[1]!)) found.push(`${pkg}/tools/${f.name}: ${m[1]}`);
    expect(found).toEqual([]);
  });
});
