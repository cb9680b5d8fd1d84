#!/usr/bin/env node
// Rebuilds calibration/registry.jsonl from the transcribed registry pages in
// calibration/raw/observations.jsonl, deterministically: same raw file, same output, byte for
// byte. Run it with `node calibration/build.mjs` after adding observations.
//
// Raw line (one registry tool page as the stored excerpt showed it):
//   u     source address            c     corpus the excerpt came from (pages | docs)
//   s     server (owner/name)        t     tool name           title  display title, if shown
//   desc  the tool's description (the "Instructions" block, else the one shown)
//   p     input table rows [name, required 0/1, description, default?]
//   a     annotation badges: null = none declared; "" = declared, no badge shown;
//         otherwise comma-separated RO (read-only), DE (destructive), ID (idempotent),
//         OW (open world)
//   o     output schema shown: 1, 0, or null when the excerpt does not say
//   sib   sibling tool names named on the page (rarely visible)
//   sc    the published dimension scores visible on the page: B behaviour, C conciseness,
//         M completeness, P parameters, Q purpose, U usage (absent = not visible)
//   tdqs, tier  the published overall score and tier, when visible
//
// Output line: { id, source, seen, corpus, server, group, split, fold, tool, siblingToolNames,
// published: { scores (visible dimensions only), tdqs?, tier? }, note }.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const SEEN = '2026-12-01';
const TEST_SHARE = 0.3;
const FOLDS = 5;

const DIM = {
  Q: 'purpose_clarity',
  U: 'usage_guidelines',
  B: 'behavioral_transparency',
  P: 'parameter_semantics',
  C: 'conciseness_structure',
  M: 'contextual_completeness',
};

const sha = (s) => createHash('sha256').update(s).digest('hex');

function annotations(a) {
  if (a === null || a === undefined) return null;
  const out = {};
  const badges = new Set(a.split(',').filter(Boolean));
  if (badges.size === 0) {
    // Declared but no badge: the pages show this for tools whose hints are all false.
    out.readOnlyHint = false;
    out.destructiveHint = false;
    return out;
  }
  out.readOnlyHint = badges.has('RO');
  if (badges.has('DE')) out.destructiveHint = true;
  else if (badges.has('RO')) out.destructiveHint = false;
  if (badges.has('ID')) out.idempotentHint = true;
  if (badges.has('OW')) out.openWorldHint = true;
  return out;
}

function inputSchema(rows) {
  const properties = {};
  const required = [];
  for (const [name, req, desc, def] of rows) {
    const prop = {};
    if (typeof desc === 'string' && desc.trim() !== '') prop.description = desc;
    if (def !== undefined) prop.default = def;
    properties[name] = prop;
    if (req) required.push(name);
  }
  const schema = { type: 'object', properties };
  if (required.length) schema.required = required;
  return schema;
}

function tool(raw) {
  const t = { name: raw.t, title: raw.title ?? null, description: raw.desc };
  t.inputSchema = inputSchema(raw.p ?? []);
  t.outputSchema = raw.o === 1 ? { type: 'object' } : null;
  t.annotations = annotations(raw.a);
  return t;
}

/** Groups: one per server, merged when two servers publish the same definition. */
function groups(rows) {
  const parent = new Map();
  const find = (x) => {
    while (parent.get(x) !== x) {
      parent.set(x, parent.get(parent.get(x)));
      x = parent.get(x);
    }
    return x;
  };
  const union = (a, b) => {
    const ra = find(a);
    const rb = find(b);
    // The smaller name becomes the root, so groups are named deterministically.
    if (ra !== rb) {
      const [root, child] = [ra, rb].sort();
      parent.set(child, root);
    }
  };
  const byDefinition = new Map();
  for (const r of rows) {
    if (!parent.has(r.s)) parent.set(r.s, r.s);
    const key = sha(`${r.t}\n${r.desc}`);
    const other = byDefinition.get(key);
    if (other) union(other, r.s);
    else byDefinition.set(key, r.s);
  }
  return (server) => find(server);
}

const raw = readFileSync(join(here, 'raw', 'observations.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l, i) => {
    try {
      return JSON.parse(l);
    } catch (e) {
      throw new Error(`raw/observations.jsonl line ${i + 1}: ${e.message}`);
    }
  });

const groupOf = groups(raw);
const out = [];
const ids = new Map();
for (const r of raw) {
  const scores = {};
  for (const [k, d] of Object.entries(DIM)) {
    const v = r.sc?.[k];
    if (Number.isInteger(v)) scores[d] = v;
  }
  const group = groupOf(r.s);
  const h = Number.parseInt(sha(`split:${group}`).slice(0, 8), 16) / 0xffffffff;
  const split = h < TEST_SHARE ? 'test' : 'dev';
  const fold = Number.parseInt(sha(`fold:${group}`).slice(0, 8), 16) % FOLDS;
  const base = sha(`${r.u}\n${r.desc}\n${JSON.stringify(r.sc)}`).slice(0, 10);
  const n = (ids.get(base) ?? 0) + 1;
  ids.set(base, n);
  const published = { scores };
  if (typeof r.tdqs === 'number') published.tdqs = r.tdqs;
  if (typeof r.tier === 'string') published.tier = r.tier;
  const notes = ['parameter types are not shown on the page and are omitted'];
  if (r.o === 1) notes.push('an output schema is shown; its fields are not transcribed');
  if (r.o === null || r.o === undefined)
    notes.push('the excerpt does not show whether there is an output schema');
  if (!r.sib) notes.push('sibling tools are not visible on the page');
  if (r.note) notes.push(r.note);
  out.push({
    id: n === 1 ? base : `${base}-${n}`,
    source: r.u,
    seen: SEEN,
    corpus: r.c,
    server: r.s,
    group,
    split,
    fold: split === 'dev' ? fold : null,
    tool: tool(r),
    siblingToolNames: r.sib ?? [],
    published,
    note: `${notes.join('; ')}.`,
  });
}

writeFileSync(join(here, 'registry.jsonl'), `${out.map((o) => JSON.stringify(o)).join('\n')}\n`);
const servers = new Set(out.map((o) => o.server));
const test = out.filter((o) => o.split === 'test');
console.log(
  `registry.jsonl: ${out.length} observations, ${servers.size} servers, ${new Set(out.map((o) => o.group)).size} groups; test ${test.length} (${new Set(test.map((o) => o.server)).size} servers), dev ${out.length - test.length}`,
);
