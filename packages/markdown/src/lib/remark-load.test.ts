import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const dist = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const canRequireEsm = (process.features as { require_module?: boolean }).require_module === true;

it('importing the package does not import remark; the first outline that needs it loads it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-remark-load-'));
  try {
    const log = join(dir, 'resolved.txt');
    writeFileSync(log, '');
    writeFileSync(
      join(dir, 'record.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}\n`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister('./record.mjs', import.meta.url);\n`,
    );
    const script = `
        const m = await import(${JSON.stringify(dist)});
        const scan = m.remarkOutline('# Title\\n\\ntext\\n\\n## Part\\n');
        console.log(JSON.stringify(scan.headings.map((h) => h.text)));`;
    const out = execFileSync(
      process.execPath,
      ['--import', join(dir, 'register.mjs'), '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual(['Title', 'Part']);
    const imported = readFileSync(log, 'utf8');
    expect(imported).toContain('/markdown/dist/index.js');
    // Where require() of ES modules works, remark is required on first use, never imported.
    if (canRequireEsm) expect(imported).not.toContain('remark-parse');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
