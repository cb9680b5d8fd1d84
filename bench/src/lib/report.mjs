// Result rows, the printed table and the Markdown summary.
import { pairedRatio, quantile, round, summarize } from './stats.mjs';

/**
 * One comparison row. `samples` holds `lectern` (through an MCP client over stdio; omit when
 * the package is not served over MCP), `handler` (the tool or library called in-process) and
 * `peer`, index i of each being round (or query) i. `headline` is 'median' (default) or 'p95'.
 */
export function makeRow({
  scenario,
  measure,
  peer,
  samples,
  headline = 'median',
  rssMb = null,
  peerRssMb = null,
  bytes,
  note,
  details,
}) {
  const pick = (xs) => {
    if (!xs || xs.length === 0) return null;
    const s = summarize(xs);
    if (headline === 'p95') s.value = s.p95;
    else s.value = s.median;
    return s;
  };
  const ratio = (a, b) => {
    if (!a || a.length === 0) return null;
    if (headline === 'median') return pairedRatio(a, b);
    const sa = [...a].sort((x, y) => x - y);
    const sb = [...b].sort((x, y) => x - y);
    const r = pairedRatio(a, b);
    return { ...r, value: round(quantile(sa, 0.95) / quantile(sb, 0.95)) };
  };
  const row = {
    scenario,
    measure,
    headline,
    lectern_mcp: pick(samples.lectern),
    handler: pick(samples.handler),
    peer: { name: peer, ...pick(samples.peer) },
    ratio_mcp: ratio(samples.lectern, samples.peer),
    ratio_handler: ratio(samples.handler, samples.peer),
    server_peak_rss_mb: rssMb,
    peer_peak_rss_mb: peerRssMb,
  };
  if (bytes) {
    const mbps = (ms) => (ms > 0 ? round(bytes / 1e6 / (ms / 1000)) : null);
    row.throughput_mb_s = {
      lectern_mcp: row.lectern_mcp ? mbps(row.lectern_mcp.value) : null,
      handler: row.handler ? mbps(row.handler.value) : null,
      peer: mbps(row.peer.value),
    };
  }
  if (note) row.note = note;
  if (details) row.details = details;
  return row;
}

/** Milliseconds for people: µs under 1 ms, s over 10 s. */
export function fmtMs(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1) return `${round(ms * 1000)} µs`;
  if (ms >= 10_000) return `${round(ms / 1000)} s`;
  return `${round(ms)} ms`;
}

function fmtRatio(r) {
  if (!r || !Number.isFinite(r.value)) return '—';
  return `${r.value}`;
}

function fmtSpread(r) {
  if (!r || !Number.isFinite(r.low)) return '';
  return `${r.low}–${r.high}`;
}

const HEADERS = [
  'scenario',
  'measure',
  'Lectern (MCP)',
  'handler only',
  'peer',
  'peer time',
  'MCP / peer',
  'spread',
  'handler / peer',
  'server RSS',
];

/**
 * A figure in its row's unit: milliseconds by default; `tokens`, `answered` (of the row's n
 * questions) and `share` for the agent scenario's counts.
 */
export function fmtValue(figure, unit) {
  if (!figure || figure.value === null || figure.value === undefined) return '—';
  if (unit === 'tokens') return `${Math.round(figure.value).toLocaleString('en-US')} tok`;
  if (unit === 'answered') return `${figure.value}/${figure.n}`;
  if (unit === 'share') return `${Math.round(figure.value * 100)}%`;
  return fmtMs(figure.value);
}

/** The rows as arrays of cells, in HEADERS order (relevance figures have their own table). */
export function tableCells(rows) {
  return timed(rows).map((r) => [
    r.scenario,
    r.measure + (r.headline === 'p95' ? ' (p95)' : ''),
    fmtValue(r.lectern_mcp, r.unit),
    fmtValue(r.handler, r.unit),
    r.peer.name,
    fmtValue(r.peer, r.unit),
    fmtRatio(r.ratio_mcp),
    fmtSpread(r.ratio_mcp ?? r.ratio_handler),
    fmtRatio(r.ratio_handler),
    r.server_peak_rss_mb ? `${Math.round(r.server_peak_rss_mb)} MB` : '—',
  ]);
}

const timed = (rows) => rows.filter((r) => r.headline !== 'quality');
const quality = (rows) => rows.filter((r) => r.headline === 'quality');

const QUALITY_HEADERS = [
  'split',
  'ranking',
  'nDCG@10',
  'Recall@10',
  'Recall@100',
  'refused',
  'top-10 shared with SQLite',
  'handler p50',
  'handler p95',
];

/** The relevance rows (headline 'quality') as cells: one line per split and ranking. */
export function qualityCells(rows) {
  const num = (x) => (x === null || x === undefined ? '—' : x.toFixed(3));
  return quality(rows).flatMap((r) =>
    r.quality.systems.map((s) => [
      `${r.quality.split} (${r.quality.questions})`,
      s.name,
      num(s.ndcg10),
      num(s.recall10),
      num(s.recall100),
      s.key === 'reference' ? '—' : `${s.refused} of ${r.quality.questions}`,
      s.key === 'postgres' ? num(r.quality.overlap_top10.sqlite_postgres) : '',
      s.handler_p50_ms === undefined ? '—' : fmtMs(s.handler_p50_ms),
      s.handler_p95_ms === undefined ? '—' : fmtMs(s.handler_p95_ms),
    ]),
  );
}

function fixedWidth(headers, body) {
  const cells = [headers, ...body];
  const widths = headers.map((_, i) => Math.max(...cells.map((c) => String(c[i]).length)));
  const line = (c) => c.map((x, i) => String(x).padEnd(widths[i])).join('  ');
  return [
    line(cells[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.slice(1).map(line),
  ].join('\n');
}

/** The relevance table for the terminal, or '' when no relevance row was measured. */
export function qualityTextTable(rows) {
  return quality(rows).length ? fixedWidth(QUALITY_HEADERS, qualityCells(rows)) : '';
}

/** The relevance table in Markdown, or '' when no relevance row was measured. */
export function qualityMarkdownTable(rows) {
  if (quality(rows).length === 0) return '';
  const esc = (s) => String(s).replaceAll('|', '\\|');
  return [
    `| ${QUALITY_HEADERS.join(' | ')} |`,
    `|${QUALITY_HEADERS.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...qualityCells(rows).map((c) => `| ${c.map(esc).join(' | ')} |`),
  ].join('\n');
}

/** A fixed-width text table for the terminal. */
export function textTable(rows) {
  return fixedWidth(HEADERS, tableCells(rows));
}

/** A Markdown table of the rows. */
export function markdownTable(rows) {
  const esc = (s) => String(s).replaceAll('|', '\\|');
  return [
    `| ${HEADERS.join(' | ')} |`,
    `|${HEADERS.map((_, i) => (i < 2 || i === 4 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...tableCells(rows).map((c) => `| ${c.map(esc).join(' | ')} |`),
  ].join('\n');
}

/** The Markdown summary written beside the JSON. */
export function markdownReport(result) {
  const peers = Object.entries(result.versions.peers)
    .map(([k, v]) => `${k} ${String(v).replace(/^ripgrep /, '')}`)
    .join(', ');
  const notes = result.rows
    .filter((r) => r.note)
    .map((r) => `- **${r.scenario} / ${r.measure}**: ${r.note}`);
  const c = result.corpora;
  return [
    `# Lectern benchmark, ${result.date}${result.mode === 'full' ? '' : ` (${result.mode} mode)`}`,
    '',
    `Machine: ${result.machine.cpus} × ${result.machine.cpu_model}, ${result.machine.memory_gb} GB RAM, ${result.machine.os}${result.machine.load_average_1min ? `, load average ${result.machine.load_average_1min.start} at start and ${result.machine.load_average_1min.end} at end` : ''}; Node ${result.versions.node}; Lectern ${result.versions.lectern}.`,
    `Peers: ${peers}. Seed ${result.seed}; ${result.duration_s} s in all.`,
    `Corpora: docs tree ${c.docs.mb} MB in ${c.docs.files} files (largest doc ${c.docs.big_mb} MB); text file ${c.text.mib} MiB, ${c.text.lines} lines; ${c.notes.files} notes, ${c.notes.mb} MB; wiki of ${c.wiki.pages} pages.`,
    '',
    'Times are medians of the recorded rounds (p95 where marked); ratios are Lectern time divided by',
    'the peer time of the same rounds, so **below 1 means Lectern is faster**; the spread is the',
    'lowest and highest ratio of a single round (p10–p90 for per-query rows). "Lectern (MCP)" goes',
    'through the SDK client over stdio to the `lectern` binary; "handler only" calls the same tool',
    'in-process. Server RSS is the peak resident memory (VmHWM) of the server process so far.',
    '',
    markdownTable(result.rows),
    '',
    ...(qualityMarkdownTable(result.rows)
      ? [
          '## Relevance (Cranfield)',
          '',
          'nDCG@10 with linear gains (as trec_eval ndcg_cut.10), Recall@10 and Recall@100, means over',
          'the questions of each split (all; dev = even positions of queries.json, on which field',
          'weights may be tuned; test = odd positions, reported and never tuned to); a refused question',
          'scores 0. "top-10 shared with SQLite" is the mean of |top 10 on SQLite ∩ top 10 on',
          'PostgreSQL| / 10. Handler p50/p95: the in-process search of each question (MiniSearch: timed',
          'inside its process).',
          '',
          qualityMarkdownTable(result.rows),
          '',
        ]
      : []),
    ...(notes.length ? ['Notes:', '', ...notes, ''] : []),
    ...(result.errors?.length
      ? [
          'Failed scenarios:',
          '',
          ...result.errors.map((e) => `- **${e.scenario}**: ${e.message.split('\n')[0]}`),
          '',
        ]
      : []),
  ].join('\n');
}
