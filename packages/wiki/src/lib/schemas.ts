import { z } from 'zod';

/** The `wiki` parameter every tool takes. */
/** The wiki preset's description of the wiki parameter (its snapshot pins it). */
export const SEED_WIKI_PARAM = 'Wiki id from list_wikis, e.g. "main".';

export const wikiParam = z.string().min(1).max(64).describe('Wiki id from list_wikis.');

/** A page version: SHA-256 of the page bytes, 64 hex characters. */
export const versionSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'a version is 64 hexadecimal characters (SHA-256)');

/** Paging: offset into the full result list. */
export const offsetParam = z
  .number()
  .int()
  .min(0)
  .max(1_000_000)
  .default(0)
  .describe('Pass next_offset.');
