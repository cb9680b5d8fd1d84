/**
 * The most bytes `JSON.stringify` can produce for any value a JSON Schema accepts, or Infinity
 * when the schema sets no bound. Strings count 6 bytes per UTF-16 unit (a control character or a
 * lone surrogate is written as \uXXXX); numbers 24; unknown object keys are left out (the tools
 * strip them). `budgets` caps the total characters of named string fields anywhere under a
 * tool's arguments (a budget the schema states in words, such as write_batch's).
 */
export function worstCaseBytes(
  // biome-ignore lint/suspicious/noExplicitAny: a JSON Schema of any shape
  schema: any,
  budgeted: ReadonlySet<string> = new Set(),
): number {
  // biome-ignore lint/suspicious/noExplicitAny: see above
  const walk = (s: any, field: string | undefined): number => {
    if (s === true || s === undefined || s === null || typeof s !== 'object') return Infinity;
    if (s.const !== undefined) return JSON.stringify(s.const).length * 6;
    if (Array.isArray(s.enum))
      return Math.max(...s.enum.map((v: unknown) => JSON.stringify(v).length * 6));
    const alternatives = s.anyOf ?? s.oneOf;
    if (Array.isArray(alternatives)) {
      return Math.max(...alternatives.map((a: unknown) => walk(a, field)));
    }
    const type = Array.isArray(s.type) ? s.type : [s.type];
    let most = 0;
    for (const t of type) {
      if (t === 'string') {
        if (field !== undefined && budgeted.has(field)) most = Math.max(most, 2);
        else {
          let max = s.maxLength as number | undefined;
          const fixed =
            typeof s.pattern === 'string' ? /^\^\[[^\]]+\]\{(\d+)\}\$$/.exec(s.pattern) : null;
          if (max === undefined && fixed) max = Number(fixed[1]);
          most = Math.max(most, max === undefined ? Infinity : 2 + 6 * max);
        }
      } else if (t === 'number' || t === 'integer') most = Math.max(most, 24);
      else if (t === 'boolean') most = Math.max(most, 5);
      else if (t === 'null') most = Math.max(most, 4);
      else if (t === 'array') {
        const n = s.maxItems as number | undefined;
        most = Math.max(most, n === undefined ? Infinity : 2 + n * (walk(s.items, field) + 1));
      } else if (t === 'object') {
        let sum = 2;
        for (const [k, v] of Object.entries(s.properties ?? {})) {
          sum += JSON.stringify(k).length + 2 + walk(v, k);
        }
        most = Math.max(most, sum);
      } else return Infinity;
    }
    return most;
  };
  return walk(schema, undefined);
}
