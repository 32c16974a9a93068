// The API reference page: render the customer API's OpenAPI document with Redoc (served from node_modules).
/* global Redoc */
(function () {
  var el = document.getElementById('reference');
  if (!el || typeof Redoc === 'undefined') return;
  // Redoc's markup misses two WCAG 2.1 A/AA points (axe-core, issue 15 item 7), patched on whatever it renders:
  // menu items carry an aria-label without their visible text (2.5.3 label in name), and scrolling code samples
  // cannot be reached by keyboard (2.1.1).
  function patch() {
    el.querySelectorAll('li[data-item-id][aria-label]').forEach(function (li) {
      li.removeAttribute('aria-label');
    });
    el.querySelectorAll('pre:not([tabindex])').forEach(function (pre) {
      pre.setAttribute('tabindex', '0');
    });
  }
  new MutationObserver(patch).observe(el, { childList: true, subtree: true });
  Redoc.init(el.getAttribute('data-spec'), { hideDownloadButton: false, expandResponses: '200' }, el, patch);
})();
