export const pipe = (...fns) => (x) => fns.reduce((acc, fn) => fn(acc), x);

export class LRU {
  #max;
  #map = new Map();

  constructor(max = 100) {
    this.#max = max;
  }

  get(key) {
    if (!this.#map.has(key)) return undefined;
    const value = this.#map.get(key);
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  set(key, value) {
    this.#map.set(key, value);
    if (this.#map.size > this.#max) {
      this.#map.delete(this.#map.keys().next().value);
    }
  }
}

export function* range(start, end, step = 1) {
  for (let i = start; i < end; i += step) yield i;
}

export const sum = (xs) => xs.reduce((a, b) => a + b, 0);
label: for (const x of range(0, 3)) {
  if (x === 1) break label;
}
