type 'a t = { mutable items : 'a list; mutable size : int }

exception Empty

let create () = { items = []; size = 0 }

let push s x =
  s.items <- x :: s.items;
  s.size <- s.size + 1

let pop s =
  match s.items with
  | [] -> raise Empty
  | x :: rest ->
      s.items <- rest;
      s.size <- s.size - 1;
      x

let to_list s = List.rev s.items
