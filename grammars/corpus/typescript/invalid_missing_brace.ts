export function f(x: number): number {
  if (x > 1) {
    return x * 2;
  
