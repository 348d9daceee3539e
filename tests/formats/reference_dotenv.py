"""python-dotenv, run in its own venv by tests/formats/test_differential.py: one process per batch.

stdin: a JSON list of file paths. stdout: per file {"values": what ``dotenv_values`` gives (without
interpolation; names without a value left out, as ``load_dotenv`` leaves them unset), "errors": the
lines python-dotenv warns it cannot parse}. The files are read as the library reads them (its own
``open``, universal newlines).
"""

import json
import sys

import dotenv
from dotenv.parser import parse_stream

out = []
for path in json.load(sys.stdin):
    with open(path, encoding="utf-8") as stream:
        errors = [binding.original.line for binding in parse_stream(stream) if binding.error]
    values = dotenv.dotenv_values(path, interpolate=False)
    out.append({"values": {k: v for k, v in values.items() if v is not None}, "errors": errors})
json.dump(out, sys.stdout)
