let f x =
  let y = x + in
  y * 2
