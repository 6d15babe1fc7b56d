# Rank intervals by Tukey's method: the figures of
# tests/engine/ranking/test_rank_intervals.py (three test_icranks_tukey_* tests).
#
# Ran under: R 4.2.2, ICRanks 3.1 (CRAN; Al Mohamad, van Zwet & Goeman), its R/ic.ranks.R
# sourced, multcomp 1.4-22 (the package's own dependency for the Tukey quantile).
# Not re-run in this repository's environment: R is not installed here and CRAN is not
# reachable. tests/reference/rederive_r_figures.py re-derives the same figures with scipy.
#
# Run: Rscript tests/reference/r/ic_ranks_tukey.R
library(ICRanks)   # 3.1
library(multcomp)  # 1.4-22
cat(R.version.string, "; ICRanks", format(packageVersion("ICRanks")),
    "; multcomp", format(packageVersion("multcomp")), "\n")

# The example of man/ic.ranks.Rd draws y with rnorm and no seed; the test fixes the draw.
y <- c(0.82, 2.31, 2.64, 4.37, 4.96)

# 1. equal sigma: critical value 2.727774383; $Lower 1 1 1 3 4, $Upper 3 3 4 5 5
print(qtukey(0.95, 5, Inf) / sqrt(2), digits = 10)
print(ic.ranks(y, rep(0.5, 5), Method = "Tukey", alpha = 0.05))

# 2. unequal sigma (Monte Carlo critical value ~2.710584794): $Lower 1 1 2 2 4, $Upper 2 4 4 5 5
set.seed(16021988)
print(ic.ranks(y, c(0.3, 0.6, 0.4, 0.8, 0.5), Method = "Tukey", alpha = 0.05,
               control = list(N = 2e5)))

# 3. ten centres, alpha = 0.2: critical value 2.637706411;
#    $Lower 1 1 1 1 1 2 2 6 6 8, $Upper 5 7 7 7 7 9 9 10 10 10
y3 <- c(-1.9, -0.4, 0.3, 0.9, 1.0, 2.2, 3.1, 4.8, 5.0, 7.4)
print(qtukey(0.8, 10, Inf) / sqrt(2), digits = 10)
print(ic.ranks(y3, rep(1, 10), Method = "Tukey", alpha = 0.2))
