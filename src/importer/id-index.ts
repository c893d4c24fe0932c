// The ids seen in a file and the line of each, in typed arrays: well under half the memory of a Map
// of strings (bench/results/2026-11-23-design-measurements.md), and the comparison stays exact.
// Open addressing over a power-of-two table; the ids' UTF-8 bytes live in one growing buffer.

const EMPTY = 0;

function fnv1a(bytes: Buffer, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    hash ^= bytes[i]!;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export class IdIndex {
  /** Length-prefixed (uint32) UTF-8 ids, one after the other. */
  private arena = Buffer.allocUnsafe(1 << 16);
  private used = 0;
  /** Per slot: arena offset + 1 of the id (0: empty), its hash, and its line. */
  private offsets = new Uint32Array(1 << 10);
  private hashes = new Uint32Array(1 << 10);
  private lines = new Uint32Array(1 << 10);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Records `id` at `line` and returns undefined, or returns the line where `id` was recorded first. */
  add(id: string, line: number): number | undefined {
    const length = Buffer.byteLength(id);
    this.reserve(4 + length);
    // Written after the last id; kept only if the id is new.
    const start = this.used;
    this.arena.writeUInt32LE(length, start);
    this.arena.write(id, start + 4);
    const hash = fnv1a(this.arena, start + 4, start + 4 + length);
    const mask = this.offsets.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const offset = this.offsets[slot]!;
      if (offset === EMPTY) {
        this.offsets[slot] = start + 1;
        this.hashes[slot] = hash;
        this.lines[slot] = line;
        this.used += 4 + length;
        this.count++;
        if (this.count * 2 > this.offsets.length) this.grow();
        return undefined;
      }
      if (this.hashes[slot] === hash) {
        const other = offset - 1;
        const otherLength = this.arena.readUInt32LE(other);
        if (otherLength === length && this.arena.compare(this.arena, start + 4, start + 4 + length, other + 4, other + 4 + length) === 0) {
          return this.lines[slot];
        }
      }
    }
  }

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.arena.length) return;
    let size = this.arena.length * 2;
    while (size < this.used + bytes) size *= 2;
    const arena = Buffer.allocUnsafe(size);
    this.arena.copy(arena, 0, 0, this.used);
    this.arena = arena;
  }

  private grow(): void {
    const { offsets, hashes, lines } = this;
    const size = offsets.length * 2;
    this.offsets = new Uint32Array(size);
    this.hashes = new Uint32Array(size);
    this.lines = new Uint32Array(size);
    const mask = size - 1;
    for (let i = 0; i < offsets.length; i++) {
      if (offsets[i] === EMPTY) continue;
      let slot = hashes[i]! & mask;
      while (this.offsets[slot] !== EMPTY) slot = (slot + 1) & mask;
      this.offsets[slot] = offsets[i]!;
      this.hashes[slot] = hashes[i]!;
      this.lines[slot] = lines[i]!;
    }
  }
}
