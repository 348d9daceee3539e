// The clients' own readers, for tests/formats/test_differential.py: one process reads a whole batch.
// stdin: {"prefix": npm prefix, "docs": [{"kind": "jsonc" | "dotenv", "text": ...}, ...]}
// stdout: one result per document, in order:
//   jsonc:  {"value": ..., "errors": [jsonc-parser error codes]}  (VS Code's parse, trailing commas allowed)
//   dotenv: {"value": {...}}                                       (npm dotenv's parse)
"use strict";
const fs = require("fs");
const path = require("path");

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const jsonc = require(path.join(input.prefix, "node_modules", "jsonc-parser"));
const dotenv = require(path.join(input.prefix, "node_modules", "dotenv"));

const out = input.docs.map((doc) => {
  if (doc.kind === "jsonc") {
    const errors = [];
    const value = jsonc.parse(doc.text, errors, { allowTrailingComma: true, disallowComments: false });
    return { value: value === undefined ? null : value, errors: errors.map((e) => jsonc.printParseErrorCode(e.error)) };
  }
  return { value: dotenv.parse(Buffer.from(doc.text, "utf8")) };
});
process.stdout.write(JSON.stringify(out));
