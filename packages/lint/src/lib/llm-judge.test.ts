import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLintCli } from '../run-cli.js';
import { LlmJudge, LlmJudgeError } from './llm-judge.js';
import { PROMPT_VERSION } from './prompts.js';
import { scoreTool } from './score.js';
import { scoreServer } from './server.js';
import type { ToolInput } from './types.js';

type Reply =
  | { status: number; body: string }
  | ((req: { messages: { role: string; content: string }[] }) => { status: number; body: string });

let server: Server;
let baseUrl: string;
let queue: Reply[] = [];
let requests: {
  auth?: string;
  body: { model: string; messages: { role: string; content: string }[] };
}[] = [];
let dir: string;

const chat = (content: unknown) => ({
  status: 200,
  body: JSON.stringify({
    choices: [
      {
        message: {
          role: 'assistant',
          content: typeof content === 'string' ? content : JSON.stringify(content),
        },
      },
    ],
  }),
});

const dims = (score: number) =>
  Object.fromEntries(
    [
      'purpose_clarity',
      'usage_guidelines',
      'behavioral_transparency',
      'parameter_semantics',
      'conciseness_structure',
      'contextual_completeness',
    ].map((d) => [d, { score, justification: `The text supports ${score}.` }]),
  );

const toolReply = (score = 4, contradiction = false) => ({
  scores: dims(score),
  annotation_contradiction: contradiction,
  summary: 'Fine.',
});

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push({ auth: req.headers.authorization, body });
      const next = queue.shift();
      const reply =
        typeof next === 'function' ? next(body) : (next ?? { status: 500, body: 'queue empty' });
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

beforeEach(() => {
  queue = [];
  requests = [];
  dir = mkdtempSync(join(tmpdir(), 'lectern-lint-llm-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const tool: ToolInput = {
  name: 'notes_read',
  description: 'Read one note section by anchor.',
  inputSchema: {
    type: 'object',
    properties: { anchor: { type: 'string', description: 'Anchor.' } },
    required: ['anchor'],
  },
  annotations: { readOnlyHint: true },
};

describe('LLM judge against a local OpenAI-compatible endpoint', () => {
  it('sends the rubric, validates the reply, retries on a bad one, and caches by input hash', async () => {
    queue = [
      chat('not json at all'),
      chat({
        ...toolReply(),
        scores: { ...dims(4), purpose_clarity: { score: 7, justification: 'x' } },
      }),
      chat(toolReply(4)),
    ];
    const cacheFile = join(dir, 'cache.json');
    const judge = new LlmJudge({
      baseUrl,
      model: 'fake-model',
      apiKey: 'sk-test',
      cacheFile,
      retryDelayMs: 1,
    });
    const r = await scoreTool(tool, ['notes_search'], { judge });
    expect(r.tdqs).toBe(4);
    expect(r.justifications.usage_guidelines.justification).toBe('The text supports 4.');
    expect(requests).toHaveLength(3);
    expect(requests[0]?.auth).toBe('Bearer sk-test');
    expect(requests[0]?.body.model).toBe('fake-model');
    const user = requests[0]?.body.messages[1]?.content ?? '';
    expect(user).toContain('Tool name: notes_read');
    expect(user).toContain('schema description coverage: 100%');
    expect(user).toContain('notes_search');
    expect(requests[2]?.body.messages.at(-1)?.content).toMatch(/purpose_clarity\.score/);

    // Same definition again: served from memory, no request.
    await scoreTool(tool, ['renamed_sibling'], { judge });
    expect(requests).toHaveLength(3);
    // A fresh judge reads the cache file: still no request.
    const again = new LlmJudge({ baseUrl, model: 'fake-model', cacheFile });
    const r2 = await scoreTool(tool, [], { judge: again });
    expect(r2.scores).toEqual(r.scores);
    expect(again.requestCount).toBe(0);
    expect(JSON.parse(readFileSync(cacheFile, 'utf8')).format).toBe('lectern-lint-judge-cache');
    // A changed description re-enters judgement.
    queue = [chat(toolReply(5))];
    const changed = await scoreTool(
      { ...tool, description: 'Read one note section by its anchor.' },
      [],
      { judge: again },
    );
    expect(changed.tdqs).toBe(5);
    expect(again.requestCount).toBe(1);
  });

  it('retries 5xx and 429 with backoff, and fails clearly on 4xx or endless bad replies', async () => {
    queue = [
      { status: 503, body: 'busy' },
      { status: 429, body: 'slow down' },
      chat(toolReply(3, true)),
    ];
    const judge = new LlmJudge({ baseUrl, model: 'm', retryDelayMs: 1 });
    const r = await scoreTool(tool, [], { judge });
    expect(r.flags).toContain('Annotation Contradiction');
    expect(requests).toHaveLength(3);

    queue = [{ status: 401, body: '{"error":"bad key"}' }];
    await expect(scoreTool({ ...tool, name: 'other' }, [], { judge })).rejects.toThrow(/HTTP 401/);

    queue = [chat('{}'), chat('{}'), chat('{}')];
    await expect(scoreTool({ ...tool, name: 'third' }, [], { judge })).rejects.toThrow(
      LlmJudgeError,
    );
  });

  it('judges coherence and keeps only shadowing risks the prefilter proposed', async () => {
    const cheap: ToolInput = {
      name: 'get_stat',
      description: 'Return one stat for a player and season.',
      inputSchema: {
        type: 'object',
        properties: { a: {}, b: {}, c: {}, d: {} },
        required: ['a', 'b', 'c', 'd'],
      },
    };
    const dear: ToolInput = {
      name: 'query_panel',
      description: 'Query one stat for a player and season over the panel.',
      inputSchema: {
        type: 'object',
        properties: {
          q: {
            type: 'object',
            properties: {
              a: {},
              b: {},
              c: {
                type: 'object',
                oneOf: [
                  { type: 'object', properties: { k: {} }, required: ['k'] },
                  { type: 'object' },
                  { type: 'object' },
                ],
              },
            },
            required: ['a', 'b', 'c'],
          },
        },
        required: ['q'],
      },
    };
    queue = [
      chat(toolReply(4)),
      chat(toolReply(4)),
      () =>
        chat({
          scores: {
            disambiguation: { score: 3, justification: 'x' },
            naming_consistency: { score: 4, justification: 'x' },
            tool_count_appropriateness: { score: 3, justification: 'x' },
            completeness: { score: 4, justification: 'x' },
          },
          shadowing_risks: [
            {
              tool: 'query_panel',
              cheaper_sibling: 'get_stat',
              justification: 'Same answer, cheaper call.',
            },
            {
              tool: 'get_stat',
              cheaper_sibling: 'query_panel',
              justification: 'invented and backwards',
            },
          ],
          summary: 'ok',
        }),
    ];
    const judge = new LlmJudge({ baseUrl, model: 'm', retryDelayMs: 1 });
    const { tools, server: s } = await scoreServer([cheap, dear], {
      judge,
      serverName: 'stats',
      concurrency: 1,
    });
    expect(requests[2]?.body.messages[1]?.content).toContain(
      'query_panel (cost 13) may be shadowed by get_stat (cost 4)',
    );
    expect(s.coherenceScore).toBe(3.5);
    expect(s.shadowingRisks).toEqual([
      {
        tool: 'query_panel',
        invocationCost: 13,
        cheaperSibling: 'get_stat',
        cheaperSiblingInvocationCost: 4,
        justification: 'Same answer, cheaper call.',
      },
    ]);
    expect(tools.find((t) => t.name === 'query_panel')?.serverFlags).toEqual(['Shadowing Risk']);
    expect(tools.find((t) => t.name === 'get_stat')?.serverFlags).toEqual([]);
  });

  it('reads its configuration from the environment and refuses a missing URL or model', () => {
    const j = LlmJudge.fromEnv({
      LECTERN_LINT_LLM_BASE_URL: `${baseUrl}/`,
      LECTERN_LINT_LLM_MODEL: 'm1',
      OPENAI_API_KEY: 'k',
    });
    expect(j.name).toBe('llm:m1');
    expect(j.options.baseUrl).toBe(baseUrl);
    expect(j.options.apiKey).toBe('k');
    expect(() => LlmJudge.fromEnv({ LECTERN_LINT_LLM_MODEL: 'm' })).toThrow(/base URL/);
    expect(() => LlmJudge.fromEnv({ LECTERN_LINT_LLM_BASE_URL: baseUrl })).toThrow(/model/);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{oops');
    const bad = new LlmJudge({ baseUrl, model: 'm', cacheFile: broken });
    return expect(scoreTool(tool, [], { judge: bad })).rejects.toThrow(/not valid JSON/);
  });

  it('sends the calibration examples and re-judges a cache entry that no longer validates', async () => {
    const cacheFile = join(dir, 'cache.json');
    queue = [chat(toolReply(3))];
    const judge = new LlmJudge({ baseUrl, model: 'm', cacheFile, retryDelayMs: 1 });
    await scoreTool(tool, [], { judge });
    const system = requests[0]?.body.messages[0]?.content ?? '';
    expect(system).toContain('update_drive');
    expect(system).toContain('annotation_contradiction true');
    const cache = JSON.parse(readFileSync(cacheFile, 'utf8'));
    const [key] = Object.keys(cache.entries);
    expect(key).toMatch(new RegExp(`^tool:m:p${PROMPT_VERSION}:[0-9a-f]{16}$`));
    cache.entries[key as string].scores.purpose_clarity.score = 9;
    writeFileSync(cacheFile, JSON.stringify(cache));
    queue = [chat(toolReply(4))];
    const fresh = new LlmJudge({ baseUrl, model: 'm', cacheFile, retryDelayMs: 1 });
    const r = await scoreTool(tool, [], { judge: fresh });
    expect(fresh.requestCount).toBe(1);
    expect(r.tdqs).toBe(4);
    const repaired = JSON.parse(readFileSync(cacheFile, 'utf8'));
    expect(repaired.entries[key as string].scores.purpose_clarity.score).toBe(4);
  });

  it('runs from the CLI with --judge llm, reading the key from the named variable, and caches', async () => {
    const file = join(dir, 'tools.json');
    writeFileSync(file, JSON.stringify({ tools: [tool] }));
    const cacheFile = join(dir, 'judge-cache.json');
    const coherence = chat({
      scores: {
        disambiguation: { score: 5, justification: 'x' },
        naming_consistency: { score: 5, justification: 'x' },
        tool_count_appropriateness: { score: 2, justification: 'x' },
        completeness: { score: 3, justification: 'x' },
      },
      shadowing_risks: [],
      summary: 'One tool.',
    });
    const run = async () => {
      let stdout = '';
      let stderr = '';
      const code = await runLintCli(
        [
          'lint',
          file,
          '--format',
          'json',
          '--judge',
          'llm',
          '--llm-base-url',
          baseUrl,
          '--llm-model',
          'fake-model',
          '--llm-api-key-env',
          'MY_KEY',
          '--llm-cache',
          cacheFile,
          '--min-tdqs',
          '4.5',
        ],
        {
          stdout: { write: (t: string) => (stdout += t) },
          stderr: { write: (t: string) => (stderr += t) },
          env: { MY_KEY: 'sk-from-env' },
        },
      );
      return { code, stdout, stderr };
    };
    queue = [chat(toolReply(4)), coherence];
    const first = await run();
    expect(first.code).toBe(1);
    const report = JSON.parse(first.stdout);
    expect(report.judge).toBe('llm:fake-model');
    expect(report.tools[0].tdqs).toBe(4);
    expect(report.server.coherenceScore).toBe(3.8);
    expect(requests.map((r) => r.auth)).toEqual(['Bearer sk-from-env', 'Bearer sk-from-env']);
    const second = await run();
    expect(second.code).toBe(1);
    expect(requests).toHaveLength(2);
    expect(JSON.parse(second.stdout).tools[0].scores).toEqual(report.tools[0].scores);
  });
});
