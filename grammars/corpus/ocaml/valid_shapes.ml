type shape =
  | Circle of float
  | Rect of { w : float; h : float }

let area = function
  | Circle r -> Float.pi *. r *. r
  | Rect { w; h } -> w *. h

module StringMap = Map.Make (String)

let count words =
  List.fold_left
    (fun acc w ->
      let n = try StringMap.find w acc with Not_found -> 0 in
      StringMap.add w (n + 1) acc)
    StringMap.empty words

let () =
  let shapes = [ Circle 1.0; Rect { w = 2.0; h = 3.0 } ] in
  List.iter (fun s -> Printf.printf "%.2f\n" (area s)) shapes
