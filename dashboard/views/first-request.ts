/** The new-key page's first request: curl, and one line each for JavaScript and Python, with the new key. */
import type { Deployment } from '../deployment';
import { html, type Html } from './html';

/** A copyable code block. */
function block(id: string, label: string, code: string): Html {
  return html`<div class="sample">
    <div class="sample-head">
      <span>${label}</span><button type="button" class="small secondary" data-copy-text="#${id}">Copy</button>
    </div>
    <pre><code id="${id}">${code}</code></pre>
  </div>`;
}

/** The first request with `secret` against this deployment's main host (the key is shown on this page anyway). */
export function firstRequest(d: Deployment, secret: string): Html {
  const url = `${d.apiUrl}/v1/reverse?lat=48.8584&lon=2.2945`;
  return html`<section class="first-request" aria-labelledby="first-request-title">
    <h2 id="first-request-title">Your first request</h2>
    ${block('first-curl', 'curl', `curl -H 'X-API-Key: ${secret}' '${url}'`)}
    ${block('first-js', 'JavaScript (Node 18+, browsers)', `await (await fetch('${url}', { headers: { 'X-API-Key': '${secret}' } })).json()`)}
    ${block('first-py', 'Python (requests)', `requests.get('${url}', headers={'X-API-Key': '${secret}'}).json()`)}
    <p class="hint">
      Moving from another provider? The <a href="/guides">migration guides</a> show this service's hosts for
      each.
    </p>
  </section>`;
}
