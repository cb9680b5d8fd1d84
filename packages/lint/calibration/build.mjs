#!/usr/bin/env node
// Rebuilds calibration/registry.jsonl from the transcribed registry pages in calibration/raw/,
// deterministically: same raw files, same output, byte for byte. Run it with
// `node calibration/build.mjs` after a build of the package (it reads the tier thresholds from
// dist/), or through `pnpm --filter @lectern/lint calibrate:fit`.
//
// Every raw/*.jsonl file is read: the development files in file-name order, then the fresh ones
// (so a fresh line can never displace a development line, see duplicates below). Raw line (one registry tool page as the
// stored excerpt showed it):
//   u     source address (a tool page: .../tools/<name>)
//   c     corpus the excerpt came from (pages | docs)
//   s     server (owner/name)        t     tool name           title  display title, if shown
//   desc  the tool's description (the "Instructions" block, else the one shown)
//   p     input table rows [name, required 0/1, description, default?]
//   a     annotation badges: null = none declared; "" = declared, no badge shown;
//         otherwise comma-separated RO (read-only), DE (destructive), ID (idempotent),
//         OW (open world)
//   o     output schema shown: 1, 0, or null when the excerpt does not say
//   sib   sibling tool names named on the page (rarely visible)
//   sc    the published dimension scores visible on the page: B behaviour, C conciseness,
//         M completeness, P parameters, Q purpose, U usage (absent or null = not visible)
//   tdqs, tier  the published overall score and tier, when visible
//   note  what the transcriber noticed
//
// Every line is validated first; the build stops and lists every bad line (a missing key, a
// score outside 1-5, a TDQS outside 1-5 or with more than one decimal, an address that is not a
// tool page, a line that shows no score at all, or a tier that disagrees with its TDQS under the
// package's own thresholds, `tierOf` in src/lib/arithmetic.ts). Nothing is fixed silently: fix
// the raw line (and say why in its note) or remove it.
//
// An address seen twice (in one file or two) is kept once, the first in reading order, and
// the duplicates are listed. Repeats of one definition on different addresses are kept: they
// measure the registry's own noise.
//
// Split: by group. A group joins servers that share an owner (the part of the server name
// before the first "/": one publisher's connectors are written alike) and servers that publish
// the same definition (name and description), so no server, no publisher and no shared
// definition is on both sides. The test part is the held-out set transcribed after the judge was
// frozen: the raw files named `fresh-*.jsonl`. Every other raw file is development (all of it
// has been read, fitted on or scored before). A fresh line whose group reaches the development
// data (same owner or same definition, directly or through other fresh lines) goes to
// development too, and the build counts them. Development carries 5 cross-validation folds by
// group, from a sha256 of the group name; groups and folds of the development files are computed
// from those files alone, so adding fresh files never moves a development row to another fold.
//
// Date seen: the first YYYY-MM-DD in the raw file's name (fresh-2026-12-01-a.jsonl: 2026-12-01),
// else SEEN (the day the first files, whose names carry no date, were transcribed).
//
// Output line: { id, source, seen, corpus, raw, server, group, split, fold, tool,
// siblingToolNames, published: { scores (visible dimensions only), tdqs?, tier? }, note }.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tierOf } from '../dist/lib/arithmetic.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Date seen of raw files whose name carries no date. */
const SEEN = '2026-12-01';
const seenOf = (file) => /\d{4}-\d{2}-\d{2}/.exec(file)?.[0] ?? SEEN;
const FOLDS = 5;
/** Raw files transcribed after the judge was frozen: the test part. */
const FRESH = /^fresh-.*\.jsonl$/;

const DIM = {
  Q: 'purpose_clarity',
  U: 'usage_guidelines',
  B: 'behavioral_transparency',
  P: 'parameter_semantics',
  C: 'conciseness_structure',
  M: 'contextual_completeness',
};
const KEYS = ['u', 'c', 's', 't', 'desc', 'p', 'a', 'o', 'sc'];
const OPTIONAL = ['title', 'sib', 'tdqs', 'tier', 'note'];
const BADGES = new Set(['RO', 'DE', 'ID', 'OW']);

const sha = (s) => createHash('sha256').update(s).digest('hex');

/** Problems of one raw line (empty when it is usable). */
function problems(r) {
  const out = [];
  for (const k of KEYS) if (!(k in r)) out.push(`missing key "${k}"`);
  for (const k of Object.keys(r)) {
    if (!KEYS.includes(k) && !OPTIONAL.includes(k)) out.push(`unknown key "${k}"`);
  }
  if (typeof r.u !== 'string' || !/^https:\/\/glama\.ai\/mcp\/[^?#]+\/tools\/[^/?#]+$/.test(r.u))
    out.push(`"u" is not a registry tool page address (${JSON.stringify(r.u)})`);
  if (r.c !== 'pages' && r.c !== 'docs') out.push(`"c" must be pages or docs`);
  for (const k of ['s', 't']) {
    if (typeof r[k] !== 'string' || r[k].trim() === '') out.push(`"${k}" must be a name`);
  }
  if (typeof r.desc !== 'string') out.push('"desc" must be a string');
  if ('title' in r && typeof r.title !== 'string') out.push('"title" must be a string');
  if (!Array.isArray(r.p)) out.push('"p" must be a list of rows');
  else {
    for (const row of r.p) {
      if (
        !Array.isArray(row) ||
        row.length < 2 ||
        row.length > 4 ||
        typeof row[0] !== 'string' ||
        (row[1] !== 0 && row[1] !== 1) ||
        (row.length > 2 && typeof row[2] !== 'string')
      )
        out.push(`bad input row ${JSON.stringify(row)}`);
    }
  }
  if (r.a !== null && typeof r.a !== 'string') out.push('"a" must be null or a badge list');
  else if (r.a) {
    for (const b of r.a.split(',')) if (!BADGES.has(b)) out.push(`unknown badge "${b}"`);
  }
  if (r.o !== 0 && r.o !== 1 && r.o !== null) out.push('"o" must be 1, 0 or null');
  if ('sib' in r && !(Array.isArray(r.sib) && r.sib.every((x) => typeof x === 'string')))
    out.push('"sib" must be a list of names');
  const sc = r.sc && typeof r.sc === 'object' && !Array.isArray(r.sc) ? r.sc : null;
  if (!sc) out.push('"sc" must be an object');
  else {
    for (const [k, v] of Object.entries(sc)) {
      if (!(k in DIM)) out.push(`unknown dimension "${k}"`);
      if (v !== null && (!Number.isInteger(v) || v < 1 || v > 5))
        out.push(`score ${k}=${v} is not an integer 1-5`);
    }
  }
  if ('tdqs' in r) {
    const t = r.tdqs;
    if (typeof t !== 'number' || t < 1 || t > 5 || Math.abs(t * 10 - Math.round(t * 10)) > 1e-9)
      out.push(`tdqs ${t} is not a one-decimal score 1-5`);
  }
  if ('tier' in r && !['A', 'B', 'C', 'D', 'F'].includes(r.tier))
    out.push(`tier ${JSON.stringify(r.tier)} is not A-F`);
  if ('tier' in r && !('tdqs' in r)) out.push('a tier without its TDQS');
  if (typeof r.tdqs === 'number' && typeof r.tier === 'string' && tierOf(r.tdqs) !== r.tier)
    out.push(`tier ${r.tier} disagrees with TDQS ${r.tdqs} (the rubric gives ${tierOf(r.tdqs)})`);
  if (sc && Object.values(sc).every((v) => v === null) && !('tdqs' in r))
    out.push('no score is visible');
  return out;
}

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

/** A server's owner: the part before the first "/" (a leading "@" dropped). */
const ownerOf = (server) => server.replace(/^@/, '').split('/')[0];

/** Groups: servers joined by a shared owner or a shared definition (union-find). */
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
  const byOwner = new Map();
  for (const r of rows) {
    if (!parent.has(r.s)) parent.set(r.s, r.s);
    const key = sha(`${r.t}\n${r.desc}`);
    const other = byDefinition.get(key);
    if (other) union(other, r.s);
    else byDefinition.set(key, r.s);
    const owner = ownerOf(r.s);
    const same = byOwner.get(owner);
    if (same) union(same, r.s);
    else byOwner.set(owner, r.s);
  }
  return (server) => find(server);
}

const rawDir = join(here, 'raw');
const listed = readdirSync(rawDir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
const files = [...listed.filter((f) => !FRESH.test(f)), ...listed.filter((f) => FRESH.test(f))];
const bad = [];
const duplicates = [];
const seenAddress = new Map();
const raw = [];
for (const file of files) {
  readFileSync(join(rawDir, file), 'utf8')
    .split('\n')
    .forEach((l, i) => {
      if (l.trim() === '') return;
      const where = `raw/${file}:${i + 1}`;
      let r;
      try {
        r = JSON.parse(l);
      } catch (e) {
        bad.push(`${where}: not JSON (${e.message})`);
        return;
      }
      const p = problems(r);
      if (p.length) {
        bad.push(`${where}: ${p.join('; ')}`);
        return;
      }
      const first = seenAddress.get(r.u);
      if (first) {
        duplicates.push(`${where} repeats the address of ${first}; kept the first`);
        return;
      }
      seenAddress.set(r.u, where);
      raw.push({ ...r, file });
    });
}
if (bad.length) {
  console.error(`build.mjs: ${bad.length} raw line(s) are not usable; fix or remove them:`);
  for (const b of bad) console.error(`  ${b}`);
  process.exit(1);
}
for (const d of duplicates) console.log(`  duplicate address: ${d}`);

// Groups of the development files from those files alone (stable when fresh files arrive);
// groups over everything to see which fresh lines reach the development data.
const devRaw = raw.filter((r) => !FRESH.test(r.file));
const devGroupOf = groups(devRaw);
const allGroupOf = groups(raw);
const devGroupIn = new Map();
for (const r of devRaw) {
  const g = allGroupOf(r.s);
  const known = devGroupIn.get(g);
  if (known === undefined || devGroupOf(r.s) < known) devGroupIn.set(g, devGroupOf(r.s));
}
// The tier-stratified test part (issue 28): whole groups of the development files, drawn in a
// fixed pseudo-random order (sha256 of the group name) until every published tier has
// STRATA_TARGET observations with a TDQS in the test part, or half of what the eligible groups
// hold (so development keeps the other half to fit on; tier D has 53 observations in all).
// Not eligible: groups holding a line of observations.jsonl (the rules were written while
// reading it) and groups of more than STRATA_MAX_GROUP observations (one publisher's connectors
// or one definition repeated on dozens of servers would be most of a tier).
const STRATA_TARGET = { A: 60, B: 45, C: 45, D: 40 };
const STRATA_MAX_GROUP = 12;
const tierOfRaw = (r) => (typeof r.tdqs === 'number' ? tierOf(r.tdqs) : null);
const devGroups = new Map();
for (const r of devRaw) {
  const g = devGroupOf(r.s);
  if (!devGroups.has(g)) devGroups.set(g, []);
  devGroups.get(g).push(r);
}
const eligible = [...devGroups]
  .filter(
    ([, rs]) => rs.length <= STRATA_MAX_GROUP && !rs.some((r) => r.file === 'observations.jsonl'),
  )
  .sort(([a], [b]) => (sha(`stratum:${a}`) < sha(`stratum:${b}`) ? -1 : 1));
const available = {};
for (const [, rs] of eligible)
  for (const r of rs)
    if (tierOfRaw(r)) available[tierOfRaw(r)] = (available[tierOfRaw(r)] ?? 0) + 1;
const target = Object.fromEntries(
  Object.entries(STRATA_TARGET).map(([t, n]) => [
    t,
    Math.min(n, Math.floor((available[t] ?? 0) / 2)),
  ]),
);
const inTest = {};
const stratified = new Set();
// Scarcest tiers first, so the groups that carry them are drawn before the common tiers fill up.
for (const t of Object.keys(target).sort((a, b) => (available[a] ?? 0) - (available[b] ?? 0))) {
  for (const [g, rs] of eligible) {
    if ((inTest[t] ?? 0) >= target[t]) break;
    if (stratified.has(g) || !rs.some((r) => tierOfRaw(r) === t)) continue;
    stratified.add(g);
    for (const r of rs) if (tierOfRaw(r)) inTest[tierOfRaw(r)] = (inTest[tierOfRaw(r)] ?? 0) + 1;
  }
}
let freshToDev = 0;
let freshToTest = 0;
for (const r of raw) {
  if (!FRESH.test(r.file)) {
    r.group = devGroupOf(r.s);
    r.split = stratified.has(r.group) ? 'test' : 'dev';
  } else if (devGroupIn.has(allGroupOf(r.s))) {
    r.group = devGroupIn.get(allGroupOf(r.s));
    r.split = stratified.has(r.group) ? 'test' : 'dev';
    freshToDev++;
  } else {
    r.group = allGroupOf(r.s);
    r.split = 'test';
    freshToTest++;
  }
}
const out = [];
const ids = new Map();
for (const r of raw) {
  const scores = {};
  for (const [k, d] of Object.entries(DIM)) {
    const v = r.sc?.[k];
    if (Number.isInteger(v)) scores[d] = v;
  }
  const { group, split } = r;
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
    seen: seenOf(r.file),
    corpus: r.c,
    raw: r.file,
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
const count = (rows) => {
  const tiers = {};
  for (const o of rows)
    if (o.published.tier) tiers[o.published.tier] = (tiers[o.published.tier] ?? 0) + 1;
  return `${rows.length} observations, ${new Set(rows.map((o) => o.server)).size} servers, ${new Set(rows.map((o) => o.group)).size} groups, ${rows.filter((o) => o.published.tdqs !== undefined).length} with a TDQS (tiers ${Object.entries(
    tiers,
  )
    .sort()
    .map(([t, n]) => `${t} ${n}`)
    .join(', ')})`;
};
console.log(`registry.jsonl from ${files.join(', ')}`);
console.log(`  all:  ${count(out)}`);
console.log(`  dev:  ${count(out.filter((o) => o.split === 'dev'))}`);
console.log(`  test: ${count(out.filter((o) => o.split === 'test'))}`);
console.log(
  `  stratified test part: ${stratified.size} groups of the development files (targets ${Object.entries(
    target,
  )
    .map(([t, n]) => `${t} ${n}`)
    .join(', ')} of ${Object.entries(available)
    .sort()
    .map(([t, n]) => `${t} ${n}`)
    .join(', ')} eligible)`,
);
console.log(
  `  fresh lines: ${freshToTest} to test, ${freshToDev} to development (their owner or definition is already in the development data)`,
);
