import React, { useState } from "react";

interface Props {
  initial?: number;
  label: string;
}

export function Counter({ initial = 0, label }: Props): JSX.Element {
  const [count, setCount] = useState<number>(initial);
  return (
    <div className="counter">
      <span>{label}: {count}</span>
      <button onClick={() => setCount((c) => c + 1)} disabled={count >= 10}>
        +1
      </button>
    </div>
  );
}
