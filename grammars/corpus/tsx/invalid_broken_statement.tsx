export function f(x: number) {
  const y = x * ;
  return <p>{y}</p>;
}
