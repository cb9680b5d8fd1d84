export { createRng, realisticDocument, tortureDocument } from './lib/corpus.js';
