#' Safe division
safe_div <- function(a, b) {
  if (b == 0) {
    warning("division by zero")
    return(NA_real_)
  } else if (is.na(b)) {
    return(NA)
  }
  a / b
}

squares <- vapply(1:5, function(x) x^2, numeric(1))
evens <- Filter(\(x) x %% 2 == 0, 1:10)
lst <- list(a = 1, b = "two", c = list(d = TRUE))
lst[["c"]]$d <- FALSE

res <- tryCatch(
  stop("boom"),
  error = function(e) conditionMessage(e),
  finally = message("done")
)
x <- 1:3 |> rev()
repeat {
  break
}
