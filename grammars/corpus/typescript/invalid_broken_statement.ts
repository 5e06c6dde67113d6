function add(a: number, b: number): number {
  const c = a + ;
  return c;
}
