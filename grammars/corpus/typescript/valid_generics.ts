export type Result<T, E = Error> = { ok: true; value: T } | { ok: false; error: E };

export function tryParse<T>(text: string, guard: (v: unknown) => v is T): Result<T> {
  try {
    const value: unknown = JSON.parse(text);
    return guard(value) ? { ok: true, value } : { ok: false, error: new Error("shape") };
  } catch (e) {
    return { ok: false, error: e as Error };
  }
}

export enum Level {
  Debug = 0,
  Info,
  Warn,
}

type Keys<T> = { [K in keyof T]: T[K] extends Function ? never : K }[keyof T];

export abstract class Repo<T extends { id: string }> {
  protected abstract load(id: string): Promise<T | undefined>;

  async get(id: string): Promise<T> {
    const found = await this.load(id);
    if (!found) throw new Error(`missing ${id}`);
    return found;
  }
}

export const isString = (v: unknown): v is string => typeof v === "string";
declare module "./config" {
  interface Config { level?: Level }
}
