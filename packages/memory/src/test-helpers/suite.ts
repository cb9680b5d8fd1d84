import { describe } from 'vitest';
import { championTests } from './suite-champions.js';
import { formsTests } from './suite-forms.js';
import { hardeningTests, hardeningToolTests } from './suite-hardening.js';
import { memoriaTests } from './suite-memoria.js';
import { storeTests } from './suite-store.js';
import { toolTests } from './suite-tools.js';
import { watchTests } from './suite-watch.js';
import type { BackendUnderTest } from './target.js';

// In a file of its own so that the suite's parts can take it without importing the suite.
export type { BackendUnderTest } from './target.js';

/**
 * Every backend-independent test of `@lectern/memory` — the store API, the native tools over
 * MCP, the memoria preset, word forms — against one backend. A backend's test file calls it
 * once, then adds the tests only that backend needs (its storage, recovery, concurrency).
 */
export function memoryBackendSuite(target: BackendUnderTest): void {
  describe(`memory store on ${target.name}`, () => storeTests(target));
  describe(`memory tools on ${target.name}`, () => toolTests(target));
  describe(`memoria preset on ${target.name}`, () => memoriaTests(target));
  describe(`word forms on ${target.name}`, () => formsTests(target));
  describe(`very common terms on ${target.name}`, () => championTests(target));
  describe(`watched notes on ${target.name}`, () => watchTests(target));
  describe(`hardening on ${target.name}`, () => hardeningTests(target));
  describe(`hardening tools on ${target.name}`, () => hardeningToolTests(target));
}
