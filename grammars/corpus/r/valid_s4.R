setClass("Person", representation(name = "character", age = "numeric"))

setGeneric("greet", function(obj, ...) standardGeneric("greet"))

setMethod("greet", "Person", function(obj, ...) {
  cat("Hello,", obj@name, "\n")
  invisible(obj)
})

p <- new("Person", name = "Ada", age = 36)
greet(p)

counter <- local({
  n <- 0
  function() {
    n <<- n + 1
    n
  }
})
while (counter() < 3) NULL
m <- matrix(1:6, nrow = 2)
print(t(m) %*% m)
