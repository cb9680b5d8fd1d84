import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { RawQueryError } from '../backend/types.js';
import { MemoryError } from './errors.js';

/**
 * Bounds on a raw full-text expression, checked before it runs. A raw `NEAR(a* a* …, 100000)`
 * of 973 characters ran 22-27 s on 5,000 notes (issue 30 #6): each prefix term expands to every
 * indexed word it begins, and NEAR compares their positions.
 */
export const RAW_LIMITS = Object.freeze({
  /** Most prefix terms (`word*`, `word:*`) in one expression. */
  maxPrefixTerms: 8,
  /** Most NEAR groups in one expression. */
  maxNearGroups: 2,
  /** Largest NEAR distance, in tokens. */
  maxNearDistance: 50,
  /** Most phrases inside one NEAR group. */
  maxNearPhrases: 8,
});

/**
 * Time a raw expression may take before it is stopped, in ms: on the embedded (SQLite) index
 * in a timing process, on PostgreSQL as the statements' `statement_timeout`.
 */
export const RAW_BUDGET_MS = 2000;

/** The `QUERY_TOO_SLOW` error of a raw expression stopped past its time budget. */
export function rawTooSlow(budgetMs: number): MemoryError {
  return new MemoryError(
    'QUERY_TOO_SLOW',
    `{param:query} ran past the ${budgetMs} ms time budget of a raw query and was stopped; use fewer prefix terms or a narrower NEAR (or phrase distance), or call again without {param:raw}.`,
    { param: 'query', details: { budget_ms: budgetMs } },
  );
}
/** Time allowed to start the timing process and open the index, before the budget runs. */
const STARTUP_ALLOWANCE_MS = 30_000;

function tooComplex(limit: keyof typeof RAW_LIMITS, value: number): MemoryError {
  const what: Record<keyof typeof RAW_LIMITS, string> = {
    maxPrefixTerms: 'prefix terms (word*)',
    maxNearGroups: 'NEAR groups',
    maxNearDistance: 'as its NEAR distance',
    maxNearPhrases: 'phrases in one NEAR group',
  };
  const max = RAW_LIMITS[limit];
  const has = limit === 'maxNearDistance' ? `${value} ${what[limit]}` : `${value} ${what[limit]}`;
  return new MemoryError(
    'QUERY_TOO_COMPLEX',
    `{param:query} has ${has}; a raw expression allows at most ${max} (${limit}). Use fewer or longer prefixes and a smaller NEAR, or call again without {param:raw}.`,
    { param: 'query', details: { limit, max, value } },
  );
}

/** Throws `QUERY_TOO_COMPLEX` (naming the limit) for a raw expression past {@link RAW_LIMITS}. */
export function checkRawSyntax(text: string): void {
  // Quoted strings are phrases: their `*` and `NEAR` are words, not operators.
  const bare = text.replace(/"(?:[^"]|"")*"/g, (phrase) => (/\*\s*$/.test(phrase) ? 'p*' : 'p'));
  const prefixes = (bare.match(/[^\s*():^"]:?\*/g) ?? []).length;
  if (prefixes > RAW_LIMITS.maxPrefixTerms) throw tooComplex('maxPrefixTerms', prefixes);
  const groups = [...bare.matchAll(/\bNEAR\s*\(([^)]*)\)/g)];
  if (groups.length > RAW_LIMITS.maxNearGroups) throw tooComplex('maxNearGroups', groups.length);
  for (const g of groups) {
    const body = g[1]!;
    const distance = /,\s*(\d+)\s*$/.exec(body);
    if (distance && Number(distance[1]) > RAW_LIMITS.maxNearDistance) {
      throw tooComplex('maxNearDistance', Number(distance[1]));
    }
    const phrases = body
      .replace(/,\s*\d+\s*$/, '')
      .trim()
      .split(/\s+/)
      .filter(Boolean).length;
    if (phrases > RAW_LIMITS.maxNearPhrases) throw tooComplex('maxNearPhrases', phrases);
  }
}

/**
 * True when a raw expression can cost more than merging its words' lists: it has a prefix term
 * or a NEAR group (outside quotes a `*` is always a prefix; `NEAR` is the operator).
 */
export function mayBeCostly(text: string): boolean {
  const bare = text.replace(/"(?:[^"]|"")*"/g, (phrase) => (/\*\s*$/.test(phrase) ? 'p*' : 'p'));
  return bare.includes('*') || /\bNEAR\b/.test(bare);
}

const TIMER = `
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const { module, path, q } = JSON.parse(input);
  let db;
  let out;
  try {
    const Database = require(module);
    db = new Database(path, { readonly: true, fileMustExist: true });
    const statement = db.prepare('SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT 1');
    // Ready: the budget is for the query, not for starting a process on a busy machine.
    process.stdout.write('r');
    statement.all(q);
    out = { ok: true };
  } catch (e) {
    out = { ok: false, code: e && e.code, message: String((e && e.message) || e) };
  }
  try { if (db) db.close(); } catch {}
  process.stdout.write(JSON.stringify(out));
});
`;

/**
 * Runs a raw FTS5 expression against the SQLite index at `dbPath` in a child process with its
 * own read-only connection, so the server's thread is never held by it. better-sqlite3 offers
 * no progress handler or interrupt (and a worker thread cannot be stopped inside SQLite), so the
 * expression is timed there first: past `budgetMs` the process is killed (SIGKILL frees its CPU
 * at once) and `QUERY_TOO_SLOW` thrown; bad syntax is a {@link RawQueryError}. The cost is one
 * short-lived process per raw query.
 */
export async function timeRawQuery(
  dbPath: string,
  text: string,
  budgetMs = RAW_BUDGET_MS,
): Promise<void> {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const child = spawn(process.execPath, ['-e', TIMER], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let out = '';
  let startBudget: (() => void) | undefined;
  child.stdout.on('data', (d) => {
    out += String(d);
    if (out.startsWith('r')) startBudget?.();
  });
  child.stdin.on('error', () => {});
  child.stdin.end(JSON.stringify({ module, path: dbPath, q: text }));
  const outcome = await new Promise<{ ok: boolean; code?: string; message?: string } | 'timeout'>(
    (resolve) => {
      const stop = () => {
        child.kill('SIGKILL');
        resolve('timeout');
      };
      // Starting the process gets its own generous allowance; the budget runs once it is ready.
      let timer = setTimeout(stop, STARTUP_ALLOWANCE_MS + budgetMs);
      startBudget = () => {
        startBudget = undefined;
        clearTimeout(timer);
        timer = setTimeout(stop, budgetMs);
      };
      child.once('error', (e) => {
        clearTimeout(timer);
        resolve({ ok: false, message: e.message });
      });
      child.once('close', () => {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(out.replace(/^r/, '')));
        } catch {
          resolve({ ok: false, message: 'the timing process ended without an answer' });
        }
      });
    },
  );
  if (outcome === 'timeout') throw rawTooSlow(budgetMs);
  // Anything but bad syntax (the database busy or being replaced): the search itself will say.
  if (!outcome.ok && outcome.code === 'SQLITE_ERROR') {
    throw new RawQueryError(outcome.message ?? '');
  }
}
