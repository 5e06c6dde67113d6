export function Broken() {
  return (
    <div>
      <span>hello</span>
  );
}
