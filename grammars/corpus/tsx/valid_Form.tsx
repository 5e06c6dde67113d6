import { useCallback, useRef } from "react";

export function Form(props: { onSubmit: (value: string) => Promise<void> }) {
  const input = useRef<HTMLInputElement>(null);
  const submit = useCallback(
    async (e: React.FormEvent<HTMLFormElement>) => {
      e.preventDefault();
      const value = input.current?.value ?? "";
      if (value.trim() !== "") await props.onSubmit(value);
    },
    [props],
  );
  return (
    <form onSubmit={submit}>
      <label htmlFor="name">Name</label>
      <input id="name" ref={input} type="text" />
      <button type="submit">Send</button>
    </form>
  );
}
