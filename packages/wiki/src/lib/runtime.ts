import { checkOutputBytes } from '@lectern/core';
import { SearchIndex } from './search.js';
import { type Wiki, type WikiOptions, WikiSet } from './wiki.js';
import { WikiWriter } from './writer.js';

/**
 * Everything the wiki tools share: the configured wikis, one writer (lock, journal) and one
 * search index per wiki. Creating it runs start-up recovery for every wiki.
 */
export class WikiRuntime {
  readonly wikis: WikiSet;
  private readonly writers = new Map<Wiki, WikiWriter>();
  private readonly indexes = new Map<Wiki, SearchIndex>();
  /** Byte budget of one response (see {@link WikiOptions.maxOutputBytes}). */
  readonly maxOutputBytes: number;

  constructor(options: WikiOptions) {
    this.maxOutputBytes = checkOutputBytes(options.maxOutputBytes);
    this.wikis = new WikiSet(options);
    for (const wiki of this.wikis.all()) {
      const writer = new WikiWriter(wiki);
      writer.recoverAtStart();
      this.writers.set(wiki, writer);
      this.indexes.set(wiki, new SearchIndex(wiki));
    }
  }

  /** The wiki with this id, after finishing any batch a crash left behind. */
  async open(id: string): Promise<Wiki> {
    const wiki = this.wikis.get(id);
    await this.writer(wiki).ensureRecovered();
    return wiki;
  }

  writer(wiki: Wiki): WikiWriter {
    return this.writers.get(wiki)!;
  }

  index(wiki: Wiki): SearchIndex {
    return this.indexes.get(wiki)!;
  }
}
