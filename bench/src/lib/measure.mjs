// Alternating measurement: every subject of a comparison runs once per round, in the same
// order every round (A B A B ...), after warm-up rounds that are not recorded.

/**
 * Times one run. `run` may return a number of milliseconds it measured itself (to leave out
 * set-up such as spawning a process); otherwise its whole duration is taken.
 */
export async function timeRun(run, round) {
  const t0 = performance.now();
  const out = await run(round);
  const wall = performance.now() - t0;
  return typeof out === 'number' ? out : wall;
}

let warmupCap = Number.POSITIVE_INFINITY;

/** Caps every subject's warm-up rounds (smoke mode proves the harness, not the speed). */
export function setWarmupCap(n) {
  warmupCap = n;
}

/**
 * Runs `subjects` (`{ key, run, warmup? }`) for `warmup` unrecorded rounds (a subject's own
 * `warmup` overrides it) and then `rounds` recorded rounds, alternating subjects within each
 * round. Returns `{ [key]: number[] }` of milliseconds, index i being round i.
 */
export async function alternate(subjects, { rounds, warmup = 1 }) {
  const samples = Object.fromEntries(subjects.map((s) => [s.key, []]));
  const warm = (s) => Math.min(warmupCap, s.warmup ?? warmup);
  const maxWarm = Math.max(0, ...subjects.map(warm));
  for (let w = 0; w < maxWarm; w++) {
    for (const s of subjects) if (w < warm(s)) await timeRun(s.run, -1 - w);
  }
  for (let r = 0; r < rounds; r++) {
    for (const s of subjects) samples[s.key].push(await timeRun(s.run, r));
  }
  return samples;
}
