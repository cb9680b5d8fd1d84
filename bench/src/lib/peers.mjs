// The peers: where they come from and which version this run measured.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Version field of an installed npm package, found as Node would: node_modules upwards. */
export function packageVersion(name) {
  for (let dir = here; ; dir = dirname(dir)) {
    const pj = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(pj)) return JSON.parse(readFileSync(pj, 'utf8')).version;
    if (dirname(dir) === dir) return 'unknown';
  }
}

function firstLine(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\n')[0].trim() : null;
}

/**
 * Finds ripgrep. When `rg` is missing and we may install (root, apt-get present, `install`
 * true), runs `apt-get install -y ripgrep`, then `apt-get update` and the install again if that
 * failed. Falls back to `grep -rn`. Returns `{ tool: 'rg' | 'grep', version, source, log }`.
 */
export function findTextSearchPeer({ install = true, log = () => {} } = {}) {
  let v = firstLine('rg', ['--version']);
  if (v) return { tool: 'rg', version: v, source: 'already installed' };
  const canApt =
    install && process.getuid?.() === 0 && firstLine('apt-get', ['--version']) !== null;
  if (canApt) {
    const apt = (args) =>
      spawnSync('apt-get', args, {
        encoding: 'utf8',
        timeout: 300_000,
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    log('ripgrep is missing: apt-get install -y ripgrep');
    let r = apt(['install', '-y', 'ripgrep']);
    if (r.status !== 0) {
      log('apt-get install failed; apt-get update and retry');
      apt(['update']);
      r = apt(['install', '-y', 'ripgrep']);
    }
    v = firstLine('rg', ['--version']);
    if (v) return { tool: 'rg', version: v, source: 'installed by the harness (apt-get)' };
  }
  const g = firstLine('grep', ['--version']) ?? 'grep (version unknown)';
  return {
    tool: 'grep',
    version: g,
    source: canApt
      ? 'ripgrep could not be installed; fell back to grep -rn'
      : 'ripgrep missing and not installable here; fell back to grep -rn',
  };
}

/** Versions of everything measured or measuring, for the results file. */
export function versions(textSearch) {
  const lectern = JSON.parse(readFileSync(join(here, '../../../apps/server/package.json'), 'utf8'));
  return {
    lectern: lectern.version,
    node: process.version,
    '@modelcontextprotocol/sdk': packageVersion('@modelcontextprotocol/sdk'),
    peers: {
      '@modelcontextprotocol/server-filesystem': packageVersion(
        '@modelcontextprotocol/server-filesystem',
      ),
      minisearch: packageVersion('minisearch'),
      'remark-parse': packageVersion('remark-parse'),
      unified: packageVersion('unified'),
      [textSearch.tool === 'rg' ? 'ripgrep' : 'grep']: textSearch.version,
    },
    text_search_peer: textSearch,
  };
}
