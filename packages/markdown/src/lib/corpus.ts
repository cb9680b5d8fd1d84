/*
 * Deterministic Markdown generators for tests and benchmarks: realistic documentation pages
 * (prose, lists, code, tables, block quotes, HTML, setext and ATX headings) and short "torture"
 * documents stitched from fragments that stress how block constructs interact.
 */

/** A seeded pseudo-random generator (mulberry32) returning floats in [0, 1). */
export function createRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rng: () => number, items: readonly T[]): T =>
  items[Math.floor(rng() * items.length)]!;

const PREFIXES = [
  '',
  '',
  '',
  '',
  '',
  ' ',
  '  ',
  '   ',
  '    ',
  '     ',
  '\t',
  ' \t',
  '> ',
  '>',
  '> > ',
  '>\t',
  '   > ',
  '- ',
  '* ',
  '+ ',
  '-',
  '-\t',
  '1. ',
  '2) ',
  '10. ',
  '1.',
  '  - ',
  '    - ',
  '- > ',
  '> - ',
  '1. > ',
  '-    ',
  '- - ',
];

const BODIES = [
  'foo',
  'bar baz',
  'Plain words here',
  '# Title',
  '## Second ##',
  '#',
  '###### Six',
  '####### Seven',
  '#hashtag',
  '# Mixed `code` and \\*escaped\\*',
  '## With *emphasis*',
  '### A [link](x.md)',
  '## Emoji 🎉 and 中文',
  '#\tTabbed',
  '# trailing #',
  '# closing ###   ',
  '## \\## escaped',
  '===',
  '---',
  '- - -',
  '***',
  '___',
  '= =',
  '--',
  '=',
  '```',
  '```js',
  '~~~',
  '````',
  '``` ```',
  '~~~~ info',
  '<div>',
  '</div>',
  '<div/x',
  '<!-- c',
  '-->',
  '<!-- x -->',
  '<!-->',
  '<script>',
  '</script>',
  '<pre>',
  '</pre>',
  '<custom-tag>',
  '<a href="x">',
  '<a href=/x>',
  '<b>inline</b>',
  '<?php',
  '?>',
  '<!DOCTYPE html>',
  '<![CDATA[',
  ']]>',
  'a | b',
  '|---|---|',
  '-|-',
  '| x |',
  ':--',
  '| a | b |',
  '|:-|-:|',
  'x|y|z',
  '---|---',
  '[foo]: /url',
  '[foo]:',
  '/url',
  '"title"',
  '[bar]',
  '[foo]',
  '',
  '',
  '',
  '',
  'Setext `code`',
  'emph *x*',
  'link [a](b)',
  '&amp; entity',
  '\\# not',
  'x\\',
  'text  ',
  'a <b>c</b>',
  '`` x ``',
  '1. one',
  '- item',
  '2. two',
  '* star',
  '    indented',
  '\tcode',
  'Heading text',
  'Another line',
  'www.example.com',
  '~~gone~~',
  '[^1]',
  'term: value',
  '# a * b',
  '## snake_case_name',
  '# a ~ b',
  '# Tom & Jerry',
  '# x &amp; y',
  '# a_ b',
  '# 1*2*3',
  '# a __ b',
  '# _a_',
  '# &#35; hash',
  '# &nope',
  '# a\\_b_c',
  '# `a*b` c',
  '## café_au_lait',
  '# x_\u00e9_y',
  'Tom & Jerry',
  'snake_case',
  '# 🎉_x_',
  '# x_🎉_y',
];

/**
 * A short document stitched from random container prefixes and line bodies, to stress the
 * interactions of block quotes, lists, fences, HTML blocks, tables and setext underlines.
 */
export function tortureDocument(rng: () => number): string {
  const lines: string[] = [];
  if (rng() < 0.08)
    lines.push('---', pick(rng, ['title: x', '', '# not a heading', 'a: b']), '---');
  const count = 1 + Math.floor(rng() * 12);
  for (let i = 0; i < count; i++) {
    let prefix = pick(rng, PREFIXES);
    if (rng() < 0.15) prefix += pick(rng, PREFIXES);
    lines.push(prefix + pick(rng, BODIES));
  }
  const eol = rng() < 0.1 ? '\r\n' : '\n';
  return lines.join(eol) + (rng() < 0.5 ? eol : '');
}

const WORDS = (
  'the a to of and install configure server client token request response cache index ' +
  'section anchor heading document option value default limit error retry timeout path ' +
  'root file folder line chunk search query result page offset budget tree outline read ' +
  'write version schema field parameter returns example note warning tip deploy build test'
).split(' ');

function sentence(rng: () => number): string {
  const n = 6 + Math.floor(rng() * 14);
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    let w = pick(rng, WORDS);
    const r = rng();
    if (r < 0.04) w = `\`${w}\``;
    else if (r < 0.06) w = `*${w}*`;
    else if (r < 0.07) w = `**${w}**`;
    else if (r < 0.08) w = `[${w}](./${w}.md)`;
    words.push(w);
  }
  const s = words.join(' ');
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

function paragraph(rng: () => number): string {
  const lines: string[] = [];
  const n = 1 + Math.floor(rng() * 4);
  for (let i = 0; i < n; i++) lines.push(sentence(rng));
  return lines.join('\n');
}

function headingText(rng: () => number): string {
  const r = rng();
  const base = `${pick(rng, WORDS)} ${pick(rng, WORDS)}`;
  const title = `${base[0]!.toUpperCase()}${base.slice(1)}`;
  if (r < 0.15) return `${title} \`${pick(rng, WORDS)}\``;
  if (r < 0.2) return `${title} *${pick(rng, WORDS)}*`;
  if (r < 0.23) return `${title} & more`;
  if (r < 0.26) return `${title} 🎉`;
  if (r < 0.28) return `安装 ${title}`;
  return title;
}

function block(rng: () => number, level: number): string {
  const r = rng();
  if (r < 0.45) return paragraph(rng);
  if (r < 0.58) {
    const items: string[] = [];
    const n = 2 + Math.floor(rng() * 4);
    const ordered = rng() < 0.3;
    for (let i = 0; i < n; i++) {
      items.push(`${ordered ? `${i + 1}.` : '-'} ${sentence(rng)}`);
      if (rng() < 0.2) items.push(`  ${sentence(rng)}`);
      if (rng() < 0.1) items.push(`  - ${sentence(rng)}`);
    }
    return items.join('\n');
  }
  if (r < 0.7) {
    const lang = pick(rng, ['js', 'sh', 'yaml', 'json', '']);
    const body: string[] = [];
    const n = 2 + Math.floor(rng() * 8);
    for (let i = 0; i < n; i++) {
      body.push(rng() < 0.15 ? `# ${pick(rng, WORDS)} comment` : `${pick(rng, WORDS)} = ${i};`);
    }
    return ['```' + lang, ...body, '```'].join('\n');
  }
  if (r < 0.78) {
    const rows = [`| ${pick(rng, WORDS)} | ${pick(rng, WORDS)} |`, '| --- | --- |'];
    const n = 1 + Math.floor(rng() * 5);
    for (let i = 0; i < n; i++) rows.push(`| ${pick(rng, WORDS)} | \`${pick(rng, WORDS)}\` |`);
    return rows.join('\n');
  }
  if (r < 0.84) return `> **Note:** ${sentence(rng)}\n> ${sentence(rng)}`;
  if (r < 0.88)
    return `<details>\n<summary>${pick(rng, WORDS)}</summary>\n\n${sentence(rng)}\n\n</details>`;
  if (r < 0.91) return `    ${pick(rng, WORDS)} --flag\n    ${pick(rng, WORDS)}`;
  if (r < 0.94 && level < 3) {
    const t = headingText(rng);
    return `${t}\n${level === 1 ? '=' : '-'.repeat(Math.max(3, t.length))}`;
  }
  return '---';
}

/** A realistic documentation page of roughly `targetBytes` bytes (deterministic per seed). */
export function realisticDocument(seed: number, targetBytes = 8000): string {
  const rng = createRng(seed);
  const out: string[] = [];
  if (rng() < 0.3) out.push(`---\ntitle: ${headingText(rng)}\ntags: [docs]\n---`);
  out.push(`# ${headingText(rng)}`);
  let size = 0;
  let level = 1;
  while (size < targetBytes) {
    const r = rng();
    let part: string;
    if (r < 0.18) {
      level = Math.min(6, Math.max(2, level + (rng() < 0.5 ? 1 : -1)));
      part = `${'#'.repeat(level)} ${headingText(rng)}`;
    } else {
      part = block(rng, level);
    }
    out.push(part);
    size += part.length + 2;
  }
  return `${out.join('\n\n')}\n`;
}

/**
 * Kinds of adversarial Markdown: inputs on which CommonMark parsers (remark among them) have
 * gone quadratic or overflowed their stack.
 */
export const PATHOLOGICAL_KINDS = [
  'nested-lists',
  'nested-list-lines',
  'nested-quotes',
  'nested-quote-lines',
  'deep-blank-lines',
  'emphasis-runs',
  'emphasis-heading',
  'link-brackets',
  'link-openers',
  'wide-table',
  'long-table',
  'html-blocks',
  'html-inline',
  'code-span-heading',
  'link-headings',
  'footnote-windows',
  'mixed',
] as const;

/** One of {@link PATHOLOGICAL_KINDS}. */
export type PathologicalKind = (typeof PATHOLOGICAL_KINDS)[number];

function repeatTo(unit: string, chars: number, head = '', tail = ''): string {
  const n = Math.max(1, Math.ceil((chars - head.length - tail.length) / unit.length));
  return head + unit.repeat(n) + tail;
}

/** An adversarial document of the given kind, about `chars` characters long. */
export function pathologicalDocument(kind: PathologicalKind, chars: number): string {
  switch (kind) {
    case 'nested-lists':
      return repeatTo('- ', chars, '', 'x\n');
    case 'nested-list-lines': {
      // each line opens a list item one level deeper than the last, for a while, then again
      const lines: string[] = [];
      let size = 0;
      for (let i = 0; size < chars; i++) {
        const line = `${'  '.repeat(i % 40)}- item ${i}`;
        lines.push(line);
        size += line.length + 1;
      }
      return `${lines.join('\n')}\n`;
    }
    case 'nested-quotes':
      return repeatTo('> ', chars, '', 'x\n');
    case 'nested-quote-lines': {
      const lines: string[] = [];
      let size = 0;
      for (let i = 0; size < chars; i++) {
        const line = `${'>'.repeat((i % 60) + 1)} quote ${i}`;
        lines.push(line);
        size += line.length + 1;
      }
      return `${lines.join('\n')}\n`;
    }
    case 'deep-blank-lines':
      return `${'- '.repeat(chars / 4)}x${'\n'.repeat(chars / 2)}# After\n`;
    case 'emphasis-runs':
      return repeatTo('*a_', chars, '', '\n');
    case 'emphasis-heading':
      return repeatTo('*a_', chars, '# ', '\n');
    case 'link-brackets':
      return `${'['.repeat(chars / 2)}x${']'.repeat(chars / 2)}\n`;
    case 'link-openers':
      return repeatTo('[a](', chars, '', '\n');
    case 'wide-table':
      return `${'|a'.repeat(chars / 4)}\n${'|-'.repeat(chars / 4)}\n`;
    case 'long-table':
      return repeatTo('| x | y |\n', chars, '| a | b |\n|---|---|\n');
    case 'html-blocks':
      return repeatTo('<div>\n', chars);
    case 'html-inline':
      return repeatTo('<a ', chars, '', '\n');
    case 'code-span-heading': {
      const runs: string[] = [];
      let size = 2;
      for (let i = 0; size < chars; i++) {
        const run = '`'.repeat((i % 50) + 1);
        runs.push(run);
        size += run.length + 1;
      }
      return `# ${runs.join(' ')}\n`;
    }
    case 'link-headings':
      // headings whose text only a full inline parse gives: each one asked remark once
      return repeatTo('# [a](b) &amp; <b>x</b>\n', chars);
    case 'footnote-windows': {
      // a footnote definition (which the scanner leaves to remark) every few lines, between
      // deeply nested containers remark must not be given
      const unit = `x[^1]\n\n[^1]: note\n\n${'- '.repeat(300)}x\n\n${'> '.repeat(300)}x\n\n`;
      return repeatTo(unit, chars, '# Title\n\n');
    }
    default: {
      const parts = [
        `${'- '.repeat(400)}x\n\n`,
        `${'> '.repeat(400)}x\n\n`,
        `${'*a_'.repeat(400)}\n\n`,
        `${'['.repeat(600)}${']('.repeat(300)}\n\n`,
        `${'|a'.repeat(300)}\n${'|-'.repeat(300)}\n\n`,
        `${'<div>\n'.repeat(50)}\n`,
        `# ${'*a_'.repeat(200)}\n\n`,
        '[^1]: y\n\n',
        'Setext *a_ [b\n===\n\n',
      ];
      let out = '';
      for (let i = 0; out.length < chars; i++) out += parts[i % parts.length];
      return out;
    }
  }
}
