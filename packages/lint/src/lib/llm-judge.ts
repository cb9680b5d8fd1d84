import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '@lectern/core';
import { z } from 'zod';
import { canonicalJson } from './canonical.js';
import {
  PROMPT_VERSION,
  SERVER_SYSTEM_PROMPT,
  serverUserMessage,
  TOOL_SYSTEM_PROMPT,
  toolUserMessage,
} from './prompts.js';
import {
  COHERENCE_DIMENSIONS,
  type CoherenceJudgeInput,
  type CoherenceJudgement,
  DIMENSIONS,
  type Judge,
  type ToolJudgeInput,
  type ToolJudgement,
} from './types.js';

const scored = z.object({
  score: z.number().int().min(1).max(5).describe('Integer score 1-5.'),
  justification: z.string().min(1).describe('Why, citing the description.'),
});

/** The reply contract for one tool: six scored dimensions, the contradiction flag, a summary. */
export const ToolReplySchema = z.object({
  scores: z.object({
    purpose_clarity: scored,
    usage_guidelines: scored,
    behavioral_transparency: scored,
    parameter_semantics: scored,
    conciseness_structure: scored,
    contextual_completeness: scored,
  }),
  annotation_contradiction: z
    .boolean()
    .describe('True when the description contradicts the annotations.'),
  summary: z.string().describe('Two or three sentences.'),
});

/** The reply contract for a server: four coherence dimensions, confirmed risks, a summary. */
export const ServerReplySchema = z.object({
  scores: z.object({
    disambiguation: scored,
    naming_consistency: scored,
    tool_count_appropriateness: scored,
    completeness: scored,
  }),
  shadowing_risks: z
    .array(
      z.object({
        tool: z.string().describe('The dearer tool.'),
        cheaper_sibling: z.string().describe('The cheaper sibling.'),
        justification: z.string().describe('Why the purposes overlap.'),
      }),
    )
    .describe('Confirmed pairs, only from the supplied candidates.'),
  summary: z.string().describe('Two or three sentences.'),
});

const cachedDim = z.object({ score: z.number().int().min(1).max(5), justification: z.string() });

/** A cached tool judgement, checked on read so a hand-edited cache cannot inject bad scores. */
const CachedToolSchema = z.object({
  scores: z.object(
    Object.fromEntries(DIMENSIONS.map((d) => [d, cachedDim])) as Record<
      (typeof DIMENSIONS)[number],
      typeof cachedDim
    >,
  ),
  annotationContradiction: z.boolean(),
  summary: z.string(),
});

/** A cached server judgement, checked on read. */
const CachedServerSchema = z.object({
  scores: z.object(
    Object.fromEntries(COHERENCE_DIMENSIONS.map((d) => [d, cachedDim])) as Record<
      (typeof COHERENCE_DIMENSIONS)[number],
      typeof cachedDim
    >,
  ),
  shadowingRisks: z.array(
    z.object({ tool: z.string(), cheaperSibling: z.string(), justification: z.string() }),
  ),
  summary: z.string(),
});

/** Configuration of {@link LlmJudge}. */
export interface LlmJudgeOptions {
  /** Base URL of an OpenAI-compatible API, e.g. `https://api.openai.com/v1` (`/chat/completions` is appended). */
  baseUrl: string;
  /** Model name sent with every request. */
  model: string;
  /** Bearer token; omitted from requests when empty. */
  apiKey?: string;
  /** JSON file caching judgements by input hash; none (memory only) when omitted. */
  cacheFile?: string;
  /** Extra attempts after an invalid reply or a retryable HTTP error (429, 5xx, network). Default 2. */
  maxRetries?: number;
  /** Per-request timeout in milliseconds. Default 60000. */
  timeoutMs?: number;
  /** Base delay before a retry after an HTTP error, doubled each time. Default 500 ms. */
  retryDelayMs?: number;
  /** Sampling temperature. Default 0. */
  temperature?: number;
  /** Fetch implementation (for tests or proxies). Default the global `fetch`. */
  fetch?: typeof fetch;
}

/** An LLM judge failure: bad configuration, an HTTP error, or replies that never validated. */
export class LlmJudgeError extends Error {
  override readonly name = 'LlmJudgeError';
}

interface CacheFile {
  format: 'lectern-lint-judge-cache';
  version: 1;
  entries: Record<string, unknown>;
}

function sha16(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
}

function extractJson(content: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(content);
  const body = fenced?.[1] ?? content;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('the reply contains no JSON object');
  return JSON.parse(body.slice(start, end + 1));
}

type Message = { role: 'system' | 'user' | 'assistant'; content: string };

/**
 * The optional stage 3 judge: an LLM behind an OpenAI-compatible `/chat/completions` endpoint.
 * Replies are validated with zod (integer scores 1–5, every field present) and retried with the
 * validation error on mismatch; HTTP 429/5xx and network errors are retried with backoff.
 * Judgements are cached by model, prompt version and the tool's `inputHash` (definition fields
 * only), in memory and optionally in a JSON file, so an unchanged tool is never judged twice.
 */
export class LlmJudge implements Judge {
  readonly name: string;
  readonly options: Readonly<Required<Omit<LlmJudgeOptions, 'apiKey' | 'cacheFile' | 'fetch'>>> &
    Pick<LlmJudgeOptions, 'apiKey' | 'cacheFile'>;
  /** Requests sent to the endpoint so far (cache hits send none). */
  requestCount = 0;
  private readonly fetchImpl: typeof fetch;
  private cache: Map<string, unknown> | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(options: LlmJudgeOptions) {
    if (!options.baseUrl || !/^https?:\/\//.test(options.baseUrl)) {
      throw new LlmJudgeError(
        `LLM judge needs an http(s) base URL (e.g. https://api.openai.com/v1), got "${options.baseUrl ?? ''}".`,
      );
    }
    if (!options.model) throw new LlmJudgeError('LLM judge needs a model name.');
    this.options = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      model: options.model,
      apiKey: options.apiKey,
      cacheFile: options.cacheFile,
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 60_000,
      retryDelayMs: options.retryDelayMs ?? 500,
      temperature: options.temperature ?? 0,
    };
    this.fetchImpl = options.fetch ?? fetch;
    this.name = `llm:${options.model}`;
  }

  /**
   * Builds a judge from environment variables: `LECTERN_LINT_LLM_BASE_URL` (else
   * `OPENAI_BASE_URL`), `LECTERN_LINT_LLM_MODEL`, `LECTERN_LINT_LLM_API_KEY` (else
   * `OPENAI_API_KEY`) and `LECTERN_LINT_LLM_CACHE`; `overrides` win over the environment.
   */
  static fromEnv(
    env: NodeJS.ProcessEnv = process.env,
    overrides: Partial<LlmJudgeOptions> = {},
  ): LlmJudge {
    return new LlmJudge({
      baseUrl: overrides.baseUrl ?? env.LECTERN_LINT_LLM_BASE_URL ?? env.OPENAI_BASE_URL ?? '',
      model: overrides.model ?? env.LECTERN_LINT_LLM_MODEL ?? '',
      apiKey: overrides.apiKey ?? env.LECTERN_LINT_LLM_API_KEY ?? env.OPENAI_API_KEY,
      cacheFile: overrides.cacheFile ?? env.LECTERN_LINT_LLM_CACHE,
      ...Object.fromEntries(
        Object.entries(overrides).filter(
          ([k, v]) => v !== undefined && !['baseUrl', 'model', 'apiKey', 'cacheFile'].includes(k),
        ),
      ),
    });
  }

  private loadCache(): Map<string, unknown> {
    if (this.cache) return this.cache;
    this.cache = new Map();
    const file = this.options.cacheFile;
    if (file) {
      let text: string | undefined;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      if (text !== undefined) {
        let parsed: CacheFile;
        try {
          parsed = JSON.parse(text) as CacheFile;
        } catch {
          throw new LlmJudgeError(
            `judge cache ${file} is not valid JSON; delete it to start over.`,
          );
        }
        if (parsed?.format !== 'lectern-lint-judge-cache' || typeof parsed.entries !== 'object') {
          throw new LlmJudgeError(`judge cache ${file} is not a lectern-lint cache file.`);
        }
        for (const [k, v] of Object.entries(parsed.entries)) this.cache.set(k, v);
      }
    }
    return this.cache;
  }

  private async remember(key: string, value: unknown): Promise<void> {
    const cache = this.loadCache();
    cache.set(key, value);
    const file = this.options.cacheFile;
    if (!file) return;
    const snapshot: CacheFile = {
      format: 'lectern-lint-judge-cache',
      version: 1,
      entries: Object.fromEntries([...cache.entries()].sort(([a], [b]) => (a < b ? -1 : 1))),
    };
    this.writing = this.writing.then(() =>
      writeFileAtomic(file, `${JSON.stringify(snapshot, null, 2)}\n`),
    );
    await this.writing;
  }

  private async post(messages: Message[]): Promise<string> {
    const { baseUrl, model, apiKey, timeoutMs, temperature, maxRetries, retryDelayMs } =
      this.options;
    let lastError = '';
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      if (attempt > 0 && lastError) {
        await new Promise((r) => setTimeout(r, retryDelayMs * 2 ** (attempt - 1)));
      }
      this.requestCount++;
      let res: Response;
      try {
        res = await this.fetchImpl(`${baseUrl}/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          },
          body: JSON.stringify({
            model,
            temperature,
            messages,
            response_format: { type: 'json_object' },
          }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        lastError = `request to ${baseUrl} failed: ${(error as Error).message}`;
        continue;
      }
      const body = await res.text();
      if (res.status === 429 || res.status >= 500) {
        lastError = `HTTP ${res.status} from ${baseUrl}: ${body.slice(0, 200)}`;
        continue;
      }
      if (!res.ok) {
        throw new LlmJudgeError(`HTTP ${res.status} from ${baseUrl}: ${body.slice(0, 300)}`);
      }
      let content: unknown;
      try {
        content = (JSON.parse(body) as { choices?: { message?: { content?: unknown } }[] })
          .choices?.[0]?.message?.content;
      } catch {
        throw new LlmJudgeError(`${baseUrl} did not answer with JSON: ${body.slice(0, 200)}`);
      }
      if (typeof content !== 'string') {
        throw new LlmJudgeError(`${baseUrl} answered without choices[0].message.content.`);
      }
      return content;
    }
    throw new LlmJudgeError(`${lastError} (gave up after ${maxRetries + 1} attempts)`);
  }

  private async ask<T>(system: string, user: string, schema: z.ZodType<T>): Promise<T> {
    const messages: Message[] = [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ];
    let problem = '';
    for (let attempt = 0; attempt <= this.options.maxRetries; attempt++) {
      const content = await this.post(messages);
      try {
        const parsed = schema.safeParse(extractJson(content));
        if (parsed.success) return parsed.data;
        const issue = parsed.error.issues[0];
        problem = `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`;
      } catch (error) {
        problem = (error as Error).message;
      }
      messages.push(
        { role: 'assistant', content },
        {
          role: 'user',
          content: `That reply does not match the required shape (${problem}). Reply again with JSON only, in exactly the shape given.`,
        },
      );
    }
    throw new LlmJudgeError(
      `the model's replies never matched the schema after ${this.options.maxRetries + 1} attempts (last problem: ${problem}).`,
    );
  }

  /**
   * Judges one tool, or returns the cached judgement for the same model, prompt version and
   * input hash (a cache entry that no longer validates is judged again and replaced).
   */
  async judgeTool(input: ToolJudgeInput): Promise<ToolJudgement> {
    const key = `tool:${this.options.model}:p${PROMPT_VERSION}:${input.signals.inputHash}`;
    const cached = CachedToolSchema.safeParse(this.loadCache().get(key));
    if (cached.success) return cached.data;
    const reply = await this.ask(TOOL_SYSTEM_PROMPT, toolUserMessage(input), ToolReplySchema);
    const judgement: ToolJudgement = {
      scores: Object.fromEntries(
        DIMENSIONS.map((d) => [
          d,
          { score: reply.scores[d].score, justification: reply.scores[d].justification },
        ]),
      ) as ToolJudgement['scores'],
      annotationContradiction: reply.annotation_contradiction,
      summary: reply.summary,
    };
    await this.remember(key, judgement);
    return judgement;
  }

  /** Judges server coherence and the supplied shadow candidates (cached by the whole input). */
  async judgeServer(input: CoherenceJudgeInput): Promise<CoherenceJudgement> {
    const key = `server:${this.options.model}:p${PROMPT_VERSION}:${sha16(canonicalJson(input))}`;
    const cached = CachedServerSchema.safeParse(this.loadCache().get(key));
    if (cached.success) return cached.data;
    const reply = await this.ask(SERVER_SYSTEM_PROMPT, serverUserMessage(input), ServerReplySchema);
    const judgement: CoherenceJudgement = {
      scores: Object.fromEntries(
        COHERENCE_DIMENSIONS.map((d) => [
          d,
          { score: reply.scores[d].score, justification: reply.scores[d].justification },
        ]),
      ) as CoherenceJudgement['scores'],
      shadowingRisks: reply.shadowing_risks.map((r) => ({
        tool: r.tool,
        cheaperSibling: r.cheaper_sibling,
        justification: r.justification,
      })),
      summary: reply.summary,
    };
    await this.remember(key, judgement);
    return judgement;
  }
}
