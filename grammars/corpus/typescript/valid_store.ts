import { EventEmitter } from "node:events";

export interface Todo {
  id: number;
  title: string;
  done?: boolean;
}

type Filter = "all" | "open" | "done";

export class TodoStore extends EventEmitter {
  private items = new Map<number, Todo>();
  #nextId = 1;

  add(title: string): Todo {
    const todo: Todo = { id: this.#nextId++, title, done: false };
    this.items.set(todo.id, todo);
    this.emit("change", todo);
    return todo;
  }

  list(filter: Filter = "all"): readonly Todo[] {
    const all = [...this.items.values()];
    switch (filter) {
      case "open":
        return all.filter((t) => !t.done);
      case "done":
        return all.filter((t) => t.done === true);
      default:
        return all;
    }
  }
}
