import { describe, expect, it } from 'vitest';
import { coherenceOffline, nameStyle } from './coherence.js';
import {
  isShadowCandidate,
  mayOverlap,
  scoreServer,
  shadowCandidates,
  validateShadowingRisks,
} from './server.js';
import type { CoherenceToolInput, ToolInput, ToolScore } from './types.js';

const ct = (name: string, description: string | null, invocationCost = 1): CoherenceToolInput => ({
  name,
  description,
  annotations: null,
  invocationCost,
  requiredFieldCount: invocationCost,
  schemaDepth: 1,
  unionChoiceCount: 0,
});

describe('shadowing prefilter', () => {
  it('needs twice the cost and a gap of at least 4', () => {
    expect(isShadowCandidate(4, 13)).toBe(true);
    expect(isShadowCandidate(0, 4)).toBe(true);
    expect(isShadowCandidate(0, 3)).toBe(false);
    expect(isShadowCandidate(10, 19)).toBe(false);
    expect(isShadowCandidate(5, 9)).toBe(false);
  });

  it('emits at most one candidate per tool: the dearest qualifying sibling', () => {
    const c = shadowCandidates([
      { name: 'ping', invocationCost: 0 },
      { name: 'get_stat', invocationCost: 4 },
      { name: 'query_panel', invocationCost: 13 },
      { name: 'lookup', invocationCost: 2 },
    ]);
    expect(c).toEqual([
      {
        tool: 'get_stat',
        invocationCost: 4,
        cheaperSibling: 'ping',
        cheaperSiblingInvocationCost: 0,
      },
      {
        tool: 'query_panel',
        invocationCost: 13,
        cheaperSibling: 'get_stat',
        cheaperSiblingInvocationCost: 4,
      },
    ]);
  });

  it('drops confirmed risks that fail the referential checks', () => {
    const candidates = [
      { tool: 'b', invocationCost: 9, cheaperSibling: 'a', cheaperSiblingInvocationCost: 1 },
    ];
    expect(
      validateShadowingRisks(
        [
          { tool: 'b', cheaperSibling: 'a', justification: 'ok' },
          { tool: 'b', cheaperSibling: 'a', justification: 'twice' },
          { tool: 'a', cheaperSibling: 'b', justification: 'backwards' },
          { tool: 'x', cheaperSibling: 'a', justification: 'unknown' },
        ],
        candidates,
      ),
    ).toEqual([{ ...candidates[0], justification: 'ok' }]);
  });
});

describe('offline coherence rules', () => {
  it('scores a clean verb_noun set of distinct tools at 5 on every dimension', () => {
    const j = coherenceOffline({
      serverName: 'repo',
      candidates: [],
      tools: [
        ct('list_issues', 'List open issues of one repository, newest first.'),
        ct('get_issue', 'Fetch one issue with its comments by number.'),
        ct('create_issue', 'Open a new issue with a title and body.'),
        ct('update_issue', 'Change the title, body or labels of an issue.'),
        ct('delete_issue', 'Remove an issue permanently.'),
      ],
    });
    expect(Object.values(j.scores).map((s) => s.score)).toEqual([5, 5, 5, 5]);
    expect(j.shadowingRisks).toEqual([]);
  });

  it('penalizes mixed naming, look-alike tools, thin or heavy surfaces and dead ends', () => {
    expect(nameStyle('read_page')).toBe('snake');
    expect(nameStyle('readPage')).toBe('camel');
    expect(nameStyle('read-page')).toBe('kebab');
    const messy = coherenceOffline({
      serverName: 'util',
      candidates: [],
      tools: [
        ct('process', 'Process data.'),
        ct('runTask', 'Process data.'),
        ct('do-thing', null),
        ct('HelperX', 'Helps.'),
      ],
    });
    expect(messy.scores.naming_consistency.score).toBeLessThanOrEqual(2);
    expect(messy.scores.disambiguation.score).toBeLessThanOrEqual(2);
    expect(messy.scores.completeness.score).toBe(2);
    const one = coherenceOffline({ serverName: 's', candidates: [], tools: [ct('ping', 'Ping.')] });
    expect(one.scores.tool_count_appropriateness.score).toBe(1);
    const many = coherenceOffline({
      serverName: 's',
      candidates: [],
      tools: Array.from({ length: 55 }, (_, i) =>
        ct(`get_item_${i}`, `Fetch item number ${i} and nothing else at all ${i}.`),
      ),
    });
    expect(many.scores.tool_count_appropriateness.score).toBe(1);
    const writeOnly = coherenceOffline({
      serverName: 's',
      candidates: [],
      tools: [
        ct('write_note', 'Write a note to disk.'),
        ct('delete_note', 'Delete a note.'),
        ct('create_tag', 'Create a tag.'),
      ],
    });
    expect(writeOnly.scores.completeness.score).toBe(2);
  });
});

describe('server rollup', () => {
  const good = (name: string): ToolInput => ({
    name,
    description: `Read one ${name} record by id. Use it after list_${name} gave you an id; to browse, use list_${name} instead. Unknown ids fail with a clear error.`,
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string', description: 'Record id.' } },
      required: ['id'],
    },
  });

  it('combines 0.6·mean + 0.4·min, coherence and overall, exactly and with tiers', async () => {
    const tools: ToolInput[] = [
      good('read_a'),
      good('read_b'),
      { name: 'read_c', description: null },
    ];
    const { tools: scored, server } = await scoreServer(tools, { serverName: 'demo' });
    const values = scored.map((t) => t.tdqs);
    expect(values[2]).toBe(1);
    expect(server.minTdqs).toBe(1);
    expect(server.toolCount).toBe(3);
    expect(server.scoredToolCount).toBe(3);
    const sum = values.reduce((a, b) => a + Math.round(b * 10), 0);
    const expected = Math.floor((2 * (6 * sum + 4 * 3 * 10) + 30) / 60) / 10;
    expect(server.descriptionQualityScore).toBe(expected);
    expect(server.overallScore).toBe(
      Math.floor(
        (7 * Math.round(expected * 10) + 3 * Math.round(server.coherenceScore * 10) + 5) / 10,
      ) / 10,
    );
    expect(server.serverName).toBe('demo');
    expect(server.coherenceJustifications.disambiguation.justification.length).toBeGreaterThan(10);
  });

  it('withholds the quality score until 80% of the tools are scored', async () => {
    const tools = [good('a'), good('b'), good('c'), good('d'), good('e')];
    const first = await scoreServer(tools);
    const partial = first.tools.slice(0, 3) as ToolScore[];
    const r = await scoreServer(tools, { toolScores: partial });
    expect(r.server.scoredToolCount).toBe(3);
    expect(r.server.descriptionQualityScore).toBeNull();
    expect(r.server.overallScore).toBeNull();
    const r4 = await scoreServer(tools, { toolScores: first.tools.slice(0, 4) });
    expect(r4.server.descriptionQualityScore).not.toBeNull();
  });
});

describe('shadow candidates only between tools that could do the same job', () => {
  it('drops pairs that read and write, or share nothing of their purpose', () => {
    const tool = (
      name: string,
      description: string,
      invocationCost: number,
      readOnly?: boolean,
    ) => ({
      name,
      description,
      invocationCost,
      ...(readOnly === undefined ? {} : { annotations: { readOnlyHint: readOnly } }),
    });
    const writeBatch = tool('write_batch', 'Apply a batch of page edits atomically.', 12, false);
    const readArtifact = tool('read_artifact', 'Read a binary artifact as base64.', 2, true);
    expect(mayOverlap(writeBatch, readArtifact)).toBe(false);
    expect(shadowCandidates([writeBatch, readArtifact])).toEqual([]);
    const searchAll = tool(
      'search_notes_full',
      'Search every note with filters and facets.',
      12,
      true,
    );
    const search = tool('search_notes', 'Search notes by words.', 2, true);
    expect(shadowCandidates([searchAll, search])).toHaveLength(1);
  });
});
