import { canonicalJson, sortKeysDeep } from './canonical.js';
import type { Json, ToolInput } from './types.js';

/** A semver bump; `none` when nothing changed. */
export type Bump = 'none' | 'patch' | 'minor' | 'major';

const RANK: Record<Bump, number> = { none: 0, patch: 1, minor: 2, major: 3 };

/** The larger of two bumps. */
export function maxBump(a: Bump, b: Bump): Bump {
  return RANK[a] >= RANK[b] ? a : b;
}

/** A canonical snapshot of a server's `tools/list`: tools sorted by name, keys sorted. */
export interface Snapshot {
  server?: { name?: string; version?: string };
  tools: ToolInput[];
}

/** Builds a snapshot: every tool as listed, keys sorted at every level, tools sorted by name. */
export function snapshotTools(
  tools: readonly ToolInput[],
  server?: { name?: string; version?: string },
): Snapshot {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const srv = server && (server.name || server.version) ? { ...server } : undefined;
  return sortKeysDeep({ ...(srv ? { server: srv } : {}), tools: sorted }) as unknown as Snapshot;
}

/** The snapshot as canonical, 2-space indented JSON with a trailing newline. */
export function formatSnapshot(snapshot: Snapshot): string {
  return `${canonicalJson(snapshot, 2)}\n`;
}

/** One changed node of one tool. */
export interface DiffEntry {
  kind: 'added' | 'removed' | 'changed';
  /** Registry-style path segments, e.g. `["Input schema", "properties", "anchor", "description"]`. */
  path: string[];
  /** The segments joined with ` / `. */
  pathText: string;
  before?: Json;
  after?: Json;
  bump: Exclude<Bump, 'none'>;
  /** Why the entry got its bump, e.g. "new optional parameter". */
  reason: string;
}

/** All changes of one tool. */
export interface ToolChange {
  name: string;
  status: 'added' | 'removed' | 'changed';
  entries: DiffEntry[];
  bump: Exclude<Bump, 'none'>;
}

/** The result of {@link diffSnapshots}. */
export interface SnapshotDiff {
  oldLabel: string;
  newLabel: string;
  tools: ToolChange[];
  added: string[];
  removed: string[];
  changed: string[];
  unchanged: number;
  bump: Bump;
}

const TOP_LABEL: Record<string, string> = {
  description: 'Description',
  title: 'Title',
  inputSchema: 'Input schema',
  outputSchema: 'Output schema',
  annotations: 'Annotations',
};

function isObj(v: unknown): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Raw = { kind: DiffEntry['kind']; keys: string[]; before?: Json; after?: Json };

function walk(keys: string[], a: Json | undefined, b: Json | undefined, out: Raw[]): void {
  if (a === undefined && b === undefined) return;
  if (a === undefined) {
    out.push({ kind: 'added', keys, after: b });
    return;
  }
  if (b === undefined) {
    out.push({ kind: 'removed', keys, before: a });
    return;
  }
  if (isObj(a) && isObj(b)) {
    const all = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of all) walk([...keys, k], a[k], b[k], out);
    return;
  }
  if (canonicalJson(a) !== canonicalJson(b))
    out.push({ kind: 'changed', keys, before: a, after: b });
}

const MIN_KEYS = new Set([
  'minimum',
  'exclusiveMinimum',
  'minLength',
  'minItems',
  'minProperties',
  'minContains',
]);
const MAX_KEYS = new Set([
  'maximum',
  'exclusiveMaximum',
  'maxLength',
  'maxItems',
  'maxProperties',
  'maxContains',
]);
const TEXT_KEYS = new Set([
  'description',
  'title',
  'examples',
  'example',
  '$comment',
  'markdownDescription',
  'deprecated',
]);
const NARROWING_KEYS = new Set([
  'pattern',
  'format',
  'multipleOf',
  'const',
  'dependentRequired',
  'dependencies',
  'not',
  'propertyNames',
  'contains',
  'if',
  'then',
  'else',
]);

const HINT_RISKY: Record<string, boolean> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};
/** MCP defaults for undeclared hints. */
const HINT_DEFAULT: Record<string, boolean> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

function typeSet(v: Json | undefined): Set<string> {
  if (typeof v === 'string') return new Set([v]);
  if (Array.isArray(v)) return new Set(v.filter((x): x is string => typeof x === 'string'));
  return new Set();
}

function valueSet(v: Json | undefined): Set<string> {
  return new Set(Array.isArray(v) ? v.map((x) => canonicalJson(x)) : []);
}

function subset(a: Set<string>, b: Set<string>): boolean {
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** Looks up the JSON value at `keys` inside `root`. */
function at(root: Json | undefined, keys: readonly string[]): Json | undefined {
  let node = root;
  for (const k of keys) {
    if (!isObj(node)) return undefined;
    node = node[k];
  }
  return node;
}

function classify(raw: Raw, newTool: ToolInput): { bump: DiffEntry['bump']; reason: string } {
  const [top, ...rest] = raw.keys;
  const last = raw.keys[raw.keys.length - 1] ?? '';
  const { kind } = raw;
  if (top === 'description' || top === 'title') return { bump: 'patch', reason: 'text' };
  if (top === '_meta') return { bump: 'patch', reason: 'metadata' };
  if (top === 'annotations') {
    if (rest.length === 0) {
      return kind === 'changed' || kind === 'added'
        ? { bump: 'minor', reason: 'annotations changed' }
        : { bump: 'minor', reason: 'annotations removed' };
    }
    const hint = rest[0] ?? '';
    if (hint === 'title') return { bump: 'patch', reason: 'text' };
    if (hint in HINT_RISKY) {
      const eff = (v: Json | undefined) =>
        typeof v === 'boolean' ? v : (HINT_DEFAULT[hint] as boolean);
      const was = eff(raw.before);
      const now = eff(raw.after);
      if (was === now)
        return { bump: 'patch', reason: `${hint} made explicit (same effective value)` };
      return now === HINT_RISKY[hint]
        ? { bump: 'major', reason: `stricter annotation: ${hint} now ${now}` }
        : { bump: 'minor', reason: `relaxed annotation: ${hint} now ${now}` };
    }
    return { bump: 'minor', reason: 'annotation changed' };
  }
  const isInput = top === 'inputSchema';
  const isOutput = top === 'outputSchema';
  if (!isInput && !isOutput) return { bump: 'minor', reason: `${top} changed` };
  if (rest.length === 0) {
    if (kind === 'added')
      return isInput
        ? { bump: 'major', reason: 'input schema added' }
        : { bump: 'minor', reason: 'output schema added' };
    if (kind === 'removed')
      return { bump: 'major', reason: `${isInput ? 'input' : 'output'} schema removed` };
    return { bump: 'major', reason: `${isInput ? 'input' : 'output'} schema replaced` };
  }
  if (TEXT_KEYS.has(last) && rest[rest.length - 2] !== 'properties')
    return { bump: 'patch', reason: 'text' };
  if (last === '$schema' || last === '$id') return { bump: 'patch', reason: 'schema dialect' };

  const isProperty = rest.length >= 2 && rest[rest.length - 2] === 'properties';
  if (isProperty) {
    const objKeys = raw.keys.slice(0, -2);
    const required = (tool: ToolInput) => {
      const r = at(tool as unknown as Json, [...objKeys, 'required']);
      return Array.isArray(r) && r.includes(last);
    };
    if (isInput) {
      if (kind === 'added') {
        return required(newTool)
          ? { bump: 'major', reason: `new required parameter "${last}"` }
          : { bump: 'minor', reason: `new optional parameter "${last}"` };
      }
      if (kind === 'removed') return { bump: 'major', reason: `parameter "${last}" removed` };
      return { bump: 'major', reason: `parameter "${last}" replaced` };
    }
    if (kind === 'added') return { bump: 'minor', reason: `new output field "${last}"` };
    if (kind === 'removed') return { bump: 'major', reason: `output field "${last}" removed` };
    return { bump: 'major', reason: `output field "${last}" replaced` };
  }
  if (last === 'required') {
    const before = valueSet(raw.before);
    const after = valueSet(raw.after);
    const more = [...after].filter((x) => !before.has(x)).map((x) => JSON.parse(x));
    const fewer = [...before].filter((x) => !after.has(x)).map((x) => JSON.parse(x));
    if (isInput) {
      if (more.length) return { bump: 'major', reason: `newly required: ${more.join(', ')}` };
      if (fewer.length) return { bump: 'minor', reason: `no longer required: ${fewer.join(', ')}` };
    } else {
      if (fewer.length)
        return { bump: 'major', reason: `output no longer guarantees: ${fewer.join(', ')}` };
      if (more.length)
        return { bump: 'minor', reason: `output now guarantees: ${more.join(', ')}` };
    }
    return { bump: 'patch', reason: 'required list reordered' };
  }
  if (!isInput) {
    if (last === 'type' || last === 'enum') {
      return kind === 'added'
        ? { bump: 'minor', reason: `output ${last} declared` }
        : { bump: 'major', reason: `output ${last} changed` };
    }
    return { bump: 'minor', reason: `output ${last} ${kind}` };
  }
  if (last === 'type') {
    if (kind === 'added') return { bump: 'major', reason: 'type constraint added' };
    if (kind === 'removed') return { bump: 'minor', reason: 'type constraint removed' };
    return subset(typeSet(raw.before), typeSet(raw.after))
      ? { bump: 'minor', reason: 'type widened' }
      : { bump: 'major', reason: 'type changed' };
  }
  if (last === 'enum') {
    if (kind === 'added') return { bump: 'major', reason: 'enum added (narrowed)' };
    if (kind === 'removed') return { bump: 'minor', reason: 'enum removed (loosened)' };
    return subset(valueSet(raw.before), valueSet(raw.after))
      ? { bump: 'minor', reason: 'enum widened' }
      : { bump: 'major', reason: 'enum narrowed' };
  }
  if (MIN_KEYS.has(last) || MAX_KEYS.has(last)) {
    if (kind === 'added') return { bump: 'major', reason: `${last} added (narrowed range)` };
    if (kind === 'removed') return { bump: 'minor', reason: `${last} removed (loosened range)` };
    const b = Number(raw.before);
    const a = Number(raw.after);
    const narrowed = MIN_KEYS.has(last) ? a > b : a < b;
    return narrowed
      ? { bump: 'major', reason: `${last} ${b} -> ${a} (narrowed)` }
      : { bump: 'minor', reason: `${last} ${b} -> ${a} (loosened)` };
  }
  if (last === 'additionalProperties') {
    const closed = (v: Json | undefined) => v === false;
    if (closed(raw.after) && !closed(raw.before))
      return { bump: 'major', reason: 'additional properties now refused' };
    return { bump: 'minor', reason: 'additional properties loosened' };
  }
  if (last === 'uniqueItems') {
    return raw.after === true
      ? { bump: 'major', reason: 'uniqueItems required' }
      : { bump: 'minor', reason: 'uniqueItems relaxed' };
  }
  if (NARROWING_KEYS.has(last)) {
    return kind === 'removed'
      ? { bump: 'minor', reason: `${last} removed (loosened)` }
      : { bump: 'major', reason: `${last} ${kind} (narrowed)` };
  }
  if (
    last === 'oneOf' ||
    last === 'anyOf' ||
    last === 'allOf' ||
    last === 'items' ||
    last === '$ref'
  ) {
    return { bump: 'major', reason: `${last} ${kind}` };
  }
  if (last === 'default') return { bump: 'minor', reason: `default ${kind}` };
  return { bump: 'minor', reason: `${last} ${kind}` };
}

function segments(keys: readonly string[]): string[] {
  const [top, ...rest] = keys;
  return [TOP_LABEL[top ?? ''] ?? top ?? '', ...rest];
}

function comparePaths(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Diffs one tool's two versions into sorted, classified entries (name is the identity, not diffed). */
export function diffTool(oldTool: ToolInput, newTool: ToolInput): DiffEntry[] {
  const raws: Raw[] = [];
  const { name: _a, ...oldRest } = sortKeysDeep(oldTool) as { [k: string]: Json };
  const { name: _b, ...newRest } = sortKeysDeep(newTool) as { [k: string]: Json };
  walk([], oldRest, newRest, raws);
  return raws
    .map((r) => {
      const path = segments(r.keys);
      return {
        kind: r.kind,
        path,
        pathText: path.join(' / '),
        ...(r.before !== undefined ? { before: r.before } : {}),
        ...(r.after !== undefined ? { after: r.after } : {}),
        ...classify(r, newTool),
      };
    })
    .sort((x, y) => comparePaths(x.path, y.path));
}

function label(snapshot: Snapshot, fallback: string): string {
  const v = snapshot.server?.version;
  if (!v) return fallback;
  return /^v/i.test(v) ? v : `v${v}`;
}

/**
 * Diffs two snapshots (or raw tool lists): tools added (minor) and removed (major), and for each
 * tool present on both sides every added / removed / changed node, reported at the deepest node
 * present on one side only, sorted by path, each classified patch / minor / major. The overall
 * bump is the largest entry's.
 */
export function diffSnapshots(
  oldSnap: Snapshot | readonly ToolInput[],
  newSnap: Snapshot | readonly ToolInput[],
  options: { oldLabel?: string; newLabel?: string } = {},
): SnapshotDiff {
  const a: Snapshot = Array.isArray(oldSnap) ? { tools: [...oldSnap] } : (oldSnap as Snapshot);
  const b: Snapshot = Array.isArray(newSnap) ? { tools: [...newSnap] } : (newSnap as Snapshot);
  const oldByName = new Map(a.tools.map((t) => [t.name, t]));
  const newByName = new Map(b.tools.map((t) => [t.name, t]));
  const names = [...new Set([...oldByName.keys(), ...newByName.keys()])].sort();
  const tools: ToolChange[] = [];
  let unchanged = 0;
  for (const name of names) {
    const o = oldByName.get(name);
    const n = newByName.get(name);
    if (!o && n) {
      tools.push({ name, status: 'added', entries: [], bump: 'minor' });
    } else if (o && !n) {
      tools.push({ name, status: 'removed', entries: [], bump: 'major' });
    } else if (o && n) {
      const entries = diffTool(o, n);
      if (entries.length === 0) unchanged++;
      else {
        const bump = entries.reduce<Bump>(
          (acc, e) => maxBump(acc, e.bump),
          'patch',
        ) as ToolChange['bump'];
        tools.push({ name, status: 'changed', entries, bump });
      }
    }
  }
  let oldLabel = options.oldLabel ?? label(a, 'old');
  let newLabel = options.newLabel ?? label(b, 'new');
  // Two snapshots that report the same version are still two observations: say which is which.
  if (oldLabel === newLabel) {
    oldLabel = `${oldLabel} (old)`;
    newLabel = `${newLabel} (new)`;
  }
  return {
    oldLabel,
    newLabel,
    tools,
    added: tools.filter((t) => t.status === 'added').map((t) => t.name),
    removed: tools.filter((t) => t.status === 'removed').map((t) => t.name),
    changed: tools.filter((t) => t.status === 'changed').map((t) => t.name),
    unchanged,
    bump: tools.reduce<Bump>((acc, t) => maxBump(acc, t.bump), 'none'),
  };
}

/** A value the way the registry shows it: compact JSON for scalars, indented JSON for objects. */
export function showValue(value: Json | undefined): string {
  if (value !== null && typeof value === 'object') return JSON.stringify(value, null, 2);
  return JSON.stringify(value ?? null);
}

function indentAfterFirst(text: string, pad: string): string {
  return text.replace(/\n/g, `\n${pad}`);
}

/** Options for {@link renderChangelog}. */
export interface ChangelogOptions {
  /** Date shown after the new version, e.g. "Nov 6, 2026". */
  newDate?: string;
  /** Date shown after the old version. */
  oldDate?: string;
  /** Show each entry's semver class and reason. Default true. */
  classes?: boolean;
}

function entryLines(e: DiffEntry, pad: string, classes: boolean): string[] {
  const head = `${pad}${e.kind} ${e.pathText}${classes ? `  [${e.bump}: ${e.reason}]` : ''}`;
  const vpad = `${pad}  `;
  const lines = [head];
  if (e.kind === 'added')
    lines.push(`${vpad}Added value: +${indentAfterFirst(showValue(e.after), vpad)}`);
  else if (e.kind === 'removed')
    lines.push(`${vpad}Removed value: -${indentAfterFirst(showValue(e.before), vpad)}`);
  else {
    lines.push(`${vpad}Previous value: -${indentAfterFirst(showValue(e.before), vpad)}`);
    lines.push(`${vpad}New value: +${indentAfterFirst(showValue(e.after), vpad)}`);
  }
  return lines;
}

/** `Changed 7 schema fields changed v0.1.1 Nov 6, 2026` (singular for one field). */
export function changedHeading(count: number, version: string, date?: string): string {
  return `Changed ${count} schema field${count === 1 ? '' : 's'} changed ${version}${date ? ` ${date}` : ''}`;
}

/**
 * The diff in the registry's changelog layout, per tool: `Changed N schema fields changed vX`
 * with its entries (`added <path>` / `Added value: +<json>` ...), then `First observed vOLD`;
 * added tools show `First observed vNEW`, removed tools `Removed vNEW`.
 */
export function renderChangelog(diff: SnapshotDiff, options: ChangelogOptions = {}): string {
  const classes = options.classes ?? true;
  const nd = options.newDate ? ` ${options.newDate}` : '';
  const od = options.oldDate ? ` ${options.oldDate}` : '';
  const out: string[] = [];
  out.push(
    `Schema changelog ${diff.oldLabel} -> ${diff.newLabel}: ${diff.changed.length} changed, ${diff.added.length} added, ${diff.removed.length} removed, ${diff.unchanged} unchanged; bump: ${diff.bump}`,
  );
  for (const t of diff.tools) {
    out.push('');
    out.push(`${t.name}  [${t.bump}]`);
    if (t.status === 'added') {
      out.push(`  First observed ${diff.newLabel}${nd}`);
    } else if (t.status === 'removed') {
      out.push(`  Removed ${diff.newLabel}${nd}`);
      out.push(`  First observed ${diff.oldLabel}${od} or earlier`);
    } else {
      out.push(`  ${changedHeading(t.entries.length, diff.newLabel, options.newDate)}`);
      for (const e of t.entries) out.push(...entryLines(e, '    ', classes));
      out.push(`  First observed ${diff.oldLabel}${od}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** The changelog as Markdown (for a pull-request comment or a changeset body). */
export function renderChangelogMarkdown(
  diff: SnapshotDiff,
  options: ChangelogOptions = {},
): string {
  const out: string[] = [];
  out.push(`### Schema changelog ${diff.oldLabel} → ${diff.newLabel}`);
  out.push('');
  out.push(
    `**Bump: ${diff.bump}** · ${diff.changed.length} changed · ${diff.added.length} added · ${diff.removed.length} removed · ${diff.unchanged} unchanged`,
  );
  for (const t of diff.tools) {
    out.push('');
    if (t.status === 'added') {
      out.push(`#### \`${t.name}\` — added (${t.bump})`);
      out.push(`First observed ${diff.newLabel}${options.newDate ? ` ${options.newDate}` : ''}`);
      continue;
    }
    if (t.status === 'removed') {
      out.push(`#### \`${t.name}\` — removed (${t.bump})`);
      continue;
    }
    out.push(
      `#### \`${t.name}\` — ${changedHeading(t.entries.length, diff.newLabel, options.newDate)} (${t.bump})`,
    );
    out.push('');
    for (const e of t.entries) {
      out.push(`- **${e.kind}** \`${e.pathText}\` — ${e.bump}: ${e.reason}`);
      const vals: [string, string][] =
        e.kind === 'added'
          ? [['+', showValue(e.after)]]
          : e.kind === 'removed'
            ? [['-', showValue(e.before)]]
            : [
                ['-', showValue(e.before)],
                ['+', showValue(e.after)],
              ];
      if (vals.every(([, v]) => !v.includes('\n'))) {
        out.push('  ```diff');
        for (const [sign, v] of vals) out.push(`  ${sign}${v}`);
        out.push('  ```');
      } else {
        // A multi-line JSON value is one value: show it as JSON under its label instead of
        // marking each of its lines as a separate added or removed line.
        for (const [sign, v] of vals) {
          out.push(
            `  ${sign === '+' ? (e.kind === 'changed' ? 'New value' : 'Added value') : e.kind === 'changed' ? 'Previous value' : 'Removed value'}:`,
          );
          out.push('  ```json');
          for (const line of v.split('\n')) out.push(`  ${line}`);
          out.push('  ```');
        }
      }
    }
    out.push('');
    out.push(`First observed ${diff.oldLabel}${options.oldDate ? ` ${options.oldDate}` : ''}`);
  }
  return `${out.join('\n')}\n`;
}

/**
 * A changeset file (front matter with the package and the diff's bump, the Markdown changelog as
 * body). Returns null when nothing changed.
 */
export function renderChangeset(
  diff: SnapshotDiff,
  packageName: string,
  options: ChangelogOptions = {},
): string | null {
  if (diff.bump === 'none') return null;
  if (!/^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(packageName)) {
    throw new Error(`"${packageName}" is not a valid package name.`);
  }
  const summary = `Tool schema changes ${diff.oldLabel} → ${diff.newLabel}: ${[
    diff.changed.length ? `${diff.changed.length} changed` : '',
    diff.added.length ? `${diff.added.length} added (${diff.added.join(', ')})` : '',
    diff.removed.length ? `${diff.removed.length} removed (${diff.removed.join(', ')})` : '',
  ]
    .filter(Boolean)
    .join(', ')}.`;
  const body = renderChangelogMarkdown(diff, options).replace(/^### .*\n\n/, '');
  return `---\n"${packageName}": ${diff.bump}\n---\n\n${summary}\n\n${body}`;
}
