#!/usr/bin/env node
// Fits the offline judge's per-dimension models on the development part of the calibration
// corpus and writes calibration/weights.json. Deterministic: the same corpus and the same
// judge code give the same file, byte for byte. Run it through
// `pnpm --filter @lectern/lint calibrate:fit` (which builds first), or `node calibration/fit.mjs`
// after a build. It never reads the test part.
//
// Fitting set: every `split: "dev"` line of registry.jsonl, plus the five seed pages and the
// three rubric examples (fully scored, from servers outside the test part).
// - Behaviour, parameters, conciseness and completeness: ordinal linear models. Ridge
//   regression of the published score on standardized features (the rule scores among them),
//   then four thresholds chosen by coordinate descent to minimize the absolute error. The ridge
//   strength is chosen by 5-fold cross-validation by server group.
// - Purpose and usage (rarely shown on the pages): a monotone map of the rule score, chosen to
//   minimize the TDQS error on the examples with a published overall score (and the error on
//   the few that show the dimension), with a small pull toward the identity.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeTdqs } from '../dist/lib/arithmetic.js';
import { parseCalibrationJsonl } from '../dist/lib/calibrate.js';
import { cutScore, FEATURE_NAMES } from '../dist/lib/model.js';
import { toolFeatures } from '../dist/lib/offline-judge.js';
import { computeSignals } from '../dist/lib/signals.js';

const here = dirname(fileURLToPath(import.meta.url));
const DIMS = [
  'purpose_clarity',
  'usage_guidelines',
  'behavioral_transparency',
  'parameter_semantics',
  'conciseness_structure',
  'contextual_completeness',
];
const LINEAR = [
  'behavioral_transparency',
  'parameter_semantics',
  'conciseness_structure',
  'contextual_completeness',
];
const LAMBDAS = [1, 3, 10, 30, 100, 300];
const FOLDS = 5;

const load = (f) => parseCalibrationJsonl(readFileSync(join(here, f), 'utf8'));
const registry = load('registry.jsonl');
const extra = [...load('seeds.jsonl'), ...load('rubric-examples.jsonl')];
const dev = [
  ...registry.filter((e) => e.split === 'dev'),
  ...extra.map((e, i) => ({ ...e, fold: i % FOLDS })),
];

const rows = dev.map((ex) => {
  const { x, rules } = toolFeatures({
    tool: ex.tool,
    signals: computeSignals(ex.tool),
    siblingToolNames: ex.siblingToolNames.filter((n) => n !== ex.tool.name),
  });
  return { ex, x, rules, fold: ex.fold ?? 0 };
});

// Repeats of one definition (the registry re-scores tools, and some publishers ship the same
// tool on many servers) count once in total: each observation weighs 1 / its group size.
const defKey = (ex) =>
  JSON.stringify([
    ex.tool.name,
    ex.tool.description ?? null,
    ex.tool.inputSchema ?? null,
    ex.tool.annotations ?? null,
  ]);
const groupSize = new Map();
for (const r of rows) groupSize.set(defKey(r.ex), (groupSize.get(defKey(r.ex)) ?? 0) + 1);
for (const r of rows) r.w = 1 / groupSize.get(defKey(r.ex));

const p = FEATURE_NAMES.length;
const mean = Array.from(
  { length: p },
  (_, j) => rows.reduce((a, r) => a + r.x[j], 0) / rows.length,
);
const sd = Array.from({ length: p }, (_, j) => {
  const v = rows.reduce((a, r) => a + (r.x[j] - mean[j]) ** 2, 0) / rows.length;
  return v > 1e-12 ? Math.sqrt(v) : 1;
});
const round = (v, k = 6) => Math.round(v * 10 ** k) / 10 ** k;
for (const r of rows) r.z = r.x.map((v, j) => (v - mean[j]) / sd[j]);

/** Solves A w = y by Gaussian elimination with partial pivoting. */
function solve(A, y) {
  const n = y.length;
  const M = A.map((row, i) => [...row, y[i]]);
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[piv][c])) piv = r;
    [M[c], M[piv]] = [M[piv], M[c]];
    const d = M[c][c] || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / d;
      if (f === 0) continue;
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((row, i) => row[n] / (row[i] || 1e-12));
}

function ridge(train, d, lambda) {
  const ys = train.map((r) => r.ex.published.scores[d]);
  const W = train.reduce((a, r) => a + r.w, 0);
  const ym = train.reduce((a, r, i) => a + r.w * ys[i], 0) / W;
  const A = Array.from({ length: p }, () => new Array(p).fill(0));
  const v = new Array(p).fill(0);
  // Features are standardized on the whole fitting set; centre them on this training subset.
  const zm = Array.from({ length: p }, (_, j) => train.reduce((a, r) => a + r.w * r.z[j], 0) / W);
  train.forEach((r, i) => {
    const zc = r.z.map((z, j) => z - zm[j]);
    for (let j = 0; j < p; j++) {
      v[j] += r.w * zc[j] * (ys[i] - ym);
      for (let k = j; k < p; k++) A[j][k] += r.w * zc[j] * zc[k];
    }
  });
  for (let j = 0; j < p; j++) {
    for (let k = 0; k < j; k++) A[j][k] = A[k][j];
    A[j][j] += lambda;
  }
  const w = solve(A, v);
  const bias = ym - w.reduce((a, wj, j) => a + wj * zm[j], 0);
  return { w, bias };
}

const lin = (m, z) => m.bias + m.w.reduce((a, wj, j) => a + wj * z[j], 0);

function fitCuts(ts, ys, ws) {
  const cuts = [1.5, 2.5, 3.5, 4.5];
  const loss = (c) => {
    let l = 0;
    for (let i = 0; i < ts.length; i++) {
      const e = Math.abs(cutScore(ts[i], c) - ys[i]);
      l += ws[i] * (e + (e ? 0.01 : 0));
    }
    return l;
  };
  const cands = [...new Set(ts.map((t) => round(t, 4)))].sort((a, b) => a - b);
  const mids = [];
  for (let i = 0; i + 1 < cands.length; i++) mids.push((cands[i] + cands[i + 1]) / 2);
  mids.unshift((cands[0] ?? 0) - 1);
  mids.push((cands[cands.length - 1] ?? 5) + 1);
  for (let iter = 0; iter < 4; iter++) {
    for (let k = 0; k < 4; k++) {
      const lo = k ? cuts[k - 1] : -Infinity;
      const hi = k < 3 ? cuts[k + 1] : Infinity;
      let best = cuts[k];
      let bestLoss = loss(cuts);
      for (const m of [...mids, cuts[k]]) {
        if (m < lo || m > hi) continue;
        const c = [...cuts];
        c[k] = m;
        const l = loss(c);
        if (
          l < bestLoss - 1e-9 ||
          (Math.abs(l - bestLoss) < 1e-9 && Math.abs(m - (k + 1.5)) < Math.abs(best - (k + 1.5)))
        ) {
          best = m;
          bestLoss = l;
        }
      }
      cuts[k] = best;
    }
  }
  return cuts.map((c) => round(c, 4));
}

function fitLinear(train, d, lambda) {
  const m = ridge(train, d, lambda);
  const cuts = fitCuts(
    train.map((r) => lin(m, r.z)),
    train.map((r) => r.ex.published.scores[d]),
    train.map((r) => r.w),
  );
  return { ...m, cuts };
}

const stats = (pairs) => {
  const n = pairs.length;
  const diffs = pairs.map(([a, b]) => a - b);
  return {
    n,
    exact: n ? round(diffs.filter((x) => x === 0).length / n, 3) : 0,
    within1: n ? round(diffs.filter((x) => Math.abs(x) <= 1).length / n, 3) : 0,
    mae: n ? round(diffs.reduce((a, x) => a + Math.abs(x), 0) / n, 3) : 0,
  };
};

const models = {};
const cv = {};
for (const d of LINEAR) {
  const labelled = rows.filter((r) => r.ex.published.scores[d] !== undefined);
  let best = null;
  for (const lambda of LAMBDAS) {
    const pairs = [];
    for (let f = 0; f < FOLDS; f++) {
      const train = labelled.filter((r) => r.fold !== f);
      const held = labelled.filter((r) => r.fold === f);
      if (!held.length || train.length < 10) continue;
      const m = fitLinear(train, d, lambda);
      for (const r of held) pairs.push([cutScore(lin(m, r.z), m.cuts), r.ex.published.scores[d]]);
    }
    const s = stats(pairs);
    if (!best || s.mae < best.s.mae - 1e-9) best = { lambda, s };
  }
  // Out-of-fold predictions for every row (labelled or not), for the TDQS cross-validation.
  for (let f = 0; f < FOLDS; f++) {
    const mf = fitLinear(
      labelled.filter((r) => r.fold !== f),
      d,
      best.lambda,
    );
    for (const r of rows.filter((r) => r.fold === f)) {
      r.predCV = { ...(r.predCV ?? {}), [d]: cutScore(lin(mf, r.z), mf.cuts) };
    }
  }
  const m = fitLinear(labelled, d, best.lambda);
  models[d] = {
    kind: 'linear',
    weights: m.w.map((v) => round(v)),
    bias: round(m.bias),
    cuts: m.cuts,
    lambda: best.lambda,
    n: labelled.length,
  };
  const rulePairs = labelled.map((r) => [r.rules[d], r.ex.published.scores[d]]);
  cv[d] = { crossValidated: best.s, rulesAlone: stats(rulePairs) };
}

// Purpose and usage: monotone maps of the rule score.
const maps = [];
(function gen(prefix) {
  if (prefix.length === 5) {
    maps.push(prefix);
    return;
  }
  for (let v = prefix.length ? prefix[prefix.length - 1] : 1; v <= 5; v++) gen([...prefix, v]);
})([]);

function predictLinear(r, d) {
  const m = models[d];
  return cutScore(m.bias + m.weights.reduce((a, wj, j) => a + wj * r.z[j], 0), m.cuts);
}
for (const r of rows)
  for (const d of LINEAR) r.pred = { ...(r.pred ?? {}), [d]: predictLinear(r, d) };

function fitMaps(train) {
  const tdqsRows = train.filter((r) => r.ex.published.tdqs !== undefined);
  let best = null;
  for (const mq of maps) {
    for (const mu of maps) {
      let loss = 0;
      for (const r of tdqsRows) {
        const s = {
          ...r.pred,
          purpose_clarity: mq[r.rules.purpose_clarity - 1],
          usage_guidelines: mu[r.rules.usage_guidelines - 1],
        };
        loss += r.w * Math.abs(computeTdqs(s) - r.ex.published.tdqs);
      }
      for (const r of train) {
        const q = r.ex.published.scores.purpose_clarity;
        const u = r.ex.published.scores.usage_guidelines;
        if (q !== undefined) loss += 0.1 * r.w * Math.abs(mq[r.rules.purpose_clarity - 1] - q);
        if (u !== undefined) loss += 0.1 * r.w * Math.abs(mu[r.rules.usage_guidelines - 1] - u);
      }
      for (let i = 0; i < 5; i++)
        loss += 0.1 * (Math.abs(mq[i] - (i + 1)) + Math.abs(mu[i] - (i + 1)));
      if (!best || loss < best.loss - 1e-9) best = { mq, mu, loss };
    }
  }
  return best;
}
const tdqsRows0 = () => rows.filter((r) => r.ex.published.tdqs !== undefined);
const tdqsOf = (r, mq, mu) =>
  computeTdqs({
    ...r.pred,
    purpose_clarity: mq[r.rules.purpose_clarity - 1],
    usage_guidelines: mu[r.rules.usage_guidelines - 1],
  });
{
  const held = [];
  for (let f = 0; f < FOLDS; f++) {
    const m = fitMaps(rows.filter((r) => r.fold !== f));
    for (const r of rows.filter((r) => r.fold === f && r.ex.published.tdqs !== undefined)) {
      held.push(Math.abs(tdqsOf(r, m.mq, m.mu) - r.ex.published.tdqs));
    }
  }
  const identity = [1, 2, 3, 4, 5];
  const tdqsRows = rows.filter((r) => r.ex.published.tdqs !== undefined);
  const idMae =
    tdqsRows.reduce(
      (a, r) => a + Math.abs(tdqsOf(r, identity, identity) - r.ex.published.tdqs),
      0,
    ) / (tdqsRows.length || 1);
  const mapMae = held.reduce((a, b) => a + b, 0) / (held.length || 1);
  // Keep the maps only when they beat the rule scores under cross-validation.
  const all = mapMae < idMae - 1e-9 ? fitMaps(rows) : { mq: identity, mu: identity };
  const n = tdqsRows.length;
  models.purpose_clarity = { kind: 'map', map: all.mq, n };
  models.usage_guidelines = { kind: 'map', map: all.mu, n };
  cv.maps = {
    crossValidatedMae: round(mapMae, 3),
    identityMae: round(idMae, 3),
    kept: mapMae < idMae - 1e-9,
  };
  const rulesTdqs = rows
    .filter((r) => r.ex.published.tdqs !== undefined)
    .map((r) => Math.abs(computeTdqs(r.rules) - r.ex.published.tdqs));
  // Cross-validated TDQS: out-of-fold linear dimensions, and the purpose/usage maps refit
  // without the held-out fold when they are kept.
  let cvSum = 0;
  for (let f = 0; f < FOLDS; f++) {
    const m = cv.maps.kept
      ? fitMaps(rows.filter((r) => r.fold !== f))
      : { mq: [1, 2, 3, 4, 5], mu: [1, 2, 3, 4, 5] };
    for (const r of tdqsRows0().filter((r) => r.fold === f)) {
      const s = {
        ...r.predCV,
        purpose_clarity: m.mq[r.rules.purpose_clarity - 1],
        usage_guidelines: m.mu[r.rules.usage_guidelines - 1],
      };
      cvSum += Math.abs(computeTdqs(s) - r.ex.published.tdqs);
    }
  }
  cv.tdqs = {
    n: tdqsRows0().length,
    crossValidatedMae: round(cvSum / (tdqsRows0().length || 1), 3),
    rulesAloneMae: round(rulesTdqs.reduce((a, b) => a + b, 0) / (rulesTdqs.length || 1), 3),
  };
}

const weights = {
  version: 1,
  fitted: {
    corpus: 'registry.jsonl (split dev) + seeds.jsonl + rubric-examples.jsonl',
    split: 'dev',
    examples: rows.length,
    date:
      registry
        .map((e) => e.seen ?? '')
        .sort()
        .pop() ?? '',
  },
  features: [...FEATURE_NAMES],
  mean: mean.map((v) => round(v)),
  sd: sd.map((v) => round(v)),
  dimensions: Object.fromEntries(DIMS.map((d) => [d, models[d]])),
  crossValidation: cv,
};
writeFileSync(join(here, 'weights.json'), `${JSON.stringify(weights, null, 2)}\n`);
console.log(`weights.json: fitted on ${rows.length} development examples`);
for (const d of LINEAR) {
  const c = cv[d];
  console.log(
    `  ${d.padEnd(26)} λ=${String(models[d].lambda).padEnd(4)} n=${String(c.crossValidated.n).padStart(3)}  5-fold CV: exact ${c.crossValidated.exact}  ±1 ${c.crossValidated.within1}  MAE ${c.crossValidated.mae}  (rules alone: MAE ${c.rulesAlone.mae})`,
  );
}
console.log(
  `  purpose map ${models.purpose_clarity.map.join(',')}  usage map ${models.usage_guidelines.map.join(',')}`,
);
console.log(
  `  TDQS 5-fold CV MAE ${cv.tdqs.crossValidatedMae} over ${cv.tdqs.n} (rules alone ${cv.tdqs.rulesAloneMae})`,
);
