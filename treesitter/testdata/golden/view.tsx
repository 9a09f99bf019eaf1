import React, { useState } from "react";

/** Props of Counter. */
export interface CounterProps {
  start: number;
  label?: string;
}

/** Counter shows a number and a button. Clicking adds one. */
export function Counter({ start, label }: CounterProps) {
  const [n, setN] = useState(start);
  const onClick = () => {
    setN(n + 1);
    console.log("clicked", n);
  };
  return (
    <button onClick={onClick}>
      {label ?? "count"}: {n}
    </button>
  );
}

export const Small = () => <span>small</span>;
