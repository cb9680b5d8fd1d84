// Relevance measures of a ranked list against graded judgments (qrels), computed as trec_eval
// computes them: nDCG@k with linear gains (`ndcg_cut.k`), Recall@k (`recall_k`), and the
// splits and top-k overlap the relevance scenario reports. A ranked list is an array of
// document ids, best first, in the order the system returned them; qrels map a question's id
// to `{ [docId]: gain }`, where a gain above 0 means relevant.

/** The ids in first-seen order: a document cited twice (two chunks of one note) ranks once. */
export function uniqueDocs(ids) {
  return [...new Set(ids)];
}

/** Gain of a document for one question's judgments: 0 when unjudged or not positive. */
function gain(judged, doc) {
  const g = judged[doc];
  return typeof g === 'number' && g > 0 ? g : 0;
}

/**
 * Discounted cumulative gain of the first `k` documents: Σ gain(d_r) / log2(r + 1) over ranks
 * r = 1..k (trec_eval's formula: rank 1 is divided by log2 2 = 1, rank 2 by log2 3, ...).
 */
export function dcgAt(ranked, judged, k) {
  let dcg = 0;
  const top = uniqueDocs(ranked).slice(0, k);
  for (let i = 0; i < top.length; i++) dcg += gain(judged, top[i]) / Math.log2(i + 2);
  return dcg;
}

/** The best DCG@k possible: the judged gains sorted from highest, placed at ranks 1..k. */
export function idealDcgAt(judged, k) {
  const gains = Object.values(judged)
    .filter((g) => typeof g === 'number' && g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  let dcg = 0;
  for (let i = 0; i < gains.length; i++) dcg += gains[i] / Math.log2(i + 2);
  return dcg;
}

/** nDCG@k = DCG@k / ideal DCG@k; 0 when the question has no relevant document. */
export function ndcgAt(ranked, judged, k) {
  const ideal = idealDcgAt(judged, k);
  return ideal > 0 ? dcgAt(ranked, judged, k) / ideal : 0;
}

/** Share of the relevant documents (gain > 0) found in the first `k`; 0 when none is relevant. */
export function recallAt(ranked, judged, k) {
  const relevant = Object.keys(judged).filter((d) => gain(judged, d) > 0).length;
  if (relevant === 0) return 0;
  const found = uniqueDocs(ranked)
    .slice(0, k)
    .filter((d) => gain(judged, d) > 0).length;
  return found / relevant;
}

/** |top-k of a ∩ top-k of b| / k: 1 when both rank the same k documents (in any order). */
export function overlapAt(a, b, k) {
  const inB = new Set(uniqueDocs(b).slice(0, k));
  return (
    uniqueDocs(a)
      .slice(0, k)
      .filter((d) => inB.has(d)).length / k
  );
}

/**
 * The scenario's three splits of a question list (in queries.json order): `all`, `dev` (even
 * 0-based positions: field weights may be tuned on these) and `test` (odd positions: reported,
 * never tuned to). Each is an array of question ids.
 */
export function splits(questions) {
  const ids = questions.map((q) => q.id);
  return {
    all: ids,
    dev: ids.filter((_, i) => i % 2 === 0),
    test: ids.filter((_, i) => i % 2 === 1),
  };
}

/**
 * Mean figures of one system over the questions `ids`. `runs` maps a question id to its ranked
 * list, or to `null` when the system refused the question (an error: it scores 0 everywhere,
 * as a question with no results does in trec_eval run with -c). Returns
 * `{ n, ndcg10, recall10, recall100, refused }` (means unrounded).
 */
export function evaluate(ids, runs, qrels) {
  let ndcg10 = 0;
  let recall10 = 0;
  let recall100 = 0;
  let refused = 0;
  for (const id of ids) {
    const judged = qrels[id];
    if (!judged) throw new Error(`question ${id} has no judgments in the qrels`);
    const ranked = runs.get(id);
    if (ranked === undefined) throw new Error(`question ${id} was not run`);
    if (ranked === null) {
      refused++;
      continue;
    }
    ndcg10 += ndcgAt(ranked, judged, 10);
    recall10 += recallAt(ranked, judged, 10);
    recall100 += recallAt(ranked, judged, 100);
  }
  const n = ids.length;
  return {
    n,
    ndcg10: n ? ndcg10 / n : Number.NaN,
    recall10: n ? recall10 / n : Number.NaN,
    recall100: n ? recall100 / n : Number.NaN,
    refused,
  };
}

/**
 * Mean top-k overlap of two systems over the questions `ids` (a question either refused
 * counts 0), and the same mean over the questions both answered (`answered` of them).
 */
export function meanOverlap(ids, runsA, runsB, k = 10) {
  let all = 0;
  let both = 0;
  let answered = 0;
  for (const id of ids) {
    const a = runsA.get(id);
    const b = runsB.get(id);
    if (!a || !b) continue;
    const o = overlapAt(a, b, k);
    all += o;
    both += o;
    answered++;
  }
  return {
    mean: ids.length ? all / ids.length : Number.NaN,
    meanAnswered: answered ? both / answered : Number.NaN,
    answered,
  };
}
