// Validates an OpenAPI document file against the official OpenAPI 3.0 JSON
// schema with @seriousme/openapi-schema-validator (scripts/lib.sh installs it
// into GNOMON_TOOLS_DIR, default ~/.cache/gnomon-tools).
//
//   node tests/support/validate_openapi.mjs openapi.json
//
// Exits 0 if the document is a valid OpenAPI 3.0 document, 1 with the errors
// otherwise, 2 if the validator cannot be loaded.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const file = process.argv[2];
if (!file) {
  console.error("usage: node validate_openapi.mjs FILE");
  process.exit(2);
}
const toolsDir = process.env.GNOMON_TOOLS_DIR || join(homedir(), ".cache", "gnomon-tools");
// An absolute path: the package is not next to this script, and ES module
// imports ignore NODE_PATH.
const entry = join(toolsDir, "node_modules", "@seriousme", "openapi-schema-validator", "index.js");
if (!existsSync(entry)) {
  console.error(`${entry} not found: run scripts/test (or install_k8s_tools from scripts/lib.sh)`);
  process.exit(2);
}
const { Validator } = await import(pathToFileURL(entry).href);

const validator = new Validator();
const result = await validator.validate(file);
if (!result.valid) {
  console.error(`${file}: not a valid OpenAPI document:`);
  console.error(JSON.stringify(result.errors, null, 2));
  process.exit(1);
}
if (validator.version !== "3.0") {
  console.error(`${file}: valid, but OpenAPI ${validator.version}, not 3.0`);
  process.exit(1);
}
console.log(`${file}: valid OpenAPI ${validator.version}`);
