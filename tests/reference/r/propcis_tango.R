# Tango's (1998) score interval for a paired difference of proportions: the figures of
# tests/engine/stats/test_intervals.py::test_tango_matches_propcis.
#
# Ran under: R 4 (minor version not recorded), PropCIs 0.3 (scoreci.mp; its source read and
# run). Not re-run in this repository's environment: R is not installed here and CRAN is not
# reachable. tests/reference/rederive_r_figures.py solves Tango's score equation with scipy.
#
# scoreci.mp(b, c, n) gives the interval of (c - b)/n; the test shows it negated and swapped,
# the interval of (b - c)/n. Its bisection stops at a step of 1e-7.
#
# Run: Rscript tests/reference/r/propcis_tango.R
library(PropCIs)  # 0.3
cat(R.version.string, "; PropCIs", format(packageVersion("PropCIs")), "\n")
cases <- list(c(12, 2, 50), c(0, 0, 54), c(30, 0, 30), c(1, 7, 40), c(0, 0, 1), c(1, 0, 1),
              c(5, 3, 20))
for (k in cases) {
  ci <- scoreci.mp(k[1], k[2], k[3], 0.95)$conf.int
  cat(sprintf("b=%d c=%d n=%d  (b - c)/n in [%.7f, %.7f]\n", k[1], k[2], k[3], -ci[2], -ci[1]))
}
