// Validates Kubernetes manifests against the Kubernetes API schemas with the kubernetes-models package (ESM only,
// hence a child process): `node test/helpers/k8s-validate.mjs FILE...`. Prints one JSON line per document:
// { file, kind, name, ok, error? }. Exit 0 when every document is valid, 1 otherwise.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

/** The model class of an apiVersion and kind, from the package's group/version module. */
async function modelOf(apiVersion, kind) {
  // `v1` (the core group) and `group/version` are both module paths of the package.
  const mod = await import(`kubernetes-models/${apiVersion}`).catch(() => null);
  return mod?.[kind] ?? null;
}

let failed = false;
for (const file of process.argv.slice(2)) {
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    if (doc.errors.length > 0) {
      failed = true;
      console.log(JSON.stringify({ file, ok: false, error: doc.errors.map((e) => e.message).join('; ') }));
      continue;
    }
    const data = doc.toJS();
    if (data === null) continue;
    const Model = await modelOf(String(data.apiVersion), String(data.kind));
    const line = { file, kind: data.kind, name: data.metadata?.name ?? null, ok: true };
    if (!Model) Object.assign(line, { ok: false, error: `no model for ${data.apiVersion} ${data.kind}` });
    else {
      try {
        new Model(data).validate();
      } catch (err) {
        Object.assign(line, { ok: false, error: err.message });
      }
    }
    if (!line.ok) failed = true;
    console.log(JSON.stringify(line));
  }
}
process.exit(failed ? 1 : 0);
