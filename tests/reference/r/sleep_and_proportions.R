# Base R (and multtest) figures of tests/engine/stats/test_pairwise.py and
# tests/engine/stats/test_equivalence.py: the t tests on R's `sleep` data, prop.test, and
# Holm-Sidak adjusted p-values.
#
# The t.test figures are R's documented example output (?t.test, ?sleep); prop.test's and
# multtest's were printed by R 4 (minor version not recorded; multtest from Bioconductor).
# Not re-run in this repository's environment: R is not installed here and CRAN/Bioconductor
# are not reachable. tests/reference/rederive_r_figures.py re-derives each one with scipy.
#
# Run: Rscript tests/reference/r/sleep_and_proportions.R
cat(R.version.string, "\n")

# Welch: t = -1.8608, df = 17.776, p-value = 0.07939
print(t.test(extra ~ group, data = sleep))
# paired: t = -4.0621, df = 9, p-value = 0.002833, mean difference -1.58
print(t.test(sleep$extra[1:10], sleep$extra[11:20], paired = TRUE))
# X-squared = 7.7611, p-value = 0.005338
print(prop.test(c(73, 90), c(86, 93), correct = FALSE))

# Holm-Sidak (step-down Sidak): 0.0099551 0.0178567 0.0237495 0.0276662 0.0296275, 0.2262191 x5
library(multtest)
cat("multtest", format(packageVersion("multtest")), "\n")
p <- c(.001, .002, .003, .004, .005, .05, .06, .07, .08, .09)
print(mt.rawp2adjp(p, "SidakSD")$adjp, digits = 7)
