export {
  createRng,
  PATHOLOGICAL_KINDS,
  type PathologicalKind,
  pathologicalDocument,
  realisticDocument,
  tortureDocument,
} from './lib/corpus.js';
