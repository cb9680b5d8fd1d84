import type { ToolJudgeInput } from './types.js';

/**
 * How much a description says beyond its tool's name (issue 28, round 5). The registry's tier-D
 * definitions mostly have a sentence of content, but that sentence only restates the name or
 * title in other words ("Is Deficient: Is Deficient", "MediaSFU Flutter :: env.preflight
 * (command).", "Invoke the get_container_logs operation."), names an HTTP route, or is a template
 * shared by a publisher's tools. These features let the fitted models see that, apart from
 * length: a short description can be fine when its words carry meaning the name does not.
 */

/** Words that carry no content of their own, in the languages the corpus holds most. */
const STOP = new Set(
  (
    'the a an and or of to for in on by with from at as is are be it its this that these those ' +
    'via into your you all any one can will may not no only each per use used using get gets ' +
    'returns return tool tools el la los las de del y o en para con por un una es que le les des ' +
    'et ou du au der die das und oder mit für von zu'
  ).split(' '),
);

/**
 * A crude stem that joins inflections: the lower-cased word less a final "s" (when longer than
 * three letters), cut to its first five letters ("notes" and "note", "profiles" and "profile").
 */
const stem = (word: string) => {
  const w = word.toLowerCase();
  return (w.length > 3 ? w.replace(/s$/, '') : w).slice(0, 5);
};

/** Word stems of a tool name or title: split on separators and camelCase. */
function nameStems(text: string): Set<string> {
  const parts = text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((p) => p.length >= 2);
  return new Set(parts.map(stem));
}

/**
 * Distinct content words of the description that the name and title do not already carry
 * (stop words and words of one or two letters left out; words compared by their first five
 * letters).
 */
export function novelWords(tool: ToolJudgeInput['tool']): number {
  const known = nameStems(`${tool.name} ${tool.title ?? ''}`);
  const seen = new Set<string>();
  for (const m of (tool.description ?? '').matchAll(/[\p{L}\p{N}]+/gu)) {
    const w = m[0].toLowerCase();
    if (w.length < 3 || STOP.has(w) || /^\d+$/.test(w)) continue;
    const s = stem(w);
    if (!known.has(s)) seen.add(s);
  }
  return seen.size;
}

/** An HTTP route written as the description ("GET /calendar/events"). */
const ROUTE = /\b(GET|POST|PUT|PATCH|DELETE)\s+\/\S*/;
/** A generated wrapper sentence ("Invoke the x operation", "Run Google calendar action: y"). */
const WRAPPER =
  /\b(invoke|run|execute|call|perform)s?\b[^.]{0,60}\b(operation|action|command|endpoint|function)\b|::/i;
/** Sales copy that tells an agent nothing about the call. */
const MARKETING =
  /production-ready|world-class|state-of-the-art|cutting-edge|best-in-class|seamless(ly)?|powerful|repeatable workflow|copy-paste|supercharge|effortless(ly)?/gi;

/** Feature names of {@link noveltyFeatures}, in vector order. */
export const NOVELTY_FEATURES = [
  'novel_words_log',
  'novel_at_most_2',
  'novel_at_most_5',
  'route_as_description',
  'generated_wrapper',
  'marketing_copy',
  'many_params_unmentioned',
] as const;

/**
 * The {@link NOVELTY_FEATURES} of one definition: `words` is its description's word count and
 * `mentioned` how many of its parameters the description names.
 */
export function noveltyFeatures(
  tool: ToolJudgeInput['tool'],
  words: number,
  params: number,
  mentioned: number,
): number[] {
  const d = tool.description ?? '';
  const novel = novelWords(tool);
  const b = (x: boolean) => (x ? 1 : 0);
  return [
    Math.log1p(novel),
    b(novel <= 2),
    b(novel <= 5),
    b(ROUTE.test(d) && words <= 12),
    b(WRAPPER.test(d) && words <= 12),
    Math.min((d.match(MARKETING) ?? []).length, 3) / 3,
    b(params >= 3 && mentioned === 0),
  ];
}
