// Deterministic randomness for the demo data. Nothing here reads the clock or Math.random: every
// value is a function of the seed and of the record's position, so a record can be regenerated on
// its own (each interaction has its own stream) and the ids never depend on how many records follow.

/** 128 bits derived from the user's seed (cyrb128). */
export type SeedKey = readonly [number, number, number, number];

export function seedKey(seed: string | number): SeedKey {
  const text = String(seed);
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** MurmurHash3's finaliser: a bijection on 32-bit integers with good avalanche. */
export function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Independent streams, one per kind of record. */
export const Stream = {
  clinic: 0x1c1,
  campaign: 0xca4,
  interaction: 0x147,
  patient: 0x9a7,
} as const;

/** sfc32: small, fast, 128-bit state; reseeded in place so the hot loop allocates nothing. */
export class Rng {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  constructor(
    private readonly key: SeedKey,
    stream = 0,
    i = 0,
    j = 0,
  ) {
    this.reseed(stream, i, j);
  }

  /** Positions the generator at record (i, j) of `stream`. */
  reseed(stream: number, i: number, j = 0): this {
    const [k0, k1, k2, k3] = this.key;
    this.a = fmix32(k0 ^ fmix32(stream + Math.imul(j, 0x9e3779b1)));
    this.b = fmix32((k1 + i) | 0);
    this.c = fmix32(k2 ^ fmix32((i ^ Math.imul(stream, 0x85ebca77)) + j));
    this.d = (k3 ^ i ^ Math.imul(j, 0x27d4eb2f)) >>> 0;
    for (let n = 0; n < 12; n++) this.u32();
    return this;
  }

  u32(): number {
    const t0 = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    const t = (t0 + this.d) | 0;
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Uniform in [min, max). */
  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  /** Triangular-ish (mean of two uniforms) in [min, max]: values near the middle are likelier. */
  around(min: number, max: number): number {
    return min + ((this.next() + this.next()) / 2) * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Index drawn from cumulative weights (ascending, last = total). */
  weighted(cumulative: readonly number[]): number {
    const target = this.next() * cumulative[cumulative.length - 1]!;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

export function cumulative(weights: readonly number[]): number[] {
  const out: number[] = [];
  let sum = 0;
  for (const w of weights) {
    sum += w;
    out.push(sum);
  }
  return out;
}

function hex8(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/**
 * A version-4-shaped UUID for record `index` of `stream`. Its first 32 bits are a bijection of the
 * index (for a given seed and stream), so ids of one kind never collide within a seed; the other
 * 90 random bits come from the record's own generator (or three words drawn from it) and separate
 * seeds and kinds.
 */
export function recordUuid(key: SeedKey, stream: number, index: number, random: Rng | ArrayLike<number>): string {
  const unique = fmix32(fmix32((index ^ key[0] ^ Math.imul(stream, 0x5bd1e995)) >>> 0) ^ key[1]);
  const words = random instanceof Rng ? [random.u32(), random.u32(), random.u32()] : random;
  const w1 = ((words[0]! & 0xffff0fff) | 0x00004000) >>> 0;
  const w2 = ((words[1]! & 0x3fffffff) | 0x80000000) >>> 0;
  const w3 = words[2]! >>> 0;
  const b = hex8(w1);
  const c = hex8(w2);
  return `${hex8(unique)}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${hex8(w3)}`;
}
