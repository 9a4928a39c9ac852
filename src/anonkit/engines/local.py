"""The local engine: pandas and numpy in this process (the default :class:`~anonkit.engines.Engine`)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from anonkit.release import Release
from anonkit.schema import Schema
from anonkit.table import MissingPolicy, PersonQIPolicy, Table
from anonkit.verifier import Verification, verify


class LocalEngine:
    """Encode with :class:`~anonkit.table.Table`, publish with :meth:`Release.to_frame`, verify with
    :func:`anonkit.verifier.verify`."""

    name = "local"

    def encode(self, data: pd.DataFrame, schema: Schema, *, missing: MissingPolicy = "value",
               strip: bool = True, person_qi: PersonQIPolicy = "error") -> Table:
        return Table(data, schema, missing=missing, strip=strip, person_qi=person_qi)

    def refuse(self, spec: Any, options: dict[str, Any]) -> None:
        """Every algorithm runs locally."""

    def publish(self, release: Release, *, suppressed: str = "drop", seed: int = 0) -> pd.DataFrame:
        return release.to_frame(suppressed=suppressed, seed=seed)  # type: ignore[arg-type]

    def verify(self, published: pd.DataFrame, schema: Schema, models: list, **link: Any) -> Verification:
        return verify(published, schema, models, **link)
