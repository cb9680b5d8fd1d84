import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, scratch } from './test-helpers/spawn.js';

const s = scratch();
afterAll(() => s.cleanup());

const PRESETS = ['atlas', 'harness', 'md-chunk', 'memoria', 'wiki'];
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/presets/${name}.json`, import.meta.url), 'utf8');

// Each preset's tools/list is pinned byte for byte: a change to a preset surface (a seed's
// contract) shows here and needs a regenerated fixture in a commit that says why
// (`lectern snapshot --preset NAME --output apps/server/fixtures/presets/NAME.json`).
describe('preset tools/list snapshots', () => {
  for (const preset of PRESETS) {
    it(`${preset} is byte-identical to its committed snapshot`, async () => {
      const out = join(s.dir, `${preset}.json`);
      const r = await run(['snapshot', '--preset', preset, '--output', out], { cwd: s.dir });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(fixture(preset));
    }, 60_000);
  }
});
