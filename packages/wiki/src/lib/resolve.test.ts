import { describe, expect, it } from 'vitest';
import { LinkResolver } from './resolve.js';

const files = [
  'index.md',
  'wiki/Topic.md',
  'wiki/a/Note.md',
  'wiki/b/Note.md',
  'wiki/b/deep/Unique.md',
  'Note.md',
  'assets/diagram.png',
  'wiki/Case.md',
  'wiki/case.md',
];
const r = new LinkResolver(files);

describe('LinkResolver.resolve', () => {
  it('resolves by name, case-insensitively, with or without the extension', () => {
    expect(r.resolve('topic', 'index.md')).toBe('wiki/Topic.md');
    expect(r.resolve('Topic.md', 'index.md')).toBe('wiki/Topic.md');
    expect(r.resolve('unique', 'x.md')).toBe('wiki/b/deep/Unique.md');
    expect(r.resolve('diagram.png', 'x.md')).toBe('assets/diagram.png');
    expect(r.resolve('missing', 'x.md')).toBeNull();
  });

  it('prefers a path from the root, then the linking page folder, then the shortest path', () => {
    expect(r.resolve('Note', 'wiki/a/x.md')).toBe('Note.md');
    expect(r.resolve('b/Note', 'index.md')).toBe('wiki/b/Note.md');
    expect(r.resolve('wiki/a/Note', 'index.md')).toBe('wiki/a/Note.md');
    const noRoot = new LinkResolver(files.filter((f) => f !== 'Note.md'));
    expect(noRoot.resolve('Note', 'wiki/b/other.md')).toBe('wiki/b/Note.md');
    expect(noRoot.resolve('Note', 'index.md')).toBe('wiki/a/Note.md');
  });

  it('resolves ./ and ../ from the linking page and never above the root', () => {
    expect(r.resolve('./Note', 'wiki/a/x.md')).toBe('wiki/a/Note.md');
    expect(r.resolve('../b/Note.md', 'wiki/a/x.md')).toBe('wiki/b/Note.md');
    expect(r.resolve('../../../x', 'wiki/a/x.md')).toBeNull();
  });

  it('prefers the exact-case file among case variants, and resolves an empty path to the page itself', () => {
    expect(r.resolve('wiki/case', 'x.md')).toBe('wiki/case.md');
    expect(r.resolve('wiki/Case', 'x.md')).toBe('wiki/Case.md');
    expect(r.resolve('', 'wiki/Topic.md')).toBe('wiki/Topic.md');
  });
});

describe('LinkResolver.linkPathFor', () => {
  it('writes the shortest path that matches only the target', () => {
    expect(r.linkPathFor('wiki/Topic.md', 'index.md')).toBe('Topic');
    expect(r.linkPathFor('wiki/b/Note.md', 'index.md')).toBe('b/Note');
    expect(r.linkPathFor('Note.md', 'wiki/a/x.md')).toBe('Note');
    expect(r.linkPathFor('assets/diagram.png', 'x.md')).toBe('diagram.png');
  });

  it('keeps the style: full path, relative path, extension', () => {
    expect(r.linkPathFor('wiki/Topic.md', 'index.md', 'absolute')).toBe('wiki/Topic');
    expect(r.linkPathFor('wiki/b/Note.md', 'wiki/a/x.md', 'relative', true)).toBe('../b/Note.md');
    expect(r.linkPathFor('wiki/a/Note.md', 'wiki/a/x.md', 'relative')).toBe('./Note');
  });

  it('always produces a path that resolves back to the target', () => {
    for (const target of files) {
      for (const from of ['index.md', 'wiki/a/x.md', 'wiki/b/deep/y.md']) {
        for (const style of ['shortest', 'absolute', 'relative'] as const) {
          const p = r.linkPathFor(target, from, style);
          expect(r.resolve(p, from), `${style} ${target} from ${from} -> ${p}`).toBe(target);
        }
      }
    }
  });

  it('reports the style of an existing link', () => {
    expect(r.styleOf('Topic')).toEqual({ style: 'shortest', withExtension: false });
    expect(r.styleOf('wiki/Topic.md')).toEqual({ style: 'absolute', withExtension: true });
    expect(r.styleOf('../b/Note')).toEqual({ style: 'relative', withExtension: false });
  });
});
