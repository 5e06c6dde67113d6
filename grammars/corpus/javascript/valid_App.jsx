import { useEffect, useState } from "react";

export default function App({ url }) {
  const [data, setData] = useState(null);
  useEffect(() => {
    let cancelled = false;
    fetch(url)
      .then((r) => r.json())
      .then((json) => !cancelled && setData(json));
    return () => {
      cancelled = true;
    };
  }, [url]);
  if (!data) return <p>Loading…</p>;
  const { items = [], ...rest } = data;
  return (
    <main title={rest.title}>
      {items.map((it) => (
        <article key={it.id}>{it.name}</article>
      ))}
    </main>
  );
}
