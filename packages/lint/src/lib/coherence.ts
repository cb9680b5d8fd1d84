import { actionVerb, contentTokens, nameWords, sentences } from './text.js';
import type {
  CoherenceDimension,
  CoherenceJudgeInput,
  CoherenceJudgement,
  CoherenceToolInput,
  DimensionJudgement,
} from './types.js';

type Style = 'snake' | 'kebab' | 'camel' | 'pascal' | 'dotted' | 'lower' | 'other';

/** The case convention of a tool name (`lower` is a single lowercase word, compatible with all). */
export function nameStyle(name: string): Style {
  if (/^[a-z][a-z0-9]*$/.test(name)) return 'lower';
  if (/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(name)) return 'snake';
  if (/^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/.test(name)) return 'kebab';
  if (/^[a-z][a-z0-9]*(?:\.[a-z0-9_]+)+$/.test(name)) return 'dotted';
  if (/^[a-z][a-zA-Z0-9]*$/.test(name)) return 'camel';
  if (/^[A-Z][a-zA-Z0-9]*$/.test(name)) return 'pascal';
  return 'other';
}

function commonPrefix(names: readonly string[][]): number {
  if (names.length < 2) return 0;
  let k = 0;
  for (;;) {
    const w = names[0]?.[k];
    if (w === undefined || names.some((n) => n[k] !== w || n.length <= k + 1)) return k;
    k++;
  }
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

function j(score: number, justification: string, fix: string): DimensionJudgement {
  return { score, justification, fix };
}

function disambiguation(tools: readonly CoherenceToolInput[]): DimensionJudgement {
  const bare = tools.filter((t) => !t.description || t.description.trim().split(/\s+/).length < 3);
  const sets = tools.map((t) => {
    const first = t.description ? (sentences(t.description)[0]?.text ?? '') : '';
    return new Set([...contentTokens(first), ...nameWords(t.name)]);
  });
  const pairs: string[] = [];
  for (let i = 0; i < tools.length; i++) {
    for (let k = i + 1; k < tools.length; k++) {
      const a = tools[i]!;
      const b = tools[k]!;
      const same = a.description && b.description && a.description.trim() === b.description.trim();
      if (same || jaccard(sets[i]!, sets[k]!) >= 0.6) pairs.push(`${a.name} / ${b.name}`);
    }
  }
  const n = pairs.length + bare.length;
  const score = n === 0 ? 5 : n === 1 ? 4 : n <= 2 ? 3 : n <= 4 ? 2 : 1;
  if (n === 0) {
    return j(
      5,
      `Each of the ${tools.length} tools opens with a distinct purpose; no two descriptions overlap substantially.`,
      'No change needed.',
    );
  }
  const parts = [
    pairs.length ? `overlapping purposes: ${pairs.slice(0, 3).join(', ')}` : '',
    bare.length
      ? `too little description to tell apart: ${bare.map((t) => t.name).join(', ')}`
      : '',
  ].filter(Boolean);
  return j(
    score,
    `An agent could confuse tools (${parts.join('; ')}).`,
    'Give each tool a first sentence that names its distinct resource or action, and state the boundary between look-alikes.',
  );
}

function namingConsistency(tools: readonly CoherenceToolInput[]): DimensionJudgement {
  if (tools.length <= 1) {
    return j(5, 'A single tool cannot be inconsistent.', 'No change needed.');
  }
  const styles = new Set(tools.map((t) => nameStyle(t.name)).filter((s) => s !== 'lower'));
  const ws = tools.map((t) => nameWords(t.name));
  const prefix = commonPrefix(ws);
  const rest = ws.map((w) => w.slice(prefix));
  const verbFirst = rest.filter((w) => w[0] !== undefined && actionVerb(w[0]) !== null).length;
  const verbLast = rest.filter((w) => w.length > 1 && actionVerb(w[w.length - 1]!) !== null).length;
  const pattern = Math.max(verbFirst, verbLast) / tools.length;
  const mixed = styles.size > 1 || styles.has('other');
  let score: number;
  if (mixed) score = styles.size > 2 ? 1 : 2;
  else if (pattern === 1) score = 5;
  else if (pattern >= 0.7) score = 4;
  else score = 3;
  const styleText = styles.size ? [...styles].join(' + ') : 'single words';
  const odd = rest
    .map((w, i) => ({ w, name: tools[i]!.name }))
    .filter(({ w }) => !(w[0] && actionVerb(w[0])))
    .map((x) => x.name);
  return j(
    score,
    mixed
      ? `Names mix conventions (${styleText}).`
      : `All names use ${styleText}${prefix ? ` with a shared "${ws[0]!.slice(0, prefix).join('_')}" prefix` : ''}; ${Math.round(pattern * 100)}% follow one verb/noun order${score < 5 && odd.length ? ` (not: ${odd.slice(0, 3).join(', ')})` : ''}.`,
    score === 5
      ? 'No change needed.'
      : mixed
        ? 'Rename tools to one convention (e.g. snake_case verb_noun throughout).'
        : 'Rename the outliers so every name puts the verb in the same place.',
  );
}

function toolCount(tools: readonly CoherenceToolInput[]): DimensionJudgement {
  const n = tools.length;
  let score: number;
  if (n >= 3 && n <= 15) score = 5;
  else if (n >= 16 && n <= 18) score = 4;
  else if (n === 2 || (n >= 19 && n <= 25)) score = 3;
  else if (n === 1) {
    const d = tools[0]?.description ?? '';
    score = d.trim().split(/\s+/).length < 5 ? 1 : 2;
  } else if (n >= 26 && n < 50) score = 2;
  else score = 1;
  const text =
    score === 5
      ? `${n} tools is a well-scoped surface (3-15).`
      : n < 3
        ? `${n} tool${n === 1 ? '' : 's'} feels thin for a server.`
        : `${n} tools is a heavy surface for one server.`;
  return j(
    score,
    text,
    score === 5
      ? 'No change needed.'
      : n < 3
        ? 'Check whether the server covers its domain with so few tools.'
        : 'Merge look-alike tools or split the server by domain.',
  );
}

const OPS: Record<string, readonly string[]> = {
  discover: [
    'list',
    'search',
    'find',
    'query',
    'outline',
    'where',
    'browse',
    'locate',
    'scan',
    'grep',
    'glob',
    'enumerate',
    'buscar',
    'busca',
    'listar',
    'lista',
    'enumerar',
    'localizar',
    'consultar',
    'consulta',
    'tree',
    'directory',
  ],
  read: [
    'read',
    'get',
    'fetch',
    'show',
    'open',
    'view',
    'retrieve',
    'cat',
    'tail',
    'stat',
    'info',
    'chunk',
    'section',
    'leer',
    'lee',
    'obtener',
    'obtiene',
    'mostrar',
    'recuperar',
    'fragmento',
  ],
  create: [
    'create',
    'write',
    'add',
    'insert',
    'append',
    'save',
    'upload',
    'new',
    'post',
    'put',
    'upsert',
    'crear',
    'escribir',
    'añadir',
    'agregar',
    'guardar',
  ],
  update: [
    'update',
    'edit',
    'modify',
    'rename',
    'move',
    'patch',
    'set',
    'replace',
    'write',
    'upsert',
    'actualizar',
    'editar',
    'modificar',
    'renombrar',
    'mover',
  ],
  delete: ['delete', 'remove', 'drop', 'purge', 'erase', 'borrar', 'eliminar'],
  maintain: [
    'reindex',
    'index',
    'rebuild',
    'refresh',
    'sync',
    'reindexar',
    'indexar',
    'reconstruir',
  ],
};

function completenessDim(tools: readonly CoherenceToolInput[]): DimensionJudgement {
  const has = (op: string) =>
    tools.some((t) => nameWords(t.name).some((w) => (OPS[op] ?? []).includes(w)));
  const discover = has('discover');
  const read = has('read');
  const create = has('create');
  const update = has('update');
  const del = has('delete');
  const writes = create || update || del;
  const present = ['discover', 'read', 'create', 'update', 'delete', 'maintain'].filter(has);
  let score: number;
  let gap = '';
  if (present.length === 0) {
    score = 2;
    gap = 'no recognizable operations (list/search/read/write) in the tool names';
  } else if (writes) {
    if (!read && !discover) {
      score = 2;
      gap = 'writes with no way to read or find what was written';
    } else if (create && update && del && (read || discover)) score = 5;
    else if ((create || update) && (read || discover) && (update || del)) score = 4;
    else {
      score = 3;
      gap = 'it creates and reads but cannot update or delete';
    }
    if (score >= 4 && !(discover && read)) {
      score = 4;
      gap ||= discover ? 'no way to read a single item' : 'no way to list or search items';
    }
    if (score === 4 && !gap) gap = 'no separate delete/update operations';
  } else if (discover && read) score = 5;
  else {
    score = 3;
    gap = discover
      ? 'it can find items but not read one'
      : 'it can read an item but not list or search for one';
  }
  if (tools.length === 1 && score > 3) score = 3;
  return j(
    score,
    `Operations covered: ${present.join(', ') || 'none recognized'}${gap ? `; gap: ${gap}` : '; no dead ends for its domain'}.`,
    score === 5
      ? 'No change needed.'
      : `Close the gap (${gap || 'missing lifecycle operations'}) or say in the descriptions why it is out of scope.`,
  );
}

/**
 * Offline coherence rules for a whole server: disambiguation from overlap between first
 * sentences, naming consistency from case style and verb position, tool count against the
 * 3–15 band, and completeness from the lifecycle operations present in the names. Shadow
 * candidates are not confirmed offline (that needs judgement of purpose overlap).
 */
export function coherenceOffline(input: CoherenceJudgeInput): CoherenceJudgement {
  const tools = input.tools;
  const scores: Record<CoherenceDimension, DimensionJudgement> = {
    disambiguation: disambiguation(tools),
    naming_consistency: namingConsistency(tools),
    tool_count_appropriateness: toolCount(tools),
    completeness: completenessDim(tools),
  };
  const low = Object.entries(scores)
    .filter(([, v]) => v.score < 4)
    .map(([k]) => k.replace(/_/g, ' '));
  return {
    scores,
    shadowingRisks: [],
    summary:
      low.length === 0
        ? `The ${tools.length} tools read as a coherent set: distinct purposes, consistent names, a sensible surface.`
        : `Coherence is held back by ${low.join(', ')}.`,
  };
}
