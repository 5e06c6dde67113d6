f <- function(x) {
  print(x
}
