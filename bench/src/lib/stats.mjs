// Summaries of timing samples and of paired ratios.

/** The q-quantile (0..1) of an ascending array, nearest-rank; NaN when empty. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/** Median of the samples (mean of the two middle values for an even count). */
export function median(samples) {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** `{ n, median, min, max, p95 }` of a list of numbers, rounded for the report. */
export function summarize(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    median: round(median(s)),
    min: round(s[0] ?? Number.NaN),
    max: round(s.at(-1) ?? Number.NaN),
    p95: round(quantile(s, 0.95)),
  };
}

/** Three significant digits, enough for timings and ratios. */
export function round(x) {
  if (!Number.isFinite(x) || x === 0) return x;
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(x))));
  return Number(x.toFixed(Math.min(digits, 6)));
}

/**
 * A ratio with its spread from paired samples: `a[i] / b[i]` of the same round. The headline is
 * median(a) / median(b); the spread is the lowest and highest per-round ratio (p10 and p90 when
 * there are more than ten pairs, e.g. one pair per query).
 */
export function pairedRatio(a, b) {
  const n = Math.min(a.length, b.length);
  const per = [];
  for (let i = 0; i < n; i++) if (b[i] > 0) per.push(a[i] / b[i]);
  per.sort((x, y) => x - y);
  const lo = per.length > 10 ? quantile(per, 0.1) : per[0];
  const hi = per.length > 10 ? quantile(per, 0.9) : per.at(-1);
  return {
    value: round(median(a) / median(b)),
    low: round(lo ?? Number.NaN),
    high: round(hi ?? Number.NaN),
    pairs: per.length,
  };
}

/**
 * Latency by query kind: `kinds[i]` is the kind of the query that took `samples[i]` ms.
 * Returns `{ [kind]: { n, p50, p95 } }`, kinds in first-seen order, figures rounded.
 */
export function byKind(kinds, samples) {
  const groups = new Map();
  const n = Math.min(kinds.length, samples.length);
  for (let i = 0; i < n; i++) {
    const list = groups.get(kinds[i]) ?? [];
    list.push(samples[i]);
    groups.set(kinds[i], list);
  }
  const out = {};
  for (const [kind, list] of groups) {
    const s = list.sort((a, b) => a - b);
    out[kind] = { n: s.length, p50: round(median(s)), p95: round(quantile(s, 0.95)) };
  }
  return out;
}

/** `byKind`'s result as one line for a note: "phrase p95 40.1 ms (n 60), …", slowest first. */
export function kindLine(kinds) {
  return Object.entries(kinds)
    .sort(([, a], [, b]) => b.p95 - a.p95)
    .map(([kind, k]) => `${kind.replace(/_/g, ' ')} p95 ${k.p95} ms (p50 ${k.p50}, n ${k.n})`)
    .join('; ');
}
