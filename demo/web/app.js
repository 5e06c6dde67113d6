const unused = 1;
export function add(a, b) {
  return a + b;
}
