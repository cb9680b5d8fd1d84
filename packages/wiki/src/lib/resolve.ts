import { posix } from 'node:path';

/** How a link spelled its path, kept when the link is rewritten. */
export type LinkStyle = 'shortest' | 'absolute' | 'relative';

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i === -1 ? '' : path.slice(0, i);
}

function segmentsOf(path: string): number {
  let n = 1;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

/**
 * Resolves link paths to files the way Obsidian does, over a fixed set of files (paths
 * relative to the wiki root, `/`-separated):
 *
 * 1. `./x` and `../x` are relative to the linking page's folder.
 * 2. Otherwise a path from the wiki root wins (`wiki/topic` or `wiki/topic.md`).
 * 3. Otherwise any file whose path ends with the link path (`topic` finds `wiki/a/topic.md`);
 *    among several, one in the linking page's folder, else the one with the fewest folders,
 *    else the first alphabetically.
 *
 * Matching is case-insensitive (an exact-case file wins a tie) and the page extension may be
 * left out. An empty link path (`[[#Heading]]`) is the linking page itself.
 */
/**
 * Work counters of every {@link LinkResolver} in this process, for tests that bound the cost of
 * link resolution by counts rather than time: `resolved` counts link paths resolved from
 * scratch (not from a resolver's memo), `candidates` the file paths examined while doing so.
 */
export const resolverStats = { resolved: 0, candidates: 0 };

/** Files a link path's last segment names, in the order a tie is broken, and by folder. */
interface Candidates {
  /** Matching paths by fewest folders, then alphabetically. */
  sorted: string[];
  /** The same paths by folder, each list in the order of `sorted`. */
  byFolder: Map<string, string[]>;
}

export class LinkResolver {
  private readonly byPath = new Map<string, string[]>();
  private readonly byName = new Map<string, string[]>();
  /** Memo: link path (cleaned) and linking folder -> target; each is resolved once. */
  private readonly memo = new Map<string, string | null>();
  /** Memo: lower-cased spelling -> its suffix matches, sorted once. */
  private readonly suffixMemo = new Map<string, Candidates>();

  constructor(
    paths: Iterable<string>,
    private readonly pageExtensions: readonly string[] = ['.md'],
  ) {
    for (const p of paths) this.add(p);
  }

  private add(path: string): void {
    const lower = path.toLowerCase();
    const list = this.byPath.get(lower);
    if (list) list.push(path);
    else this.byPath.set(lower, [path]);
    const name = lower.slice(lower.lastIndexOf('/') + 1);
    const named = this.byName.get(name);
    if (named) named.push(path);
    else this.byName.set(name, [path]);
  }

  private isPage(path: string): boolean {
    const lower = path.toLowerCase();
    return this.pageExtensions.some((e) => lower.endsWith(e));
  }

  /** Spellings to try for a link path: with a page extension first, then as written. */
  private spellings(linkPath: string): string[] {
    if (this.isPage(linkPath)) return [linkPath];
    return [...this.pageExtensions.map((e) => linkPath + e), linkPath];
  }

  private exact(path: string): string | null {
    for (const s of this.spellings(path)) {
      const hit = this.byPath.get(s.toLowerCase());
      if (hit && hit.length > 0) return hit.includes(s) ? s : hit[0]!;
    }
    return null;
  }

  /** Suffix matches of one lower-cased spelling, computed once per resolver. */
  private candidates(lower: string): Candidates {
    const known = this.suffixMemo.get(lower);
    if (known) return known;
    const name = lower.slice(lower.lastIndexOf('/') + 1);
    const named = this.byName.get(name) ?? [];
    resolverStats.candidates += named.length;
    const sorted = named
      .filter((p) => {
        const l = p.toLowerCase();
        return l === lower || l.endsWith(`/${lower}`);
      })
      .sort((a, b) => segmentsOf(a) - segmentsOf(b) || (a < b ? -1 : a > b ? 1 : 0));
    const byFolder = new Map<string, string[]>();
    for (const p of sorted) {
      const list = byFolder.get(dirOf(p));
      if (list) list.push(p);
      else byFolder.set(dirOf(p), [p]);
    }
    const out = { sorted, byFolder };
    this.suffixMemo.set(lower, out);
    return out;
  }

  /** Files whose path ends with the link path (as a whole segment sequence), for one spelling. */
  private suffixMatches(linkPath: string): Candidates | null {
    for (const s of this.spellings(linkPath)) {
      const hits = this.candidates(s.toLowerCase());
      if (hits.sorted.length > 0) return hits;
    }
    return null;
  }

  private static clean(linkPath: string): string {
    let t = linkPath.trim().replace(/\\/g, '/');
    while (t.startsWith('/')) t = t.slice(1);
    return t;
  }

  /** The file a link path points to from page `from`, or null when it points nowhere. */
  resolve(linkPath: string, from: string): string | null {
    const t = LinkResolver.clean(linkPath);
    if (t === '') return from;
    // The answer depends only on the link path and the linking page's folder: each distinct
    // pair is worked out once, so a page with 100,000 copies of one link costs one resolution.
    const folder = dirOf(from);
    const key = `${folder}\0${t}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    resolverStats.resolved++;
    const found = this.resolveUncached(t, folder);
    this.memo.set(key, found);
    return found;
  }

  private resolveUncached(t: string, folder: string): string | null {
    if (t.startsWith('./') || t.startsWith('../')) {
      const joined = posix.normalize(posix.join(folder, t));
      if (joined.startsWith('../') || joined === '..') return null;
      return this.exact(joined);
    }
    const direct = this.exact(t);
    if (direct) return direct;
    const hits = this.suffixMatches(t);
    if (hits === null) return null;
    return (hits.byFolder.get(folder) ?? hits.sorted)[0]!;
  }

  /** How an existing link path is spelled, so a rewrite can keep the style. */
  styleOf(linkPath: string): { style: LinkStyle; withExtension: boolean } {
    const t = LinkResolver.clean(linkPath);
    const withExtension = this.isPage(t);
    if (t.startsWith('./') || t.startsWith('../')) return { style: 'relative', withExtension };
    if (t.includes('/') && this.exact(t) !== null) return { style: 'absolute', withExtension };
    return { style: 'shortest', withExtension };
  }

  /**
   * The link path to write for `target` from page `from`. `shortest` is the shortest path
   * suffix that matches `target` alone (Obsidian's "shortest path when possible"), falling
   * back to the full path; `absolute` is the full path; `relative` is relative to `from`'s
   * folder. Page extensions are dropped unless `withExtension`; other files keep theirs.
   */
  linkPathFor(
    target: string,
    from: string,
    style: LinkStyle = 'shortest',
    withExtension = false,
  ): string {
    let base = target;
    if (!withExtension && this.isPage(target)) {
      const lower = target.toLowerCase();
      const ext = this.pageExtensions.find((e) => lower.endsWith(e))!;
      base = target.slice(0, -ext.length);
    }
    if (style === 'relative') {
      const rel = posix.relative(dirOf(from), base);
      return rel.startsWith('../') ? rel : `./${rel}`;
    }
    if (style === 'shortest') {
      const parts = base.split('/');
      for (let k = 1; k < parts.length; k++) {
        const candidate = parts.slice(-k).join('/');
        if (
          this.exact(candidate) === null &&
          this.suffixMatches(candidate)?.sorted.length === 1 &&
          this.resolve(candidate, from) === target
        ) {
          return candidate;
        }
      }
    }
    return base;
  }
}
