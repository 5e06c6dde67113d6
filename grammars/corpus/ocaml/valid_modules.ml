module type ORDERED = sig
  type t
  val compare : t -> t -> int
end

module MakeSet (O : ORDERED) = struct
  type elt = O.t
  type t = elt list

  let empty : t = []

  let rec add x = function
    | [] -> [ x ]
    | y :: ys as l ->
        let c = O.compare x y in
        if c = 0 then l else if c < 0 then x :: l else y :: add x ys
end

module IntSet = MakeSet (Int)

let rec fib n = if n < 2 then n else fib (n - 1) + fib (n - 2)
let squares = Array.init 5 (fun i -> i * i)
