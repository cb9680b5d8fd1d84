import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { calibrate, parseCalibrationJsonl } from './calibrate.js';
import { defaultWeights } from './model.js';
import {
  isKeywordList,
  judgeToolOffline,
  judgeToolRules,
  nearestSibling,
  OfflineJudge,
  statesConcreteFact,
} from './offline-judge.js';
import { scoreTool, scoreTools } from './score.js';
import { computeSignals } from './signals.js';
import { DIMENSIONS, type ToolInput } from './types.js';

const seeds = parseCalibrationJsonl(
  readFileSync(new URL('../../calibration/seeds.jsonl', import.meta.url), 'utf8'),
);
const rubricExamples = parseCalibrationJsonl(
  readFileSync(new URL('../../calibration/rubric-examples.jsonl', import.meta.url), 'utf8'),
);

const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});

describe('offline judge calibration on the five seed pages', () => {
  it('lands within ±1 per dimension and ±0.3 TDQS with the same tier on every seed', async () => {
    expect(seeds.map((s) => s.id)).toEqual(['000', '001', '002', '003', '004']);
    const result = await calibrate(seeds);
    for (const row of result.rows) {
      for (const d of DIMENSIONS) {
        expect(
          Math.abs(row.predicted.scores[d] - (row.published.scores[d] as number)),
          `${row.id} ${d}`,
        ).toBeLessThanOrEqual(1);
      }
      expect(
        Math.abs(row.predicted.tdqs - (row.published.tdqs as number)),
        `${row.id} tdqs`,
      ).toBeLessThanOrEqual(0.3 + 1e-9);
      expect(row.predicted.tier, row.id).toBe(row.published.tier);
    }
    expect(result.allWithinBounds).toBe(true);
    // The seeds stay within ±0.2 of their published TDQS (the calibration issue's bound).
    for (const row of result.rows) {
      expect(
        Math.abs(row.predicted.tdqs - (row.published.tdqs as number)),
        `${row.id} tdqs ±0.2`,
      ).toBeLessThanOrEqual(0.2 + 1e-9);
    }
    // The pinned current figures (published 4.7, 4.8, 4.7, 4.6, 3.9), so a regression in any
    // dimension is visible.
    expect(result.rows.map((r) => r.predicted.tdqs)).toEqual([4.7, 4.9, 4.7, 4.6, 3.8]);
  });

  it('also lands within bounds on the rubric high / mid / low examples (tiers A, C, D)', async () => {
    const result = await calibrate(rubricExamples);
    expect(result.rows.map((r) => [r.id, r.published.tier, r.predicted.tier])).toEqual([
      ['rubric-high', 'A', 'A'],
      ['rubric-mid', 'C', 'C'],
      ['rubric-low', 'D', 'D'],
    ]);
    // All three within ±1 per dimension and ±0.3 TDQS, low included: the tail guard keeps the
    // one-line low example at its rule scores (1.6 before the guard, published 1.1).
    for (const row of result.rows) {
      expect(row.withinBounds, row.id).toBe(true);
      for (const d of DIMENSIONS) {
        expect(
          Math.abs(row.predicted.scores[d] - (row.published.scores[d] as number)),
          `${row.id} ${d}`,
        ).toBeLessThanOrEqual(1);
      }
      expect(Math.abs(row.predicted.tdqs - (row.published.tdqs as number))).toBeLessThanOrEqual(
        0.5 + 1e-9,
      );
    }
    expect(result.rows.map((r) => r.predicted.tdqs)).toEqual([4.1, 2.9, 1.1]);
  });

  it('explains every score with quoted evidence and one fix', async () => {
    const seed = seeds[0]!;
    const r = await scoreTool(seed.tool as ToolInput, seed.siblingToolNames);
    for (const d of DIMENSIONS) {
      const j = r.justifications[d];
      expect(j.justification.length, d).toBeGreaterThan(20);
      expect(j.fix, d).toBeTruthy();
    }
    expect(r.justifications.purpose_clarity.justification).toContain('"Read"');
    expect(r.justifications.usage_guidelines.justification).toContain('atlas_where');
    expect(r.summary.length).toBeGreaterThan(10);
  });

  it('is deterministic', async () => {
    const seed = seeds[2]!;
    const a = await scoreTool(seed.tool as ToolInput, seed.siblingToolNames);
    const b = await scoreTool(seed.tool as ToolInput, seed.siblingToolNames);
    expect(b).toEqual(a);
  });
});

/** The rules alone (no fitted models): these tests pin what each rule reads. */
const RULES = new OfflineJudge({ weights: null });
const scoreRules = (tool: ToolInput, siblings: readonly string[]) =>
  scoreTool(tool, siblings, { judge: RULES });
const scoreToolsRules = (tools: readonly ToolInput[]) => scoreTools(tools, { judge: RULES });

describe('offline judge rules', () => {
  it('quotes the clause that earns each behaviour, and one clause once however many kinds it earns', async () => {
    const tool: ToolInput = {
      name: 'list_items',
      description: [
        'List the items of one folder, sorted by name.',
        'Results come in pages of 50 items, continue with next_offset; an unknown folder fails with NOT_FOUND and the closest names.',
        'Pass next_cursor back unchanged, or the call fails with CURSOR_MISMATCH.',
      ].join(' '),
      inputSchema: obj({ folder: {} }),
      annotations: { readOnlyHint: true },
    };
    const r = await scoreRules(tool, []);
    const text = r.justifications.behavioral_transparency.justification;
    const quotes = [...text.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    expect(quotes.length).toBeGreaterThan(1);
    expect(new Set(quotes).size).toBe(quotes.length);
    // Two kinds earned by one clause: named together, quoted once, cut at the semicolon.
    expect(text).toContain(
      'limits and pagination: "Results come in pages of 50 items, continue with next_offset"',
    );
  });

  it('scores a one-word description like the rubric low example (tier D)', async () => {
    const r = await scoreRules(
      { name: 'process', description: 'Process', inputSchema: obj({ a: {}, b: {}, c: {} }) },
      ['other_tool'],
    );
    expect(r.flags).toEqual(['Tautological Description']);
    expect(r.scores).toEqual({
      purpose_clarity: 1,
      usage_guidelines: 1,
      behavioral_transparency: 1,
      parameter_semantics: 1,
      conciseness_structure: 2,
      contextual_completeness: 1,
    });
    expect(r.tdqs).toBe(1.1);
    expect(r.tier).toBe('D');
  });

  it('flags a description that contradicts readOnlyHint and scores behaviour 1', async () => {
    const r = await scoreRules(
      {
        name: 'create_record',
        description: 'Creates a new record in the database',
        annotations: { readOnlyHint: true },
      },
      [],
    );
    expect(r.flags).toContain('Annotation Contradiction');
    expect(r.scores.behavioral_transparency).toBe(1);
    const claim = await scoreRules(
      {
        name: 'wipe',
        description: 'Remove every cached page permanently; this cannot be undone.',
        annotations: { readOnlyHint: false, destructiveHint: false },
      },
      [],
    );
    expect(claim.flags).toContain('Annotation Contradiction');
    const honest = await scoreRules(
      {
        name: 'wipe',
        description: 'Remove every cached page permanently; this cannot be undone.',
        annotations: { readOnlyHint: false, destructiveHint: true },
      },
      [],
    );
    expect(honest.flags).toEqual([]);
  });

  it('lets a genuinely excellent description reach 4.5+ and gives keyword stuffing nothing', async () => {
    const out = {
      type: 'object',
      properties: { content: { type: 'string' }, next_offset: { type: 'integer' } },
    };
    const good: ToolInput = {
      name: 'docs_read',
      title: 'Read a documentation section',
      annotations: READ_ONLY,
      outputSchema: out,
      description:
        'Fetch one section of a documentation file by its anchor, paginated by characters. Call it once docs_find or docs_toc has given you an anchor; to list the headings of a file, use docs_toc instead. Sections longer than `page_chars` come back in pages: pass the returned next_offset as `start` to get the next one. An anchor that does not exist fails with a list of the nearest anchors.',
      inputSchema: obj(
        {
          anchor: { type: 'string', description: 'Section anchor, file#slug.' },
          start: { type: 'integer', description: 'Character to start at, default 0.' },
          page_chars: {
            type: 'integer',
            description: 'Characters per page, 200-10000, default 3000.',
          },
        },
        ['anchor'],
      ),
    };
    const stuffed: ToolInput = {
      ...good,
      name: 'docs_stuffed',
      description:
        'Read docs. Use this when needed, never use it otherwise, instead use docs_find docs_toc docs_read. Limits, errors, pagination, versions, root, defaults, cache, hash. Params: anchor start page_chars default format.',
    };
    const [g, s] = await scoreToolsRules([
      good,
      stuffed,
      { name: 'docs_find', description: 'Find docs.' },
      { name: 'docs_toc', description: 'List headings.' },
    ]);
    expect(g!.tdqs).toBeGreaterThanOrEqual(4.5);
    expect(g!.scores.purpose_clarity).toBe(5);
    expect(g!.scores.usage_guidelines).toBe(5);
    expect(s!.tdqs).toBeLessThan(3);
    expect(s!.scores.usage_guidelines).toBeLessThanOrEqual(3);
    expect(s!.scores.behavioral_transparency).toBe(2);
    expect(s!.scores.conciseness_structure).toBeLessThanOrEqual(2);
    expect(s!.justifications.conciseness_structure.justification).toMatch(/keyword lists/);
  });

  it('understands Spanish descriptions (the memoria preset ships them)', async () => {
    const r = await scoreRules(
      {
        name: 'leer_trozo',
        annotations: READ_ONLY,
        outputSchema: { type: 'object', properties: { lineas: { type: 'array' } } },
        description:
          'Lee un rango de líneas numeradas de un archivo ya indexado. Úsalo después de que buscar_notas te dé una ruta; para ver qué archivos hay, usa listar_notas en su lugar. Devuelve como máximo 200 líneas; si el rango se sale del archivo, falla con un error que indica el total.',
        inputSchema: obj(
          { ruta: { type: 'string', description: 'Ruta tal como la da buscar_notas.' } },
          ['ruta'],
        ),
      },
      ['buscar_notas', 'listar_notas'],
    );
    expect(r.scores.purpose_clarity).toBe(5);
    expect(r.scores.usage_guidelines).toBe(5);
    expect(r.tdqs).toBeGreaterThanOrEqual(4.5);
  });

  it('reads Spanish usage and parameter cues: utilízala, sólo si, no la utilices, debe, si se omite', async () => {
    const tool = {
      name: 'buscar_citas',
      annotations: READ_ONLY,
      outputSchema: { type: 'object', properties: { citas: { type: 'array' } } },
      description:
        'Busca citas del calendario por texto y fecha. Utilízala cuando el usuario pregunte por una reunión concreta. No la utilices para crear citas: para eso está crear_cita. `limite` debe estar entre 1 y 50; si se omite, devuelve 20.',
      inputSchema: obj({ texto: { type: 'string' }, limite: { type: 'integer' } }, ['texto']),
    };
    const r = await scoreRules(tool, ['crear_cita']);
    expect(r.scores.usage_guidelines).toBe(5);
    const { analysis } = judgeToolRules({
      tool,
      signals: computeSignals(tool),
      siblingToolNames: ['crear_cita'],
    });
    expect(analysis.params.find((p) => p.name === 'limite')?.explained).toBe(true);
    expect(analysis.whenSentences[0]).toMatch(/^Utilízala cuando/);
    // "sólo si" is an exclusion cue, as "only if" is.
    const only = judgeToolRules({
      tool: {
        ...tool,
        description:
          'Busca citas del calendario por texto y fecha. Úsala sólo si el usuario da una fecha; sin fecha, usa crear_cita para proponer una.',
      },
      signals: computeSignals(tool),
      siblingToolNames: ['crear_cita'],
    });
    expect(only.analysis.notSentences.length).toBeGreaterThan(0);
  });

  it('gives zero-parameter tools the baseline 4 and compensating text credit at 0% coverage', () => {
    const signals = (t: ToolInput) => computeSignals(t);
    const zero: ToolInput = { name: 'list_all', description: 'List every source with its size.' };
    expect(
      judgeToolOffline({ tool: zero, signals: signals(zero), siblingToolNames: [] }, null).scores
        .parameter_semantics.score,
    ).toBe(4);
    const bare: ToolInput = {
      name: 'tail_log',
      description:
        'Read the last lines of a log. `count` selects how many lines, default 50; `file` must be relative to the log root.',
      inputSchema: obj({ count: { type: 'integer' }, file: { type: 'string' } }),
    };
    const j = judgeToolOffline({ tool: bare, signals: signals(bare), siblingToolNames: [] }, null);
    expect(j.scores.parameter_semantics.score).toBe(5);
    const silent = { ...bare, description: 'Show the newest entries of a log.' };
    expect(
      judgeToolOffline({ tool: silent, signals: signals(silent), siblingToolNames: [] }, null)
        .scores.parameter_semantics.score,
    ).toBe(1);
  });

  it('recognizes keyword lists and picks the nearest sibling for fixes', () => {
    expect(isKeywordList('Limits, errors, pagination, versions.')).toBe(true);
    expect(isKeywordList('Params: path offset limit default format.')).toBe(true);
    expect(isKeywordList('Returns {content, version, total_lines}.')).toBe(false);
    expect(isKeywordList('offset is 1-based and limit caps how many lines come back.')).toBe(false);
    expect(nearestSibling('read_file', ['create_directory', 'read_text_file', 'write_file'])).toBe(
      'read_text_file',
    );
  });

  it('gives hedges, purpose restatements and bare sibling lists no credit', async () => {
    const schema = obj(
      {
        id: { type: 'string', description: 'Note id as returned by note_search.' },
        offset: { type: 'integer', description: 'Character offset, default 0.' },
      },
      ['id'],
    );
    const siblings = ['note_search', 'note_list', 'note_write', 'note_delete'];
    const score = (description: string) =>
      scoreRules(
        {
          name: 'note_read',
          description,
          inputSchema: schema,
          annotations: READ_ONLY,
          outputSchema: { type: 'object', properties: { content: { type: 'string' } } },
        },
        siblings,
      );
    const plain = await score('Read a note by id.');
    const good = await score(
      'Read one note by its id, paginated by characters. Call it after note_search or note_list gave you an id; to change a note, use note_write instead. Notes longer than 4000 characters come back in pages: pass next_offset as `offset` to continue. An unknown id fails with the closest ids as suggestions.',
    );
    const hedged = await score(
      'Read a note by id. Errors may occur. Limits apply. Results may be paginated. Defaults exist. Versions are supported.',
    );
    const restated = await score(
      'Read a note by id. Use this tool when you need to read a note. Do not use it when you do not need to read a note.',
    );
    const siblingList = await score(
      'Read a note by id. Use note_list, note_search, note_write, note_delete instead.',
    );
    const everything = await score(
      'Read a note by id from the store. Use this tool when you need to read a note; do not use it otherwise, use note_write instead. Errors may occur and limits apply. Results may be paginated and defaults exist. Versions and hashes are supported and state is cached.',
    );
    expect(good.tdqs).toBeGreaterThanOrEqual(4.5);
    for (const stuffed of [hedged, restated, siblingList, everything]) {
      expect(stuffed.tdqs).toBeLessThanOrEqual(plain.tdqs + 0.1);
      expect(stuffed.tier).not.toBe('A');
      expect(stuffed.scores.usage_guidelines).toBe(2);
      expect(stuffed.scores.behavioral_transparency).toBe(2);
      expect(stuffed.scores.conciseness_structure).toBeLessThanOrEqual(4);
    }
    expect(hedged.justifications.behavioral_transparency.justification).toContain(
      'names behaviour without stating it',
    );
    expect(restated.justifications.usage_guidelines.justification).toContain(
      'has the shape of a usage rule but no condition',
    );
    expect(everything.justifications.conciseness_structure.justification).toMatch(
      /state nothing checkable/,
    );
  });

  it('tells a stated fact from a named topic', () => {
    for (const fact of [
      'No cursor or state.',
      'If the destination exists, the operation will fail.',
      'At most 200 lines per call.',
      'Paths outside the root are refused; symlinks are never followed.',
      'A stale `expected_version` fails with VERSION_MISMATCH.',
    ]) {
      expect(statesConcreteFact(fact), fact).toBe(true);
    }
    for (const topic of [
      'Errors may occur.',
      'Limits apply.',
      'Results may be paginated and defaults exist.',
      'Versions and hashes are supported and state is cached.',
    ]) {
      expect(statesConcreteFact(topic), topic).toBe(false);
    }
  });

  it('gives full usage marks to a boundary that routes the excluded case to the only sibling', () => {
    const tool: ToolInput = {
      name: 'get_calls',
      annotations: { readOnlyHint: true, destructiveHint: false },
      description:
        'List ALL calls in date range – no user/workspace filtering. To filter by user/workspace, use search_calls_extensive instead.',
    };
    const judge = (siblingToolNames: string[]) =>
      judgeToolOffline({ tool, signals: computeSignals(tool), siblingToolNames }, null).scores
        .usage_guidelines.score;
    expect(judge(['search_calls_extensive'])).toBe(5);
    // A sibling the description never accounts for leaves the guidance incomplete.
    expect(judge(['search_calls_extensive', 'get_call_transcript'])).toBe(4);
  });

  it('recognizes an imperative verb outside its lexicon, but not a noun label', () => {
    const purposeOf = (description: string) => {
      const tool: ToolInput = { name: 'docs_where', description };
      return judgeToolOffline(
        {
          tool,
          signals: computeSignals(tool),
          siblingToolNames: [],
        },
        null,
      ).scores.purpose_clarity;
    };
    for (const lead of [
      'Pinpoint the documentation sections most likely to cover a topic, given a phrase.',
      'Whittle a whole Markdown file into consecutive chunks that follow its headings.',
      'Funnel to the three documentation sections most likely to answer a question.',
    ]) {
      const p = purposeOf(lead);
      expect(p.score, lead).toBeGreaterThanOrEqual(4);
      expect(p.justification).toContain(`Leads with the verb "${lead.split(' ')[0]}"`);
    }
    for (const label of [
      'Helper for the documentation sections of a project, given a phrase.',
      'Markdown to HTML conversion of documentation sections in a project.',
    ]) {
      const p = purposeOf(label);
      expect(p.score, label).toBe(3);
      expect(p.justification).toContain('does not open with an action verb');
    }
  });

  it('lets a one-parameter tool reach 5 on parameters when the text explains that parameter', () => {
    const params = (description: string) => {
      const tool: ToolInput = {
        name: 'notes_outline',
        description,
        inputSchema: obj({ path: { type: 'string', description: 'Note path.' } }, ['path']),
      };
      return judgeToolOffline({ tool, signals: computeSignals(tool), siblingToolNames: [] }, null)
        .scores.parameter_semantics.score;
    };
    expect(params('List the headings of one note. `path` is relative to the notes root.')).toBe(5);
    expect(params('List the headings of one note.')).toBe(3);
    expect(params('List the headings of one note. `path` must be valid.')).toBe(3);
  });
});

describe('the tail guard', () => {
  const empty: ToolInput[] = [
    // Definitions the registry rates D (issue 28): the name restated, a handful of words.
    { name: 'json_type', title: 'JSON Type', description: 'JSON Type' },
    {
      name: 'v1_maps_status',
      description: 'V1 Maps Status',
      inputSchema: obj({ id: { type: 'string' } }, ['id']),
    },
    { name: 'get_data', description: 'Gets data.', inputSchema: obj({ q: { type: 'string' } }) },
  ];

  it('keeps a definition with no usable content in tier D under the fitted models', async () => {
    const w = defaultWeights();
    // Round 5: the guard counts the words that say something the name does not (at most 1).
    expect(w?.guard).toEqual({ maxWords: 1, basis: 'novel' });
    for (const tool of empty) {
      const s = await scoreTool(tool, ['other_tool']);
      expect(s.tier, `${tool.name} ${s.tdqs}`).toBe('D');
      expect(s.justifications.purpose_clarity.justification).toContain('Not calibrated upward');
    }
  });

  it('is what holds them: without it the models would lift some of them', () => {
    const w = defaultWeights();
    if (!w) throw new Error('weights.json is missing');
    const unguarded = { ...w, guard: { maxWords: -1 } };
    const lifted = empty.filter((tool) => {
      const input = { tool, signals: computeSignals(tool), siblingToolNames: ['other_tool'] };
      const a = judgeToolOffline(input, w);
      const b = judgeToolOffline(input, unguarded);
      return DIMENSIONS.some((d) => b.scores[d].score > a.scores[d].score);
    });
    expect(lifted.length).toBeGreaterThan(0);
  });

  it('leaves a short definition alone when a parameter has meaning', () => {
    const w = defaultWeights();
    if (!w) throw new Error('weights.json is missing');
    const tool: ToolInput = {
      name: 'get_data',
      description: 'Gets data.',
      inputSchema: obj({ q: { type: 'string', description: 'Words to match in the title.' } }),
    };
    const input = { tool, signals: computeSignals(tool), siblingToolNames: [] };
    expect(judgeToolOffline(input, w).scores.purpose_clarity.justification).not.toContain(
      'Not calibrated upward',
    );
  });
});

describe('evidence that holds up', () => {
  const schema = obj(
    {
      max_chars: {
        type: 'integer',
        description: 'Characters per page.',
        default: 3000,
        minimum: 100,
        maximum: 50000,
      },
      full: { type: 'boolean', description: 'Include every field.' },
      id: { type: 'string', description: 'Note id.' },
    },
    ['id'],
  );
  const judge = (description: string, siblings: string[] = ['note_search', 'note_write']) =>
    judgeToolOffline(
      {
        tool: { name: 'note_read', description, inputSchema: schema, annotations: READ_ONLY },
        signals: computeSignals({
          name: 'note_read',
          description,
          inputSchema: schema,
          annotations: READ_ONLY,
        }),
        siblingToolNames: siblings,
      },
      null,
    ).scores;

  it('never quotes one clause as both the "when" and the "when not"', () => {
    const siblings = ['note_search', 'note_write', 'note_list'];
    const one = judge(
      'Read one note by its id. Use it after note_search returned an id, and use note_write instead to change it.',
      siblings,
    );
    // One clause earns one claim: this is the routing rule, not also the "when".
    expect(one.usage_guidelines.score).toBeLessThan(5);
    const two = judge(
      'Read one note by its id. Use it after note_search returned an id. To change a note, use note_write instead.',
      siblings,
    );
    expect(two.usage_guidelines.score).toBe(5);
    const quotes = two.usage_guidelines.justification.match(/"[^"]+"/g) ?? [];
    expect(quotes).toHaveLength(2);
    expect(quotes[0]).not.toBe(quotes[1]);
  });

  it('does not take advice about one parameter for guidance about the tool', () => {
    const s = judge('Read one note by its id. Set `full` only when you need every field.');
    expect(s.usage_guidelines.score).toBeLessThanOrEqual(3);
    expect(s.usage_guidelines.justification).not.toContain('only when you need every field');
  });

  it('notices a description that repeats the schema defaults and ranges', () => {
    const s = judge(
      'Read one note by its id. `max_chars` defaults to 3000 and may be 100 to 50000. `full` defaults to false.',
    );
    expect(s.conciseness_structure.justification).toMatch(/repeats the schema's defaults/);
    expect(s.conciseness_structure.justification).not.toContain('no restated schema');
  });

  it('does not give a 170-word description full conciseness marks', async () => {
    const sentence =
      'It reads the stored note text from the local index and keeps the original line breaks intact.';
    const long = `Read one note by its id from the local notes index. ${Array.from(
      { length: 9 },
      () => sentence,
    )
      .map((x, i) => x.replace('It', i % 2 ? 'This call' : 'It'))
      .join(' ')}`;
    const r = await scoreTool(
      { name: 'note_read', description: long, inputSchema: schema, annotations: READ_ONLY },
      ['note_search'],
    );
    expect(long.split(/\s+/).length).toBeGreaterThan(150);
    expect(r.scores.conciseness_structure).toBeLessThan(5);
  });

  it('never suggests a writing sibling as the alternative for a reading tool', () => {
    expect(nearestSibling('directory_tree', ['create_directory', 'list_directory'])).toBe(
      'list_directory',
    );
    expect(nearestSibling('directory_tree', ['create_directory'])).toBeUndefined();
    const s = judgeToolOffline(
      {
        tool: { name: 'directory_tree', description: 'Get a recursive tree view of files.' },
        signals: computeSignals({ name: 'directory_tree', description: 'x' }),
        siblingToolNames: ['create_directory', 'write_file'],
      },
      null,
    ).scores;
    expect(s.usage_guidelines.fix).not.toMatch(/create_directory|write_file/);
    expect(s.purpose_clarity.fix).not.toMatch(/create_directory|write_file/);
  });
});
