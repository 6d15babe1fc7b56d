"""Methods: the references cited on the page.

Markdown, one constant per section (joined in order by :data:`app.components.methods.SECTIONS`).
"""

REFERENCES = r"""
### References
- Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation and
  visualization of LLM system predictive performance. arXiv:2501.18243 — tests (Table 1),
  comparison sets,
  Holm–Šídák, connected graph, cliques, heatmaps, PWPP.
- S. Holm (1979). A simple sequentially rejective multiple test procedure. *Scand. J. Statist.*
  6, 65–70; Z. Šidák (1967), *JASA* 62, 626–633.
- Q. McNemar (1947). Note on the sampling error of the difference between correlated
  proportions. *Psychometrika* 12, 153–157.
- B. L. Welch (1947). The generalization of "Student's" problem. *Biometrika* 34, 28–35.
- J. Cohen (1988). *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed.
- S. Sawilowsky (2009). New effect size rules of thumb. *JMASM* 8(2), 597–599.
- Y. Benjamini, Y. Hochberg (1995). Controlling the false discovery rate. *JRSS B* 57, 289–300.
- E. B. Wilson (1927). Probable inference… *JASA* 22, 209–212.
- R. A. Bradley, M. E. Terry (1952). Rank analysis of incomplete block designs. *Biometrika* 39.
- M. Peyrard et al. (2021). Better than average: paired evaluation of NLP systems. *ACL*.
- R. V. Lenth (2024). emmeans: estimated marginal means (the `pwpp` plot). R package.
- S. I. Wang et al. (2024). Eval-Arena: noise and errors by leaderboard showdowns.
- D. Al Mohamad, J. Goeman, E. van Zwet (2022). Simultaneous confidence intervals for ranks.
- B. Efron, R. J. Tibshirani (1993). *An Introduction to the Bootstrap*. Chapman & Hall.
- D. J. Wilson (2019). The harmonic mean p-value for combining dependent tests. *PNAS* 116(4),
  1195–1200.
- J. Demšar (2006). Statistical comparisons of classifiers over multiple data sets. *JMLR* 7,
  1–30.
- M. Borenstein, L. V. Hedges, J. P. T. Higgins, H. R. Rothstein (2009). *Introduction to
  Meta-Analysis*. Wiley.
- J. W. Tukey (1977). *Exploratory Data Analysis* (boxplots). Addison-Wesley.
- T. Tango (1998). Equivalence test and confidence interval for the difference in proportions
  for the paired-sample design. *Stat. Med.* 17, 891–908.
- M. W. Fagerland, S. Lydersen, P. Laake (2013). The McNemar test for binary matched-pairs
  data: mid-p and asymptotic are better than exact conditional. *BMC Med. Res. Methodol.* 13:91.
- R. M. Bell, D. F. McCaffrey (2002). Bias reduction in standard errors for linear regression
  with multi-stage samples. *Survey Methodology* 28(2), 169–181.
- J. E. Pustejovsky, E. Tipton (2018). Small-sample methods for cluster-robust variance
  estimation and hypothesis testing in fixed effects models. *JBES* 36(4), 672–683.
- E. Miller (2024). Adding error bars to evals: a statistical approach to language model
  evaluations. arXiv:2411.00640.
- W. G. Cochran (1977). *Sampling Techniques*, 3rd ed., §2.15. Wiley.
- P. Hall (1988). Theoretical comparison of bootstrap confidence intervals. *Ann. Statist.*
  16, 927–953.
- I. Waudby-Smith, A. Ramdas (2024). Estimating means of bounded random variables by betting.
  *JRSS B* 86(1), 1–27.
- S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon (2021). Time-uniform, nonparametric,
  nonasymptotic confidence sequences. *Annals of Statistics* 49(2), 1055–1080.
- R. Wang, A. Ramdas (2022). False discovery rate control with e-values. *JRSS B* 84(3),
  822–852.
- A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan, T. Zrnic (2023).
  Prediction-powered inference. *Science* 382(6671), 669–674.
- A. N. Angelopoulos, J. C. Duchi, T. Zrnic (2023). PPI++: Efficient prediction-powered
  inference. arXiv:2311.01453.
- T. Zrnic, E. J. Candès (2024). Active statistical inference. *ICML*.
- P. Boyeau, A. N. Angelopoulos, N. Yosef, J. Malik, M. I. Jordan (2024). AutoEval done
  right: using synthetic data for model evaluation. arXiv:2403.07008.
- D. G. Horvitz, D. J. Thompson (1952). A generalization of sampling without replacement
  from a finite universe. *JASA* 47, 663–685.
- F. E. Satterthwaite (1946). An approximate distribution of estimates of variance
  components. *Biometrics Bulletin* 2(6), 110–114.
"""
