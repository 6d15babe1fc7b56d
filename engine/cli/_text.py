"""Tables as text for reading: numbers rounded, intervals in brackets, missing values blank.

JSON output never goes through here; it keeps every digit.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["fmt_number", "interval", "table_text"]

#: significant digits of an ordinary number and of a p-value in table output
DIGITS = 4
P_DIGITS = 2


def fmt_number(x: Any, digits: int = DIGITS) -> str:
    """``x`` rounded to ``digits`` significant digits; integers as they are; NaN blank."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    try:
        value = float(x)
    except (TypeError, ValueError):
        return str(x)
    if not math.isfinite(value):
        return "" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}g}"


def interval(low: Any, high: Any) -> str:
    """``[low, high]`` rounded, or blank when either end is missing."""
    lo, hi = fmt_number(low), fmt_number(high)
    return f"[{lo}, {hi}]" if lo and hi else ""


def _is_pvalue(column: str) -> bool:
    return column.startswith(("pvalue", "p_")) or column.endswith("pvalue")


def table_text(table: pd.DataFrame) -> str:
    """``table`` as aligned text, every float column rounded (p-values to 2 significant digits)."""
    import pandas as pd

    shown = pd.DataFrame(index=table.index)
    for column in table.columns:
        values = table[column]
        if pd.api.types.is_bool_dtype(values):
            shown[column] = values.map(fmt_number)
        elif pd.api.types.is_float_dtype(values) or values.dtype == object:
            digits = P_DIGITS if _is_pvalue(str(column)) else DIGITS
            shown[column] = [fmt_number(v, digits) if isinstance(v, int | float) or v is None
                             else str(v) for v in values]
        else:
            shown[column] = values
    with pd.option_context("display.max_rows", None, "display.max_columns", None,
                           "display.width", 250, "display.max_colwidth", 60):
        return shown.to_string(index=False)
