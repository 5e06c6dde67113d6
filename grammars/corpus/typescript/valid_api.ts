import type { Request, Response } from "express";

const cache: Record<string, { at: number; body: string }> = {};

export async function handler(req: Request, res: Response): Promise<void> {
  const key = req.params["key"] ?? "default";
  const hit = cache[key];
  if (hit && Date.now() - hit.at < 60_000) {
    res.status(200).send(hit.body);
    return;
  }
  const body = await fetch(`https://example.com/${encodeURIComponent(key)}`).then((r) => r.text());
  cache[key] = { at: Date.now(), body };
  res.send(body);
}

export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A): void => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
