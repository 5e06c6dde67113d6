library(stats)

summarise_scores <- function(df, group = "team") {
  stopifnot(is.data.frame(df), group %in% names(df))
  out <- aggregate(score ~ get(group), data = df, FUN = mean)
  names(out) <- c(group, "mean_score")
  out[order(-out$mean_score), , drop = FALSE]
}

df <- data.frame(
  team = c("a", "b", "a"),
  score = c(10, 7.5, 8)
)

result <- summarise_scores(df)
for (i in seq_len(nrow(result))) {
  cat(sprintf("%s: %.2f\n", result$team[i], result$mean_score[i]))
}
