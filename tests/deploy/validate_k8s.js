// Validates Kubernetes objects against the API schemas of kubernetes-models.
// Usage: NODE_PATH=<dir with node_modules> node validate_k8s.js FILE.json...
// Each FILE holds a JSON array of objects. Prints one line per object and
// exits 1 if any object is invalid or of a kind it does not know.
"use strict";
const fs = require("fs");

let failed = 0;
let checked = 0;
for (const file of process.argv.slice(2)) {
  for (const obj of JSON.parse(fs.readFileSync(file, "utf8"))) {
    const name = `${file}: ${obj.apiVersion} ${obj.kind} ${obj.metadata && obj.metadata.name}`;
    const [group, version] = obj.apiVersion.includes("/") ? obj.apiVersion.split("/") : [null, obj.apiVersion];
    // prometheus-operator's kinds (ServiceMonitor, PodMonitor, PrometheusRule)
    // and cert-manager's (Certificate) come from their own packages.
    const crdPackages = {
      "monitoring.coreos.com": "@kubernetes-models/prometheus-operator",
      "cert-manager.io": "@kubernetes-models/cert-manager",
    };
    const pkg = crdPackages[group] || "kubernetes-models";
    const modulePath = group ? `${pkg}/${group}/${version}/${obj.kind}` : `${pkg}/${version}/${obj.kind}`;
    let Model;
    try {
      Model = require(modulePath)[obj.kind];
    } catch (e) {
      console.log(`FAIL ${name}: no schema (${modulePath})`);
      failed++;
      continue;
    }
    try {
      new Model(obj).validate();
      checked++;
    } catch (e) {
      console.log(`FAIL ${name}: ${e.message}`);
      failed++;
    }
  }
}
console.log(`kubernetes-models: ${checked} objects valid, ${failed} invalid`);
process.exit(failed ? 1 : 0);
