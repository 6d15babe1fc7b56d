"""sigboard's engine: every computation behind the leaderboard (no UI imports here)."""

from ._contract import KEY_COLUMNS, REQUIRED_COLUMNS, DataContractError, Problem, validate_long
from ._matrix import ScoreMatrix, build_matrix, orient

__all__ = [
    "KEY_COLUMNS",
    "REQUIRED_COLUMNS",
    "DataContractError",
    "Problem",
    "ScoreMatrix",
    "build_matrix",
    "orient",
    "validate_long",
]
