import type { ReactNode } from "react";

type Item = { id: string; text: string };

export const List = <T extends Item>({ items, render }: { items: T[]; render?: (i: T) => ReactNode }) => (
  <ul>
    {items.length === 0 ? (
      <li className="empty">Nothing here</li>
    ) : (
      items.map((item) => <li key={item.id}>{render ? render(item) : item.text}</li>)
    )}
  </ul>
);

export default function Page() {
  const items = [{ id: "1", text: "one" }] as const;
  return (
    <>
      <h1>Items</h1>
      <List items={[...items]} />
    </>
  );
}
