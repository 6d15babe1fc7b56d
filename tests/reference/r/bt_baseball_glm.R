# Bradley-Terry on Agresti's baseball table: the figures of
# tests/engine/ranking/test_bt_convergence.py::test_agresti_baseball_table_10_11.
#
# Ran under: R 4.x (the test records the major version only), BradleyTerry2's
# data/baseball.RData for the table (printed, then copied into the test by hand), stats::glm.
# This file writes out the one-line fit the test records,
# glm(cbind(home.wins, away.wins) ~ X[, -1] - 1, family = binomial); it has not been re-run
# here: R is not installed in this environment and CRAN is not reachable.
# tests/reference/rederive_r_figures.py refits the same model with statsmodels.
#
# Run: Rscript tests/reference/r/bt_baseball_glm.R
library(BradleyTerry2)
cat(R.version.string, "; BradleyTerry2", format(packageVersion("BradleyTerry2")), "\n")
data(baseball, package = "BradleyTerry2")
print(baseball)  # (home.team, away.team, home.wins, away.wins): the test's BASEBALL rows

# X: +1 for the home team, -1 for the away team; Baltimore first, so X[, -1] drops it
# (its ability fixed at 0, as in Agresti's Table 10.11)
teams <- c("Baltimore", "Milwaukee", "Detroit", "Toronto", "New York", "Boston", "Cleveland")
X <- matrix(0, nrow(baseball), length(teams), dimnames = list(NULL, teams))
for (i in seq_len(nrow(baseball))) {
  X[i, as.character(baseball$home.team[i])] <- 1
  X[i, as.character(baseball$away.team[i])] <- -1
}
fit <- glm(cbind(home.wins, away.wins) ~ X[, -1] - 1, data = baseball, family = binomial)
# 1.5813558767 1.4364084318 1.2944851239 1.2476178451 1.1076977054 0.6838527692
print(coef(fit), digits = 11)
