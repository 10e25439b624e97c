/**
 * A small seeded pseudo-random generator, so bootstrap intervals and
 * simulations are repeatable bit for bit across machines and Node versions
 * (Math.random cannot be seeded).
 */

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/**
 * mulberry32 (Tommy Ettinger, 2017; public domain): a 32-bit state
 * generator passing PractRand to 2^32 outputs, plenty for 10^4-10^6 draws.
 */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw by the Box-Muller transform (Box & Muller 1958). */
export function gaussian(random: Random): number {
  const u1 = 1 - random(); // (0, 1]: log(0) is -Infinity
  const u2 = random();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** A uniform integer in [0, n). */
export function randomIndex(random: Random, n: number): number {
  return Math.floor(random() * n);
}
