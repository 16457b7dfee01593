type TypedArray = Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

interface TypedArrayConstructor<T extends TypedArray> {
  new (length: number): T;
}

/**
 * A growable typed-array column. `data` may be longer than the table; only the
 * first `length` entries (tracked by the owning table) are meaningful. Engines
 * read and the table writes `data` directly in their hot loops.
 */
export class Column<T extends TypedArray> {
  data: T;

  constructor(
    private readonly Ctor: TypedArrayConstructor<T>,
    capacity: number,
  ) {
    this.data = new Ctor(Math.max(16, capacity));
  }

  /** Makes room for at least `minimum` entries, doubling to keep appends amortized O(1). */
  grow(minimum: number): void {
    if (minimum <= this.data.length) return;
    const next = new this.Ctor(Math.max(minimum, this.data.length * 2));
    next.set(this.data as never);
    this.data = next;
  }
}
