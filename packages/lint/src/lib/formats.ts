import type { LintReport } from './report.js';
import { DIMENSION_WEIGHTS, DIMENSIONS, type Dimension, type ToolScore } from './types.js';

/** Output formats of the lint command. */
export const REPORT_FORMATS = ['text', 'json', 'sarif', 'github', 'markdown'] as const;

/** One of {@link REPORT_FORMATS}. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const SHORT: Record<Dimension, string> = {
  purpose_clarity: 'pur',
  usage_guidelines: 'use',
  behavioral_transparency: 'beh',
  parameter_semantics: 'par',
  conciseness_structure: 'con',
  contextual_completeness: 'com',
};

const HEADING: Record<Dimension, string> = {
  purpose_clarity: 'Purpose',
  usage_guidelines: 'Usage',
  behavioral_transparency: 'Behaviour',
  parameter_semantics: 'Params',
  conciseness_structure: 'Concise',
  contextual_completeness: 'Complete',
};

/** Tools ordered worst first (lowest TDQS, then name). */
export function worstFirst(tools: readonly ToolScore[]): ToolScore[] {
  return [...tools].sort((a, b) => a.tdqs - b.tdqs || (a.name < b.name ? -1 : 1));
}

/** A suggested change with its weighted headroom (weight × (5 − score)). */
export interface Fix {
  tool: string;
  dimension: Dimension;
  score: number;
  fix: string;
  gain: number;
}

/** Every dimension below 5 that carries a fix, largest weighted headroom first. */
export function topFixes(tools: readonly ToolScore[], limit = 5): Fix[] {
  const all: Fix[] = [];
  for (const t of tools) {
    for (const d of DIMENSIONS) {
      const j = t.justifications[d];
      if (j.score >= 5) continue;
      all.push({
        tool: t.name,
        dimension: d,
        score: j.score,
        fix: j.fix ?? j.justification,
        gain: DIMENSION_WEIGHTS[d] * (5 - j.score),
      });
    }
  }
  return all
    .sort(
      (a, b) =>
        b.gain - a.gain || a.tool.localeCompare(b.tool) || a.dimension.localeCompare(b.dimension),
    )
    .slice(0, limit);
}

/** Each tool's context cost by name (tools the report does not cover are absent). */
function costs(report: LintReport): Map<string, { tokens: number; outputSchemaTokens: number }> {
  return new Map((report.context?.tools ?? []).map((c) => [c.name, c]));
}

/** "1,234 o200k_base tokens over 5 tools (output schemas 300 more)". */
function contextLine(report: LintReport): string {
  const c = report.context;
  if (!c) return 'not measured';
  const s = c.server;
  return `${s.tokens} ${c.encoding} tokens for ${s.toolCount} tool${s.toolCount === 1 ? '' : 's'} (name, title, description, input schema) · output schemas ${s.outputSchemaTokens} more · ${s.chars} characters`;
}

function fmt(n: number | null): string {
  return n === null ? '—' : n.toFixed(1);
}

function tokenText(c: { tokens: number; outputSchemaTokens: number } | undefined): string {
  if (!c) return 'tokens —';
  return `${c.tokens} tokens${c.outputSchemaTokens ? ` (+${c.outputSchemaTokens} output schema)` : ''}`;
}

function tags(t: ToolScore): string {
  return [...t.flags, ...t.serverFlags, ...t.smells.map((s) => `smell:${SHORT[s]}`)].join(', ');
}

function wrap(text: string, width: number, pad: string): string {
  const out: string[] = [];
  let line = '';
  for (const w of text.split(/\s+/)) {
    if (line && line.length + 1 + w.length > width) {
      out.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(line);
  return out.join(`\n${pad}`);
}

/** Readable text: a summary table (worst first), one block per tool with its fixes, the server. */
export function formatText(report: LintReport): string {
  const tools = worstFirst(report.tools);
  const width = Math.max(4, ...tools.map((t) => t.name.length));
  const cost = costs(report);
  const out: string[] = [];
  out.push(
    `lectern-lint · ${report.target} · judge ${report.judge} · ${tools.length} tool${tools.length === 1 ? '' : 's'}`,
  );
  out.push('');
  out.push(
    `TDQS  tier  ${'tool'.padEnd(width)}  ${DIMENSIONS.map((d) => SHORT[d]).join(' ')}  tokens  flags / smells`,
  );
  for (const t of tools) {
    out.push(
      `${t.tdqs.toFixed(1).padStart(4)}  ${t.tier.padEnd(4)}  ${t.name.padEnd(width)}  ${DIMENSIONS.map((d) => String(t.scores[d]).padStart(3)).join(' ')}  ${String(cost.get(t.name)?.tokens ?? '—').padStart(6)}  ${tags(t)}`.trimEnd(),
    );
  }
  for (const t of tools) {
    out.push('');
    out.push(
      `${t.name} · TDQS ${t.tdqs.toFixed(1)} (${t.tier}) · cost ${t.contextSignals.invocationCost} · ${tokenText(cost.get(t.name))} · hash ${t.contextSignals.inputHash}`,
    );
    const dims = [...DIMENSIONS].sort((a, b) => t.scores[a] - t.scores[b]);
    const weak = dims.filter((d) => t.scores[d] < 5);
    if (weak.length === 0) out.push('  all six dimensions at 5');
    for (const d of weak) {
      const j = t.justifications[d];
      out.push(`  ${d.padEnd(24)} ${j.score}  ${wrap(j.justification, 90, ' '.repeat(29))}`);
      if (j.fix) out.push(`  ${''.padEnd(24)}    fix: ${wrap(j.fix, 85, ' '.repeat(34))}`);
    }
  }
  const fixes = topFixes(tools);
  if (fixes.length) {
    out.push('');
    out.push('Top fixes (by weighted headroom)');
    for (const [i, f] of fixes.entries()) {
      out.push(`  ${i + 1}. ${f.tool} · ${f.dimension} (${f.score}): ${f.fix}`);
    }
  }
  const s = report.server;
  out.push('');
  out.push(
    `Server ${s.serverName}: quality ${fmt(s.descriptionQualityScore)} (${s.descriptionQualityTier ?? '—'}) · coherence ${fmt(s.coherenceScore)} (${s.coherenceTier}) · overall ${fmt(s.overallScore)} (${s.overallTier ?? '—'}) · mean ${fmt(s.meanTdqs)} · min ${fmt(s.minTdqs)}`,
  );
  out.push(
    `  disambiguation ${s.disambiguation} · naming ${s.namingConsistency} · tool count ${s.toolCountAppropriateness} · completeness ${s.completeness}`,
  );
  for (const [k, v] of Object.entries(s.coherenceJustifications)) {
    if (v.score < 5) out.push(`  ${k} ${v.score}: ${v.justification}`);
  }
  out.push(`  context cost: ${contextLine(report)}`);
  out.push(
    `  shadow candidates: ${s.shadowCandidates.length ? s.shadowCandidates.map((c) => `${c.tool} (${c.invocationCost}) vs ${c.cheaperSibling} (${c.cheaperSiblingInvocationCost})`).join('; ') : 'none'}${s.shadowingRisks.length ? ` · confirmed risks: ${s.shadowingRisks.map((r) => r.tool).join(', ')}` : ''}`,
  );
  out.push('');
  const th = report.thresholds;
  if (th.passed) out.push('Result: PASS');
  else {
    out.push(
      `Result: FAIL (${th.failures.length} threshold violation${th.failures.length === 1 ? '' : 's'})`,
    );
    for (const f of th.failures)
      out.push(`  - ${f.tool ? `${f.tool}: ` : 'server: '}${f.message} [${f.rule}]`);
  }
  return `${out.join('\n')}\n`;
}

/** The report as JSON: per-tool objects in the published shape, the server object, thresholds. */
export function formatJson(report: LintReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** The 1-based line of a tool's name in a JSON file or module source, else 1. */
export function locateTool(source: string | undefined, name: string): number {
  if (!source) return 1;
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`["']?name["']?\\s*:\\s*["'\`]${esc}["'\`]`);
  const idx = source.search(re);
  if (idx < 0) return 1;
  return source.slice(0, idx).split('\n').length;
}

interface SarifResult {
  ruleId: string;
  level: 'error' | 'warning' | 'note';
  message: { text: string };
  locations: unknown[];
  partialFingerprints: Record<string, string>;
}

/** Options for location-aware formats (SARIF, GitHub annotations). */
export interface LocationOptions {
  /** Path results point at, relative to the repository root. */
  uri?: string;
  /** The text of that file, to find each tool's line. */
  source?: string;
  /** Tool version written into SARIF. */
  version?: string;
}

function results(
  report: LintReport,
): { tool?: string; ruleId: string; level: SarifResult['level']; text: string }[] {
  const out: { tool?: string; ruleId: string; level: SarifResult['level']; text: string }[] = [];
  for (const f of report.thresholds.failures) {
    out.push({
      tool: f.tool,
      ruleId: f.rule.startsWith('max-') ? 'context/budget' : 'tdqs/threshold',
      level: 'error',
      text: `${f.tool ? `${f.tool}: ` : 'server: '}${f.message}.`,
    });
  }
  for (const t of worstFirst(report.tools)) {
    for (const flag of [...t.flags, ...t.serverFlags]) {
      out.push({
        tool: t.name,
        ruleId: `tdqs/flag/${flag.toLowerCase().replace(/\s+/g, '-')}`,
        level: 'error',
        text: `${t.name}: ${flag}. ${t.summary}`,
      });
    }
    for (const d of t.smells) {
      const j = t.justifications[d];
      out.push({
        tool: t.name,
        ruleId: `tdqs/${d}`,
        level: 'warning',
        text: `${t.name}: ${d} scored ${j.score}/5 (TDQS ${t.tdqs.toFixed(1)}, tier ${t.tier}). ${j.justification}${j.fix ? ` Fix: ${j.fix}` : ''}`,
      });
    }
  }
  for (const c of report.server.shadowCandidates) {
    out.push({
      tool: c.tool,
      ruleId: 'tdqs/shadow-candidate',
      level: 'note',
      text: `${c.tool} (invocation cost ${c.invocationCost}) may be shadowed by the cheaper ${c.cheaperSibling} (cost ${c.cheaperSiblingInvocationCost}); check that their purposes do not overlap.`,
    });
  }
  return out;
}

const RULES = [
  {
    id: 'tdqs/threshold',
    text: 'A CI threshold (--min-tdqs, --min-tier, --min-server, --fail-on) is not met.',
  },
  ...DIMENSIONS.map((d) => ({
    id: `tdqs/${d}`,
    text: `Smell: ${d.replace(/_/g, ' ')} scored below 3.`,
  })),
  { id: 'tdqs/flag/no-description', text: 'The tool has no description.' },
  {
    id: 'tdqs/flag/tautological-description',
    text: "The description only repeats the tool's name or title.",
  },
  {
    id: 'tdqs/flag/annotation-contradiction',
    text: 'The description contradicts the annotations.',
  },
  { id: 'tdqs/flag/shadowing-risk', text: 'A much cheaper sibling covers the same purpose.' },
  {
    id: 'tdqs/shadow-candidate',
    text: 'Structurally asymmetric pair proposed by the shadowing prefilter.',
  },
  {
    id: 'context/budget',
    text: 'A token budget (--max-tool-tokens, --max-server-tokens) is exceeded.',
  },
];

/** SARIF 2.1.0 for code scanning: threshold failures and flags as errors, smells as warnings. */
export function formatSarif(report: LintReport, options: LocationOptions = {}): string {
  // A live server (stdio command or URL) has no file: its results get a logical location only,
  // unless --location names a file to point at.
  const uri = options.uri ?? report.file;
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'lectern-lint',
            informationUri: 'https://github.com/lectern-dev/lectern/tree/main/packages/lint',
            version: options.version ?? '0.0.0',
            rules: RULES.map((r) => ({
              id: r.id,
              shortDescription: { text: r.text },
              helpUri:
                'https://github.com/lectern-dev/lectern/tree/main/packages/lint#what-the-offline-judge-looks-for',
            })),
          },
        },
        results: results(report).map(
          (r): SarifResult => ({
            ruleId: r.ruleId,
            level: r.level,
            message: { text: r.text },
            locations: [
              {
                ...(uri
                  ? {
                      physicalLocation: {
                        artifactLocation: { uri },
                        region: { startLine: r.tool ? locateTool(options.source, r.tool) : 1 },
                      },
                    }
                  : {}),
                logicalLocations: [
                  r.tool
                    ? { name: r.tool, kind: 'function' }
                    : { name: report.server.serverName, kind: 'module' },
                ],
              },
            ],
            partialFingerprints: { 'lecternTool/v1': `${r.tool ?? '(server)'}:${r.ruleId}` },
          }),
        ),
        properties: {
          judge: report.judge,
          target: report.target,
          overallScore: report.server.overallScore,
          overallTier: report.server.overallTier,
          passed: report.thresholds.passed,
          ...(report.context
            ? {
                contextCost: {
                  encoding: report.context.encoding,
                  ...report.context.server,
                  tools: Object.fromEntries(
                    report.context.tools.map((c) => [
                      c.name,
                      { tokens: c.tokens, outputSchemaTokens: c.outputSchemaTokens },
                    ]),
                  ),
                },
              }
            : {}),
        },
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}

function largest(report: LintReport): string {
  const top = [...(report.context?.tools ?? [])].sort(
    (a, b) => b.tokens - a.tokens || (a.name < b.name ? -1 : 1),
  )[0];
  return top ? `${top.name} ${top.tokens}` : 'none';
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** GitHub workflow commands: `::error`/`::warning`/`::notice` annotations, one per finding. */
export function formatGithub(report: LintReport, options: LocationOptions = {}): string {
  const file = options.uri ?? report.file;
  const lines = results(report).map((r) => {
    const props = [
      ...(file
        ? [
            `file=${escapeProperty(file)}`,
            `line=${r.tool ? locateTool(options.source, r.tool) : 1}`,
          ]
        : []),
      `title=${escapeProperty(`TDQS ${r.ruleId}${r.tool ? ` ${r.tool}` : ''}`)}`,
    ].join(',');
    const cmd = r.level === 'note' ? 'notice' : r.level;
    return `::${cmd} ${props}::${escapeData(r.text)}`;
  });
  const s = report.server;
  lines.push(
    `::notice title=${escapeProperty('TDQS summary')}::${escapeData(
      `${report.tools.length} tools, mean ${fmt(s.meanTdqs)}, min ${fmt(s.minTdqs)}; server overall ${fmt(s.overallScore)} (${s.overallTier ?? '—'}); context ${report.context ? `${report.context.server.tokens} ${report.context.encoding} tokens (largest ${largest(report)})` : 'not measured'}; ${report.thresholds.passed ? 'pass' : `${report.thresholds.failures.length} threshold violation(s)`}`,
    )}`,
  );
  return `${lines.join('\n')}\n`;
}

/** Markdown for a pull-request comment: server summary, a table worst first, fixes. */
export function formatMarkdown(report: LintReport): string {
  const s = report.server;
  const out: string[] = [];
  out.push(`## TDQS · ${s.serverName} · overall ${fmt(s.overallScore)} (${s.overallTier ?? '—'})`);
  out.push('');
  out.push(
    `${report.thresholds.passed ? '✅ **Pass**' : `❌ **${report.thresholds.failures.length} threshold violation${report.thresholds.failures.length === 1 ? '' : 's'}**`} · quality ${fmt(s.descriptionQualityScore)} (${s.descriptionQualityTier ?? '—'}) · coherence ${fmt(s.coherenceScore)} (${s.coherenceTier}) · judge \`${report.judge}\``,
  );
  out.push('');
  out.push(`Context cost: ${contextLine(report)}.`);
  out.push('');
  const cost = costs(report);
  out.push(
    `| Tool | TDQS | Tier | ${DIMENSIONS.map((d) => HEADING[d]).join(' | ')} | Tokens | Flags / smells |`,
  );
  out.push(`|---|---:|:---:|${DIMENSIONS.map(() => '---:').join('|')}|---:|---|`);
  for (const t of worstFirst(report.tools)) {
    const c = cost.get(t.name);
    out.push(
      `| \`${t.name}\` | ${t.tdqs.toFixed(1)} | ${t.tier} | ${DIMENSIONS.map((d) => t.scores[d]).join(' | ')} | ${c ? `${c.tokens}${c.outputSchemaTokens ? ` (+${c.outputSchemaTokens})` : ''}` : '—'} | ${tags(t) || ''} |`,
    );
  }
  if (!report.thresholds.passed) {
    out.push('');
    out.push('**Threshold violations**');
    out.push('');
    for (const f of report.thresholds.failures)
      out.push(`- ${f.tool ? `\`${f.tool}\`: ` : 'server: '}${f.message} (\`${f.rule}\`)`);
  }
  const fixes = topFixes(report.tools, 10);
  if (fixes.length) {
    out.push('');
    out.push('<details><summary>Top fixes</summary>');
    out.push('');
    for (const f of fixes) out.push(`- \`${f.tool}\` · ${f.dimension} (${f.score}/5): ${f.fix}`);
    out.push('');
    out.push('</details>');
  }
  if (s.shadowCandidates.length) {
    out.push('');
    out.push(
      `Shadow candidates: ${s.shadowCandidates.map((c) => `\`${c.tool}\` (${c.invocationCost}) vs \`${c.cheaperSibling}\` (${c.cheaperSiblingInvocationCost})`).join(', ')}`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** Renders a report in any of the {@link REPORT_FORMATS}. */
export function formatReport(
  report: LintReport,
  format: ReportFormat,
  options: LocationOptions = {},
): string {
  switch (format) {
    case 'text':
      return formatText(report);
    case 'json':
      return formatJson(report);
    case 'sarif':
      return formatSarif(report, options);
    case 'github':
      return formatGithub(report, options);
    case 'markdown':
      return formatMarkdown(report);
  }
}
