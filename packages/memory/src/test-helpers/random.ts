/** A seeded generator of numbers in [0, 1) (a linear congruential one): the same seed, the same run. */
export function seededRandom(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

/** Words `${prefix}${k}` drawn with `k` skewed to the small ones (`random() ** power`), joined. */
export function skewedWords(
  random: () => number,
  vocabulary: number,
  power = 2,
  prefix = 'w',
): (n: number) => string {
  const word = () => `${prefix}${Math.floor(vocabulary * random() ** power)}`;
  return (n) => Array.from({ length: n }, word).join(' ');
}
