let s = "never closed
let () = print_endline s
