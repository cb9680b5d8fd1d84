import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lintTools } from './lib/lint.js';
import { OfflineJudge } from './lib/offline-judge.js';
import { parseToolsJson } from './lib/targets.js';

// tools/list of the official @modelcontextprotocol/server-filesystem (2026.8.31), captured once
// with `lectern-lint snapshot -- node .../server-filesystem/dist/index.js <dir>`: a server no
// one here wrote.
const fixture = parseToolsJson(
  readFileSync(new URL('../test-fixtures/filesystem-tools.json', import.meta.url), 'utf8'),
  'filesystem-tools.json',
);

describe('scoring the official MCP filesystem server', () => {
  it('gives the same result twice, with pinned tiers', async () => {
    expect(fixture.serverName).toBe('secure-filesystem-server');
    expect(fixture.tools).toHaveLength(14);
    const first = await lintTools(fixture.tools, {
      judge: new OfflineJudge(),
      serverName: fixture.serverName,
    });
    const second = await lintTools(fixture.tools, {
      judge: new OfflineJudge(),
      serverName: fixture.serverName,
    });
    expect(second).toEqual(first);
    const tiers = Object.fromEntries(first.tools.map((t) => [t.name, t.tier]));
    expect(tiers).toEqual({
      create_directory: 'A',
      directory_tree: 'A',
      edit_file: 'A',
      get_file_info: 'A',
      list_allowed_directories: 'A',
      list_directory: 'A',
      list_directory_with_sizes: 'A',
      move_file: 'A',
      read_file: 'A',
      read_media_file: 'A',
      read_multiple_files: 'A',
      read_text_file: 'A',
      search_files: 'A',
      write_file: 'A',
    });
    expect(first.server).toMatchObject({
      toolCount: 14,
      meanTdqs: 4,
      minTdqs: 3.6,
      descriptionQualityScore: 3.9,
      descriptionQualityTier: 'A',
      coherenceTier: 'A',
      overallScore: 3.9,
      overallTier: 'A',
      // edit_file and move_file only share "file", a word most of this server's names carry:
      // they do different things, so the prefilter proposes no pair.
      shadowCandidates: [],
    });
    // A reading tool's fix never points at a writing sibling.
    const tree = first.tools.find((t) => t.name === 'directory_tree');
    expect(tree?.justifications.usage_guidelines.fix).not.toMatch(/create_directory|write_file/);
    // Overlapping pairs are real in this server and must be found.
    expect(first.server.coherenceJustifications.disambiguation.justification).toContain(
      'read_file / read_text_file',
    );
  });
});
