/** Interns strings as small integers, so columns can store ids instead of strings. */
export class Dictionary {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();

  /** The id of `value`, assigning the next one when it is new. */
  intern(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }

  /** The id of `value`, or undefined when it was never interned. */
  lookup(value: string): number | undefined {
    return this.ids.get(value);
  }

  get size(): number {
    return this.values.length;
  }
}
