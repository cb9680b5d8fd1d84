// The entry file is package.ts, as in every package. This re-export only keeps the harness
// preset's import working while the preset is rewritten on another branch; delete it once that
// branch imports from './package.js'.
export { type LinesOptions, linesContext, lineTools } from './package.js';
