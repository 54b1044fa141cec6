"""JSON Schemas of every file SpecGuard writes (``python -m specguard schema``)."""

from __future__ import annotations

import json
from pathlib import Path

from specguard.outputs.rows import BatchMeta, BatchRow
from specguard.outputs.results import Manifest, Result
from specguard.model.reader_agent import ModelDemands
from specguard.outputs.verify import VerifyReport

MODELS = {"result.schema.json": Result, "manifest.schema.json": Manifest, "verify-report.schema.json": VerifyReport,
          "batch-row.schema.json": BatchRow, "batch.schema.json": BatchMeta,
          "model-demands.schema.json": ModelDemands}


def schema_texts() -> dict[str, str]:
    return {name: json.dumps(m.model_json_schema(), indent=2, sort_keys=True) + "\n" for name, m in MODELS.items()}


def write_schemas(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in schema_texts().items():
        p = out / name
        tmp = p.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(p)
        paths.append(p)
    return paths
